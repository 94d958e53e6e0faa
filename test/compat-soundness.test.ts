import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSchemas } from '../src/compat/index.js';
import { compile, isSchemaObject, parsePointer, parseSchema, type SchemaNode } from '../src/validator/index.js';

/*
 * Soundness: whenever compat says compatible, no value valid under the schema that must keep its
 * data (old for backward, new for forward) is rejected by the other one. The only exception is the
 * registry policy that adding an optional property is compatible even on an open schema, where
 * data could already carry that name with any value; a violation is excused only when its data
 * path passes through such a name (see `policyExcused`).
 */

const NAMES = ['a', 'b', 'c', 'a/b', '~t'];
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const VALUES: unknown[] = [0, 1, 2, -1, 1.5, -0.5, '', 'a', 'ab', 'abcd', '\u{1F600}', true, false, null, [], [1], {}, { a: 1 }];
const quiet = { onWarning: (): void => {} };

type Schema = boolean | Record<string, unknown>;

// ---------------------------------------------------------------- schema generation

const maybe = <T>(arb: fc.Arbitrary<T>, absentWeight = 3): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: absentWeight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const typeArb = fc.oneof(
  fc.constantFrom(...TYPES),
  fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }),
);
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

const rootArb: fc.Arbitrary<Schema> = fc.oneof(
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
  'addProperty', 'removeProperty', 'toggleRequired', 'setType', 'widenType', 'removeType',
  'setMinLength', 'removeMinLength', 'setMaxLength', 'removeMaxLength', 'setMinimum', 'removeMinimum',
  'addEnumValue', 'removeEnumValue', 'removeEnum', 'setAdditional', 'removeAdditional',
  'setConst', 'removeConst', 'setItems', 'removeItems', 'toTrue', 'toFalse', 'setPattern', 'annotate',
  'nudgeMinimum', 'nudgeMinLength', 'nudgeMaxLength',
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
const editsArb = fc.array(editArb, { minLength: 1, maxLength: 3 });

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
      for (const k of Object.keys(props)) visit(() => props[k], (v) => (props[k] = v));
    }
    for (const key of ['additionalProperties', 'items']) {
      if (typeof s[key] === 'object' && s[key] !== null) visit(() => s[key], (v) => (s[key] = v));
    }
  };
  visit(() => holder.root, (v) => (holder.root = v));
  return out;
}

type Edit = typeof editArb extends fc.Arbitrary<infer E> ? E : never;

function applyEdits(schema: Schema, edits: Edit[]): Schema {
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

// ---------------------------------------------------------------- data generation

/** Data randomness comes from fast-check too, so a counterexample's data is reproduced and shrunk. */
const unit = fc.integer({ min: 0, max: 0xffff });
const rngFrom = (g: fc.GeneratorValue): Rng => () => g(() => unit) / 0x10000;

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

function randomValue(rng: Rng, depth: number): unknown {
  const r = rng();
  if (depth > 2 || r < 0.6) return structuredClone(pick(rng, VALUES));
  if (r < 0.8) {
    const o: Record<string, unknown> = {};
    for (const n of NAMES) if (rng() < 0.3) o[n] = randomValue(rng, depth + 1);
    return o;
  }
  return Array.from({ length: Math.floor(rng() * 3) }, () => randomValue(rng, depth + 1));
}

/** A value shaped like `node` wants (usually valid under it, sometimes deliberately off). */
function valueFor(node: SchemaNode, rng: Rng, depth: number): unknown {
  if (node.always !== undefined || rng() < 0.05) return randomValue(rng, depth);
  if (node.enum && node.enum.length > 0 && rng() < 0.8) return structuredClone(pick(rng, node.enum));
  if (node.hasConst && rng() < 0.8) return structuredClone(node.constValue);
  const type = pick(rng, node.types ?? TYPES);
  switch (type) {
    case 'string': {
      const lo = Math.max(node.minLength ?? 0, 0);
      const hi = Math.max(Math.min(node.maxLength ?? lo + 3, lo + 4), lo);
      const len = lo + Math.floor(rng() * (hi - lo + 1));
      return Array.from({ length: len }, () => pick(rng, ['a', 'b', '\u{1F600}'])).join('');
    }
    case 'integer':
      return (node.minimum === undefined ? -2 : Math.ceil(node.minimum)) + Math.floor(rng() * 4);
    case 'number':
      return (node.minimum ?? -2) + pick(rng, [0, 0.5, 1, 1.25, 3]);
    case 'boolean':
      return rng() < 0.5;
    case 'null':
      return null;
    case 'array':
      if (depth > 3) return [];
      return Array.from({ length: Math.floor(rng() * 3) }, () =>
        node.items ? valueFor(node.items, rng, depth + 1) : randomValue(rng, depth + 1),
      );
    default: {
      const o: Record<string, unknown> = {};
      if (depth > 3) return o;
      const props = new Map(node.properties ?? []);
      for (const name of NAMES) {
        const declared = props.get(name);
        const wanted = node.required?.includes(name) ? 0.95 : declared ? 0.6 : 0.25;
        if (rng() >= wanted) continue;
        const governing = declared ?? node.additional;
        o[name] = governing ? valueFor(governing, rng, depth + 1) : randomValue(rng, depth + 1);
      }
      return o;
    }
  }
}

const ANY: SchemaNode = { pointer: '', always: true };

/**
 * True when the violation's data path passes through a property name that `src` left to an open
 * schema (additionalProperties absent or `true`) and `tgt` declares (with a schema other than
 * `false`, which compat compares): registry policy.
 */
function policyExcused(src: SchemaNode, tgt: SchemaNode, data: unknown, instancePath: string): boolean {
  let s = src;
  let t = tgt;
  let d = data;
  for (const token of parsePointer(instancePath)) {
    if (Array.isArray(d)) {
      s = s.items ?? ANY;
      t = t.items ?? ANY;
      d = d[Number(token)];
    } else if (isSchemaObject(d)) {
      const sp = s.properties?.find(([n]) => n === token)?.[1];
      const tp = t.properties?.find(([n]) => n === token)?.[1];
      const open = s.additional === undefined || s.additional.always === true;
      if (sp === undefined && tp !== undefined && tp.always !== false && open) return true;
      s = sp ?? s.additional ?? ANY;
      t = tp ?? t.additional ?? ANY;
      d = d[token];
    } else {
      return false;
    }
  }
  return false;
}

const trivial = (d: unknown): boolean =>
  (Array.isArray(d) && d.length === 0) || (isSchemaObject(d) && Object.keys(d).length === 0);

// ---------------------------------------------------------------- the properties

const RUNS = 10_000;

function soundness(direction: 'backward' | 'forward', seed: number): void {
  let compatibleRuns = 0;
  let checkedRuns = 0;
  let excused = 0;
  fc.assert(
    fc.property(rootArb, editsArb, fc.gen(), (oldSchema, edits, g) => {
      const newSchema = applyEdits(oldSchema, edits);
      const result = compareSchemas(oldSchema, newSchema, { mode: direction });
      if (!result.compatible) {
        // full breaks whenever either direction does.
        if (compareSchemas(oldSchema, newSchema, { mode: 'full' }).compatible) {
          throw new Error(`full is compatible but ${direction} is not: ${JSON.stringify([oldSchema, newSchema])}`);
        }
        return;
      }
      compatibleRuns++;
      // `keep` is the schema whose valid data must stay valid under `other`.
      const [keep, other] = direction === 'backward' ? [oldSchema, newSchema] : [newSchema, oldSchema];
      const keepNode = parseSchema(keep).root;
      const otherNode = parseSchema(other).root;
      const isValid = compile(keep, quiet).isValid;
      const validate = compile(other, quiet).validate;
      const rng = rngFrom(g);
      let nonTrivial = false;
      for (let i = 0; i < 8; i++) {
        const data = valueFor(keepNode, rng, 0);
        if (!isValid(data)) continue;
        const violations = validate(data);
        const real = violations.filter((v) => !policyExcused(keepNode, otherNode, data, v.instancePath));
        if (violations.length > real.length) excused++;
        if (real.length > 0) {
          throw new Error(
            `compat said ${direction}-compatible, but ${JSON.stringify(data)} is valid under ` +
              `${JSON.stringify(keep)} and not under ${JSON.stringify(other)}: ${JSON.stringify(real)}; ` +
              `changes ${JSON.stringify(result.changes)}`,
          );
        }
        if (!trivial(data)) nonTrivial = true;
      }
      if (nonTrivial) checkedRuns++;
    }),
    { numRuns: RUNS, seed },
  );
  // Not vacuous: many runs end in a compatible verdict, checked against real data.
  expect(compatibleRuns).toBeGreaterThan(RUNS * 0.15);
  expect(checkedRuns).toBeGreaterThan(RUNS * 0.1);
  // The policy exemption is exercised but is far from the whole story.
  expect(excused).toBeLessThan(checkedRuns);
}

describe('compat soundness (fast-check)', () => {
  it('backward-compatible ⇒ every value valid under old is valid under new', () => {
    soundness('backward', 20240601);
  });

  it('forward-compatible ⇒ every value valid under new is valid under old', () => {
    soundness('forward', 20240602);
  });
});
