// Compat's witnesses for a wide `required`. Each witness fills every other
// required name, so 10,000 names built 10,000 witnesses of 10,000 properties (>120 s, 3.2 GB; JSON
// output past the longest string V8 makes). The search now shares one budget per comparison.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareSchemas } from '../../src/compat/index.js';
import { WITNESS_BUDGET } from '../../src/compat/witness.js';
import { compile } from '../../src/validator/index.js';
import { expectRun, removeTrees, run, tree } from '../helpers/hostile.js';

afterAll(removeTrees);

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `field_${i}`);
const OLD = { type: 'object' };
const wide = (n: number) => ({ type: 'object', required: names(n) });

/** Values in a JSON document (what the search had to build for it). */
function size(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 1;
  return 1 + (Array.isArray(v) ? v : Object.values(v)).reduce<number>((n, x) => n + size(x), 0);
}

// The sizes are past the budget many times over: n witnesses of n - 1 properties would build n²
// values, 16 and 64 times WITNESS_BUDGET (250,000) at 2,000 and 4,000 names, so a search not bounded
// by it fails the assertions on what was built and how many got a witness.
describe('compat: a wide required list (item 4)', () => {
  for (const n of [2_000, 4_000]) {
    it(`${n} newly required names: every change reported, witnesses within the budget, each one checked`, () => {
      const r = compareSchemas(OLD, wide(n));
      expect(r.compatible).toBe(false);
      expect(r.changes).toHaveLength(n);
      expect(r.changes.every((c) => c.rule === 'required-added' && c.breaking)).toBe(true);
      const witnessed = r.changes.filter((c) => c.witness);
      const rest = r.changes.filter((c) => !c.witness);
      // The work done is bounded by the budget, not by n²: the witnesses' total size is within it.
      const built = witnessed.reduce((t, c) => t + size(c.witness!.payload), 0);
      expect(built).toBeLessThanOrEqual(WITNESS_BUDGET);
      expect(witnessed.length).toBeGreaterThan(0);
      expect(witnessed.length).toBeLessThan(n);
      // The first changes (report order) get theirs; every later one says why it has none.
      expect(r.changes.indexOf(rest[0]!)).toBe(witnessed.length);
      expect(rest.every((c) => c.witness === null && c.witnessReason === 'budget')).toBe(true);
      const oldOk = compile(OLD).isValid;
      const newOk = compile(wide(n)).isValid;
      for (const c of witnessed) {
        const p = c.witness!.payload as Record<string, unknown>;
        expect(oldOk(p) && !newOk(p)).toBe(true);
        // Still one break per witness: only its own name is missing.
        expect(Object.hasOwn(p, c.subject as string)).toBe(false);
        expect(Object.keys(p)).toHaveLength(n - 1);
      }
    });
  }

  // Each witness of a removed (or added) property is one small value, but checking it validates a
  // whole document against a schema of n properties: n witnesses cost n² reads (86 s for 20,000 in
  // forward) unless a check is paid for by the schemas' size.
  // At 4,000 properties a check costs 501 units, so at most 500 of the 4,000 witnesses fit the budget.
  it("4,000 properties of an open model: each whole-payload check is paid for by the schema's size", () => {
    const n = 4_000;
    const props = Object.fromEntries(names(n).map((name) => [name, { type: 'string' }]));
    const many = { type: 'object', properties: props };
    const forward = compareSchemas(many, OLD, { level: 'forward' });
    expect(forward.changes).toHaveLength(n);
    expect(forward.changes.every((c) => c.rule === 'property-removed' && c.breaking)).toBe(true);
    const witnessed = forward.changes.filter((c) => c.witness);
    // A check of n + 1 nodes and n properties costs ceil((2n + 2) / 16) units: at most this many fit.
    expect(witnessed.length).toBeGreaterThan(0);
    expect(witnessed.length).toBeLessThanOrEqual(Math.ceil(WITNESS_BUDGET / Math.ceil((2 * n + 2) / 16)));
    expect(forward.changes.filter((c) => !c.witness).every((c) => c.witnessReason === 'budget')).toBe(true);
    // The policy choices' payloads (backward: the same properties added) are paid for alike.
    const backward = compareSchemas(OLD, many);
    expect(backward.changes.every((c) => c.policyChoice === true && !c.breaking)).toBe(true);
    const affected = backward.changes.filter((c) => c.affected).length;
    expect(affected).toBeGreaterThan(0);
    expect(affected).toBeLessThanOrEqual(Math.ceil(WITNESS_BUDGET / Math.ceil((2 * n + 2) / 16)));
  });

  it('an ordinary schema is far inside the budget: every breaking change has its witness', () => {
    const r = compareSchemas(OLD, wide(200));
    expect(r.changes.every((c) => c.witness !== null && c.witness !== undefined)).toBe(true);
  });
});

describe('compat CLI: a wide required list (item 4)', { timeout: 240_000 }, () => {
  const dir = tree({ 'old.json': JSON.stringify(OLD) });
  // Unbounded, 2,000 names would write 2,000 witnesses of 1,999 properties (about 60 MB of JSON),
  // far past the linear bound asserted below.
  for (const n of [2_000, 4_000]) {
    it(`${n} names: text and --format json complete, exit 1, JSON output parses`, async () => {
      writeFileSync(join(dir, `new${n}.json`), JSON.stringify(wide(n)));
      // Hang guards only: 10,000 names ran past 120 s before.
      const text = await run(['compat', 'old.json', `new${n}.json`], { cwd: dir, timeoutMs: 100_000 });
      expectRun(text, 1);
      expect(text.stdout).toMatch(
        new RegExp(`^FAILED: ${n} breaking change\\(s\\) from old\\.json to new${n}\\.json, 0 compatible \\(backward\\)$`, 'm'),
      );
      expect(text.stdout).toMatch(/^ +no witness: the search budget was spent on earlier changes/m);
      const json = await run(['compat', '--format', 'json', 'old.json', `new${n}.json`], { cwd: dir, timeoutMs: 100_000 });
      expectRun(json, 1);
      const doc = JSON.parse(json.stdout);
      expect(doc.summary.breaking).toBe(n);
      expect(doc.changes).toHaveLength(n);
      // Output linear in n: witnesses bounded by the budget, the rest a line each.
      expect(json.stdout.length).toBeLessThan(WITNESS_BUDGET * 40 + n * 400);
    });
  }
});
