import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, hasOwn, isSchemaObject, parsePointer, type Violation } from '../../src/validator/index.js';
import { generateTypes } from '../../src/types/index.js';
import { literal, ROOT, typeCheck } from '../helpers/tsc.js';

/*
 * Types and verdicts agree. For each (schema, data) case:
 *   - data the validator accepts must type-check against the generated type;
 *   - data it rejects for a reason a type can express (type, required, enum, const,
 *     additionalProperties, a false schema) must not.
 * Not asserted: data rejected only for minLength / maxLength / minimum (no TypeScript type can
 * say them), and a value under an additionalProperties schema of an object that also declares
 * properties (the index signature must admit the declared property types: TS2411); both are
 * documented in docs/types.md, as are the two type reasons TypeScript cannot express (see
 * `inexpressible`). Cases are checked in batches, one TypeScript program per batch.
 */

interface Case {
  schema: unknown;
  data: unknown;
  /** The data as written (a contract case's `data_json`, e.g. `1.0`); else its JSON. */
  text?: string;
  label?: string;
}

const TYPE_REASONS = new Set(['type', 'required', 'enum', 'const', 'additionalProperties', 'properties', 'items', 'false']);

/** Whether a violation passes through an additionalProperties schema beside declared properties. */
function underLooseIndex(schema: unknown, v: Violation): boolean {
  const tokens = parsePointer(v.schemaPath);
  let at = schema;
  for (let i = 0; i < tokens.length;) {
    const keyword = tokens[i]!;
    if (!isSchemaObject(at)) return false;
    if (keyword === 'properties') {
      at = isSchemaObject(at.properties) && hasOwn(at.properties, tokens[i + 1]!) ? at.properties[tokens[i + 1]!] : undefined;
      i += 2;
    } else if (keyword === 'items' || keyword === 'additionalProperties') {
      const next = at[keyword];
      if (
        keyword === 'additionalProperties' &&
        isSchemaObject(next) &&
        isSchemaObject(at.properties) &&
        Object.keys(at.properties).length > 0
      ) {
        return true;
      }
      at = next;
      i += 1;
    } else return false;
  }
  return false;
}

/** The value at an RFC 6901 pointer, read through own properties only. */
function at(value: unknown, pointer: string): unknown {
  let v = value;
  for (const token of parsePointer(pointer)) {
    if (typeof v !== 'object' || v === null || !hasOwn(v, token)) return undefined;
    v = (v as Record<string, unknown>)[token];
  }
  return v;
}

/** TypeScript gives every object the members of its `Object` interface (`{}` has a `constructor`). */
const OBJECT_MEMBERS = new Set([
  'constructor',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
]);

/**
 * A type reason no TypeScript type can express: a non-integral number where only `integer` is
 * allowed, or a missing required property that every object has in TypeScript's eyes.
 */
function inexpressible(schema: unknown, data: unknown, v: Violation): boolean {
  const node = at(schema, v.schemaPath.slice(0, v.schemaPath.lastIndexOf('/')));
  if (v.keyword === 'type') {
    const types = isSchemaObject(node) ? node.type : undefined;
    const list = typeof types === 'string' ? [types] : Array.isArray(types) ? types : [];
    return typeof at(data, v.instancePath) === 'number' && list.includes('integer');
  }
  if (v.keyword === 'required') {
    const name = /must have required property (".*")$/.exec(v.message);
    return name !== null && OBJECT_MEMBERS.has(JSON.parse(name[1]!) as string);
  }
  return false;
}

/**
 * Whether the data puts an `Object` member name (`constructor`, …) under an index signature. TypeScript
 * then types that property's literal by `Object`'s member, not by the signature: `[{}]` becomes `{}[]`
 * and `"a"` becomes `string`, so a literal the type admits is refused (found by the property, seed
 * -836751748). A declared property keeps its context, so only keys the schema does not declare count.
 */
function contextLost(schema: unknown, data: unknown, depth = 0): boolean {
  if (depth > 64 || !isSchemaObject(schema) || typeof data !== 'object' || data === null) return false;
  if (Array.isArray(data)) return data.some((item) => contextLost(schema.items, item, depth + 1));
  const declared = isSchemaObject(schema.properties) ? schema.properties : {};
  return Object.keys(data).some((k) => {
    const value = (data as Record<string, unknown>)[k];
    if (hasOwn(declared, k)) return contextLost(declared[k], value, depth + 1);
    return OBJECT_MEMBERS.has(k) || contextLost(schema.additionalProperties, value, depth + 1);
  });
}

type Expectation = 'accept' | 'reject' | 'either';

function expectation(schema: unknown, data: unknown): { expect: Expectation; violations: Violation[] } {
  const violations = compile(schema, { onWarning: () => {} }).validate(data);
  if (violations.length === 0) return { expect: contextLost(schema, data) ? 'either' : 'accept', violations };
  const expressible = violations.some((v) => TYPE_REASONS.has(v.keyword) && !underLooseIndex(schema, v) && !inexpressible(schema, data, v));
  return { expect: expressible ? 'reject' : 'either', violations };
}

/** Type-checks a batch and returns a message per disagreement (empty: all agree). */
function disagreements(cases: readonly Case[], generate: typeof generateTypes = generateTypes): string[] {
  const schemas: unknown[] = [];
  const index = new Map<string, number>();
  const caseSchema: number[] = [];
  for (const c of cases) {
    const key = literal(c.schema);
    let k = index.get(key);
    if (k === undefined) {
      k = schemas.length;
      schemas.push(c.schema);
      index.set(key, k);
    }
    caseSchema.push(k);
  }
  let source = generate(schemas.map((schema, k) => ({ urn: `urn:t:s${k}`, schema })));
  const firstCaseLine = source.split('\n').length;
  source +=
    cases.map((c, i) => `const x${i}: BqMessages[${literal(`urn:t:s${caseSchema[i]}`)}] = ${c.text ?? literal(c.data)};`).join('\n') + '\n';
  const errors = new Map<number, string[]>();
  const out: string[] = [];
  for (const d of typeCheck({ 'test/__types_agree.ts': source })) {
    const i = d.line - firstCaseLine;
    if (i < 0 || i >= cases.length) out.push(`the generated module does not compile: line ${d.line}: ${d.message}`);
    else errors.set(i, [...(errors.get(i) ?? []), d.message]);
  }
  cases.forEach((c, i) => {
    const { expect: want, violations } = expectation(c.schema, c.data);
    const rejected = errors.has(i);
    if ((want === 'accept' && rejected) || (want === 'reject' && !rejected)) {
      out.push(
        `${c.label ?? ''} schema ${literal(c.schema)} data ${literal(c.data)}: validator ${want}s ` +
          `(${violations.map((v) => `${v.schemaPath} ${v.keyword}`).join(', ') || 'valid'}), TypeScript ${rejected ? `rejects: ${errors.get(i)!.join('; ')}` : 'accepts'}`,
      );
    }
  });
  return out;
}

/** Builds an object with own enumerable properties (so `__proto__` is a key, not a prototype). */
function objectOf(entries: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const NAMES = ['a', 'b', 'c', '__proto__', 'constructor', '*/', 'x y'];
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const nameArb = fc.constantFrom(...NAMES);

const scalarArb = fc.oneof(fc.constantFrom('', 'a', 'ab', 'abcd', 'x y', '*/', 0, 1, 2, -1, 1.5, 100, true, false, null));
const valueArb: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarArb,
    fc.array(tie('v'), { maxLength: 2 }),
    fc.array(fc.tuple(nameArb, tie('v')), { maxLength: 2 }).map(objectOf),
  ),
})).v;

const ABSENT = Symbol('absent');
/** A keyword present about once in `1 + rarity` schemas. */
const sometimes = <T>(arb: fc.Arbitrary<T>, rarity: number): fc.Arbitrary<T | typeof ABSENT> =>
  fc.oneof({ arbitrary: fc.constant(ABSENT), weight: rarity }, { arbitrary: arb, weight: 1 });

/** Schemas in the subset, with some unsupported and malformed keywords and bounds mixed in. */
const schemaArb: fc.Arbitrary<unknown> = fc.letrec<{ s: unknown }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(true, false, {}),
    fc
      .record({
        type: sometimes(
          fc.oneof(
            fc.constantFrom(...TYPES),
            fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }),
            fc.constant('strin'),
          ),
          1,
        ),
        required: sometimes(fc.oneof(fc.uniqueArray(nameArb, { maxLength: 2 }), fc.constant('a')), 1),
        properties: sometimes(fc.array(fc.tuple(nameArb, tie('s')), { maxLength: 3 }).map(objectOf), 1),
        additionalProperties: sometimes(fc.oneof(fc.boolean(), tie('s')), 1),
        items: sometimes(fc.oneof(fc.boolean(), tie('s')), 2),
        // Rarer, so that most schemas admit more than a few literals.
        enum: sometimes(fc.array(valueArb, { minLength: 0, maxLength: 3 }), 5),
        const: sometimes(valueArb, 7),
        minLength: sometimes(fc.constantFrom(1, 2), 5),
        maxLength: sometimes(fc.constantFrom(0, 2), 5),
        minimum: sometimes(fc.constantFrom(0, 1.5), 5),
        pattern: sometimes(fc.constant('^a'), 5),
      })
      .map((s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v !== ABSENT)))
      // Often require some of the declared properties: independent draws rarely overlap.
      .chain((s) => {
        const declared = isSchemaObject(s.properties) ? Object.keys(s.properties) : [];
        if (declared.length === 0) return fc.constant(s);
        const own = Array.isArray(s.required) ? (s.required as string[]) : [];
        return fc.oneof(
          fc.constant(s),
          fc.subarray(declared, { minLength: 1 }).map((names) => ({ ...s, required: [...new Set([...own, ...names])] })),
        );
      }),
  ),
})).s;

/** Data near a schema: what its keywords ask for, often enough valid, with plain values mixed in. */
function nearArb(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  if (!isSchemaObject(schema) || depth > 3) return valueArb;
  const options: fc.Arbitrary<unknown>[] = [valueArb];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    options.push(fc.constantFrom(...(schema.enum as unknown[])));
    // Two listed objects merged: equal to neither (TypeScript checks excess properties per union).
    const objects = (schema.enum as unknown[]).filter(isSchemaObject);
    if (objects.length > 1) {
      options.push(
        fc
          .tuple(fc.constantFrom(...objects), fc.constantFrom(...objects))
          .map(([a, b]) => objectOf([...Object.entries(a), ...Object.entries(b)])),
      );
    }
  }
  if (hasOwn(schema, 'const')) options.push(fc.constant(schema.const));
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : TYPES;
  for (const t of types) {
    if (t === 'string') options.push(fc.constantFrom('', 'a', 'abc'));
    else if (t === 'number' || t === 'integer') options.push(fc.constantFrom(0, 2, 2.5));
    else if (t === 'boolean') options.push(fc.boolean());
    else if (t === 'null') options.push(fc.constant(null));
    else if (t === 'array') options.push(fc.array(nearArb(schema.items, depth + 1), { maxLength: 3 }));
    else if (t === 'object') {
      const props = isSchemaObject(schema.properties) ? schema.properties : {};
      const names = [...new Set([...Object.keys(props), ...(Array.isArray(schema.required) ? (schema.required as string[]) : [])])];
      const present = names.map((n) =>
        fc.option(fc.tuple(fc.constant(n), nearArb(hasOwn(props, n) ? props[n] : true, depth + 1)), { freq: 4 }),
      );
      const extra = fc.option(fc.tuple(fc.constantFrom('z', '__proto__', 'constructor'), nearArb(schema.additionalProperties, depth + 1)), {
        freq: 2,
      });
      options.push(
        fc.tuple(fc.tuple(...present), extra).map(([ps, e]) => objectOf([...ps, e].filter((p): p is [string, unknown] => p !== null))),
      );
    }
  }
  return fc.oneof(...options);
}

const caseArb: fc.Arbitrary<Case[]> = schemaArb.chain((schema) =>
  fc.array(nearArb(schema), { minLength: 1, maxLength: 4 }).map((data) => data.map((d) => ({ schema, data: d }))),
);

const objectArb = fc.array(fc.tuple(nameArb, valueArb), { minLength: 1, maxLength: 3 }).map(objectOf);

/** Listed objects, nested too, and data that merges two of them: literal object unions must stay exact. */
const enumObjectsCaseArb: fc.Arbitrary<Case[]> = fc
  .array(
    fc.oneof(
      objectArb,
      fc.tuple(nameArb, objectArb).map(([k, v]) => objectOf([[k, v]])),
    ),
    { minLength: 2, maxLength: 3 },
  )
  .chain((objects) => {
    const schema = { enum: objects };
    return fc
      .array(fc.tuple(fc.constantFrom(...objects), fc.constantFrom(...objects)), { minLength: 1, maxLength: 3 })
      .map((pairs) => pairs.map(([a, b]) => ({ schema, data: objectOf([...Object.entries(a), ...Object.entries(b)]) })));
  });

describe('generated types agree with validator verdicts', () => {
  it('on every contract validation case', () => {
    const contract = JSON.parse(readFileSync(join(ROOT, 'test/vendor/conformance/contract-cases.json'), 'utf8')) as {
      validation: Array<{ name: string; schema: unknown; tests: Array<{ description: string; data?: unknown; data_json?: string }> }>;
    };
    const cases = contract.validation.flatMap((g) =>
      g.tests.map((t): Case => {
        const label = `${g.name} / ${t.description}:`;
        // data_json keeps what JSON.parse loses (1.0, -0.0); it is also a TypeScript literal.
        if (t.data_json !== undefined)
          return {
            schema: g.schema,
            data: JSON.parse(t.data_json),
            text: t.data_json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'),
            label,
          };
        return { schema: g.schema, data: t.data, label };
      }),
    );
    expect(cases).toHaveLength(105);
    expect(disagreements(cases)).toEqual([]);
  });

  it('a closed object whose required keys every array and primitive also has (found by the property, seed 1726649222)', () => {
    const schemas = [
      { type: 'object', required: ['constructor'], properties: { constructor: {} }, additionalProperties: false },
      {
        type: ['string', 'integer', 'object'],
        required: ['constructor'],
        properties: { constructor: {}, 'x y': false, '*/': { minLength: 2 } },
        additionalProperties: false,
      },
      { type: 'object', required: ['toString', 'valueOf'], additionalProperties: false, properties: { toString: {}, valueOf: {} } },
    ];
    const data: unknown[] = [
      [],
      [{}, ['x y', { a: 2, constructor: '' }]],
      5,
      'abc',
      true,
      { constructor: 1 },
      { constructor: 1, length: 2 },
      { toString: 1, valueOf: 2 },
    ];
    expect(disagreements(schemas.flatMap((schema) => data.map((d): Case => ({ schema, data: d }))))).toEqual([]);
  });

  // BQ_TYPES_RUNS=300 for a longer soak (about 0.3 s per run of ~150 cases on an idle core).
  const runs = Number(process.env.BQ_TYPES_RUNS ?? 20);
  it('on generated schemas and data (property)', { timeout: Math.max(60_000, runs * 2_000) }, () => {
    let checked = 0;
    let accepted = 0;
    let rejected = 0;
    // fc.check, not fc.assert: the report is the disagreements found, not a batch of 200 cases.
    const run = fc.check(
      fc.property(
        fc.array(fc.oneof({ arbitrary: caseArb, weight: 6 }, { arbitrary: enumObjectsCaseArb, weight: 1 }), {
          minLength: 60,
          maxLength: 60,
        }),
        (groups) => {
          const cases = groups.flat();
          for (const c of cases) {
            const e = expectation(c.schema, c.data).expect;
            if (e === 'accept') accepted++;
            else if (e === 'reject') rejected++;
          }
          checked += cases.length;
          const found = disagreements(cases);
          if (found.length > 0) throw new Error(found.slice(0, 5).join('\n'));
        },
      ),
      // BQ_TYPES_SEED=<seed> replays a reported failure.
      { numRuns: runs, endOnFailure: true, ...(process.env.BQ_TYPES_SEED ? { seed: Number(process.env.BQ_TYPES_SEED) } : {}) },
    );
    if (run.failed)
      throw new Error(`seed ${run.seed}: ${run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance)}`);
    // The generator must exercise both sides, or the property proves little.
    expect(accepted).toBeGreaterThan(checked / 5);
    expect(rejected).toBeGreaterThan(checked / 5);
  });

  it('is not vacuous: a generator that ignores the schema disagrees', () => {
    const cases = [
      { schema: { type: 'string' }, data: 1 },
      { schema: { type: 'object', required: ['a'] }, data: {} },
      { schema: { type: 'string' }, data: 'ok' },
    ];
    const everything: typeof generateTypes = (entries) => generateTypes(entries.map((e) => ({ ...e, schema: true })));
    const nothing: typeof generateTypes = (entries) => generateTypes(entries.map((e) => ({ ...e, schema: false })));
    expect(disagreements(cases)).toEqual([]);
    expect(disagreements(cases, everything)).toHaveLength(2);
    expect(disagreements(cases, nothing)).toHaveLength(1);
  });
});
