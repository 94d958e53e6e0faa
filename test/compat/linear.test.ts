import { describe, expect, it } from 'vitest';

import { compareSchemas } from '../../src/compat/index.js';

/*
 * Compat compares enum values by canonical key, so two 100k-entry enums of
 * objects are compared in linear time (pairwise, 10k entries took 6.5 s). These tests prove the
 * answers; the speed is measured by `npm run bench:enum` (a timed assertion here failed CI on a
 * loaded machine). A pairwise regression (10^10 comparisons) would still end at the timeout.
 */

describe('compat on large enums', () => {
  const N = 100_000;
  const item = (i: number) => ({ id: i, tags: [`t${i}`, i % 3], meta: { a: i % 5, b: null } });

  it('two 100k-entry object enums, one value removed and one added, compare exactly', { timeout: 60_000 }, () => {
    const oldEnum = Array.from({ length: N }, (_, i) => item(i));
    // Same values, rebuilt with other key order and -0, minus one, plus one.
    const newEnum = Array.from({ length: N }, (_, i) => {
      const v = item(i === 17 ? N : i);
      return { meta: { b: null, a: v.meta.a === 0 ? -0 : v.meta.a }, tags: v.tags, id: v.id };
    });
    const r = compareSchemas({ enum: oldEnum }, { enum: newEnum });
    expect(r.compatible).toBe(false);
    expect(r.changes.map((c) => `${c.rule} ${c.breaking}`)).toEqual(['enum-value-removed true', 'enum-value-added false']);
    expect(r.changes[0]!.message).toContain('"t17"');
    expect(r.changes[1]!.message).toContain(`"t${N}"`);
  });

  it('identical 100k-entry enums of arrays are compatible with no change', { timeout: 60_000 }, () => {
    const a = Array.from({ length: N }, (_, i) => [i, `v${i}`, [i % 2]]);
    const b = a.map((v) => JSON.parse(JSON.stringify(v)));
    const r = compareSchemas({ enum: a }, { enum: b }, { level: 'full' });
    expect(r).toEqual({ compatible: true, changes: [] });
  });
});
