// Principle 1: `bqschema compat` and serve's POST /compatibility give one verdict on one pair.
// A posted schema holding a constraint nobody would enforce (a malformed keyword, or an unknown
// one it introduces: a typo such as `requried`) fails compat; serve refuses it 422 (it answered
// is_compatible: true for `requried`, a false green). Checked on the core both use, on the
// built CLI end to end, and at every level.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { comparePair, type CompatLevel } from '../../src/compat/index.js';
import { ApiError } from '../../src/serve/errors.js';
import { judgeCompatibility } from '../../src/serve/judge.js';
import { removeTrees, tree } from '../helpers/hostile.js';
import { BIN, call, ROOT, serve, stop } from '../helpers/serve.js';

afterAll(removeTrees);

const base = { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } };
const PAIRS: Array<[string, unknown, unknown, string[]?]> = [
  ['unchanged', base, base],
  ['a property retyped (breaking)', base, { ...base, properties: { ...base.properties, n: { type: 'string' } } }],
  ['a property added (compatible)', base, { ...base, properties: { ...base.properties, m: { type: 'boolean' } } }],
  ['required added (breaking)', base, { ...base, required: ['id'] }],
  ['`requried` introduced (a typo for required)', base, { ...base, requried: ['id'] }],
  ['`requried` introduced, allowed', base, { ...base, requried: ['id'] }, ['requried']],
  ['`requried` already registered', { ...base, requried: ['id'] }, { ...base, requried: ['id'] }],
  ['`minItem` introduced (no suggestion)', base, { ...base, properties: { ...base.properties, l: { type: 'array', minItem: 1 } } }],
  ['`proprties` introduced inside a property', base, { ...base, properties: { ...base.properties, n: { type: 'object', proprties: {} } } }],
  ['malformed `type: "integr"`', base, { ...base, properties: { ...base.properties, n: { type: 'integr' } } }],
  ['an x- extension', base, { ...base, 'x-owner': 'team' }],
  ['format (known, unsupported)', base, { ...base, properties: { ...base.properties, id: { type: 'string', format: 'uuid' } } }],
  // Open model: breaks backward by policy, forward by data (new producers may send any "n").
  ['a constrained property removed from an open model', base, { ...base, properties: { id: base.properties.id } }],
  ['an empty property removed from an open model', { ...base, properties: { ...base.properties, e: {} } }, base],
];

/** serve's answer: `422` for a refused schema, else the boolean. */
function served(registered: unknown, schema: unknown, mode: 'backward' | 'forward' | 'full' | 'none', allow?: string[]): boolean | number {
  try {
    const body = Buffer.from(JSON.stringify({ schema: JSON.stringify(schema) }));
    return judgeCompatibility({
      registered: JSON.stringify(registered),
      body,
      level: mode,
      policy: 'bqschema',
      verbose: true,
      allowKeywords: allow,
    }).is_compatible;
  } catch (err) {
    if (err instanceof ApiError) return err.status;
    throw err;
  }
}

/** compat's answer in the same terms: its problems are what serve refuses 422. */
function compat(old: unknown, now: unknown, level: CompatLevel, allow?: string[]): boolean | number {
  const r = comparePair(old, now, level, { allowKeywords: new Set(allow ?? []) });
  return r.problems.length > 0 ? 422 : r.compatible;
}

describe('compat and serve /compatibility agree (one core, every level)', () => {
  for (const [what, old, now, allow] of PAIRS) {
    it(what, () => {
      for (const level of ['backward', 'forward', 'full', 'none'] as const) {
        expect({ level, serve: served(old, now, level, allow) }).toEqual({ level, serve: compat(old, now, level, allow) });
      }
    });
  }

  it('the cases cover each answer (so agreement is not vacuous)', () => {
    const answers = new Set(PAIRS.map(([, old, now, allow]) => compat(old, now, 'backward', allow)));
    expect([...answers].sort()).toEqual([422, false, true].sort());
    expect(compat(base, { ...base, requried: ['id'] }, 'backward')).toBe(422);
  });

  it("a constrained property removed from an open model: both say forward-incompatible, and serve's message carries the witness", () => {
    const now = { ...base, properties: { id: base.properties.id } };
    expect(served(base, now, 'forward')).toBe(false);
    const body = Buffer.from(JSON.stringify({ schema: JSON.stringify(now) }));
    const answer = judgeCompatibility({ registered: JSON.stringify(base), body, level: 'forward', policy: 'bqschema', verbose: true });
    expect(answer.messages).toEqual([
      '/properties/n: property "n" removed from an open model: new producers may send any value under it, and the old schema rejects some (property-removed); witness valid under new: {"n":null}',
    ]);
  });
});

describe('end to end: the built CLI', { timeout: 60_000 }, () => {
  it('`requried`: compat exits 1, serve answers 422 with the keyword and its fix; --allow-keyword on both lets it through', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'schemas/a.json', owner: 'team' }] }),
      'schemas/a.json': JSON.stringify(base),
    });
    const typo = join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ ...base, requried: ['id'] }));
    const cli = (extra: string[]) =>
      spawnSync(process.execPath, [BIN, 'compat', join(dir, 'schemas/a.json'), typo, ...extra], { encoding: 'utf8' });
    expect(cli([]).status).toBe(1);
    expect(cli(['--allow-keyword', 'requried']).status).toBe(0);

    const body = JSON.stringify({ schema: JSON.stringify({ ...base, requried: ['id'] }) });
    const path = '/compatibility/subjects/urn%3At%3Aa/versions/latest';
    for (const [args, status] of [
      [[], 422],
      [['--compatibility', 'NONE'], 422],
      [['--allow-keyword', 'requried'], 200],
    ] as const) {
      const s = await serve(['--registry', join(dir, 'registry.json'), ...args]);
      try {
        const r = await call(s.port, 'POST', path, body);
        expect({ args, status: r.status }).toEqual({ args, status });
        if (status === 422) {
          expect(r.body.error_code).toBe(42201);
          expect(r.body.message).toContain('unknown keyword "requried"');
          expect(r.body.message).toContain('did you mean "required"?');
          expect(r.body.message).toContain('--allow-keyword requried');
          // docs/cli/serve.md shows this answer: it is the real one.
          const sample = readFileSync(join(ROOT, 'docs', 'cli', 'serve.md'), 'utf8')
            .split('\n')
            .find((l) => l.startsWith('{"error_code":42201,"message":"Invalid schema: unknown keyword'));
          expect(r.text).toBe(sample);
        } else expect(r.body).toEqual({ is_compatible: true });
      } finally {
        await stop(s);
      }
    }
  });
});
