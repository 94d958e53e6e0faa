import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_KEYWORDS, codePointLength, compile, isSchemaObject, jsonEqual } from '../../src/validator/index.js';

/*
 * Differential test: on random schemas built from the ten keywords and random data biased to hit
 * them, our verdict must equal ajv's (draft-07, code-point lengths, own properties only).
 *
 * Exclusions, each because ajv cannot serve as the reference there (our own cases cover them):
 * - the property name `__proto__`: ajv reads it through the prototype.
 * - `""` in `required`: ajv never reports it missing (ajv-validator/ajv#2077, open: its generated
 *   `&& (missing0 = "")` is falsy). `""` stays a `properties` name and a data key.
 * - lone surrogates in property NAMES: ajv refuses to compile such a schema ("URI malformed").
 *   Lone surrogates stay in string VALUES: ajv counts one as one code point, like docs/contract.md §6
 *   (checked below).
 * - `enum: []`, duplicate `enum`/`required`/`type` entries, empty `type` arrays and non-integer
 *   length bounds: ajv rejects those schemas against the draft-07 meta-schema, while the contract
 *   gives them a meaning (docs/contract.md §8, lint) that is tested elsewhere.
 * `enum`/`const` equality needs no exclusion: for JS values ajv's deep equal and our jsonEqual
 * agree (1.0 is 1, -0 === 0, key order ignored), except on objects with an own `constructor`,
 * `toString` or `valueOf` key, where ajv's fast-deep-equal calls or compares the inherited method
 * (it throws on `{"toString": null}`, and finds `{"constructor": {}}` unequal to itself). So those
 * names never appear in enum/const values, nor in data checked under an enum/const; they still
 * appear as `properties`/`required` names and in other data.
 */

// Fixed for reproducible CI runs; FC_SEED=<n> explores other seeds.
const SEED = Number(process.env.FC_SEED ?? 20240611);
const RUNS = 10_000;

// Property names, including ones that live on Object.prototype and pointer-escaping ones.
const NAMES = [
  'a',
  'b',
  'id',
  'name',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'length',
  '',
  'a/b',
  '~0',
  'a~1b',
  'ğüş',
  '😀',
  '0',
  'x y',
  '"q"',
  '\\',
];
// Names fast-deep-equal (ajv's enum/const equality) reads as methods, see the top.
const EQUAL_UNSAFE = new Set(['constructor', 'toString', 'valueOf']);
const PLAIN_NAMES = NAMES.filter((n) => !EQUAL_UNSAFE.has(n));
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

// One code point each, so a string of n tokens has n code points unless a lone high surrogate
// is followed by a lone low one (which merely makes a pair; both validators see the same string).
const TOKENS = ['a', 'Z', 'ğ', 'ü', 'ş', 'ı', 'ö', 'ç', 'İ', '😀', '🇹', '\u0301', '\ud800', '\udc00', '\u{10ffff}'];
const EMOJI = ['😀', '👍', '🇹', '\u{1f3fd}'];

const NUMBERS = [0, -0, 1, 1.0, -1, 2.5, -2.5, 0.5, 3, 0.1 + 0.2, 1e21, -1e-7, 2 ** 53, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = boolean | { [k: string]: Json };

const nameArb = fc.constantFrom(...NAMES);
const plainNameArb = fc.constantFrom(...PLAIN_NAMES);
const requiredNameArb = fc.constantFrom(...NAMES.filter((n) => n !== '')); // ajv#2077, see the top
const numberArb = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.integer({ min: -10, max: 10 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
);
const stringArb = fc.oneof(
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 8 }).map((t) => t.join('')),
  fc.constantFrom('', 'a', 'USD', 'e\u0301', 'ğü', '😀a'),
);

/** JSON values with names ajv's deep equal handles (never `__proto__`, see the top). */
const jsonArb: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { maxDepth: 2, withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    numberArb,
    stringArb,
    fc.array(tie('v'), { maxLength: 2 }),
    fc.dictionary(plainNameArb, tie('v'), { maxKeys: 2, noNullPrototype: true }),
  ),
})).v;

const lengthBoundArb = fc.nat({ max: 6 });
const minimumArb = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(-0, 0.5, 2.5, -1.5, 0.1 + 0.2, 2 ** 53));

function schemaArb(depth: number, root = false): fc.Arbitrary<Schema> {
  const sub = depth > 0 ? schemaArb(depth - 1) : fc.boolean();
  const keywords: Record<string, fc.Arbitrary<Json>> = {
    type: fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 })),
    required: fc.uniqueArray(requiredNameArb, { maxLength: 3 }),
    properties: fc.dictionary(nameArb, sub, { minKeys: 1, maxKeys: 3, noNullPrototype: true }),
    additionalProperties: fc.oneof(fc.boolean(), sub),
    items: sub,
    enum: fc.uniqueArray(jsonArb, { minLength: 1, maxLength: 4, comparator: jsonEqual }),
    const: jsonArb,
    minLength: lengthBoundArb,
    maxLength: lengthBoundArb,
    minimum: minimumArb,
  };
  // A few keywords per node: schemas stay small (ajv's compile dominates the run time) and
  // data satisfies them often enough.
  const obj = fc
    .subarray(Object.keys(keywords), { minLength: 1, maxLength: 3 })
    .chain((keys) => fc.record(Object.fromEntries(keys.map((k) => [k, keywords[k]!])), { noNullPrototype: true }))
    .map((s) => s as { [k: string]: Json });
  // A boolean root is trivial; boolean sub-schemas are not.
  return root ? obj : fc.oneof({ weight: 1, arbitrary: fc.boolean() }, { weight: 6, arbitrary: obj });
}

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function typesOf(s: { [k: string]: Json }): string[] {
  const t = s.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t as string[];
  return [...TYPES];
}

/** A copy with its object keys reversed: equal as JSON, different in insertion order. */
function reordered(v: Json): Json {
  if (Array.isArray(v)) return v.map(reordered);
  if (v !== null && typeof v === 'object') {
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(v).reverse()) out[k] = reordered(v[k]!);
    return out;
  }
  return v;
}

/** Strings whose code-point length sits on or next to the schema's bounds. */
function stringsFor(s: { [k: string]: Json }): fc.Arbitrary<string> {
  const targets = new Set<number>();
  for (const b of [s.minLength, s.maxLength]) {
    if (typeof b === 'number') for (const n of [b - 1, b, b + 1]) if (n >= 0) targets.add(n);
  }
  const lengths = targets.size > 0 ? fc.oneof(fc.constantFrom(...targets), fc.nat({ max: 8 })) : fc.nat({ max: 8 });
  return lengths.chain((n) =>
    fc
      .oneof(
        fc.array(fc.constantFrom(...TOKENS), { minLength: n, maxLength: n }),
        // All-astral strings sit exactly on the UTF-16 shortcut boundaries (length === 2·bound).
        fc.array(fc.constantFrom(...EMOJI), { minLength: n, maxLength: n }),
      )
      .map((t) => t.join('')),
  );
}

function numbersFor(s: { [k: string]: Json }): fc.Arbitrary<number> {
  const m = s.minimum;
  if (typeof m !== 'number') return numberArb;
  return fc.oneof(
    fc.constantFrom(-1, -0.5, 0, 0.5, 1).map((d) => m + d),
    fc.constant(Number.isInteger(m) ? m + 0.5 : Math.floor(m)),
    numberArb,
  );
}

/**
 * Data biased towards `schema`: its enum/const values, its property names, values near its bounds.
 * `plain` keeps out the names ajv's deep equal mishandles (set below any enum/const).
 */
function dataFor(schema: Schema, depth: number, plain: boolean): fc.Arbitrary<Json> {
  if (typeof schema === 'boolean' || depth <= 0) return jsonArb;
  const s = schema;
  plain ||= has(s, 'enum') || has(s, 'const');
  const options: fc.Arbitrary<Json>[] = [jsonArb];
  if (Array.isArray(s.enum)) options.push(fc.constantFrom(...s.enum).map((v) => reordered(v)));
  if (has(s, 'const')) options.push(fc.constantFrom(s.const!, reordered(s.const!)));
  for (const t of typesOf(s)) {
    switch (t) {
      case 'string':
        options.push(stringsFor(s));
        break;
      case 'number':
      case 'integer':
        options.push(numbersFor(s));
        break;
      case 'boolean':
        options.push(fc.boolean());
        break;
      case 'null':
        options.push(fc.constant(null));
        break;
      case 'array': {
        const items: Schema = has(s, 'items') ? (s.items as Schema) : true;
        options.push(fc.array(dataFor(items, depth - 1, plain), { maxLength: 4 }));
        break;
      }
      case 'object':
        options.push(objectFor(s, depth, plain));
        break;
    }
  }
  return fc.oneof(...options);
}

function objectFor(s: { [k: string]: Json }, depth: number, plain: boolean): fc.Arbitrary<Json> {
  const props = isSchemaObject(s.properties) ? (s.properties as { [k: string]: Schema }) : {};
  const required = Array.isArray(s.required) ? (s.required as string[]) : [];
  const additional: Schema = has(s, 'additionalProperties') ? (s.additionalProperties as Schema) : true;
  const names = [...new Set([...Object.keys(props), ...required])].filter((n) => !plain || !EQUAL_UNSAFE.has(n));
  const entries: fc.Arbitrary<[string, Json]>[] = names.map((n) =>
    dataFor(has(props, n) ? props[n]! : additional, depth - 1, plain).map((v): [string, Json] => [n, v]),
  );
  const extra = fc.tuple(plain ? plainNameArb : nameArb, dataFor(additional, depth - 1, plain));
  return fc
    .tuple(fc.subarray(entries.length > 0 ? entries : [extra]), fc.array(extra, { maxLength: 2 }))
    .chain(([chosen, extras]) => fc.tuple(...chosen).map((known) => [...known, ...extras]))
    .map((pairs) => {
      const o: { [k: string]: Json } = {};
      for (const [k, v] of pairs) o[k] = v;
      return o;
    });
}

const caseArb = schemaArb(3, true).chain((schema) => dataFor(schema, 4, false).map((data) => ({ schema, data })));

describe('differential against ajv', () => {
  it('ajv counts a lone surrogate as one code point, as docs/contract.md §6 does', () => {
    const ajv = new Ajv({ strict: false });
    const v = ajv.compile({ minLength: 2, maxLength: 2 });
    for (const s of ['\ud800a', 'a\udc00', '\udc00\ud800']) {
      expect(codePointLength(s)).toBe(2);
      expect(v(s)).toBe(true);
    }
  });

  it(`agrees on ${RUNS} random schema/data pairs (seed ${SEED})`, () => {
    // Without ajv's code optimisation pass (it only tidies the code it generates; the verdicts are the
    // same): each schema is compiled once and run on one datum, and the pass was a third of the run.
    const ajv = new Ajv({ strict: false, ownProperties: true, code: { optimize: false } });
    let valid = 0;
    let total = 0;
    const failedBy = new Map<string, number>();
    fc.assert(
      fc.property(caseArb, ({ schema, data }) => {
        const theirs = ajv.compile(schema);
        const expected = theirs(data);
        if (typeof schema === 'object') ajv.removeSchema(schema); // keep ajv's cache from growing
        const ours = compile(schema, { onWarning() {} });
        const fast = ours.isValid(data);
        const all = ours.validate(data);
        total++;
        if (expected) valid++;
        for (const v of all) failedBy.set(v.keyword, (failedBy.get(v.keyword) ?? 0) + 1);
        if (fast !== expected || (all.length === 0) !== expected) {
          throw new Error(
            `verdicts differ: ajv ${expected}, isValid ${fast}, validate ${JSON.stringify(all)}\n` +
              `schema: ${JSON.stringify(schema)}\ndata: ${JSON.stringify(data)}`,
          );
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator must keep hitting both verdicts and every keyword, or the comparison proves little.
    expect(valid / total).toBeGreaterThan(0.2);
    expect(valid / total).toBeLessThan(0.8);
    for (const k of SUPPORTED_KEYWORDS) expect(failedBy.get(k) ?? 0, `violations of ${k}`).toBeGreaterThan(10);
  });
});
