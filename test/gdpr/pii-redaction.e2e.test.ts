// Personal data stays masked everywhere it is shown: the validator's messages
// say what kind of value a marked field held instead of quoting it (compiled, interpreted and
// standalone alike, the unmarked wording unchanged), masking reaches every keyword a marker can
// sit under and fails closed on malformed markers, check fails on markers it cannot reach, YAML
// keys of any scalar type are masked, `gdpr --mask --urn` masks an envelope, the catalog shows
// examples masked, and the library's mask masks what JSON.stringify writes.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/catalog/index.js';
import { judgeCorpus } from '../../src/compat/evidence.js';
import { mask, maskAnnotations } from '../../src/validator/mask.js';
import { maskWith, MapProvider, validate as guardValidate, InvalidPayloadError } from '../../src/index.js';
import { parseText, SourcePositions } from '../../src/registry/index.js';
import { compile, parseSchema } from '../../src/validator/index.js';
import { generate, preview } from '../../src/validator/compile.js';
import { interpret } from '../../src/validator/interpret.js';
import { markerIssues } from '../../src/validator/sensitive.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

const quiet = { onWarning: (): void => {} };

/** compile()'s violations as `path message`, after checking that the interpreter gives the same. */
function said(schema: unknown, data: unknown): string[] {
  const compiled = compile(schema, quiet).validate(data);
  expect(interpret(parseSchema(schema).root, preview, new Map()).validate(data)).toEqual(compiled);
  return compiled.map((v) => `${v.instancePath} ${v.message}`);
}

const stripMarkers = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'x-gdpr-sensitive' ? undefined : x)));

describe('violations never quote a marked value', () => {
  it('a number below minimum is said by its kind; the unmarked wording is unchanged', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 10, 'x-gdpr-sensitive': true },
        f: { minimum: 10, 'x-gdpr-sensitive': 'salary' },
        m: { type: 'integer', minimum: 10 },
      },
    };
    expect(said(schema, { n: -12345, f: 2.5, m: -5 })).toEqual([
      '/n must be >= 10, got a negative integer',
      '/f must be >= 10, got a number',
      '/m must be >= 10, got -5',
    ]);
    expect(said(schema, { n: 7, f: -0.5 })).toEqual(['/n must be >= 10, got an integer', '/f must be >= 10, got a negative number']);
    // Without the markers, the same schema words it as it always has.
    expect(said(stripMarkers(schema), { n: -12345, f: 2.5 })).toEqual(['/n must be >= 10, got -12345', '/f must be >= 10, got 2.5']);
  });

  it('below a marked node, and where a branch, a $ref or patternProperties marks it', () => {
    const cases: Array<[unknown, unknown, string]> = [
      [
        { properties: { p: { 'x-gdpr-sensitive': true, properties: { age: { minimum: 18 } } } } },
        { p: { age: -31 } },
        '/p/age must be >= 18, got a negative integer',
      ],
      [{ properties: { p: { items: { minimum: 1 }, 'x-gdpr-sensitive': 1 } } }, { p: [-4] }, '/p/0 must be >= 1, got a negative integer'],
      [{ properties: { n: { minimum: 10, anyOf: [{ 'x-gdpr-sensitive': true }] } } }, { n: 3 }, '/n must be >= 10, got an integer'],
      [
        { properties: { n: { minimum: 10, $ref: '#/definitions/pii' } }, definitions: { pii: { 'x-gdpr-sensitive': 'email' } } },
        { n: 3 },
        '/n must be >= 10, got an integer',
      ],
      [
        { additionalProperties: { minimum: 10 }, patternProperties: { '^s': { 'x-gdpr-sensitive': true } } },
        { salary: 3 },
        '/salary must be >= 10, got an integer',
      ],
      [
        { properties: { n: { minimum: 10 } }, allOf: [{ properties: { n: { 'x-gdpr-sensitive': [] } } }] },
        { n: 3 },
        '/n must be >= 10, got an integer',
      ],
    ];
    for (const [schema, data, line] of cases) expect(said(schema, data), JSON.stringify(schema)).toEqual([line]);
  });

  it('names of undeclared properties under a marked object are *** in the instance path', () => {
    const schema = {
      properties: {
        contacts: { 'x-gdpr-sensitive': true, additionalProperties: { type: 'string' } },
        tags: { additionalProperties: { type: 'string' } },
      },
    };
    expect(said(schema, { contacts: { 'ayse@example.com': 5 }, tags: { plain: 5 } })).toEqual([
      '/contacts/*** must be string, got integer',
      '/tags/plain must be string, got integer',
    ]);
    const closed = { properties: { c: { 'x-gdpr-sensitive': true, type: 'object', properties: { a: {} }, additionalProperties: false } } };
    expect(said(closed, { c: { 'ayse@example.com': 1, 'bob@example.com': 2 } })).toEqual([
      '/c/*** is not allowed (additionalProperties is false)',
      '/c/*** is not allowed (additionalProperties is false)',
    ]);
    expect(said(closed, { c: { 'ayse@example.com': 1 } })).toEqual(['/c/*** is not allowed (additionalProperties is false)']);
  });

  it('where masking would hide a value whole (its shape is not the one the schema describes), so does the message', () => {
    // No `type` says this node holds objects; a marked item below means an object here is masked whole.
    const schema = { properties: { p: { properties: { q: { minimum: 5 } }, items: { 'x-gdpr-sensitive': true } } } };
    expect(mask({ p: { q: -7 } }, schema)).toEqual({ p: '***' });
    expect(said(schema, { p: { q: -7 } })).toEqual(['/p/q must be >= 5, got a negative integer']);
    // A number where only objects are described, a mark below: masked whole, not quoted.
    const scalar = { properties: { p: { type: 'object', minimum: 5, properties: { e: { 'x-gdpr-sensitive': true } } } } };
    expect(mask({ p: -7 }, scalar)).toEqual({ p: '***' });
    expect(said(scalar, { p: -7 })).toEqual(['/p must be object, got integer', '/p must be >= 5, got a negative integer']);
  });

  it("isValid's generated code is the same with and without markers: the valid path costs nothing more", () => {
    const schema = {
      type: 'object',
      required: ['n'],
      properties: {
        n: { type: 'integer', minimum: 10, 'x-gdpr-sensitive': true },
        c: { 'x-gdpr-sensitive': 'x', additionalProperties: { minimum: 1 } },
        a: { anyOf: [{ 'x-gdpr-sensitive': true }], minimum: 2 },
      },
    };
    const source = (s: unknown, mode: 'valid' | 'all'): string => generate(parseSchema(s).root, mode, new Map()).source;
    expect(source(schema, 'valid')).toBe(source(stripMarkers(schema), 'valid'));
    // validate's code differs only where it words a marked value (the test would pass vacuously otherwise).
    expect(source(schema, 'all')).not.toBe(source(stripMarkers(schema), 'all'));
  });

  it("the library's Violation and InvalidPayloadError, and compat's corpus findings, carry the redacted wording", async () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 10, 'x-gdpr-sensitive': true },
        c: { 'x-gdpr-sensitive': true, additionalProperties: false },
      },
    };
    const data = { n: -777123, c: { 'secret@example.com': 1 } };
    const provider = new MapProvider({ 'urn:t:p': schema });
    let thrown: unknown;
    try {
      guardValidate(provider, 'urn:t:p', data);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidPayloadError);
    const error = thrown as InvalidPayloadError;
    expect(error.message).toContain('got a negative integer');
    expect(JSON.stringify({ message: error.message, violations: error.violations })).not.toMatch(/777123|secret@/);
    const text = JSON.stringify({ job: 'urn:t:p', data });
    const report = await judgeCorpus(
      (async function* () {
        yield [{ kind: 'doc' as const, file: 'corpus.ndjson', line: 1, text }];
      })(),
      (urn) => (urn === 'urn:t:p' ? { key: urn, schema: compile(schema, quiet) } : undefined),
      ['urn:t:p'],
    );
    expect(report.urns[0]!.rejected).toBe(1);
    expect(report.urns[0]!.examples[0]!.message).toBe('/n must be >= 10, got a negative integer');
    expect(JSON.stringify(report)).not.toMatch(/777123|secret@/);
  });
});

describe('masking reaches every marker and fails closed', () => {
  const marked = (where: Record<string, unknown>): Record<string, unknown> => ({ type: 'object', ...where });
  const cases: Array<[string, Record<string, unknown>, unknown, unknown]> = [
    [
      'anyOf',
      marked({ properties: { e: { anyOf: [{ type: 'string', 'x-gdpr-sensitive': true }, { type: 'null' }] } } }),
      { e: 'ayse' },
      { e: 'a***' },
    ],
    [
      'oneOf under properties',
      marked({ oneOf: [{ properties: { e: { 'x-gdpr-sensitive': 'email' } } }] }),
      { e: 'ayse', f: 'x' },
      { e: 'a***', f: 'x' },
    ],
    ['allOf', marked({ allOf: [{ properties: { e: { 'x-gdpr-sensitive': true } } }] }), { e: 'ayse' }, { e: 'a***' }],
    ['not', marked({ properties: { e: { not: { 'x-gdpr-sensitive': true } } } }), { e: 'ayse' }, { e: 'a***' }],
    [
      'if / then / else',
      marked({
        if: { properties: { a: { 'x-gdpr-sensitive': true } } },
        then: { properties: { b: { 'x-gdpr-sensitive': true } } },
        else: { properties: { c: { 'x-gdpr-sensitive': true } } },
      }),
      { a: 'aa', b: 'bb', c: 'cc', d: 'dd' },
      { a: 'a***', b: 'b***', c: 'c***', d: 'dd' },
    ],
    [
      '$ref to definitions',
      marked({
        properties: { e: { $ref: '#/definitions/email' } },
        definitions: { email: { type: 'string', 'x-gdpr-sensitive': 'email' } },
      }),
      { e: 'ayse' },
      { e: 'a***' },
    ],
    [
      '$ref to $defs, percent- and tilde-escaped',
      marked({ properties: { e: { $ref: '#/$defs/a~1b%20c' } }, $defs: { 'a/b c': { 'x-gdpr-sensitive': true } } }),
      { e: 'ayse' },
      { e: 'a***' },
    ],
    [
      'a recursive $ref',
      marked({ properties: { name: { 'x-gdpr-sensitive': true }, child: { $ref: '#' } } }),
      { name: 'a', child: { name: 'b', child: { name: 'c' } } },
      { name: 'a***', child: { name: 'b***', child: { name: 'c***' } } },
    ],
    [
      'patternProperties, whatever the pattern',
      marked({ patternProperties: { '^zzz': { 'x-gdpr-sensitive': true } } }),
      { email: 'ayse' },
      { email: 'a***' },
    ],
    [
      'tuple items and additionalItems',
      marked({
        properties: {
          t: { type: 'array', items: [{ type: 'string' }, { 'x-gdpr-sensitive': true }], additionalItems: { 'x-gdpr-sensitive': true } },
        },
      }),
      { t: ['id', 'ayse', 'more'] },
      { t: ['i***', 'a***', 'm***'] },
    ],
    [
      'prefixItems',
      marked({ properties: { t: { type: 'array', prefixItems: [{ 'x-gdpr-sensitive': true }] } } }),
      { t: ['ayse'] },
      { t: ['a***'] },
    ],
    [
      'contains',
      marked({ properties: { t: { type: 'array', contains: { 'x-gdpr-sensitive': true } } } }),
      { t: ['ayse', 'bob'] },
      { t: ['a***', 'b***'] },
    ],
    [
      'dependentSchemas',
      marked({ dependentSchemas: { e: { properties: { e: { 'x-gdpr-sensitive': true } } } } }),
      { e: 'ayse' },
      { e: 'a***' },
    ],
    [
      'a malformed marker: 1, {}, [], "" and "yes" mask; false does not',
      marked({
        properties: {
          a: { 'x-gdpr-sensitive': 1 },
          b: { 'x-gdpr-sensitive': {} },
          c: { 'x-gdpr-sensitive': [] },
          d: { 'x-gdpr-sensitive': '' },
          e: { 'x-gdpr-sensitive': 'yes' },
          f: { 'x-gdpr-sensitive': false },
        },
      }),
      { a: 'aa', b: 'bb', c: 'cc', d: 'dd', e: 'ee', f: 'ff' },
      { a: 'a***', b: 'b***', c: 'c***', d: 'd***', e: 'e***', f: 'ff' },
    ],
  ];
  for (const [name, schema, data, want] of cases) {
    it(name, () => {
      expect(mask(data, schema)).toEqual(want);
      expect(maskWith(schema, data)).toEqual(want);
      // Before, only properties / items / additionalProperties with true or a category were read.
      expect(mask(data, stripMarkers(schema))).toEqual(data);
    });
  }

  it('an own "__proto__" key holding a marked field, at every level', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"object","properties":{"email":{"x-gdpr-sensitive":true}}}},"additionalProperties":{"type":"object","properties":{"__proto__":{"x-gdpr-sensitive":true}}}}',
    ) as unknown;
    const data = JSON.parse('{"__proto__":{"email":"ayse"},"x":{"__proto__":"bob"}}') as unknown;
    const out = mask(data, schema);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"email":"a***"},"x":{"__proto__":"b***"}}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('masks what JSON.stringify writes: a toJSON result, never a copied toJSON', () => {
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', 'x-gdpr-sensitive': true },
        when: { type: 'string', 'x-gdpr-sensitive': true },
        user: { type: 'object', properties: { email: { 'x-gdpr-sensitive': true } } },
      },
    };
    // An object whose JSON form differs from its own keys (an ORM document, say).
    class Doc {
      private readonly fields = { email: 'ayse@example.com' };
      toJSON(): unknown {
        return this.fields;
      }
    }
    const own = { email: 'x', toJSON: (): unknown => ({ email: 'own-secret@example.com' }) };
    const data = { email: 'bob@example.com', when: new Date(0), user: new Doc() };
    expect(JSON.stringify(maskWith(schema, data))).toBe('{"email":"b***","when":"1***","user":{"email":"a***"}}');
    expect(JSON.stringify(maskWith(schema, own))).toBe('{"email":"o***"}');
    // A copied toJSON would run again on the copy; copies leave functions out, as JSON does.
    const sneaky = {
      email: 'x',
      user: {
        email: 'y',
        toJSON(): unknown {
          return { email: 'y', toJSON: () => ({ email: 'sneaky-secret' }) };
        },
      },
    };
    expect(JSON.stringify(maskWith(schema, sneaky))).not.toContain('sneaky-secret');
  });

  it('refuses data that contains itself where the schema follows it (a TypeError, as JSON.stringify), instead of running forever', () => {
    const schema = { type: 'object', properties: { name: { 'x-gdpr-sensitive': true }, child: { $ref: '#' } } };
    const loop: Record<string, unknown> = { name: 'a' };
    loop.child = loop;
    expect(() => mask(loop, schema)).toThrow(TypeError);
    // Shared, not cyclic: fine.
    const shared = { name: 'b' };
    expect(mask({ child: shared, name: 'c', other: shared }, schema)).toEqual({ child: { name: 'b***' }, name: 'c***', other: shared });
  });
});

describe('a schema built to make the reading costly', () => {
  it('costs bounded work (WORK_BUDGET) and then hides more, never less', () => {
    // Every property's set holds all 1,000 branches: 2,000 properties would take 4 million steps.
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) properties[`p${i}`] = { minimum: 10 };
    const anyOf: unknown[] = Array.from({ length: 1000 }, (_, i) => ({ patternProperties: { [`^q${i}$`]: { type: 'string' } } }));
    anyOf.push({ properties: { secret: { 'x-gdpr-sensitive': true } } });
    const schema = { type: 'object', properties, anyOf };
    const data: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i += 100) data[`p${i}`] = -5;
    const messages = said(schema, data);
    expect(messages).toHaveLength(20);
    // Past the budget, values are worded as marked (some or all: the walk's order decides where).
    expect(messages.some((m) => m.endsWith('got a negative integer'))).toBe(true);
    expect(messages.every((m) => m.endsWith('got a negative integer') || m.endsWith('got -5'))).toBe(true);
    const big: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) big[`p${i}`] = i;
    // 2,000 keys spend the budget: the values still to be written are masked.
    expect(Object.values(mask(big, schema) as Record<string, unknown>)).toContain('***');
    // 20 keys do not: unmarked values as they were.
    expect(mask(data, schema)).toEqual(data);
  });
});

describe("check: markers that are malformed or out of masking's reach", () => {
  it('lists each with its pointer (unit)', () => {
    const schema = {
      properties: { a: { 'x-gdpr-sensitive': 1 }, b: { 'x-gdpr-sensitive': 'email' }, r: { $ref: '#/definitions/used' } },
      propertyNames: { 'x-gdpr-sensitive': true },
      definitions: { used: { 'x-gdpr-sensitive': true }, unused: { properties: { z: { 'x-gdpr-sensitive': true } } } },
      anyOf: [{ properties: { c: { 'x-gdpr-sensitive': '' } } }],
    };
    expect(markerIssues(schema).map((i) => `${i.kind} ${i.pointer}`)).toEqual([
      'malformed /properties/a/x-gdpr-sensitive',
      'unreachable /propertyNames/x-gdpr-sensitive',
      'unreachable /definitions/unused/properties/z/x-gdpr-sensitive',
      'malformed /anyOf/0/properties/c/x-gdpr-sensitive',
    ]);
    expect(markerIssues({ properties: { a: { 'x-gdpr-sensitive': false }, b: { 'x-gdpr-sensitive': 'email' } } })).toEqual([]);
  });

  it('fails with rules malformed-keyword and unreachable-marker, at the marker (CLI, every format agrees)', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:m', schema: 's.json', owner: 't' }] }),
      's.json': JSON.stringify(
        { type: 'object', properties: { a: { 'x-gdpr-sensitive': 1 } }, propertyNames: { 'x-gdpr-sensitive': true } },
        null,
        2,
      ),
    });
    const json = await bq(['check', '--format', 'json'], { cwd: dir });
    expectExit(json, 1);
    const errors = (
      JSON.parse(json.stdout) as { errors: Array<{ rule: string; pointer: string; keyword: string; line: number; message: string }> }
    ).errors;
    expect(errors.map((e) => [e.rule, e.pointer, e.keyword])).toEqual([
      ['malformed-keyword', '/properties/a/x-gdpr-sensitive', 'x-gdpr-sensitive'],
      ['unreachable-marker', '/propertyNames/x-gdpr-sensitive', 'x-gdpr-sensitive'],
    ]);
    expect(errors[0]!.message).toBe(
      'malformed keyword "x-gdpr-sensitive": must be true, false or a category string, got the integer 1; masking treats the field as personal data',
    );
    expect(errors[1]!.message).toMatch(
      /^"x-gdpr-sensitive" is under propertyNames, .*: masking cannot reach it, .*; put the marker on the schema of the value itself/,
    );
    expect(errors.map((e) => e.line)).toEqual([5, 9]);
    const sarif = await bq(['check', '--format', 'sarif'], { cwd: dir });
    const results = (
      JSON.parse(sarif.stdout) as {
        runs: Array<{ results: Array<{ ruleId: string }>; tool: { driver: { rules: Array<{ id: string }> } } }>;
      }
    ).runs[0]!;
    // (and the warning that propertyNames is not enforced)
    expect(results.results.map((r) => r.ruleId)).toEqual(['malformed-keyword', 'unreachable-marker', 'unsupported-keyword']);
    expect(results.tool.driver.rules.map((r) => r.id)).toContain('unreachable-marker');
  });
});

describe('check: a failing example of personal data is not quoted', () => {
  it('below a marked node, as at it', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:e', schema: 's.json', owner: 't' }] }),
      's.json': JSON.stringify({
        type: 'object',
        properties: {
          person: { 'x-gdpr-sensitive': true, type: 'object', properties: { age: { type: 'integer', minimum: 18, examples: [-31337] } } },
          salary: { minimum: 0, 'x-gdpr-sensitive': 'pay', examples: [-42424] },
          count: { minimum: 0, examples: [-5] },
        },
      }),
    });
    const r = await bq(['check', '--format', 'json'], { cwd: dir });
    expectExit(r, 1);
    const messages = (JSON.parse(r.stdout) as { errors: Array<{ message: string }> }).errors.map((e) => e.message);
    expect(messages.sort()).toEqual([
      'example 0 fails its schema: (root) must be >= 0, got -5',
      'example 0 fails its schema: (root) must be >= 0, got a negative integer',
      'example 0 fails its schema: (root) must be >= 18, got a negative integer',
    ]);
  });
});

describe('YAML keys of any scalar type name the property their author wrote', () => {
  const yamlSchema =
    'type: object\nproperties:\n  1: {x-gdpr-sensitive: true}\n  null: {x-gdpr-sensitive: true}\n  ~: {x-gdpr-sensitive: true}\n  true: {x-gdpr-sensitive: true}\n  0x1F: {x-gdpr-sensitive: true}\n  1.50: {x-gdpr-sensitive: true}\n  "quoted": {x-gdpr-sensitive: true}\n';

  it('parses them as their source text, and positions find them', () => {
    const schema = parseText(yamlSchema, 's.yaml') as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(['1', 'null', '~', 'true', '0x1F', '1.50', 'quoted']);
    const at = SourcePositions.forFile(yamlSchema, 's.yaml');
    expect(at.of('/properties/0x1F')).toEqual({ line: 7, col: 9 });
    expect(at.of('/properties/null')).toEqual({ line: 4, col: 9 });
  });

  it('gdpr --mask masks data under them (CLI)', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:y', schema: 's.yaml', owner: 't' }] }),
      's.yaml': yamlSchema,
      'm.json': JSON.stringify({ 1: 's1', null: 's2', '~': 's3', true: 's4', '0x1F': 's5', '1.50': 's6', quoted: 's7', plain: 'kept' }),
    });
    const r = await bq(['gdpr', '--mask', 'm.json', '--urn', 'urn:t:y'], { cwd: dir });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({
      1: 's***',
      null: 's***',
      '~': 's***',
      true: 's***',
      '0x1F': 's***',
      '1.50': 's***',
      quoted: 's***',
      plain: 'kept',
    });
  });
});

describe('gdpr --mask --urn given an envelope', () => {
  const files = {
    'registry.json': JSON.stringify({
      schemas: [
        { urn: 'urn:t:u', schema: 'u.json', owner: 't' },
        { urn: 'urn:t:o', schema: 'o.json', owner: 't' },
      ],
    }),
    'u.json': JSON.stringify({ type: 'object', properties: { email: { 'x-gdpr-sensitive': 'email' } } }),
    'o.json': JSON.stringify({ type: 'object' }),
  };

  it('masks its data (and keeps the envelope), as without --urn', async () => {
    const dir = tempTree(files);
    const input = '{"job":"urn:t:u","data":{"email":"ayse@example.com","id":1},"meta":{"id":"m-1"}}';
    const r = await bq(['gdpr', '--mask', '-', '--urn', 'urn:t:u'], { cwd: dir, input });
    expectExit(r, 0);
    expect(r.stdout).toBe('{"job":"urn:t:u","data":{"email":"a***","id":1},"meta":{"id":"m-1"}}\n');
    const bare = await bq(['gdpr', '--mask', '-', '--urn', 'urn:t:u'], { cwd: dir, input: '{"email":"ayse@example.com"}' });
    expect(bare.stdout).toBe('{"email":"a***"}\n');
  });

  it('refuses an envelope of another URN: never printed, one line, exit 1', async () => {
    const dir = tempTree(files);
    const r = await bq(['gdpr', '--mask', '-', '--urn', 'urn:t:u'], {
      cwd: dir,
      input: '{"job":"urn:t:o","data":{"email":"ayse@example.com"}}',
    });
    expectOneLineError(
      r,
      /^bqschema: <stdin>: the input is a message envelope of urn:t:o, not of --urn urn:t:u: .*; drop --urn to mask an envelope by its own URN$/,
      1,
    );
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('ayse');
  });
});

describe('the catalog shows personal data masked', () => {
  const schema = {
    type: 'object',
    examples: [{ email: 'schema-example@example.com', n: 3 }],
    properties: {
      email: { type: 'string', 'x-gdpr-sensitive': 'email', examples: ['field-example@example.com'], default: 'default@example.com' },
      n: { type: 'integer', minimum: 10, 'x-gdpr-sensitive': true },
      plain: { type: 'string', examples: ['visible-example'] },
    },
  };
  const page = buildCatalog({
    entries: [
      {
        urn: 'urn:t:c',
        schema,
        examples: [{ job: 'urn:t:c', data: { email: 'message@example.com', n: -424242 } }, { email: 'bare@example.com' }],
      },
    ],
  });

  it("example messages as gdpr --mask prints them, the schema's own examples and defaults too", () => {
    for (const secret of ['message@', 'bare@', 'schema-example@', 'field-example@', 'default@', '424242'])
      expect(page, secret).not.toContain(secret);
    expect(page).toContain('&quot;email&quot;: &quot;m***&quot;');
    expect(page).toContain('&quot;email&quot;: &quot;b***&quot;');
    expect(page).toContain('&quot;email&quot;: &quot;s***&quot;');
    expect(page).toContain('e.g. &quot;f***&quot;');
    // Unmarked example values are shown as written; violations are still listed, redacted.
    expect(page).toContain('visible-example');
    expect(page).toContain('must be &gt;= 10, got a negative integer');
    expect(page).toContain('Example values (<code>examples</code>, <code>default</code>) are masked');
  });

  it('maskAnnotations leaves a schema that marks nothing as it is (the same object)', () => {
    const plain = { type: 'object', examples: [{ a: 1 }] };
    expect(maskAnnotations(plain)).toBe(plain);
    expect(buildCatalog({ entries: [{ urn: 'urn:t:p', schema: plain }] })).not.toContain('are masked');
  });
});

describe("gdpr --mask and validate agree on an envelope's marked data (CLI, every format of validate)", () => {
  it('no format of validate quotes a marked value', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:v', schema: 'v.json', owner: 't' }] }),
      'v.json': JSON.stringify({
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 10, 'x-gdpr-sensitive': true },
          c: { 'x-gdpr-sensitive': true, additionalProperties: { type: 'string' } },
        },
      }),
      'm.ndjson': '{"job":"urn:t:v","data":{"n":-12345,"c":{"ayse@example.com":1}}}\n',
    });
    mkdirSync(join(dir, 'out'));
    const formats = ['json', 'github', 'markdown', 'sarif', 'junit'];
    const r = await bq(['validate', 'm.ndjson', ...formats.flatMap((f) => ['--report', `${f}=out/r.${f}`])], { cwd: dir });
    expectExit(r, 1);
    const outputs = [r.stdout, r.stderr, ...formats.map((f) => readFileSync(join(dir, 'out', `r.${f}`), 'utf8'))];
    for (const o of outputs) {
      expect(o).not.toMatch(/12345|ayse@/);
    }
    expect(r.stdout).toContain('/n  must be >= 10, got a negative integer');
    expect(r.stdout).toContain('/c/***  must be string, got integer');
  });
});
