import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRegistries, compareSchemas, remedyText, type ComparingLevel, type CompatPolicy } from '../../src/compat/index.js';
import { dayNumber, readManifest, Registry } from '../../src/registry/index.js';
import { compile, isSchemaObject } from '../../src/validator/index.js';
import { removeTempTrees, tempTree } from '../helpers/cli.js';
import { editsArb, rootArb, applyEdits, VALUES, type Schema } from '../helpers/compat-arbitraries.js';

// A URN's lifecycle in the manifest (`deprecated`: since, sunset, replacement, reason) as the
// registry reads it and compat judges a removal by it; the property annotation `deprecated: true`
// never changes a verdict.

afterAll(removeTempTrees);

const A = 'urn:t:orders:placed';
const B = 'urn:t:orders:placed.v2';

const problemsOf = (entries: object[]): Array<{ pointer: string; message: string; fatal: boolean }> =>
  readManifest({ schemas: entries }).issues.map(({ pointer, message, fatal }) => ({ pointer, message, fatal }));

describe('manifest: deprecated', () => {
  it('a valid deprecation is kept, and makes the entry deprecated when it gives no status', () => {
    const dep = { since: '2026-01-31', sunset: '2026-06-30', replacement: B, reason: 'split by region' };
    const read = readManifest({
      schemas: [
        { urn: A, schema: 'a.json', deprecated: dep },
        { urn: B, schema: 'b.json' },
      ],
    });
    expect(read.issues).toEqual([]);
    expect(read.entries[0]).toMatchObject({ urn: A, status: 'deprecated', deprecated: dep });
    expect(read.entries[1]!.status).toBeUndefined();
    // Today's `status: deprecated` alone still means deprecated, with no dates.
    const old = readManifest({ schemas: [{ urn: A, schema: 'a.json', status: 'deprecated' }] });
    expect(old.issues).toEqual([]);
    expect(old.entries[0]).toMatchObject({ status: 'deprecated' });
    expect(old.entries[0]!.deprecated).toBeUndefined();
  });

  it('a day that does not exist, or a value of the wrong shape, makes the manifest unusable', () => {
    expect(problemsOf([{ urn: A, schema: 'a.json', deprecated: { sunset: '2026-02-30' } }])).toEqual([
      {
        pointer: '/schemas/0/deprecated/sunset',
        fatal: true,
        message: 'entry 0: "deprecated.sunset" is "2026-02-30", not a real calendar day; write it as YYYY-MM-DD, e.g. "2026-06-30"',
      },
    ]);
    for (const bad of ['2026-6-30', '30/06/2026', '2026-06-30T00:00:00Z', '2025-13-01', '2023-02-29', '']) {
      expect(problemsOf([{ urn: A, schema: 'a.json', deprecated: { since: bad } }]).map((p) => [p.pointer, p.fatal])).toEqual([
        ['/schemas/0/deprecated/since', true],
      ]);
    }
    expect(problemsOf([{ urn: A, schema: 'a.json', deprecated: true }])[0]).toMatchObject({
      pointer: '/schemas/0/deprecated',
      fatal: true,
    });
    expect(problemsOf([{ urn: A, schema: 'a.json', deprecated: { reason: 7 } }])[0]).toMatchObject({
      pointer: '/schemas/0/deprecated/reason',
      fatal: true,
    });
    // A leap day is a real day.
    expect(problemsOf([{ urn: A, schema: 'a.json', deprecated: { sunset: '2028-02-29' } }])).toEqual([]);
  });

  it('check reports a sunset before since, an unknown key, a contradicting status, and a replacement that is missing, itself, or deprecated', () => {
    const got = problemsOf([
      {
        urn: A,
        schema: 'a.json',
        status: 'active',
        deprecated: { since: '2026-07-01', sunset: '2026-06-30', replacement: 'urn:t:nowhere', raeson: 'x' },
      },
      { urn: B, schema: 'b.json', deprecated: { replacement: B } },
      { urn: 'urn:t:c', schema: 'c.json', deprecated: { replacement: B } },
    ]);
    expect(got.every((p) => !p.fatal)).toBe(true);
    expect(got.map((p) => p.pointer)).toEqual([
      '/schemas/0/deprecated/raeson',
      '/schemas/0/deprecated/sunset',
      '/schemas/0/status',
      '/schemas/0/deprecated/replacement',
      '/schemas/1/deprecated/replacement',
      '/schemas/2/deprecated/replacement',
    ]);
    expect(got[0]!.message).toContain('(did you mean "reason"?)');
    expect(got[1]!.message).toBe(
      'entry 0: "deprecated.sunset" 2026-06-30 is before "deprecated.since" 2026-07-01; a URN\'s sunset comes on or after the day it was deprecated',
    );
    expect(got[3]!.message).toMatch(
      /^entry 0: the replacement "urn:t:nowhere" is not registered in this manifest.*; register it, or name a registered URN$/,
    );
    expect(got[4]!.message).toBe(`entry 1: ${B} names itself as its replacement; name the URN its consumers move to`);
    expect(got[5]!.message).toBe(
      `entry 2: the replacement ${B} is itself deprecated; name the URN its consumers should move to in the end (${B}?)`,
    );
  });

  it('dayNumber reads only real calendar days', () => {
    expect(dayNumber('1970-01-02')).toBe(1);
    expect(dayNumber('2026-12-31')! - dayNumber('2026-01-01')!).toBe(364);
    expect(dayNumber('2026-02-29')).toBeUndefined();
    expect(dayNumber('0000-00-00')).toBeUndefined();
  });
});

/** A registry on disk: the manifest's entries, each schema `{"type":"object"}`. */
function registry(entries: object[]): Registry {
  const files: Record<string, string> = { 'registry.json': JSON.stringify({ schemas: entries }) };
  for (const e of entries as Array<{ schema: string }>) files[e.schema] = '{"type":"object"}';
  return Registry.workingTree(join(tempTree(files), 'registry.json'));
}

describe('compat: a deprecated URN is removed on or after its sunset', () => {
  const dep = { since: '2026-01-31', sunset: '2026-06-30', replacement: B };
  const base = registry([
    { urn: A, schema: 'a.json', deprecated: dep },
    { urn: B, schema: 'b.json' },
  ]);
  const current = registry([{ urn: B, schema: 'b.json' }]);
  const removal = (today: number | undefined) =>
    compareRegistries(base, current, 'backward', today === undefined ? {} : { today }).find((r) => r.urn === A)!;

  it('before the sunset the removal breaks, and the remedy says how many days remain and names the replacement', () => {
    const r = removal(dayNumber('2026-06-01'));
    expect(r).toMatchObject({ status: 'removed', breaking: true, deprecated: true });
    expect(remedyText(r.remedy!)).toBe(
      `keep ${A} registered until its sunset 2026-06-30 (29 days from now), then remove it; its consumers move to ${B}`,
    );
    expect(remedyText(removal(dayNumber('2026-06-29'))!.remedy!)).toContain('(1 day from now)');
  });

  it('on the sunset and after it the removal passes', () => {
    for (const day of ['2026-06-30', '2026-07-01', '2030-01-01']) {
      const r = removal(dayNumber(day));
      expect(r.breaking, day).toBe(false);
      expect(r.remedy).toBeUndefined();
    }
  });

  it('without a known today no sunset has come: the removal breaks', () => {
    const r = removal(undefined);
    expect(r.breaking).toBe(true);
    expect(remedyText(r.remedy!)).toBe(`keep ${A} registered until its sunset 2026-06-30, then remove it; its consumers move to ${B}`);
  });

  it('deprecated without a sunset is removed at once, as `status: deprecated` always was; an active URN never', () => {
    const now = dayNumber('2026-06-01');
    const noSunset = registry([
      { urn: A, schema: 'a.json', deprecated: { since: '2026-01-31' } },
      { urn: B, schema: 'b.json' },
    ]);
    expect(compareRegistries(noSunset, current, 'backward', { today: now }).find((r) => r.urn === A)!.breaking).toBe(false);
    const active = registry([
      { urn: A, schema: 'a.json' },
      { urn: B, schema: 'b.json' },
    ]);
    const r = compareRegistries(active, current, 'backward', { today: now }).find((x) => x.urn === A)!;
    expect(r.breaking).toBe(true);
    expect(r.remedy).toEqual({ kind: 'deprecate', urn: A });
  });
});

// ---------------------------------------------------------------- deprecated: true is an annotation

const RUNS = Number(process.env['BQ_LIFECYCLE_RUNS'] ?? 300);
const SEED = Number(process.env['BQ_LIFECYCLE_SEED'] ?? 20261206);
const quiet = { onWarning: (): void => {} };

/** The schema with `deprecated: true` on the root and every property schema. */
function deprecateAll(schema: Schema): Schema {
  if (!isSchemaObject(schema)) return schema;
  const out: Record<string, unknown> = { ...schema, deprecated: true };
  if (isSchemaObject(schema.properties)) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, deprecateAll(v as Schema)]));
  }
  for (const key of ['items', 'additionalProperties']) if (isSchemaObject(schema[key])) out[key] = deprecateAll(schema[key] as Schema);
  return out;
}

const verdict = (o: Schema, n: Schema, mode: ComparingLevel, policy: CompatPolicy): unknown => {
  const r = compareSchemas(o, n, { level: mode, policy, witnesses: false });
  return {
    compatible: r.compatible,
    breaking: r.changes
      .filter((c) => c.breaking)
      .map((c) => `${c.rule} ${c.path}`)
      .sort(),
  };
};

describe('property-level deprecated: true never changes a verdict', () => {
  it(`validation: every value gets the same answer (${RUNS} schemas, seed ${SEED})`, () => {
    fc.assert(
      fc.property(rootArb, fc.array(fc.constantFrom(...VALUES), { maxLength: 6 }), (schema, extra) => {
        const plain = compile(schema, quiet);
        const marked = compile(deprecateAll(schema), quiet);
        const values = [...VALUES, ...extra, Object.fromEntries(['a', 'b', 'c'].map((k, i) => [k, VALUES[i * 5]]))];
        for (const v of values) expect(marked.isValid(v)).toBe(plain.isValid(v));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it(`compat: marking both sides deprecated gives the verdict the unmarked pair gets, and marking alone breaks nothing (${RUNS} pairs)`, () => {
    fc.assert(
      fc.property(
        rootArb,
        editsArb,
        fc.constantFrom<ComparingLevel>('backward', 'forward', 'full'),
        fc.constantFrom<CompatPolicy>('bqschema', 'confluent'),
        (old, edits, mode, policy) => {
          const changed = applyEdits(old, edits);
          expect(verdict(deprecateAll(old), deprecateAll(changed), mode, policy)).toEqual(verdict(old, changed, mode, policy));
          expect(verdict(old, deprecateAll(old), mode, policy)).toEqual({ compatible: true, breaking: [] });
          expect(verdict(deprecateAll(old), old, mode, policy)).toEqual({ compatible: true, breaking: [] });
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
