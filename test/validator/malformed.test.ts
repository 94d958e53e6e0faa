import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import {
  compile,
  lintSchema,
  warningMessage,
  SchemaError,
  MALFORMED_WARNING_CODE,
  WARNING_CODE,
  type SchemaWarning,
} from '../../src/validator/index.js';

/*
 * docs/contract.md §8: a supported keyword with a value of the wrong shape (or a NaN anywhere) has no
 * effect on the verdict, is reported through the warning channel as `malformed`, and `strict`
 * makes it a SchemaError. Unsupported keywords keep their channel and never throw.
 */

const quiet = { onWarning: () => {} };
const SAMPLES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  5,
  100,
  '',
  'a',
  'abc',
  'order_id',
  [],
  [1],
  ['x', 2],
  {},
  { a: 1 },
  { order_id: 'x' },
  { x: 'abc' },
  { x: 5, y: [] },
  { a: { b: 1 } },
  [NaN],
  { n: NaN },
  { '': 1 },
];

// [name, schema, pointer, keyword, the same schema without the malformed keyword]
const CASES: Array<[string, Record<string, unknown>, string, string, Record<string, unknown>]> = [
  ['unknown type name', { type: 'integr', minimum: 3 }, '', 'type', { minimum: 3 }],
  ['required as a string', { required: 'order_id', type: 'object' }, '', 'required', { type: 'object' }],
  ['required with a number', { required: ['a', 3] }, '', 'required', {}],
  ['enum as a string', { enum: 'abc' }, '', 'enum', {}],
  ['minLength as a string', { minLength: '3', maxLength: 5 }, '', 'minLength', { maxLength: 5 }],
  ['maxLength as a boolean', { maxLength: true }, '', 'maxLength', {}],
  ['minLength Infinity', { minLength: Infinity }, '', 'minLength', {}],
  ['maxLength -Infinity', { maxLength: -Infinity }, '', 'maxLength', {}],
  ['maxLength NaN', { maxLength: NaN }, '', 'maxLength', {}],
  ['minimum as a string', { minimum: '5' }, '', 'minimum', {}],
  ['minimum NaN', { minimum: NaN, type: 'number' }, '', 'minimum', { type: 'number' }],
  ['properties as an array', { properties: [{ type: 'string' }] }, '', 'properties', {}],
  [
    'a property schema that is a string',
    { properties: { x: 'string', y: { type: 'array' } } },
    '',
    'properties',
    { properties: { y: { type: 'array' } } },
  ],
  ['additionalProperties a number', { additionalProperties: 0 }, '', 'additionalProperties', {}],
  ['items a string', { items: 'string' }, '', 'items', {}],
  ['NaN in const', { const: NaN }, '', 'const', {}],
  ['NaN deep in a const object', { const: { a: [1, { b: NaN }] } }, '', 'const', {}],
  ['NaN in enum', { enum: [1, NaN, 'a'] }, '', 'enum', {}],
  ['NaN in an enum array value', { enum: [[NaN], 5] }, '', 'enum', {}],
  ['NaN in an annotation', { default: NaN, type: 'string' }, '', 'default', { type: 'string' }],
  ['nested under properties', { properties: { x: { required: 'a' } } }, '/properties/x', 'required', { properties: { x: {} } }],
  ['nested under items', { items: { type: 'float' } }, '/items', 'type', { items: {} }],
  [
    'nested under additionalProperties',
    { additionalProperties: { minLength: NaN } },
    '/additionalProperties',
    'minLength',
    { additionalProperties: {} },
  ],
];

describe('malformed keywords', () => {
  it.each(CASES)('%s: a malformed warning, and the verdicts of the schema without it', (_n, schema, pointer, keyword, without) => {
    const got: Array<[SchemaWarning, string]> = [];
    const s = compile(schema, { onWarning: (w, m) => got.push([w, m]) });
    const malformed = s.warnings.filter((w) => w.kind === 'malformed');
    expect(malformed).toEqual([{ kind: 'malformed', pointer, keyword, message: expect.any(String) }]);
    expect(got.map(([w]) => w)).toEqual(s.warnings);
    // lintSchema still answers what it did: the malformed ones, as LintIssues.
    expect(lintSchema(schema)).toEqual([{ pointer, keyword, message: malformed[0]!.message }]);
    const ref = compile(without, quiet);
    for (const v of SAMPLES) {
      expect(s.isValid(v), JSON.stringify(v)).toBe(ref.isValid(v));
      expect(s.validate(v)).toEqual(ref.validate(v));
    }
  });

  it('the message words malformed and unsupported differently, with pointer, keyword and problem', () => {
    const s = compile({ properties: { x: { required: 'order_id', pattern: 'a' } } }, { urn: 'urn:t:m:1', onWarning: () => {} });
    const [a, b] = s.warnings;
    expect(a).toMatchObject({ kind: 'malformed', keyword: 'required' });
    expect(b).toMatchObject({ kind: 'unsupported', keyword: 'pattern' });
    expect(b!.message).toBeUndefined();
    expect(warningMessage(a!)).toBe(
      'schema for urn:t:m:1: malformed keyword "required" at /properties/x: must be an array of strings, got the string "order_id"; it is not enforced',
    );
    expect(warningMessage(b!)).toBe('schema for urn:t:m:1: unsupported keyword "pattern" at /properties/x is not enforced');
  });

  it('a schema with a misspelt keyword is no longer silent', () => {
    const s = compile({ type: 'object', properties: { amount: { type: 'integr' } }, required: 'order_id' }, quiet);
    expect(s.warnings.map((w) => `${w.kind} ${w.pointer} ${w.keyword}`)).toEqual([
      'malformed /properties/amount type',
      'malformed  required',
    ]);
    expect(warningMessage(s.warnings[0]!)).toContain('unknown type name "integr"');
  });
});

describe('strict', () => {
  it('throws a SchemaError naming the first malformed keyword and its pointer', () => {
    const schema = { pattern: 'x', properties: { 'a/b': { minLength: 'three' } }, required: 7 };
    let err: unknown;
    try {
      compile(schema, { ...quiet, strict: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchemaError);
    const e = err as SchemaError;
    expect(e.pointer).toBe('/properties/a~1b');
    expect(e.keyword).toBe('minLength');
    expect(e.message).toBe('malformed keyword "minLength" at /properties/a~1b: must be a finite number, got the string "three"');
  });

  it('never throws for unsupported keywords, and without strict never throws for malformed ones', () => {
    expect(compile({ pattern: 'x', format: 'date', items: [{}] }, { ...quiet, strict: true }).warnings).toHaveLength(3);
    expect(() => compile({ required: 7 }, quiet)).not.toThrow();
    expect(() => compile({ const: NaN }, { ...quiet, strict: true })).toThrow(SchemaError);
  });

  it('a well-formed schema compiles the same under strict', () => {
    const s = compile({ type: 'object', required: ['a'], properties: { a: { minimum: 5 } } }, { ...quiet, strict: true });
    expect(s.isValid({ a: 4 })).toBe(false);
    expect(s.isValid({ a: 5 })).toBe(true);
  });
});

describe('process.emitWarning', () => {
  let spy: MockInstance<typeof process.emitWarning>;
  beforeEach(() => {
    spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
  });
  afterEach(() => {
    spy.mockRestore();
  });

  it('malformed uses its own code, unsupported keeps BABELQUEUE_UNSUPPORTED_SCHEMA_KEYWORD', () => {
    expect(MALFORMED_WARNING_CODE).toBe('BABELQUEUE_MALFORMED_SCHEMA_KEYWORD');
    // A keyword some draft defines (an invented one is unknown now, docs/contract.md §14; the URN makes the message new).
    compile({ required: 'x', format: 'email' }, { urn: 'urn:test:malformed-emit:1' });
    expect(spy.mock.calls.map((c) => c[1])).toEqual([{ code: MALFORMED_WARNING_CODE }, { code: WARNING_CODE }]);
    expect(spy.mock.calls[0]![0]).toContain('malformed keyword "required"');
    expect(spy.mock.calls[1]![0]).toContain('unsupported keyword "format"');
  });
});
