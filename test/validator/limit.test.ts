// validate(data, limit): at most `limit` violations, the first ones of the order validate(data)
// gives, in the generated code and in the interpreter alike; the walk ends there, so a message
// with millions of violations costs the memory of `limit` (what the CLI relies on).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, parseSchema } from '../../src/validator/index.js';
import { preview } from '../../src/validator/compile.js';
import { interpret } from '../../src/validator/interpret.js';
import { rootArb, VALUES } from '../helpers/compat-arbitraries.js';
import { contractPairs } from '../helpers/validator-cases.js';

// The house pattern: a fixed seed in `npm test`; BQ_LIMIT_SEED / BQ_LIMIT_RUNS to look further.
const SEED = Number(process.env.BQ_LIMIT_SEED ?? 35);
const RUNS = Number(process.env.BQ_LIMIT_RUNS ?? 1500);

function forms(schema: unknown) {
  try {
    const generated = compile(schema, { onWarning: () => {} });
    return { generated: generated.validate.bind(generated), walked: interpret(parseSchema(schema).root, preview, new Map()).validate };
  } catch {
    return undefined;
  }
}

/** Both forms, every limit from 1 to one past the count: a prefix of the full list. */
function prefixes(schema: unknown, data: unknown): void {
  const f = forms(schema);
  if (f === undefined) return;
  const all = f.generated(data);
  expect(f.walked(data)).toEqual(all);
  // Every limit on a short list; on a long one its ends and some between.
  const ks =
    all.length <= 12
      ? Array.from({ length: all.length + 1 }, (_, i) => i + 1)
      : [1, 2, 3, 97, 511, 512, 513, all.length - 1, all.length, all.length + 1].filter((k) => k <= all.length + 1);
  for (const k of ks) {
    expect(f.generated(data, k), `generated, limit ${k}`).toEqual(all.slice(0, k));
    expect(f.walked(data, k), `interpreted, limit ${k}`).toEqual(all.slice(0, k));
  }
  // Anything but a number from 1 asks for every violation.
  for (const none of [undefined, 0, -1, Number.NaN, 0.5]) {
    expect(f.generated(data, none)).toEqual(all);
    expect(f.walked(data, none)).toEqual(all);
  }
}

describe('validate(data, limit)', () => {
  it('is the first `limit` of every violation on every contract case', () => {
    for (const p of contractPairs()) prefixes(p.schema, p.data);
  });

  it('is the first `limit` of every violation on generated schemas and values', () => {
    const data = fc.oneof(
      fc.constantFrom(...VALUES),
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c', 'a/b', '~t', 'x'), fc.jsonValue({ maxDepth: 2 })),
    );
    fc.assert(
      fc.property(rootArb, data, (schema, d) => prefixes(schema, d)),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('stops in a function of its own (a deep schema) and in a wide one split into functions', () => {
    let deep: object = { type: 'object', required: ['x', 'y'], additionalProperties: false };
    let value: object = { z: 1 };
    // Ten levels of two: 1,024 leaves, each with three violations, the deeper levels in functions of their own.
    for (let i = 0; i < 10; i++) {
      deep = { type: 'object', properties: { a: deep, b: deep } };
      value = { a: value, b: value };
    }
    prefixes(deep, value);
    const properties: Record<string, object> = {};
    for (let i = 0; i < 1200; i++) properties[`p${i}`] = { type: 'string' };
    const wide = { type: 'object', properties, required: Object.keys(properties).map((k) => `${k}x`) };
    const data = Object.fromEntries(Object.keys(properties).map((k) => [k, 1]));
    const f = forms(wide)!;
    expect(f.generated(data).length).toBe(2400);
    for (const k of [1, 511, 512, 513, 1199, 1200, 1201, 2400]) {
      expect(f.generated(data, k)).toEqual(f.generated(data).slice(0, k));
      expect(f.walked(data, k)).toEqual(f.generated(data).slice(0, k));
    }
  });

  it('a million violations are never made when a thousand are asked for', () => {
    const c = compile({ type: 'array', items: { type: 'object', required: ['a', 'b'] } });
    const data = Array.from({ length: 500_000 }, () => ({}));
    const some = c.validate(data, 1000);
    expect(some.length).toBe(1000);
    expect(some[999]).toMatchObject({ instancePath: '/499', keyword: 'required', message: 'must have required property "b"' });
    expect(c.isValid(data)).toBe(false);
  });

  it('an error thrown inside the walk is not taken for the limit', () => {
    // A cyclic value under an enum of objects throws TypeError (docs: equality refuses cycles).
    const c = compile({ type: 'object', properties: { a: { enum: [{ x: 1 }] } } });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => c.validate({ a: cyclic }, 5)).toThrow(TypeError);
  });
});
