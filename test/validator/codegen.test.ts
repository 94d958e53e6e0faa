import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { escapeKey } from '../../src/validator/pointer.js';
import { compile, escapePointerToken, SchemaError } from '../../src/validator/index.js';
import { code, childPath, dynamicPath, pathCode, ROOT_PATH, sourceUrl, stringLiteral } from '../../src/validator/codegen.js';

/*
 * The code generator's typed builder: schema values reach generated source only as literals,
 * whatever they hold; schemas that are not JSON are refused; generated code is named by a
 * sanitised sourceURL; `validate` is compiled on first use.
 */

const quiet = { onWarning: () => {} };
const own = (name: string, value: unknown): Record<string, unknown> => Object.fromEntries([[name, value]]);
const g = globalThis as { __pwned?: unknown };

const HOSTILE = [
  '*/',
  '/*',
  '\u2028',
  '\u2029',
  '${globalThis.__pwned=1}',
  '`',
  '`+(globalThis.__pwned=1)+`',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '"+(globalThis.__pwned=1)+"',
  "'+(globalThis.__pwned=1)+'",
  '\\',
  '\\"',
  '");globalThis.__pwned=1;//',
  '</script><script>globalThis.__pwned=1</script>',
  '\n//# sourceURL=x\nglobalThis.__pwned=1',
  '\u0000\u001b[2J\u007f',
  '\ud800',
  'a/b~c',
  '',
  '}}globalThis.__pwned=1;{{',
  'return true;',
];

afterEach(() => {
  expect(g.__pwned).toBeUndefined();
});

describe('hostile names and values', () => {
  it.each(HOSTILE.map((n) => [JSON.stringify(n), n]))('%s as a property name, required name, enum and const value', (_label, name) => {
    const schema = {
      type: 'object',
      required: [name],
      properties: own(name, { type: 'string', enum: [name, 'other'] }),
      additionalProperties: false,
    };
    const s = compile(schema, { ...quiet, urn: `urn:t:${name}` });
    const good = own(name, name);
    expect(s.isValid(good)).toBe(true);
    expect(s.validate(good)).toEqual([]);
    const pointer = '/' + escapePointerToken(name);
    expect(s.isValid(own(name, 'x'))).toBe(false);
    expect(s.validate(own(name, 'x'))).toEqual([
      {
        instancePath: pointer,
        schemaPath: `/properties${pointer}/enum`,
        keyword: 'enum',
        message: `must be one of ${JSON.stringify(name)}, "other"`,
      },
    ]);
    expect(s.validate({})).toEqual([
      { instancePath: '', schemaPath: '/required', keyword: 'required', message: `must have required property ${JSON.stringify(name)}` },
    ]);
    const extra = name === 'x' ? 'y' : 'x';
    expect(s.validate({ ...good, [extra]: 1 }).map((v) => v.instancePath)).toEqual([`/${extra}`]);
    // An inherited name is not a property (CLARIFICATIONS 5).
    if (name !== '__proto__') expect(s.isValid(Object.create(good))).toBe(false);
    const k = compile({ const: name }, quiet);
    expect(k.isValid(name)).toBe(true);
    expect(k.isValid(name + ' ')).toBe(false);
    expect(k.validate(1)[0]!.message).toBe(`must be equal to ${JSON.stringify(name)}`);
  });

  it('all of them at once: names in a Set, enum strings in a Set, paths under additionalProperties and items', () => {
    const props = Object.fromEntries(HOSTILE.map((n) => [n, { const: n }]));
    const s = compile(
      {
        properties: props,
        additionalProperties: { items: { enum: HOSTILE } },
      },
      quiet,
    );
    const data = Object.fromEntries(HOSTILE.map((n) => [n, n]));
    expect(s.isValid(data)).toBe(true);
    expect(s.validate(data)).toEqual([]);
    const bad = { ...data, zz: [...HOSTILE, 'not listed'] };
    expect(s.isValid(bad)).toBe(false);
    expect(s.validate(bad)).toEqual([
      {
        instancePath: `/zz/${HOSTILE.length}`,
        schemaPath: '/additionalProperties/items/enum',
        keyword: 'enum',
        message: expect.any(String),
      },
    ]);
    for (const n of HOSTILE) {
      const wrong = Object.fromEntries([[n, 1]]);
      expect(s.validate(wrong).map((v) => v.instancePath)).toEqual(['/' + escapePointerToken(n)]);
      const nested = Object.fromEntries([[n, ['not listed']]]);
      const onlyExtra = compile({ additionalProperties: { items: { enum: HOSTILE } } }, quiet);
      expect(onlyExtra.validate(nested).map((v) => v.instancePath)).toEqual(['/' + escapePointerToken(n) + '/0']);
    }
  });
});

describe("messages and paths describe each call's own data", () => {
  // Repeated and changing values at one site (a cache of message parts per site was tried and measured
  // slower on distinct failures; these tests stay as the guard for any such shortcut).
  const v = (s: ReturnType<typeof compile>, d: unknown): string[] => s.validate(d).map((x) => `${x.instancePath} ${x.message}`);

  it('a minimum message quotes the value of this call, across repeats and changes', () => {
    const s = compile({ properties: { n: { type: 'integer', minimum: 1 }, x: { minimum: 0 } } }, quiet);
    const seq: Array<[unknown, string]> = [
      [0, 'must be >= 1, got 0'],
      [0, 'must be >= 1, got 0'],
      [-7, 'must be >= 1, got -7'],
      [-0, 'must be >= 1, got 0'],
      [0.5, 'must be >= 1, got 0.5'],
      [-7, 'must be >= 1, got -7'],
      [-Infinity, 'must be >= 1, got -Infinity'],
    ];
    for (const [n, message] of seq)
      expect(s.validate({ n })).toContainEqual(expect.objectContaining({ instancePath: '/n', keyword: 'minimum', message }));
    // Two sites never mix up their values.
    expect(v(s, { n: -1, x: -2 })).toEqual(['/n must be >= 1, got -1', '/x must be >= 0, got -2']);
    expect(v(s, { n: -2, x: -1 })).toEqual(['/n must be >= 1, got -2', '/x must be >= 0, got -1']);
  });

  it('a type message names the type of this call', () => {
    const s = compile({ type: 'integer' }, quiet);
    for (const [d, got] of [
      ['a', 'string'],
      ['a', 'string'],
      [null, 'null'],
      [1.5, 'number'],
      [[], 'array'],
      ['b', 'string'],
      [{}, 'object'],
    ] as const) {
      expect(v(s, d)).toEqual([` must be integer, got ${got}`]);
    }
  });

  it("an extra property's path is its own, escaped, under constant and run-time parents", () => {
    const s = compile(
      {
        properties: { o: { additionalProperties: false }, list: { items: { additionalProperties: false } } },
        additionalProperties: false,
      },
      quiet,
    );
    expect(v(s, { o: { a: 1 } }).map((x) => x.split(' ')[0])).toEqual(['/o/a']);
    expect(v(s, { o: { a: 1, b: 2 } }).map((x) => x.split(' ')[0])).toEqual(['/o/a', '/o/b']);
    expect(v(s, { o: { 'a/b': 1, 'a~b': 2 } }).map((x) => x.split(' ')[0])).toEqual(['/o/a~1b', '/o/a~0b']);
    expect(v(s, { o: { 'a/b': 1 } }).map((x) => x.split(' ')[0])).toEqual(['/o/a~1b']);
    expect(v(s, { z: 1, o: { z: 1 } }).map((x) => x.split(' ')[0])).toEqual(['/o/z', '/z']);
    expect(v(s, { list: [{ a: 1 }, { a: 1 }, { b: 1 }] }).map((x) => x.split(' ')[0])).toEqual(['/list/0/a', '/list/1/a', '/list/2/b']);
  });

  it.each(HOSTILE.map((n) => [JSON.stringify(n), n]))('%s as the parent and the extra name of a path', (_label, name) => {
    const s = compile({ properties: own(name, { additionalProperties: false }) }, quiet);
    const other = name === 'x' ? 'y' : 'x';
    for (const extra of [name, other, name]) {
      expect(s.validate(own(name, own(extra, 1)))).toEqual([
        {
          instancePath: `/${escapePointerToken(name)}/${escapePointerToken(extra)}`,
          schemaPath: `/properties/${escapePointerToken(name)}/additionalProperties`,
          keyword: 'additionalProperties',
          message: 'is not allowed (additionalProperties is false)',
        },
      ]);
    }
  });
});

describe('the code builder', () => {
  it('escapeKey (used for run-time paths) escapes exactly as escapePointerToken', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '~', '/', '0', '1', 'é') }), (k) => {
        expect(escapeKey(k)).toBe(escapePointerToken(k));
      }),
    );
  });

  it('writes every interpolated value as a literal and Code as code', () => {
    const name = '"+alert(1)+"';
    expect(code`x[${name}]`.source).toBe('x["\\"+alert(1)+\\""]');
    expect(code`a<${-0}||a<${-1.5}||a<${1e400}||a<${-1e400}`.source).toBe('a<0||a<(-1.5)||a<Infinity||a<(-Infinity)');
    expect(code`${true},${null},${code`raw`}`.source).toBe('true,null,raw');
    expect(stringLiteral('\u2028\u2029')).toBe('"\\u2028\\u2029"');
    expect(() => code`${{}}`).toThrow(TypeError);
    expect(() => code`${undefined}`).toThrow(TypeError);
    expect(() => code`${NaN}`).toThrow();
  });

  it('folds constant paths and builds the others at run time', () => {
    const p = childPath(childPath(ROOT_PATH, 'a/b'), '"');
    expect(p).toEqual({ constant: '/a~1b/"' });
    expect(pathCode(p).source).toBe('"/a~1b/\\""');
    const d = dynamicPath(p, code`i`);
    expect(pathCode(d).source).toBe('"/a~1b/\\"/"+i');
    expect(pathCode(childPath(d, 'x')).source).toBe('"/a~1b/\\"/"+i+"/x"');
    expect(pathCode(dynamicPath(d, code`j`)).source).toBe('"/a~1b/\\"/"+i+"/"+j');
  });

  it('sanitises the URN in the sourceURL so it cannot leave the comment', () => {
    expect(sourceUrl('urn:babel:orders:created', '')).toBe('\n//# sourceURL=bqschema/urn:babel:orders:created');
    expect(sourceUrl('urn:x\n*/evil()\u2028//', '/validate')).toBe('\n//# sourceURL=bqschema/urn:xevil/validate');
    expect(sourceUrl(undefined, '')).toBe('\n//# sourceURL=bqschema/schema');
  });

  it('names generated functions in stack traces by URN', () => {
    const boom = {
      get a(): never {
        throw new Error('boom');
      },
    };
    const s = compile({ properties: { a: { type: 'string' } } }, { ...quiet, urn: 'urn:babel:t:1\nglobalThis.__pwned=1//' });
    const stackOf = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        return (e as Error).stack ?? '';
      }
      return '';
    };
    expect(stackOf(() => s.isValid(boom))).toMatch(/\(bqschema\/urn:babel:t:1globalThis.__pwned1:\d+:\d+\)/);
    expect(stackOf(() => s.validate(boom))).toMatch(/\(bqschema\/urn:babel:t:1globalThis.__pwned1\/validate:\d+:\d+\)/);
  });
});

describe('validate is compiled lazily', () => {
  it('compile builds only isValid; the first validate builds the all-errors function, once', () => {
    const spy = vi.spyOn(globalThis, 'Function');
    try {
      const s = compile({ type: 'object', required: ['a'] }, quiet);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(s.isValid({})).toBe(false);
      expect(spy).toHaveBeenCalledTimes(1);
      const early = s.validate;
      expect(Object.isFrozen(s)).toBe(false);
      expect(s.validate({})).toHaveLength(1);
      expect(s.validate({ a: 1 })).toEqual([]);
      expect(spy).toHaveBeenCalledTimes(2);
      // Built once: the built function took the stub's place, the object is frozen, and a
      // reference taken before the first call still works without building again.
      expect(s.validate).not.toBe(early);
      expect(Object.isFrozen(s)).toBe(true);
      expect(early({})).toHaveLength(1);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('schemas that are not JSON are SchemaErrors', () => {
  class Thing {
    type = 'string';
  }
  const cyclic: Record<string, unknown> = { type: 'object' };
  cyclic.properties = { self: cyclic };
  const cyclicEnum: unknown[] = [1];
  cyclicEnum.push(cyclicEnum);
  const deepCycle: Record<string, unknown> = { a: { b: {} } };
  ((deepCycle.a as Record<string, unknown>).b as Record<string, unknown>).c = deepCycle.a;

  const CASES: Array<[string, unknown, RegExp]> = [
    ['a function', { type: 'string', default: () => 1 }, /a function at \/default$/],
    ['a symbol', { enum: [Symbol('s')] }, /a symbol at \/enum\/0$/],
    ['a bigint', { const: 10n }, /a bigint at \/const$/],
    ['undefined in an object', { properties: { a: { minimum: undefined } } }, /undefined at \/properties\/a\/minimum$/],
    ['undefined in an array', { enum: [1, undefined] }, /undefined at \/enum\/1$/],
    // eslint-disable-next-line no-sparse-arrays
    ['a hole in an array', { enum: [1, , 2] }, /undefined at \/enum\/1$/],
    ['a Date', { const: new Date(0) }, /an instance of Date at \/const$/],
    ['a Map', { properties: new Map() }, /an instance of Map at \/properties$/],
    ['a class instance', { properties: { a: new Thing() } }, /an instance of Thing at \/properties\/a$/],
    ['a boxed string', { type: Object('string') }, /an instance of String at \/type$/],
    ['a class instance as the root', new Thing(), /an instance of Thing at \(the root\)$/],
    ['a cycle through properties', cyclic, /refers to itself at \/properties\/self$/],
    ['a cycle in an enum value', { enum: cyclicEnum }, /refers to itself at \/enum\/1$/],
    ['a cycle in an annotation', { examples: [deepCycle] }, /refers to itself at \/examples\/0\/a\/b\/c$/],
  ];

  it.each(CASES)('%s', (_name, schema, message) => {
    let err: unknown;
    try {
      compile(schema, quiet);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchemaError);
    expect((err as Error).message).toMatch(/^the schema is not JSON: /);
    expect((err as Error).message).toMatch(message);
  });

  it('shared sub-schemas (a YAML alias without a cycle) are fine, and walked once', () => {
    const shared = { type: 'string', minLength: 2 };
    const s = compile({ properties: { a: shared, b: shared } }, quiet);
    expect(s.validate({ a: 'x', b: 'y' }).map((v) => v.instancePath)).toEqual(['/a', '/b']);
    // 2^40 paths through 40 shared levels: a walk per path would never finish.
    let bomb: unknown = [1, 2, 3];
    for (let i = 0; i < 40; i++) bomb = [bomb, bomb];
    const t = compile({ type: 'number', default: bomb, enum: [1, 2] }, quiet);
    expect(t.isValid(1)).toBe(true);
    expect(() => compile({ default: bomb, examples: [NaN] }, quiet)).not.toThrow();
    expect(compile({ default: bomb, examples: [NaN] }, quiet).warnings.map((w) => `${w.kind} ${w.keyword}`)).toEqual([
      'malformed examples',
    ]);
  });

  it('null-prototype objects (as some parsers build them) are plain', () => {
    const s = compile(Object.assign(Object.create(null), { type: 'string' }), quiet);
    expect(s.isValid('x')).toBe(true);
    expect(s.isValid(1)).toBe(false);
  });
});
