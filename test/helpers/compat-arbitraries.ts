import fc from 'fast-check';
import { isSchemaObject } from '../../src/validator/index.js';

/*
 * Generated schema pairs for the compat property tests: a root schema of the ten-keyword subset
 * (plus a few unsupported keywords and annotations) and a short list of edits applied to a copy.
 */

export const NAMES = ['a', 'b', 'c', 'a/b', '~t'];
export const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
export const VALUES: unknown[] = [0, 1, 2, -1, 1.5, -0.5, '', 'a', 'ab', 'abcd', '\u{1F600}', true, false, null, [], [1], {}, { a: 1 }];

export type Schema = boolean | Record<string, unknown>;

// ---------------------------------------------------------------- schema generation

const maybe = <T>(arb: fc.Arbitrary<T>, absentWeight = 3): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: absentWeight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const typeArb = fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }));
const lengthArb = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom(2.7, -1, 0.5));
const minimumArb = fc.constantFrom(-1, -0.5, 0, 0.5, 1, 1.5, 2);
const valueArb = fc.constantFrom(...VALUES);
const namesArb = fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 });

/** Drops the keys whose generated value is `undefined` (an absent keyword). */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

const leafFields = {
  type: maybe(typeArb, 1),
  enum: maybe(fc.array(valueArb, { maxLength: 4 }), 6),
  const: maybe(valueArb, 10),
  minLength: maybe(lengthArb),
  maxLength: maybe(lengthArb, 4),
  minimum: maybe(minimumArb),
  pattern: maybe(fc.constantFrom('^a', '^b'), 12),
  'x-gdpr-sensitive': maybe(fc.constant(true), 12),
  // An annotation the validator never applies; the confluent policy reads it (a required property with a default).
  default: maybe(valueArb, 12),
};

const leafArb: fc.Arbitrary<Schema> = fc.record(leafFields).map(defined);

const { schema: schemaArb } = fc.letrec<{ schema: Schema; node: Schema }>((tie) => ({
  schema: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'schema' },
    { weight: 3, arbitrary: leafArb },
    { weight: 1, arbitrary: fc.boolean() },
    { weight: 4, arbitrary: tie('node') },
  ),
  node: fc
    .record({
      ...leafFields,
      required: maybe(namesArb, 2),
      properties: maybe(fc.dictionary(fc.constantFrom(...NAMES), tie('schema'), { maxKeys: 3 }), 1),
      additionalProperties: maybe(fc.oneof(fc.boolean(), tie('schema')), 2),
      items: maybe(tie('schema'), 2),
    })
    .map(defined),
}));

export const rootArb: fc.Arbitrary<Schema> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record({
        type: fc.constantFrom<unknown>('object', ['object', 'null'], undefined),
        required: maybe(namesArb, 1),
        properties: fc.dictionary(fc.constantFrom(...NAMES), schemaArb, { minKeys: 1, maxKeys: 4 }),
        additionalProperties: maybe(fc.oneof(fc.boolean(), schemaArb), 2),
      })
      .map(defined),
  },
  { weight: 1, arbitrary: schemaArb },
);

// ---------------------------------------------------------------- edits

const OPS = [
  'addProperty',
  'removeProperty',
  'toggleRequired',
  'setType',
  'widenType',
  'removeType',
  'setMinLength',
  'removeMinLength',
  'setMaxLength',
  'removeMaxLength',
  'setMinimum',
  'removeMinimum',
  'addEnumValue',
  'removeEnumValue',
  'removeEnum',
  'setAdditional',
  'removeAdditional',
  'setConst',
  'removeConst',
  'setItems',
  'removeItems',
  'toTrue',
  'toFalse',
  'setPattern',
  'annotate',
  'nudgeMinimum',
  'nudgeMinLength',
  'nudgeMaxLength',
] as const;
const NUDGES = [-1, -0.5, 0.5, 1];

const editArb = fc.record({
  op: fc.constantFrom(...OPS),
  target: fc.nat(),
  name: fc.constantFrom(...NAMES),
  value: valueArb,
  types: typeArb,
  length: lengthArb,
  minimum: minimumArb,
  sub: fc.oneof({ weight: 3, arbitrary: leafArb }, { weight: 1, arbitrary: fc.boolean() }),
  additional: fc.oneof(fc.boolean(), leafArb),
});
export const editsArb = fc.array(editArb, { minLength: 1, maxLength: 3 });

interface Slot {
  get(): unknown;
  set(v: unknown): void;
}

/** Every place a schema sits: the root, property values, additionalProperties, items. */
function slots(holder: { root: unknown }): Slot[] {
  const out: Slot[] = [];
  const visit = (get: () => unknown, set: (v: unknown) => void): void => {
    out.push({ get, set });
    const s = get();
    if (!isSchemaObject(s)) return;
    if (isSchemaObject(s.properties)) {
      const props = s.properties;
      for (const k of Object.keys(props))
        visit(
          () => props[k],
          (v) => (props[k] = v),
        );
    }
    for (const key of ['additionalProperties', 'items']) {
      if (typeof s[key] === 'object' && s[key] !== null)
        visit(
          () => s[key],
          (v) => (s[key] = v),
        );
    }
  };
  visit(
    () => holder.root,
    (v) => (holder.root = v),
  );
  return out;
}

type Edit = typeof editArb extends fc.Arbitrary<infer E> ? E : never;

export function applyEdits(schema: Schema, edits: Edit[]): Schema {
  const holder = { root: structuredClone(schema) as unknown };
  for (const e of edits) {
    const all = slots(holder);
    const slot = all[e.target % all.length]!;
    if (e.op === 'toTrue' || e.op === 'toFalse') {
      slot.set(e.op === 'toTrue');
      continue;
    }
    let s = slot.get();
    if (!isSchemaObject(s)) {
      s = {};
      slot.set(s);
    }
    const o = s as Record<string, unknown>;
    const props = isSchemaObject(o.properties) ? o.properties : undefined;
    switch (e.op) {
      case 'addProperty':
        o.properties = { ...(props ?? {}), [e.name]: e.sub };
        break;
      case 'removeProperty':
        if (props) delete props[Object.keys(props).includes(e.name) ? e.name : Object.keys(props)[0]!];
        break;
      case 'toggleRequired': {
        const req = Array.isArray(o.required) ? (o.required as string[]) : [];
        o.required = req.includes(e.name) ? req.filter((n) => n !== e.name) : [...req, e.name];
        break;
      }
      case 'setType':
        o.type = e.types;
        break;
      case 'widenType': {
        const cur = typeof o.type === 'string' ? [o.type] : Array.isArray(o.type) ? o.type : undefined;
        if (cur) o.type = [...new Set([...cur, ...(cur.includes('integer') ? ['number'] : []), TYPES[e.target % TYPES.length]])];
        break;
      }
      case 'removeType':
        delete o.type;
        break;
      case 'setMinLength':
        o.minLength = e.length;
        break;
      case 'removeMinLength':
        delete o.minLength;
        break;
      case 'setMaxLength':
        o.maxLength = e.length;
        break;
      case 'removeMaxLength':
        delete o.maxLength;
        break;
      case 'setMinimum':
        o.minimum = e.minimum;
        break;
      case 'removeMinimum':
        delete o.minimum;
        break;
      case 'addEnumValue':
        o.enum = Array.isArray(o.enum) ? [...(o.enum as unknown[]), e.value] : [e.value];
        break;
      case 'removeEnumValue': {
        const values = Array.isArray(o.enum) ? (o.enum as unknown[]) : [];
        if (values.length > 0) o.enum = values.filter((_, i) => i !== e.target % values.length);
        break;
      }
      case 'removeEnum':
        delete o.enum;
        break;
      case 'setAdditional':
        o.additionalProperties = e.additional;
        break;
      case 'removeAdditional':
        delete o.additionalProperties;
        break;
      case 'setConst':
        o.const = e.value;
        break;
      case 'removeConst':
        delete o.const;
        break;
      case 'setItems':
        o.items = e.sub;
        break;
      case 'removeItems':
        delete o.items;
        break;
      case 'setPattern':
        o.pattern = e.name;
        break;
      case 'nudgeMinimum':
      case 'nudgeMinLength':
      case 'nudgeMaxLength': {
        // Small steps either way, including fractional ones that truncation or integers may absorb.
        const key = e.op === 'nudgeMinimum' ? 'minimum' : e.op === 'nudgeMinLength' ? 'minLength' : 'maxLength';
        o[key] = (typeof o[key] === 'number' ? (o[key] as number) : 1) + NUDGES[e.target % NUDGES.length]!;
        break;
      }
      case 'annotate':
        o['x-gdpr-sensitive'] = e.name;
        o.title = e.name;
        break;
    }
  }
  return holder.root as Schema;
}
