import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalKey, jsonEqual } from '../../src/validator/index.js';

/*
 * canonicalKey(a) === canonicalKey(b) exactly when jsonEqual(a, b). Independent random values are
 * almost never equal, so the generators draw from small domains and also compare a value with a
 * rebuilt copy (keys reordered, 0 and -0 swapped, 1 written as 1.0) that must share its key.
 */

const num = fc.constantFrom(0, -0, 1, 1.5, -1, 2 ** 53, 2 ** 53 + 1, Infinity, -Infinity, 1e-7, 1e21);
const str = fc.constantFrom('', 'a', 'b', '1', 'd1;', 's1:a', '"', '{', '}', '[', ':', 'ab', '\u2028', '\ud800', '__proto__');
const small = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    num,
    str,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(str, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const wide = fc.jsonValue().chain((v) => fc.constantFrom(v, 0, -0, 'x', [], {}, null));
const value = fc.oneof(small, wide, fc.double());

/** The same JSON value rebuilt: keys in reverse order, -0 for 0 and back. */
function rebuild(v: unknown): unknown {
  if (typeof v === 'number') return v === 0 ? (Object.is(v, 0) ? -0 : 0) : v;
  if (Array.isArray(v)) return v.map(rebuild);
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(
      Object.keys(v)
        .reverse()
        .map((k) => [k, rebuild((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

describe('canonicalKey', () => {
  it('gives equal keys exactly to jsonEqual values', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        if (Number.isNaN(a) || Number.isNaN(b)) return; // NaN is not JSON (documented exception)
        expect(canonicalKey(a) === canonicalKey(b)).toBe(jsonEqual(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds random pairs from a small domain equal and unequal (the test above is not vacuous)', () => {
    let equal = 0;
    let unequal = 0;
    fc.assert(
      fc.property(small, small, (a, b) => {
        const same = jsonEqual(a, b);
        if (same) equal++;
        else unequal++;
        expect(canonicalKey(a) === canonicalKey(b)).toBe(same);
      }),
      { numRuns: 3000 },
    );
    expect(equal).toBeGreaterThan(100);
    expect(unequal).toBeGreaterThan(100);
  });

  it('gives a rebuilt copy (reordered keys, -0) the same key, and a one-leaf change another', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalKey(rebuild(v))).toBe(canonicalKey(v));
        expect(canonicalKey([v, 1])).not.toBe(canonicalKey([v, 2]));
        expect(canonicalKey({ a: v })).not.toBe(canonicalKey({ a: [v] }));
      }),
    );
  });

  it('normalises numbers as the equality rule says and keeps types apart', () => {
    expect(canonicalKey(-0)).toBe(canonicalKey(0));
    expect(canonicalKey({ a: [-0] })).toBe(canonicalKey({ a: [0] }));
    expect(canonicalKey(Infinity)).not.toBe(canonicalKey(-Infinity));
    expect(canonicalKey(1e400)).toBe(canonicalKey(Infinity));
    expect(canonicalKey(Infinity)).not.toBe(canonicalKey(null));
    const distinct = [0, '0', false, null, [], {}, [0], { 0: 0 }, '', [[]], [{}], 'null', 'true', true, undefined];
    expect(new Set(distinct.map(canonicalKey)).size).toBe(distinct.length);
    // Tokens end themselves: a string that spells another token does not merge with it.
    expect(canonicalKey(['s1:a'])).not.toBe(canonicalKey(['a', 'a']));
    expect(canonicalKey({ a: 1, b: 2 })).not.toBe(canonicalKey({ a: 12 }));
    expect(canonicalKey({ 'a:1': 1 })).not.toBe(canonicalKey({ a: 1 }));
  });

  it('uses own keys only, and treats __proto__ and constructor as ordinary names', () => {
    const proto = Object.fromEntries([['__proto__', 1]]);
    expect(canonicalKey(proto)).not.toBe(canonicalKey({}));
    expect(canonicalKey(proto)).toBe(canonicalKey(JSON.parse('{"__proto__":1}')));
    expect(canonicalKey(Object.create({ inherited: 1 }))).toBe(canonicalKey({}));
  });

  it('writes the same key format past the depth where it stops recursing', () => {
    let v: unknown = { b: [1, 's'], a: null };
    for (let i = 0; i < 300; i++) v = i % 2 ? [v, -0] : { k: v };
    let expected = '{1:an1:b[d1;s1:s]}';
    for (let i = 0; i < 300; i++) expected = i % 2 ? `[${expected}d0;]` : `{1:k${expected}}`;
    expect(canonicalKey(v)).toBe(expected);
  });

  it('handles data nested 100,000 levels deep without overflowing the stack', () => {
    let a: unknown = 1;
    let b: unknown = 1;
    let c: unknown = 2;
    for (let i = 0; i < 100_000; i++) {
      a = i % 2 ? [a] : { k: a };
      b = i % 2 ? [b] : { k: b };
      c = i % 2 ? [c] : { k: c };
    }
    expect(canonicalKey(a)).toBe(canonicalKey(b));
    expect(canonicalKey(a)).not.toBe(canonicalKey(c));
  });
});
