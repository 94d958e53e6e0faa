/*
 * Random registries for the generated types, and random data for each of their URNs.
 *
 *   import { registryArb, type GeneratedRegistry } from './helpers/types-registries.js';
 *   const registries = fc.sample(registryArb, { seed, numRuns });
 *
 * A registry is 1–4 URNs over the ten keywords (type, properties, required,
 * additionalProperties, items, enum, const, minLength, maxLength, minimum), with descriptions
 * and x-gdpr-sensitive markers: unions, nullable types, nested arrays of objects, open and closed
 * objects and objects whose extra keys have a schema, enum/const of strings and of other values,
 * `true`/`false`/`{}` below the root, roots without `type`. Names are drawn from pools of hostile
 * ones: each language's reserved words and the member names its types may not use, names that
 * collide after mangling (`a-b`, `a_b`, `A_B`, `aB`), differ only in case, are empty, non-ASCII,
 * start with a digit, hold quotes and comment ends, a BOM or a line separator, or are hundreds of
 * characters long; URNs and enum values that differ only in a lone surrogate. The first URN is
 * deprecated (HOSTILE_DEPRECATION: a reason and replacement with comment ends and line breaks), and
 * its first declared property is marked `"deprecated": true`.
 *
 * For each URN: valid data (each checked by our validator, `compile()`), some of it written with
 * integers as `1.0` or `1e2` (RawJson), and wrong data: a valid message with one declared
 * property of a single scalar type given a value of another JSON type (a string for an integer,
 * ...), which the validator rejects for `type`. Data never holds a lone surrogate (PHP's
 * json_decode refuses one and Go's encoding/json replaces it: not something a type can change);
 * a URN whose every value would need one, or whose schema admits no object, has no data.
 */
import fc from 'fast-check';
import { compile, hasOwn, isSchemaObject } from '../../src/validator/index.js';
import type { TypesEntry } from '../../src/types/index.js';
import { RawJson } from './roundtrip-common.js';

export interface GeneratedUrn {
  urn: string;
  schema: unknown;
  /** Valid data: each a JSON value or the exact text (RawJson) of one. */
  valid: unknown[];
  /** Wrong data: a declared scalar property holds a value of another JSON type; `path` names it (property names from the root). */
  wrong: Array<{ data: unknown; path: string[] }>;
}

export interface GeneratedRegistry {
  entries: TypesEntry[];
  urns: GeneratedUrn[];
}

/** Property names: reserved words and member names of the six languages, collisions, hostile text. */
const HOSTILE_NAMES = [
  'id',
  'order_id',
  'url',
  'http_status',
  'userID',
  'a-b',
  'a_b',
  'A_B',
  'aB',
  'ab',
  'AB',
  'class',
  'Class',
  'try',
  'list',
  'int',
  'self',
  'this',
  'default',
  'type',
  'value',
  'Value',
  'string',
  'object',
  'extra',
  'Extra',
  'explicitNulls',
  'ExtensionData',
  'toString',
  'hashCode',
  'getClass',
  'wait',
  'notify',
  'notifyAll',
  'clone',
  'finalize',
  'equals',
  'JSON_NAMES',
  'MarshalJSON',
  'UnmarshalJSON',
  'Valid',
  'String',
  'GetHashCode',
  'GetType',
  'ToString',
  '__token',
  '__init__',
  'str',
  'Literal',
  'TypedDict',
  'json',
  'None',
  'constructor',
  '__proto__',
  'GLOBALS',
  '_GET',
  'Urns',
  'Json',
  'BqMessages',
  'Data',
  'typeOf',
  'toArray',
  'fromArray',
  'jsonSerialize',
  '__construct',
  '__get',
  'fields',
  'decode_data',
  'cast',
  '',
  ' ',
  'x y',
  '9lives',
  '0',
  '1',
  'café',
  'cafe',
  'Straße',
  '名前',
  '😀',
  'ÀÉÎ',
  '*/',
  '?>',
  '"',
  "'",
  '\\',
  '$x',
  'a\u2028b',
  '\ufeffbom',
  'x'.repeat(200),
  'y'.repeat(600),
];

/** URNs: reserved words as type names, case and mangling collisions, non-ASCII, lone surrogates. */
const HOSTILE_URNS = [
  'urn:bq:orders:created',
  'urn:bq:orders:Created',
  'urn:bq:orders:created.v2',
  'urn:x:try',
  'urn:x:List',
  'urn:x:list',
  'urn:x:Self',
  'urn:x:int',
  'urn:x:café',
  'urn:x:cafe',
  'urn:x:名前',
  'urn:x:😀',
  'urn:x:\ud800',
  'urn:x:\udc00',
  'urn:x:a-b',
  'urn:x:a_b',
  'urn:x:BqMessages',
  'urn:x:Urns',
  'urn:x:Json',
  'urn:x:Envelope',
  'urn:x:Data',
  'urn:x:KeyError',
  'urn:x:9',
  'urn:x:',
  'urn:x:order_id',
  'urn:x:http.url',
  `urn:x:${'z'.repeat(300)}`,
  'urn:x:\ufeffbom',
  'urn:x:Object',
  'urn:x:String',
  'urn:x:class',
  'urn:x:Value',
  'urn:x:None',
  'urn:x:Literal',
];

/** Enum values: empty, keywords, collisions after mangling, comment ends, quotes, separators, lone surrogates. */
const HOSTILE_VALUES = [
  'a',
  'A',
  'a-b',
  'a_b',
  'class',
  'Class',
  '',
  '9lives',
  '*/',
  "'; ?>",
  '"""',
  '\\',
  '\u2028',
  'json',
  'ToString',
  '\ufeff',
  'x\ud800',
  'x\udc00',
  'café',
  'cafe',
  '😀',
  'list',
  'null',
  'true',
  '0',
  '$x',
];

/** Strings in data: what a type cannot tell apart, and what JSON writers escape. */
const STRINGS = [
  '',
  'a',
  'abc',
  'x y',
  'café',
  '名前',
  '😀',
  '"q"',
  '\\',
  '\u2028',
  '\ufeffbom',
  '</script>',
  'line\nbreak',
  '\u0000',
  'é'.repeat(12),
];
const DESCRIPTIONS = [
  'An order. */ <?php ?> """ \\',
  'line one\nline two',
  'Ends with a quote"',
  '@deprecated not really',
  'mixed \u2028 separator',
];

const ABSENT = Symbol('absent');
const sometimes = <T>(arb: fc.Arbitrary<T>, rarity: number): fc.Arbitrary<T | typeof ABSENT> =>
  fc.oneof({ arbitrary: fc.constant(ABSENT), weight: rarity }, { arbitrary: arb, weight: 1 });
const defined = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ABSENT));

/** Builds an object with own enumerable properties (so `__proto__` is a key, not a prototype). */
function objectOf(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const annotations = fc
  .record({
    description: sometimes(fc.constantFrom(...DESCRIPTIONS), 4),
    'x-gdpr-sensitive': sometimes(fc.constantFrom(true, 'email', 'name */'), 6),
  })
  .map(defined);

const scalarSchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc
    .record({
      type: fc.constant('string'),
      minLength: sometimes(fc.constantFrom(0, 1, 2), 3),
      maxLength: sometimes(fc.constantFrom(3, 40), 3),
    })
    .map(defined),
  fc.record({ type: fc.constant('integer'), minimum: sometimes(fc.constantFrom(-5, 0, 1), 2) }).map(defined),
  fc.record({ type: fc.constant('number'), minimum: sometimes(fc.constantFrom(0, 0.5), 3) }).map(defined),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc.constantFrom(...(['string', 'integer', 'number', 'boolean'] as const)).map((t) => ({ type: [t, 'null'] })),
  fc
    .constantFrom<unknown[]>(['string', 'integer'], ['number', 'string', 'null'], ['integer', 'boolean'], ['integer', 'number'])
    .map((t) => ({ type: t })),
  // A string enum (its own type in Go, Java, PHP and C#), with or without `type`, sometimes nullable.
  fc
    .tuple(
      fc.uniqueArray(fc.constantFrom(...HOSTILE_VALUES), { minLength: 1, maxLength: 5 }),
      fc.constantFrom('string', ['string', 'null'], undefined),
    )
    .map(([values, type]) => (type === undefined ? { enum: values } : { type, enum: values })),
  fc.constantFrom(...HOSTILE_VALUES).map((v) => ({ const: v })),
  // Other listed values: numbers, booleans, null, mixed.
  // Values that differ only in a lone surrogate (one UTF-8 file would make them one), or after mangling.
  fc.constantFrom<unknown>({ enum: ['x\ud800', 'x\udc00', 'x\ufffd'] }, { type: 'string', enum: ['a-b', 'a_b', 'A_B', 'aB', 'AB'] }),
  fc.constantFrom<unknown>(
    { enum: [1, 2, 3] },
    { type: 'integer', enum: [0, 7] },
    { enum: ['a', 1, null] },
    { enum: [1.5, true] },
    { const: 2 },
    { enum: [{ a: 1 }, [1, 2]] },
  ),
  fc.constantFrom<unknown>(true, {}, { description: 'anything' }),
) as fc.Arbitrary<Record<string, unknown>>;

function objectSchema(sub: fc.Arbitrary<unknown>, root: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      type: root
        ? fc.constantFrom<unknown>('object', 'object', ABSENT, ['object', 'null'])
        : fc.constantFrom<unknown>('object', 'object', ['object', 'null']),
      properties: fc.uniqueArray(fc.tuple(fc.constantFrom(...HOSTILE_NAMES), sub), {
        minLength: root ? 1 : 0,
        maxLength: 5,
        selector: ([k]) => k,
      }),
      additionalProperties: sometimes(fc.oneof(fc.boolean(), scalarSchema, sub), 1),
      annotations,
    })
    .chain(({ type, properties, additionalProperties, annotations: a }) =>
      fc.subarray(properties.map(([k]) => k)).map((required) =>
        defined({
          type,
          // A required property whose schema admits nothing would leave no valid data.
          required: required.filter((k) => properties.find(([n]) => n === k)![1] !== false),
          properties: objectOf(properties),
          additionalProperties,
          ...a,
        }),
      ),
    );
}

const subSchema: fc.Arbitrary<unknown> = fc.letrec<{ s: unknown }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    fc.tuple(scalarSchema, annotations).map(([s, a]) => (isSchemaObject(s) ? { ...s, ...a } : s)),
    fc.constant(false),
    objectSchema(tie('s'), false),
    fc
      .tuple(fc.option(tie('s'), { freq: 5 }), fc.constantFrom<unknown>('array', ['array', 'null']))
      .map(([items, type]) => (items === null ? { type } : { type, items })),
    // A free-form object, or one whose every key has one schema.
    fc.constantFrom<unknown>(
      { type: 'object' },
      { type: 'object', additionalProperties: { type: 'integer' } },
      { type: 'object', additionalProperties: false },
    ),
  ),
})).s;

const rootSchema: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: objectSchema(subSchema, true), weight: 8 },
  { arbitrary: fc.constantFrom<unknown>({ type: 'object' }, {}, { additionalProperties: { type: 'string' } }, true), weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// Data

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a JSON value holds a lone surrogate in a key or a string. */
function holdsLoneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return LONE.test(v);
  if (Array.isArray(v)) return v.some(holdsLoneSurrogate);
  if (isSchemaObject(v)) return Object.keys(v).some((k) => LONE.test(k) || holdsLoneSurrogate(v[k]));
  return false;
}

const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 2 },
    fc.constantFrom<unknown>(...STRINGS, 0, 7, -3, 2.5, 1e-7, true, false, null),
    fc.array(tie('v'), { maxLength: 2 }),
    fc.uniqueArray(fc.tuple(fc.constantFrom('k', '0', '', 'x y', 'é'), tie('v')), { maxLength: 2, selector: ([k]) => k }).map(objectOf),
  ),
})).v;

const typesOf = (s: Record<string, unknown>): string[] =>
  typeof s.type === 'string'
    ? [s.type]
    : Array.isArray(s.type)
      ? (s.type as string[])
      : ['string', 'integer', 'number', 'boolean', 'null', 'array', 'object'];

/** Data the schema is meant to accept (checked by the validator afterwards: keywords may interact). */
function dataArb(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || (isSchemaObject(schema) && Object.keys(schema).every((k) => k === 'description' || k === 'x-gdpr-sensitive')))
    return anyValue;
  if (!isSchemaObject(schema)) return fc.constant(null);
  const listed = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : hasOwn(schema, 'const') ? [schema.const] : undefined;
  if (listed !== undefined) return listed.length === 0 ? fc.constant(null) : fc.constantFrom(...listed);
  const options: fc.Arbitrary<unknown>[] = [];
  for (const t of typesOf(schema)) {
    if (t === 'string') {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
      const fits = STRINGS.filter((s) => [...s].length >= min && [...s].length <= max);
      options.push(fits.length > 0 ? fc.constantFrom(...fits) : fc.constant('ab'));
    } else if (t === 'integer' || t === 'number') {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
      const pool = t === 'integer' ? [0, 1, 7, 42, -3, 100, 123456789, 9007199254740991] : [0, 1, 2.5, -0.75, 1e-7, 123.456, 1e21, 100];
      const fits = pool.filter((n) => n >= min && !Object.is(n, -0));
      options.push(fc.constantFrom(...fits));
    } else if (t === 'boolean') options.push(fc.boolean());
    else if (t === 'null') options.push(fc.constant(null));
    else if (t === 'array')
      options.push(
        depth > 4 || schema.items === false
          ? fc.constant([])
          : fc.array(schema.items === undefined ? anyValue : dataArb(schema.items, depth + 1), { maxLength: 3 }),
      );
    else if (t === 'object') options.push(objectData(schema, depth));
  }
  return options.length === 0 ? fc.constant(null) : fc.oneof(...options);
}

const EXTRA_KEYS = ['zz', 'x y', '7', '0', '', 'é', 'Extra', '__proto__'];

function objectData(schema: Record<string, unknown>, depth: number): fc.Arbitrary<unknown> {
  const props = isSchemaObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const extra = schema.additionalProperties;
  const parts = Object.keys(props)
    .filter((k) => props[k] !== false)
    .map((k) => {
      const value = depth > 4 ? fc.constant(null) : dataArb(props[k], depth + 1);
      const present = fc.tuple(fc.constant(k), value);
      if (required.has(k)) return present.map((p) => [p]);
      // An optional property: absent, present, or null when null is one of its values (a language
      // that has one value for both must still write it back as it was).
      if (!compile(props[k], { onWarning: () => {} }).isValid(null))
        return fc.oneof(
          fc.constant([]),
          present.map((p) => [p]),
        );
      return fc.oneof(
        fc.constant([]),
        present.map((p) => [p]),
        fc.constant([[k, null]]),
      );
    });
  const extras =
    extra === false
      ? fc.constant([])
      : fc.uniqueArray(
          fc.tuple(
            fc.constantFrom(...EXTRA_KEYS.filter((k) => !hasOwn(props, k))),
            extra === undefined || extra === true ? anyValue : dataArb(extra, depth + 1),
          ),
          { maxLength: 2, selector: ([k]) => k },
        );
  return fc.tuple(fc.tuple(...parts), extras).map(([ps, es]) => objectOf([...ps.flat(), ...es] as Array<[string, unknown]>));
}

/** The JSON text of a value with its integers written as `n`, `n.0` or `ne0`, chosen by `pick`. */
function withIntegerForms(v: unknown, pick: () => number): string {
  if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 1e15) {
    const form = pick() % 3;
    return form === 0 ? String(v) : form === 1 ? `${v}.0` : `${v}e0`;
  }
  if (Array.isArray(v)) return `[${v.map((x) => withIntegerForms(x, pick)).join(',')}]`;
  if (isSchemaObject(v))
    return `{${Object.keys(v)
      .map((k) => `${JSON.stringify(k)}:${withIntegerForms(v[k], pick)}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

// ---------------------------------------------------------------------------------------------
// Wrong data

/** A value of another JSON type than the scalar type `t` (what a language with that type must refuse). */
const WRONG: Record<string, unknown> = { string: 7, integer: '7', number: '7.5', boolean: 'true' };

/**
 * The paths (property names from the root) to declared properties of a single scalar type
 * (nullable or not, no enum or const) through declared objects only: where every language's type
 * says the JSON type.
 */
function scalarPaths(schema: unknown, data: unknown, prefix: string[] = []): Array<{ path: string[]; type: string }> {
  if (!isSchemaObject(schema) || !isSchemaObject(data) || !isSchemaObject(schema.properties)) return [];
  const out: Array<{ path: string[]; type: string }> = [];
  for (const k of Object.keys(schema.properties)) {
    if (!hasOwn(data, k)) continue;
    const sub = schema.properties[k];
    if (!isSchemaObject(sub) || hasOwn(sub, 'enum') || hasOwn(sub, 'const')) continue;
    const types = typesOf(sub).filter((t) => t !== 'null');
    if (types.length === 1 && types[0]! in WRONG && typeof sub.type !== 'undefined') out.push({ path: [...prefix, k], type: types[0]! });
    else if (types.length === 1 && types[0] === 'object') out.push(...scalarPaths(sub, data[k], [...prefix, k]));
  }
  return out;
}

function replaced(data: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const o = data as Record<string, unknown>;
  return objectOf(Object.keys(o).map((k) => [k, k === path[0] ? replaced(o[k], path.slice(1), value) : o[k]]));
}

// ---------------------------------------------------------------------------------------------
// Registries

function urnData(urn: string, schema: unknown): fc.Arbitrary<GeneratedUrn> {
  return fc
    .tuple(fc.array(dataArb(schema), { minLength: 2, maxLength: 4 }), fc.integer(), fc.boolean())
    .map(([candidates, seed, rawForms]) => {
      const check = compile(schema, { onWarning: () => {} });
      let state = seed >>> 0;
      const pick = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16;
      const data = candidates.filter((d) => isSchemaObject(d) && !holdsLoneSurrogate(d) && check.isValid(d));
      const valid = data.map((d, i) => (rawForms && i === 0 ? new RawJson(withIntegerForms(d, pick)) : d));
      const wrong: GeneratedUrn['wrong'] = [];
      for (const d of data) {
        const paths = scalarPaths(schema, d);
        if (paths.length === 0) continue;
        const { path, type } = paths[pick() % paths.length]!;
        const bad = replaced(d, path, WRONG[type]);
        if (check.validate(bad).some((v) => v.keyword === 'type')) wrong.push({ data: bad, path });
      }
      return { urn, schema, valid, wrong };
    });
}

/** URNs whose type names collide: after mangling, in case only, in a lone surrogate, after transliteration. */
const COLLIDING_URNS = [
  ['urn:x:\ud800', 'urn:x:\udc00', 'urn:x:\ufffd'],
  ['urn:x:OrderId', 'urn:x:orderid', 'urn:x:order_id', 'urn:x:order-id'],
  ['urn:x:try', 'urn:x:Try', 'urn:x:TRY'],
  ['urn:x:café', 'urn:x:cafe', 'urn:x:Cafe'],
  ['urn:x:', 'urn:x:-', 'urn:x:😀'],
];

const urnsArb = fc.oneof(
  { arbitrary: fc.uniqueArray(fc.constantFrom(...HOSTILE_URNS), { minLength: 1, maxLength: 4 }), weight: 3 },
  { arbitrary: fc.constantFrom(...COLLIDING_URNS), weight: 1 },
);

/** The first URN of every registry is deprecated with these, each field hostile where text is free. */
const HOSTILE_DEPRECATION = {
  since: '2026-01-31',
  sunset: '2026-06-30',
  replacement: 'urn:x:next */ ?> """ \\',
  reason: 'line one\nline two */ <?php ?> """ \\ @see "q" \u2028',
};

/** The schema with `"deprecated": true` (an annotation) on its first declared property that is a schema object. */
function deprecateFirstProperty(schema: unknown): unknown {
  if (!isSchemaObject(schema) || !isSchemaObject(schema.properties)) return schema;
  const props = schema.properties;
  const first = Object.keys(props).find((k) => isSchemaObject(props[k]));
  if (first === undefined) return schema;
  const properties = objectOf(
    Object.keys(props).map((k) => [k, k === first ? { ...(props[k] as object), deprecated: true } : props[k]] as const),
  );
  return { ...schema, properties };
}

export const registryArb: fc.Arbitrary<GeneratedRegistry> = urnsArb
  .chain((urns) => fc.tuple(...urns.map((urn) => fc.tuple(fc.constant(urn), rootSchema))))
  .chain((pairs) => fc.tuple(...pairs.map(([urn, schema]) => urnData(urn, schema))))
  .map((urns) => ({
    entries: urns.map(({ urn, schema }, i) =>
      i === 0
        ? { urn, schema: deprecateFirstProperty(schema), owner: 'team */ ?>', status: 'deprecated', deprecated: HOSTILE_DEPRECATION }
        : { urn, schema, owner: 'team */ ?>' },
    ),
    // A URN with a lone surrogate cannot travel as UTF-8: its module compiles, no message is read.
    urns: urns.map((u) => (LONE.test(u.urn) ? { ...u, valid: [], wrong: [] } : u)),
  }));
