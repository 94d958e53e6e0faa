import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { compile, jsonEqual } from '../../src/validator/index.js';

/*
 * enum membership for objects and arrays is a canonical-key lookup: linear in
 * the enum's size, and with exactly jsonEqual's answers.
 */

const quiet = { onWarning: () => {} };

describe('enum of objects and arrays', () => {
  const value = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, true, 0, -0, 1, 2.5, Infinity, 'a', 'b', ''),
      fc.array(tie('v'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', '__proto__', 'constructor'), tie('v'), { maxKeys: 3 }),
    ),
  })).v;

  it('agrees with a jsonEqual scan, for enums above and below the inline size', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 20 }), fc.array(value, { maxLength: 10 }), (values, data) => {
        const s = compile({ enum: values }, quiet);
        for (const d of [...data, ...values]) {
          const expected = values.some((x) => jsonEqual(x, d));
          expect(s.isValid(d)).toBe(expected);
          expect(s.validate(d).length === 0).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a large enum matches by value: reordered keys, -0, 1.0, and rejects near misses', () => {
    const values: unknown[] = Array.from({ length: 50 }, (_, i) => ({ id: i, tags: ['t', i], nested: { z: 0, a: null } }));
    values.push(JSON.parse('{"__proto__": {"x": 1}}'), [1, [2, 3]], { constructor: 'c' });
    const s = compile({ enum: values }, quiet);
    expect(s.isValid({ nested: { a: null, z: -0 }, tags: ['t', 7.0], id: 7 })).toBe(true);
    expect(s.isValid(JSON.parse('{"__proto__": {"x": 1.0}}'))).toBe(true);
    expect(s.isValid([1, [2, 3]])).toBe(true);
    expect(s.isValid({ constructor: 'c' })).toBe(true);
    expect(s.isValid({})).toBe(false);
    expect(s.isValid({ x: 1 })).toBe(false); // {} with a polluted-looking shape is not {"__proto__": …}
    expect(s.isValid({ id: 7, tags: ['t', 7], nested: { z: 0, a: null }, extra: 1 })).toBe(false);
    expect(s.isValid({ id: 7, tags: ['t', '7'], nested: { z: 0, a: null } })).toBe(false);
    expect(s.isValid([1, [3, 2]])).toBe(false);
    expect(s.isValid([1, [2, 3], undefined])).toBe(false);
    expect(s.isValid({ id: 7, tags: ['t', 7], nested: { z: 0, a: null, u: undefined } })).toBe(false);
    expect(s.validate({ id: -1 })).toEqual([{ instancePath: '', schemaPath: '/enum', keyword: 'enum', message: expect.any(String) }]);
  });

  // The speed is measured by `npm run bench:enum`; this proves the answers at that size.
  it('a 100,000-entry enum of objects compiles and checks 100,000 values exactly', { timeout: 60_000 }, () => {
    const N = 100_000;
    const values = Array.from({ length: N }, (_, i) => ({ id: i, sku: `SKU-${i}`, dims: [i % 7, i % 11] }));
    const probes = Array.from({ length: N }, (_, i) => ({ dims: [i % 7, i % 11], sku: `SKU-${i}`, id: i + (i % 2 ? 0 : N) }));
    const s = compile({ enum: values }, quiet);
    let valid = 0;
    for (const p of probes) if (s.isValid(p)) valid++;
    const invalid = s.validate(probes[0]).length;
    expect(valid).toBe(N / 2);
    expect(invalid).toBe(1);
  });
});
