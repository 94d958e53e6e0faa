import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SchemaError } from '../../src/validator/index.js';
import { baseTypeName, docBlock, docText, generateTypes, schemaType, typeNames, TYPES_HEADER } from '../../src/types/index.js';
import { literal, typeCheck } from '../helpers/tsc.js';

describe('schemaType: the mapping follows the validator', () => {
  const cases: Array<[string, unknown, string]> = [
    ['true is unknown', true, 'unknown'],
    ['false is never', false, 'never'],
    ['{} is unknown', {}, 'unknown'],
    ['annotations only is unknown', { title: 't', description: 'd', 'x-gdpr-sensitive': true }, 'unknown'],
    ['integer is number', { type: 'integer' }, 'number'],
    ['integer and number once', { type: ['integer', 'number'] }, 'number'],
    ['union type', { type: ['null', 'string'] }, 'string | null'],
    ['lengths and minimum add nothing', { type: ['string', 'number'], minLength: 2, maxLength: 3, minimum: 1 }, 'string | number'],
    [
      'a keyword applies by instance type: no type is every type',
      { properties: { a: { type: 'string' } } },
      'string | number | boolean | null | unknown[] | {\n  a?: string;\n  [key: string]: unknown;\n}',
    ],
    ['minLength alone admits every type', { minLength: 2 }, 'string | number | boolean | null | unknown[] | { [key: string]: unknown }'],
    ['object, open', { type: 'object' }, '{ [key: string]: unknown }'],
    ['object, closed and empty', { type: 'object', additionalProperties: false }, '{ [key: string]: never }'],
    [
      'required vs optional, closed',
      { type: 'object', required: ['b'], properties: { a: { type: 'string' }, b: { type: 'number' } }, additionalProperties: false },
      '{\n  a?: string;\n  b: number;\n}',
    ],
    [
      'a required name not declared takes the additionalProperties type',
      { type: 'object', required: ['x'], additionalProperties: false },
      '{\n  x: never;\n}',
    ],
    [
      'a required name not declared in an open object is unknown',
      { type: 'object', required: ['x'] },
      '{\n  x: unknown;\n  [key: string]: unknown;\n}',
    ],
    [
      'additionalProperties schema: index signature with the declared types',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'integer' } },
      '{\n  /** Additional properties are checked against their schema at run time; the index signature also admits the declared property types (TypeScript requires it). */\n  a?: string;\n  [key: string]: number | string | undefined;\n}'.replace(
        /\n  \/\*\*.*\*\/\n/,
        '\n',
      ),
    ],
    ['items', { type: 'array', items: { type: ['string', 'null'] } }, '(string | null)[]'],
    ['items false', { type: 'array', items: false }, 'never[]'],
    ['array without items', { type: 'array' }, 'unknown[]'],
    ['property false', { type: 'object', properties: { a: false } }, '{\n  a?: never;\n  [key: string]: unknown;\n}'],
    ['enum literals', { enum: [1, 'x', null, true, [1, 2]] }, '1 | "x" | null | true | [1, 2]'],
    ['enum filtered by the other keywords', { type: 'string', enum: ['a', 1, 'abc'], maxLength: 2 }, '"a"'],
    ['enum with numeric equality is deduplicated', { enum: [1, 1.0, 2] }, '1 | 2'],
    ['empty enum', { enum: [] }, 'never'],
    ['const object is exact', { const: { a: 1 } }, '{ a: 1 }'],
    ['const {} admits only {}', { const: {} }, '{ [key: string]: never }'],
    [
      'object literals in one enum exclude each other',
      { enum: [{ a: 1 }, { b: { c: 2 } }, { b: { d: 3 } }] },
      '{ a: 1; b?: never } | { b: { c: 2; d?: never }; a?: never } | { b: { d: 3; c?: never }; a?: never }',
    ],
    ['enum and const together', { enum: [1, 2], const: 2 }, '2'],
    ['a non-finite const has no literal type', { const: Number.POSITIVE_INFINITY }, 'number'],
    ['unsupported keywords add nothing', { type: 'string', pattern: '^a', format: 'email' }, 'string'],
    ['a malformed type has no effect', { type: 'strin' }, 'unknown'],
    ['a malformed required has no effect', { type: 'object', required: 'a' }, '{ [key: string]: unknown }'],
    [
      'a malformed property schema is skipped',
      { type: 'object', properties: { a: 1, b: { type: 'null' } }, additionalProperties: false },
      '{\n  b?: null;\n}',
    ],
    ['the tuple form of items has no effect', { type: 'array', items: [{ type: 'string' }] }, 'unknown[]'],
  ];
  for (const [name, schema, expected] of cases) {
    it(name, () => {
      // Doc lines are tested below; compare the type alone.
      const text = schemaType(schema).replace(/^ *\/\*\*.*\*\/\n/gm, '');
      expect(text).toBe(expected);
    });
  }

  it('a schema the validator cannot read is an error, and a deep one is not a stack overflow', () => {
    expect(() => schemaType(7)).toThrow(SchemaError);
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < 20_000; i++) deep = { items: deep };
    expect(() => schemaType(deep)).toThrow(SchemaError);
  });
});

describe('type names', () => {
  it('come from the URN without urn: and its namespace', () => {
    expect(baseTypeName('urn:babel:orders:created')).toBe('OrdersCreated');
    expect(baseTypeName('urn:babel:orders:created.v2')).toBe('OrdersCreatedV2');
    expect(baseTypeName('orders.created')).toBe('OrdersCreated');
    expect(baseTypeName('urn:babel:2fa:enabled')).toBe('Urn2faEnabled');
    expect(baseTypeName('urn:babel:')).toBe('Urn');
    expect(baseTypeName('urn:x:*/<script>"\\\u2028')).toBe('Script');
  });

  it('are unique and stable: suffixes in URN order, reserved names avoided', () => {
    const names = typeNames(['urn:b:orders:created', 'urn:a:orders:created', 'urn:x:bq:messages', 'urn:c:orders-created']);
    expect(Object.fromEntries(names)).toEqual({
      'urn:a:orders:created': 'OrdersCreated',
      'urn:b:orders:created': 'OrdersCreated_2',
      'urn:c:orders-created': 'OrdersCreated_3',
      'urn:x:bq:messages': 'BqMessages_2',
    });
    // The input order does not matter.
    expect(typeNames(['urn:c:orders-created', 'urn:x:bq:messages', 'urn:a:orders:created', 'urn:b:orders:created'])).toEqual(names);
  });
});

describe('JSDoc text', () => {
  it('cannot close the comment and keeps one line per line', () => {
    expect(docText('a */ b\r\nc\u2028d\u0000e')).toEqual(['a *\\/ b', 'c', 'd\\u0000e']);
    expect(docBlock(['x */'].flatMap(docText), '  ')).toBe('  /** x *\\/ */\n');
  });

  it('cannot start a tag: TypeScript reads none from escaped text', () => {
    expect(docText('@deprecated a @see b user@example.com\t@x')).toEqual(['\\@deprecated a \\@see b user@example.com\t\\@x']);
    const text = generateTypes([
      { urn: 'urn:x:y', description: '@deprecated a @see b', schema: { title: 'x @deprecated', 'x-gdpr-sensitive': 'pii @deprecated' } },
    ]);
    const sf = ts.createSourceFile('m.ts', text, ts.ScriptTarget.ES2022, true);
    expect(ts.getJSDocTags(sf.statements[0]!).map((t) => `${t.tagName.text} ${String(t.comment)}`)).toEqual([
      'sensitive pii \\@deprecated',
    ]);
  });
});

const HOSTILE = ['__proto__', '*/', '<script>', '"', "'", '\\', 'a\u2028b', '\u0000\u001f', 'constructor', '', ' ', '${x}', '`'];

/** Every top-level statement kind and name in a module, and every comment-free token of its text. */
function statements(text: string): string[] {
  const sf = ts.createSourceFile('m.ts', text, ts.ScriptTarget.ES2022, true);
  return sf.statements.map((s) => `${ts.SyntaxKind[s.kind]} ${(s as ts.TypeAliasDeclaration).name?.text}`);
}

describe('generateTypes', () => {
  const entries = [
    {
      urn: 'urn:babel:orders:created',
      owner: 'orders',
      description: 'Placed. */ export const pwned = 1; /*',
      schema: {
        title: 'Order */ created',
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'integer', minimum: 1 },
          email: { type: 'string', 'x-gdpr-sensitive': 'email */ x', description: 'line one\nline two' },
          tags: { type: 'array', items: { type: 'string', maxLength: 3, format: 'x' } },
        },
        additionalProperties: false,
      },
    },
    { urn: 'urn:babel:users:registered', schema: { type: 'object', properties: { a: { type: 'strin' } } } },
  ];

  it('writes a header, a documented type per URN, BqMessages and BqUrn', () => {
    const text = generateTypes(entries);
    expect(text.startsWith(TYPES_HEADER + '\n')).toBe(true);
    expect(statements(text)).toEqual([
      'TypeAliasDeclaration OrdersCreated',
      'TypeAliasDeclaration UsersRegistered',
      'TypeAliasDeclaration BqMessages',
      'TypeAliasDeclaration BqUrn',
    ]);
    expect(text).toContain(' * Order *\\/ created\n');
    expect(text).toContain(' * Data of urn:babel:orders:created (owner: orders).\n * Placed. *\\/ export const pwned = 1; /*\n');
    expect(text).toContain('   * line one\n   * line two\n   *\n   * @sensitive email *\\/ x\n   */\n  email?: string;');
    expect(text).toContain('/** Checked at run time only: integer, minimum 1. */\n  id: number;');
    expect(text).toContain('Items: checked at run time only: maxLength 3.\n   * Items: not enforced (unsupported keyword): format.');
    expect(text).toContain('/** Not enforced (malformed type): unknown type name "strin". */\n  a?: unknown;');
    expect(text).toContain(
      'export type BqMessages = {\n  "urn:babel:orders:created": OrdersCreated;\n  "urn:babel:users:registered": UsersRegistered;\n};',
    );
  });

  it('marks a deprecated URN @deprecated, after its text', () => {
    const text = generateTypes([{ urn: 'urn:x:old', status: 'deprecated', schema: { type: 'null', 'x-gdpr-sensitive': true } }]);
    expect(text).toContain(
      '/**\n * Data of urn:x:old.\n *\n * @deprecated The registry deprecates this URN.\n * @sensitive\n */\nexport type Old = null;',
    );
    expect(generateTypes([{ urn: 'urn:x:old', status: 'active', schema: true }])).not.toContain('@deprecated');
  });

  it("says a deprecation's dates, reason and replacement, escaped, and marks a property the schema deprecates", () => {
    const text = generateTypes([
      {
        urn: 'urn:x:old',
        status: 'deprecated',
        deprecated: { since: '2026-01-31', sunset: '2026-06-30', replacement: 'urn:x:new */', reason: 'split @see x\nnow' },
        schema: { type: 'object', properties: { gone: { type: 'string', deprecated: true }, kept: { type: 'string' } } },
      },
    ]);
    const sf = ts.createSourceFile('t.ts', text, ts.ScriptTarget.ES2022, true);
    const alias = sf.statements.find(ts.isTypeAliasDeclaration)!;
    expect(ts.getJSDocTags(alias).map((t) => `${t.tagName.text} ${String(t.comment)}`)).toEqual([
      'deprecated The registry deprecates this URN (since 2026-01-31, sunset 2026-06-30): split \\@see x now; use urn:x:new *\\/.',
    ]);
    const members = (alias.type as ts.TypeLiteralNode).members;
    const tagsOf = (name: string): string[] =>
      ts.getJSDocTags(members.find((m) => m.name?.getText(sf) === name)!).map((t) => t.tagName.text);
    expect(tagsOf('gone')).toEqual(['deprecated']);
    expect(tagsOf('kept')).toEqual([]);
    // An annotation, not an unsupported constraint: no "not enforced" line.
    expect(text).not.toContain('not enforced');
    expect(typeCheck({ 'test/__types_deprecated.ts': text })).toEqual([]);
  });

  it('is deterministic', () => {
    expect(generateTypes(entries)).toBe(generateTypes(structuredClone(entries)));
  });

  it('refuses a URN listed twice and names the URN of a schema it cannot read', () => {
    expect(() => generateTypes([entries[0]!, entries[0]!])).toThrow(/urn:babel:orders:created: the URN is listed twice/);
    expect(() => generateTypes([{ urn: 'urn:x:y', schema: 'string' }])).toThrow(/^urn:x:y: a schema must be an object or a boolean/);
  });

  it('an empty registry is a module with an empty map', () => {
    expect(typeCheck({ 'test/__types_empty.ts': generateTypes([]) + 'const u: BqUrn[] = [];\n' })).toEqual([]);
  });

  it('hostile names, titles, values and URNs give a module that compiles to exactly the declared shape', () => {
    const properties: Record<string, unknown> = {};
    for (const [i, name] of HOSTILE.entries()) {
      Object.defineProperty(properties, name, {
        value: { title: name, description: name, enum: [name, i], 'x-gdpr-sensitive': name },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    const hostileEntries = HOSTILE.map((name, i) => ({
      urn: `urn:x:${name}${i}`,
      owner: name,
      description: name,
      schema: { title: name, type: 'object', required: HOSTILE, properties, additionalProperties: false },
    }));
    const text = generateTypes(hostileEntries);
    // Nothing but the declared aliases: no text from a schema escaped its string literal or comment.
    const names = [...typeNames(hostileEntries.map((e) => e.urn)).values(), 'BqMessages', 'BqUrn'];
    expect(statements(text).sort()).toEqual(names.map((n) => `TypeAliasDeclaration ${n}`).sort());
    const data: Record<string, unknown> = {};
    for (const [i, name] of HOSTILE.entries()) Object.defineProperty(data, name, { value: i % 2 === 0 ? name : i, enumerable: true });
    const wrong = { ...JSON.parse(JSON.stringify(data)), '*/': 99 };
    const urn = JSON.stringify(hostileEntries[1]!.urn);
    const source = `${text}\nconst ok: BqMessages[${urn}] = ${literal(data)};\nconst bad: BqMessages[${urn}] = ${literal(wrong)};\n`;
    const diagnostics = typeCheck({ 'test/__types_hostile.ts': source });
    const lines = source.split('\n');
    expect(diagnostics.map((d) => lines[d.line - 1]!.slice(0, 9))).toEqual(['const bad']);
  });
});
