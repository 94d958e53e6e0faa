import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { CHUNK_UNITS } from '../../src/validator/codepoints.js';
import {
  codePointLength,
  compile,
  lintSchema,
  MAX_DEPTH,
  SchemaError,
  type SchemaWarning,
  type Violation,
} from '../../src/validator/index.js';

/*
 * Unit tests of the validator beyond the shared cases (test/conformance/contract-cases.test.ts): violation shape
 * and order, deep data, hostile names, own properties, schema errors, lint and the warning channel.
 */

const quiet = { onWarning: () => {} };
const c = (schema: unknown) => compile(schema, quiet);
/** An object with one own property, even for `__proto__` (CreateDataProperty, not [[Set]]). */
const own = (name: string, value: unknown): Record<string, unknown> => Object.fromEntries([[name, value]]);
const kw = (vs: Violation[]) => vs.map((v) => `${v.instancePath} ${v.schemaPath} ${v.keyword}`);

describe('violations', () => {
  it('carry exactly instancePath, schemaPath, keyword and message', () => {
    const vs = c({ properties: { n: { minimum: 5 } } }).validate({ n: 2 });
    expect(vs).toEqual([{ instancePath: '/n', schemaPath: '/properties/n/minimum', keyword: 'minimum', message: expect.any(String) }]);
    expect(Object.keys(vs[0]!).sort()).toEqual(['instancePath', 'keyword', 'message', 'schemaPath']);
  });

  it('are [] for valid data, and each call returns a fresh array', () => {
    const s = c({ type: 'string' });
    expect(s.validate('x')).toEqual([]);
    const a = s.validate(1);
    a.push(a[0]!);
    expect(s.validate(1)).toHaveLength(1);
  });

  it('come in a fixed order whatever the schema key order: type, string keywords, enum, const', () => {
    const schema = { const: 1, enum: [1], maxLength: 3, minLength: 3, type: 'number' };
    expect(
      c(schema)
        .validate('ab')
        .map((v) => v.keyword),
    ).toEqual(['type', 'minLength', 'enum', 'const']);
    expect(
      c(schema)
        .validate('abcd')
        .map((v) => v.keyword),
    ).toEqual(['type', 'maxLength', 'enum', 'const']);
  });

  it('come in a fixed order for numbers: type, minimum, enum, const', () => {
    expect(
      c({ const: 10, enum: [10], minimum: 5, type: 'integer' })
        .validate(1.5)
        .map((v) => v.keyword),
    ).toEqual(['type', 'minimum', 'enum', 'const']);
  });

  it('come in a fixed order for objects: required in list order, properties in schema order, then additional', () => {
    const schema = {
      const: {},
      enum: [{}],
      additionalProperties: false,
      properties: { b: { type: 'string' }, a: { type: 'string' } },
      required: ['z', 'y'],
      type: 'array',
    };
    expect(kw(c(schema).validate({ a: 1, q: true, b: 1 }))).toEqual([
      ' /type type',
      ' /required required',
      ' /required required',
      '/b /properties/b/type type',
      '/a /properties/a/type type',
      '/q /additionalProperties additionalProperties',
      ' /enum enum',
      ' /const const',
    ]);
    const [z, y] = c(schema)
      .validate({})
      .filter((v) => v.keyword === 'required');
    expect(z!.message).toContain('"z"');
    expect(y!.message).toContain('"y"');
  });

  it('come in a fixed order for arrays: type, then elements by index, then enum, const', () => {
    const schema = { const: [], enum: [[]], items: { type: 'string', minLength: 2 }, type: 'object' };
    expect(kw(c(schema).validate([1, 'ok', 'x']))).toEqual([
      ' /type type',
      '/0 /items/type type',
      '/2 /items/minLength minLength',
      ' /enum enum',
      ' /const const',
    ]);
  });

  it('report nested failures depth first at their own position', () => {
    const schema = {
      properties: {
        a: { properties: { x: { type: 'string' } }, required: ['r'] },
        b: { items: { properties: { y: { minimum: 1 } } } },
      },
    };
    expect(kw(c(schema).validate({ b: [{ y: 0 }, { y: 5 }, { y: -1 }], a: { x: 1 } }))).toEqual([
      '/a /properties/a/required required',
      '/a/x /properties/a/properties/x/type type',
      '/b/0/y /properties/b/items/properties/y/minimum minimum',
      '/b/2/y /properties/b/items/properties/y/minimum minimum',
    ]);
  });

  it('escape ~ and / in both pointers (RFC 6901)', () => {
    const schema = {
      properties: { 'a/b~c': { minimum: 5 }, '~1': { items: { type: 'null' } } },
      additionalProperties: { type: 'string' },
    };
    expect(kw(c(schema).validate({ 'a/b~c': 1, '~1': [null, 0], 'x/y~': 3 }))).toEqual([
      '/a~1b~0c /properties/a~1b~0c/minimum minimum',
      '/~01/1 /properties/~01/items/type type',
      '/x~1y~0 /additionalProperties/type type',
    ]);
  });

  it('name the false schema by the keyword that led to it', () => {
    expect(kw(c(false).validate(1))).toEqual(['  false']);
    expect(kw(c({ properties: { a: false } }).validate({ a: 1 }))).toEqual(['/a /properties/a properties']);
    expect(kw(c({ items: false }).validate([1]))).toEqual(['/0 /items items']);
    expect(kw(c({ additionalProperties: false }).validate({ b: 1 }))).toEqual(['/b /additionalProperties additionalProperties']);
  });

  it('have messages that give the bound and the actual value', () => {
    const msg = (schema: unknown, data: unknown): string => {
      const vs = c(schema).validate(data);
      expect(vs).toHaveLength(1);
      return vs[0]!.message;
    };
    expect(msg({ type: 'string' }, 12)).toMatch(/string.*integer/);
    expect(msg({ type: ['string', 'null'] }, 1.5)).toMatch(/string.*null.*number/);
    expect(msg({ type: 'object' }, [])).toMatch(/object.*array/);
    expect(msg({ minLength: 4 }, 'ğü😀')).toMatch(/4.*\b3\b/);
    expect(msg({ maxLength: 2 }, 'ğü😀')).toMatch(/2.*\b3\b/);
    expect(msg({ minimum: 7.5 }, -3)).toMatch(/7\.5.*-3/);
    expect(msg({ required: ['order_id'] }, {})).toContain('order_id');
    // The property is named by instancePath (`/extra is not allowed …`), not repeated in the message.
    expect(c({ additionalProperties: false }).validate({ extra: 1 })).toEqual([
      {
        instancePath: '/extra',
        schemaPath: '/additionalProperties',
        keyword: 'additionalProperties',
        message: 'is not allowed (additionalProperties is false)',
      },
    ]);
    expect(msg({ enum: ['USD', 'EUR'] }, 'GBP')).toMatch(/USD.*EUR/);
    expect(msg({ const: 'USD' }, 'GBP')).toContain('USD');
  });

  it('truncate a fractional length bound toward zero in the message too', () => {
    expect(c({ minLength: 2.9 }).validate('a')[0]!.message).toMatch(/at least 2\b/);
  });
});

describe('isValid and validate agree', () => {
  const schemas: unknown[] = [
    true,
    false,
    {},
    { type: 'integer' },
    { type: ['number', 'null'], minimum: 0 },
    { type: 'string', minLength: 1, maxLength: 2 },
    { enum: [1, 'a', null, [1], { a: 1 }] },
    { const: { a: [1, 2] } },
    { required: ['a', 'b'] },
    { properties: { a: { type: 'string' }, b: false } },
    { properties: { a: {} }, additionalProperties: false },
    { additionalProperties: { type: 'integer' } },
    { items: { type: 'object', required: ['id'] } },
    { items: false },
    {
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: { id: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string', maxLength: 3 } } },
    },
  ];
  const values: unknown[] = [
    null,
    true,
    false,
    0,
    -0,
    1,
    1.5,
    -7,
    1e300,
    '',
    'a',
    'ab',
    'abc',
    '😀😀',
    '\ud800',
    [],
    [1],
    [1, 2],
    ['a', 'bcde'],
    [{ id: 1 }, {}],
    {},
    { a: 1 },
    { a: 'x' },
    { a: 'x', b: 1 },
    { b: 2 },
    { id: 0 },
    { id: 3, tags: ['x', 'toolong'] },
    { id: 3, tags: ['x'] },
    { a: [1, 2] },
    { a: [1, 2.0] },
    { id: 1, z: null },
  ];

  it.each(schemas.map((s) => [JSON.stringify(s), s]))('on a table of values: %s', (_name, schema) => {
    const s = c(schema);
    for (const v of values) {
      expect(s.isValid(v), JSON.stringify(v)).toBe(s.validate(v).length === 0);
    }
  });

  it('on random JSON values', () => {
    const compiled = schemas.map(c);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => {
        for (const s of compiled) expect(s.isValid(v)).toBe(s.validate(v).length === 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('code point lengths (docs/contract.md §6)', () => {
  // Any UTF-16 units: pairs, lone halves, reversed pairs, at either end.
  const units = fc.string({ unit: fc.constantFrom('a', 'ğ', '\ud83d', '\ude00', '\ud800', '\udfff', '😀', 'e\u0301'), maxLength: 40 });

  it('codePointLength counts what the string iterator counts', () => {
    fc.assert(
      fc.property(units, (s) => {
        expect(codePointLength(s)).toBe([...s].length);
      }),
      { numRuns: 2000 },
    );
  });

  it('counts long strings (copied in chunks) the same, a pair or lone half on any chunk boundary', () => {
    // Long strings are counted from a copy, CHUNK_UNITS at a time: random units around each boundary.
    const filler = fc.constantFrom('a', 'ğ', '😀', '\udc00', '\ud800');
    fc.assert(
      fc.property(
        units,
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: -3, max: 3 }),
        filler,
        units,
        (head, chunks, shift, unit, tail) => {
          const fill = Math.max(0, chunks * CHUNK_UNITS + shift - head.length);
          const s = head + unit.repeat(Math.ceil(fill / unit.length)) + tail;
          expect(codePointLength(s)).toBe([...s].length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('both bounds and their messages count the same code points, counted once or not', () => {
    fc.assert(
      fc.property(units, fc.nat(12), fc.nat(12), (s, lo, width) => {
        const n = [...s].length;
        const sc = c({ minLength: lo, maxLength: lo + width });
        const expected: string[] = [];
        if (n < lo) expected.push(`minLength must be at least ${lo} characters long, got ${n}`);
        if (n > lo + width) expected.push(`maxLength must be at most ${lo + width} characters long, got ${n}`);
        expect(sc.validate(s).map((v) => `${v.keyword} ${v.message}`)).toEqual(expected);
        expect(sc.isValid(s)).toBe(expected.length === 0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('data nested 100,000 levels deep', () => {
  const N = 100_000;
  const nestedArrays = (inner = '', n = N) => JSON.parse('['.repeat(n) + inner + ']'.repeat(n));
  const nestedObjects = (leaf = '1', n = N) => JSON.parse('{"a":'.repeat(n) + leaf + '}'.repeat(n));
  // The deepest value a schema may hold under `const` or in `enum` (docs/contract.md §15): the
  // schema's root is one level, `enum`'s array another.
  const K = MAX_DEPTH - 2;

  it('against const: no throw, equal and unequal values told apart', () => {
    const s = c({ const: nestedArrays('', K) });
    expect(s.isValid(nestedArrays('', K))).toBe(true);
    expect(s.validate(nestedArrays('', K))).toEqual([]);
    expect(s.isValid(nestedArrays())).toBe(false);
    expect(s.isValid(nestedArrays('1', K))).toBe(false);
    expect(s.validate(nestedObjects()).map((v) => v.keyword)).toEqual(['const']);
    const o = c({ const: nestedObjects('1', K) });
    expect(o.isValid(nestedObjects('1', K))).toBe(true);
    expect(o.isValid(nestedObjects())).toBe(false);
    expect(o.isValid(nestedObjects('2', K))).toBe(false);
    expect(o.validate(nestedObjects('1.0', K))).toEqual([]);
  });

  it('against enum: no throw, correct verdict', () => {
    const s = c({ enum: [1, nestedObjects('1', K), 'x'] });
    expect(s.isValid(nestedObjects('1', K))).toBe(true);
    expect(s.validate(nestedObjects('1', K))).toEqual([]);
    expect(s.isValid(nestedObjects())).toBe(false);
    expect(s.isValid(nestedArrays())).toBe(false);
    expect(s.validate(nestedObjects('null', K)).map((v) => v.keyword)).toEqual(['enum']);
  });

  it('against items: {} and type: object: no throw, correct verdict', () => {
    const items = c({ items: {} });
    expect(items.isValid(nestedArrays())).toBe(true);
    expect(items.validate(nestedArrays())).toEqual([]);
    const obj = c({ type: 'object' });
    expect(obj.isValid(nestedObjects())).toBe(true);
    expect(obj.validate(nestedObjects())).toEqual([]);
    expect(obj.isValid(nestedArrays())).toBe(false);
    expect(obj.validate(nestedArrays()).map((v) => v.keyword)).toEqual(['type']);
  });
});

describe('hostile property names and values', () => {
  const SENTINEL = '__bqschemaHostile';
  const HOSTILE = [
    '"];process.exitCode=99;//',
    `"];globalThis.${SENTINEL}=1;//`,
    `';globalThis.${SENTINEL}=1;//`,
    `\`;globalThis.${SENTINEL}=1;//`,
    `*/globalThis.${SENTINEL}=1;/*`,
    `\nglobalThis.${SENTINEL}=1;//`,
    `\u2028globalThis.${SENTINEL}=1;//`,
    '\\"',
    '\\',
    '\u2028',
    '\u2029',
    '${x}',
    `\${globalThis.${SENTINEL}=1}`,
    '</script>',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'a\u0000b',
    '\ud800',
    '',
    'x'.repeat(100_000),
    '"'.repeat(10_000),
  ];
  let exitCode: typeof process.exitCode;

  beforeEach(() => {
    exitCode = process.exitCode;
  });
  afterEach(() => {
    // No name may have run as code.
    expect(Object.prototype.hasOwnProperty.call(globalThis, SENTINEL)).toBe(false);
    expect(process.exitCode).toBe(exitCode);
  });

  const label = (n: string) => JSON.stringify(n.length > 40 ? `${n.slice(0, 20)}…(${n.length})` : n);

  it.each(HOSTILE.map((n) => [label(n), n]))('%s in properties, required and additionalProperties: false', (_l, name) => {
    const s = c({ type: 'object', required: [name], properties: own(name, { type: 'string' }), additionalProperties: false });
    expect(s.isValid(own(name, 'v'))).toBe(true);
    expect(s.validate(own(name, 'v'))).toEqual([]);
    expect(s.isValid(own(name, 1))).toBe(false);
    const pointer = '/' + name.replace(/~/g, '~0').replace(/\//g, '~1');
    expect(s.validate(own(name, 1))).toEqual([
      { instancePath: pointer, schemaPath: `/properties${pointer}/type`, keyword: 'type', message: expect.any(String) },
    ]);
    expect(s.isValid({})).toBe(false);
    expect(kw(s.validate({}))).toEqual([' /required required']);
    expect(s.isValid({ ...own(name, 'v'), other: 'v' })).toBe(false);
    expect(kw(s.validate({ ...own(name, 'v'), other: 'v' }))).toEqual(['/other /additionalProperties additionalProperties']);
  });

  it.each(HOSTILE.map((n) => [label(n), n]))('%s as an undeclared data key under additionalProperties', (_l, name) => {
    const s = c({ properties: { ok: {} }, additionalProperties: { type: 'integer' } });
    expect(s.isValid(own(name, 1))).toBe(true);
    const vs = s.validate(own(name, 'no'));
    expect(vs).toHaveLength(1);
    expect(vs[0]!.instancePath).toBe('/' + name.replace(/~/g, '~0').replace(/\//g, '~1'));
  });

  it.each(HOSTILE.map((n) => [label(n), n]))('%s as an enum and a const value', (_l, name) => {
    for (const schema of [{ enum: [name] }, { enum: [0, name, null] }, { const: name }]) {
      const s = c(schema);
      expect(s.isValid(name)).toBe(true);
      expect(s.validate(name)).toEqual([]);
      expect(s.isValid(name + 'x')).toBe(false);
      expect(s.validate(name + 'x')).toHaveLength(1);
    }
  });

  it('all of them at once (the large-set code paths)', () => {
    const properties = Object.fromEntries(HOSTILE.map((n) => [n, { const: n }]));
    const s = c({ required: HOSTILE, properties, additionalProperties: false });
    const data = Object.fromEntries(HOSTILE.map((n) => [n, n]));
    expect(s.isValid(data)).toBe(true);
    expect(s.validate(data)).toEqual([]);
    expect(s.validate({ ...data, extra: 1 }).map((v) => v.instancePath)).toEqual(['/extra']);
    const e = c({ enum: HOSTILE });
    for (const n of HOSTILE) expect(e.isValid(n), label(n)).toBe(true);
    expect(e.isValid('not listed')).toBe(false);
  });
});

describe('own properties only', () => {
  it('a name on the prototype does not satisfy required', () => {
    const data = Object.create({ a: 1, constructor: 1 });
    expect(c({ required: ['a'] }).isValid(data)).toBe(false);
    expect(
      c({ required: ['a'] })
        .validate(data)
        .map((v) => v.keyword),
    ).toEqual(['required']);
    expect(c({ required: ['constructor'] }).isValid({})).toBe(false);
    expect(c({ required: ['toString'] }).validate({})).toHaveLength(1);
  });

  it('a name on the prototype is neither checked by properties nor additional', () => {
    const data = Object.create({ a: 5, x: 1 });
    const s = c({ properties: { a: { type: 'string' } }, additionalProperties: false });
    expect(s.isValid(data)).toBe(true);
    expect(s.validate(data)).toEqual([]);
  });

  /** Defines `key` on Object.prototype for the duration of `body` only. */
  function polluted<T>(key: string, value: unknown, body: () => T): T {
    Object.defineProperty(Object.prototype, key, { value, enumerable: true, configurable: true, writable: true });
    try {
      return body();
    } finally {
      delete (Object.prototype as Record<string, unknown>)[key];
    }
  }

  it('a polluted name on Object.prototype is not present in data', () => {
    polluted('polluted', 1, () => {
      expect(c({ required: ['polluted'] }).isValid({})).toBe(false);
      expect(c({ required: ['polluted'] }).validate({})).toHaveLength(1);
      expect(c({ additionalProperties: false }).isValid({})).toBe(true);
      expect(c({ additionalProperties: false }).validate({ a: undefined })).toEqual([]);
      expect(c({ additionalProperties: { type: 'string' } }).validate({ a: 'x' })).toEqual([]);
      expect(c({ properties: { polluted: { type: 'string' } } }).isValid({})).toBe(true);
      expect(c({ const: {} }).isValid({})).toBe(true);
    });
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  });

  // Keyword names, and names an implementation might use for a parsed keyword, each set to a value
  // that would constrain something if it were read as part of the schema.
  const POLLUTION: Array<[string, unknown]> = [
    ['type', 'null'],
    ['types', ['null']],
    ['required', ['zz']],
    ['properties', { a: false }],
    ['additionalProperties', false],
    ['additional', { always: false, pointer: '' }],
    ['items', false],
    ['enum', ['zz']],
    ['const', 'zz'],
    ['hasConst', true],
    ['constValue', 'zz'],
    ['minLength', 99],
    ['maxLength', 0],
    ['minimum', 1e9],
    ['always', false],
    ['$ref', '#/nowhere'],
  ];
  const SCHEMAS: unknown[] = [
    {},
    true,
    { type: 'string' },
    { type: 'object', properties: { a: {} } },
    { items: {} },
    { additionalProperties: {} },
  ];
  const DATA: unknown[] = [0, 5, 'abc', '', null, [1], {}, { a: 1 }, { b: [] }];
  const verdicts = () =>
    SCHEMAS.map((schema) => {
      const s = c(schema);
      return DATA.map((d) => [s.isValid(d), s.validate(d).length]);
    });

  it.each(POLLUTION)('Object.prototype.%s set while compiling changes no verdict, warning or lint', (key, value) => {
    const clean = verdicts();
    const cleanWarnings = SCHEMAS.map((schema) => c(schema).warnings);
    const cleanLint = SCHEMAS.map(lintSchema);
    polluted(key, value, () => {
      expect(verdicts()).toEqual(clean);
      expect(SCHEMAS.map((schema) => c(schema).warnings)).toEqual(cleanWarnings);
      expect(SCHEMAS.map(lintSchema)).toEqual(cleanLint);
    });
  });

  // Objects built to trip an own-property shortcut: names own or inherited, enumerable or not,
  // a prototype with or without Object.prototype behind it, Object.prototype itself polluted.
  // Closed schemas with few names (validate's scanning path) and open ones (the shortcut path).
  // A fixed seed, as every property test in `npm test`: BQ_OWN_RUNS=<n> runs more, BQ_OWN_SEED=<seed>
  // replays a reported failure.
  it('own properties decide, however an object is built: validate agrees with isValid and with an own-property copy', () => {
    const NAMES = ['a', 'b', 'constructor', '__proto__', 'x'];
    const value = fc.constantFrom<unknown>(1, -1, 'str', undefined, null);
    const entry = fc.record({
      name: fc.constantFrom(...NAMES),
      value,
      where: fc.constantFrom('own', 'own-hidden', 'proto', 'proto-hidden'),
    });
    const schema = fc.record({
      properties: fc.dictionary(
        fc.constantFrom(...NAMES.slice(0, 4)),
        fc.constantFrom({ type: 'integer', minimum: 1 }, { type: 'string' }, {}),
        { maxKeys: 4 },
      ),
      required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
      additionalProperties: fc.constantFrom<unknown>(false, { type: 'string' }, true),
    });
    const define = (o: object, e: { name: string; value: unknown }, enumerable: boolean): void => {
      Object.defineProperty(o, e.name, { value: e.value, enumerable, configurable: true, writable: true });
    };
    fc.assert(
      fc.property(
        schema,
        fc.array(entry, { maxLength: 6 }),
        fc.boolean(),
        fc.option(fc.constantFrom('a', 'b', 'x')),
        (sc, entries, bareProto, pollute) => {
          const proto: object = bareProto ? Object.create(null) : {};
          const d: object = Object.create(proto);
          for (const e of entries) {
            if (e.where.startsWith('own')) define(d, e, e.where === 'own');
            else define(proto, e, e.where === 'proto');
          }
          const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(d));
          const run = (): void => {
            const s = c(sc);
            const found = s.validate(d);
            expect(s.isValid(d)).toBe(found.length === 0);
            expect(found).toEqual(s.validate(copy));
          };
          if (pollute === null) run();
          else polluted(pollute, 'polluted', run);
        },
      ),
      { numRuns: Number(process.env.BQ_OWN_RUNS ?? 3000), seed: Number(process.env.BQ_OWN_SEED ?? 5_101) },
    );
  });

  it('a property whose value is undefined counts as absent (as on the wire: JSON.stringify drops it)', () => {
    expect(JSON.stringify({ a: undefined })).toBe('{}');
    expect(c({ required: ['a'] }).isValid({ a: undefined })).toBe(false);
    expect(kw(c({ required: ['a'] }).validate({ a: undefined }))).toEqual([' /required required']);
    expect(c({ properties: { a: { type: 'string' } } }).isValid({ a: undefined })).toBe(true);
    expect(c({ properties: { a: false } }).validate({ a: undefined })).toEqual([]);
    expect(c({ additionalProperties: false }).isValid({ x: undefined })).toBe(true);
    expect(c({ additionalProperties: { type: 'string' } }).validate({ x: undefined })).toEqual([]);
  });
});

describe('schemas that cannot compile', () => {
  it.each([null, undefined, 1, 'x', [], [{}], () => true])('%s is not a schema: SchemaError', (schema) => {
    expect(() => compile(schema, quiet)).toThrow(SchemaError);
  });

  const deep = (levels: number, wrap: (inner: unknown) => unknown): unknown => {
    let s: unknown = { type: 'integer' };
    for (let i = 0; i < levels; i++) s = wrap(s);
    return s;
  };

  it.each([
    ['properties', (s: unknown) => ({ properties: { a: s } })],
    ['items', (s: unknown) => ({ items: s })],
    ['additionalProperties', (s: unknown) => ({ additionalProperties: s })],
  ] as const)('a schema nested 50,000 levels through %s works or throws SchemaError, never RangeError', (_k, wrap) => {
    let compiled;
    try {
      compiled = compile(deep(50_000, wrap), quiet);
    } catch (err) {
      expect(err).toBeInstanceOf(SchemaError);
      expect(err).not.toBeInstanceOf(RangeError);
      return;
    }
    // If it compiles, it must also validate shallow data without overflowing.
    expect(compiled.isValid({})).toBe(true);
    expect(compiled.validate([])).toEqual([]);
  });

  it('a moderately deep schema compiles and validates data of the same depth', () => {
    const levels = 500;
    const s = c(deep(levels, (inner) => ({ items: inner })));
    const data = (leaf: string) => JSON.parse('['.repeat(levels) + leaf + ']'.repeat(levels));
    expect(s.isValid(data('1'))).toBe(true);
    expect(s.isValid(data('"x"'))).toBe(false);
    expect(s.validate(data('"x"'))).toEqual([
      { instancePath: '/0'.repeat(levels), schemaPath: '/items'.repeat(levels) + '/type', keyword: 'type', message: expect.any(String) },
    ]);
  });
});

describe('lintSchema (docs/contract.md §8)', () => {
  // [schema, pointer, keyword, data the keyword would reject if it took effect]
  const MALFORMED: Array<[string, unknown, string, string, unknown]> = [
    ['unknown type name', { type: 'text' }, '', 'type', 5],
    ['unknown name in a type array', { type: ['string', 'int'] }, '', 'type', 5],
    ['type of the wrong kind', { type: 7 }, '', 'type', 'x'],
    ['empty type array', { type: [] }, '', 'type', 5],
    ['required not an array', { required: 'a' }, '', 'required', {}],
    ['required with a non-string', { required: ['a', 1] }, '', 'required', {}],
    ['enum not an array', { enum: 'a' }, '', 'enum', 'b'],
    ['non-numeric minLength', { minLength: '3' }, '', 'minLength', 'a'],
    ['non-numeric maxLength', { maxLength: '1' }, '', 'maxLength', 'abc'],
    ['null maxLength', { maxLength: null }, '', 'maxLength', 'abc'],
    ['non-numeric minimum', { minimum: '5' }, '', 'minimum', 1],
    ['properties not an object', { properties: [{ type: 'string' }] }, '', 'properties', { 0: 1 }],
    ['properties a string', { properties: 'a' }, '', 'properties', { a: 1 }],
    ['a property schema that is a number', { properties: { a: 3 } }, '', 'properties', { a: 1 }],
    ['additionalProperties a string', { additionalProperties: 'no' }, '', 'additionalProperties', { x: 1 }],
    ['items a string', { items: 'string' }, '', 'items', [1]],
    ['nested under properties, escaped', { properties: { 'a/b~': { minLength: 'x' } } }, '/properties/a~1b~0', 'minLength', { 'a/b~': '' }],
    ['nested under items', { items: { type: 'float' } }, '/items', 'type', ['x']],
    ['nested under additionalProperties', { additionalProperties: { required: [null] } }, '/additionalProperties', 'required', { x: {} }],
    [
      'a property schema that is null, nested',
      { properties: { a: { properties: { b: null } } } },
      '/properties/a',
      'properties',
      { a: { b: 1 } },
    ],
  ];

  it.each(MALFORMED)('%s: reported with its pointer and keyword, and no effect on the verdict', (_n, schema, pointer, keyword, data) => {
    expect(lintSchema(schema)).toEqual([{ pointer, keyword, message: expect.any(String) }]);
    const s = c(schema);
    expect(s.isValid(data)).toBe(true);
    expect(s.validate(data)).toEqual([]);
    // Malformed is reported through the warning channel, marked apart from unsupported.
    expect(s.warnings).toEqual([{ kind: 'malformed', pointer, keyword, message: lintSchema(schema)[0]!.message }]);
  });

  it('a malformed keyword leaves the well-formed ones in force', () => {
    const schema = { type: 'text', required: ['a'], properties: { a: { minLength: 'x', maxLength: 2 } } };
    expect(lintSchema(schema).map((i) => `${i.pointer} ${i.keyword}`)).toEqual([' type', '/properties/a minLength']);
    const s = c(schema);
    expect(s.isValid({ a: 'ab' })).toBe(true);
    expect(kw(s.validate({ a: 'abc' }))).toEqual(['/a /properties/a/maxLength maxLength']);
    expect(kw(s.validate({}))).toEqual([' /required required']);
  });

  it('a well-formed schema, boolean schemas and annotations have no lint', () => {
    expect(lintSchema(true)).toEqual([]);
    expect(lintSchema(false)).toEqual([]);
    expect(
      lintSchema({
        $schema: 'x',
        title: 1,
        'x-gdpr-sensitive': 'email',
        pattern: 3,
        type: ['string', 'null'],
        required: [],
        enum: [],
        minLength: 0,
        maxLength: 2.5,
        minimum: -1,
        properties: {},
        additionalProperties: true,
        items: [1],
      }),
    ).toEqual([]);
  });

  it('a root that is not a schema is reported at the root', () => {
    for (const root of [null, 3, 'x', []]) expect(lintSchema(root)).toEqual([{ pointer: '', keyword: '', message: expect.any(String) }]);
  });

  it('a non-finite length bound and a NaN minimum are ignored, as if absent, and reported as malformed', () => {
    for (const schema of [{ minLength: Infinity }, { maxLength: NaN }, { maxLength: -Infinity }, { minimum: NaN }]) {
      expect(lintSchema(schema)).toEqual([{ pointer: '', keyword: Object.keys(schema)[0], message: expect.any(String) }]);
      const s = c(schema);
      for (const v of ['', 'abc', 5, -1e308]) {
        expect(s.isValid(v), `${JSON.stringify(schema)} on ${v}`).toBe(true);
        expect(s.validate(v)).toEqual([]);
      }
    }
  });
});

describe('warnings channel', () => {
  it('every warning reaches onWarning, with a message naming the URN', () => {
    const got: Array<[SchemaWarning, string]> = [];
    const s = compile(
      { pattern: 'x', properties: { a: { format: 'date' }, b: { maximum: 1 } }, items: [{}] },
      { urn: 'urn:babel:orders:created', onWarning: (w, m) => got.push([w, m]) },
    );
    const expected = [
      { kind: 'unsupported', pointer: '', keyword: 'pattern', urn: 'urn:babel:orders:created' },
      { kind: 'unsupported', pointer: '/properties/a', keyword: 'format', urn: 'urn:babel:orders:created' },
      { kind: 'unsupported', pointer: '/properties/b', keyword: 'maximum', urn: 'urn:babel:orders:created' },
      { kind: 'unsupported', pointer: '', keyword: 'items', urn: 'urn:babel:orders:created' },
    ];
    expect(got.map(([w]) => w)).toEqual(expected);
    expect(s.warnings).toEqual(expected);
    for (const [w, m] of got) {
      expect(m).toContain('urn:babel:orders:created');
      expect(m).toContain(w.keyword);
    }
  });

  it('without a URN the warnings carry none', () => {
    const got: SchemaWarning[] = [];
    compile({ maxItems: 1 }, { onWarning: (w) => got.push(w) });
    expect(got).toEqual([{ kind: 'unsupported', pointer: '', keyword: 'maxItems' }]);
  });

  describe('without onWarning', () => {
    let spy: MockInstance<typeof process.emitWarning>;
    beforeEach(() => {
      spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    });
    afterEach(() => {
      spy.mockRestore();
    });

    it('goes to process.emitWarning with code BABELQUEUE_UNSUPPORTED_SCHEMA_KEYWORD, each distinct message once', () => {
      // Keyword names unique to this test, so no other compile in this process has emitted them.
      const schema = { emitOnceA: 1, properties: { p: { emitOnceB: 1 }, q: { emitOnceB: 1 } } };
      const first = compile(schema, { urn: 'urn:test:emit:1' });
      expect(spy).toHaveBeenCalledTimes(3);
      for (const call of spy.mock.calls) {
        expect(call[1]).toEqual({ code: 'BABELQUEUE_UNSUPPORTED_SCHEMA_KEYWORD' });
        expect(call[0]).toContain('urn:test:emit:1');
      }
      expect(new Set(spy.mock.calls.map((call) => call[0])).size).toBe(3);

      // Same schema, same URN: nothing new to say, but the compiled warnings stay complete.
      const again = compile(schema, { urn: 'urn:test:emit:1' });
      expect(spy).toHaveBeenCalledTimes(3);
      expect(again.warnings).toEqual(first.warnings);
      expect(again.warnings).toHaveLength(3);

      // Another URN makes other messages.
      compile(schema, { urn: 'urn:test:emit:2' });
      expect(spy).toHaveBeenCalledTimes(6);
    });

    it('is not used when onWarning is given', () => {
      compile({ emitNeverC: 1 }, quiet);
      expect(spy).not.toHaveBeenCalled();
    });

    it('is not used for a schema without unsupported keywords', () => {
      compile({ type: 'string', title: 't', 'x-owner': 'o', properties: { pattern: {} } });
      expect(spy).not.toHaveBeenCalled();
    });
  });
});
