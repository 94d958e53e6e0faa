// One keyword, one file: the table in src/validator/keywords/index.ts is the supported set, each
// row's file is named after it, docs/contract.md says what each checks in the row's words, and
// compat's witness search judges values with the validator's own interpreter (the compiled
// isValid's verdict on every node of a schema).
//
// BQ_KEYWORDS_RUNS=<n> judges more generated schemas; BQ_KEYWORDS_SEED=<n> another seed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSchemas } from '../../src/compat/compare.js';
import { fits } from '../../src/compat/witness.js';
import { compile, parsePointer, parseSchema, SUPPORTED_KEYWORDS, type SchemaNode } from '../../src/validator/index.js';
import { KEYWORDS } from '../../src/validator/keywords/index.js';
import { rootArb, VALUES } from '../helpers/compat-arbitraries.js';

const RUNS = Number(process.env['BQ_KEYWORDS_RUNS'] ?? 300);
const SEED = Number(process.env['BQ_KEYWORDS_SEED'] ?? 20261206);
const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'src', 'validator', 'keywords');
/** The files of the folder that are not a keyword: the shape of one, the table, the length bounds' shared part. */
const NOT_KEYWORDS = new Set(['keyword.ts', 'index.ts', 'length.ts']);

describe('the keyword table', () => {
  it('is the supported set, one file per keyword, exporting its row', async () => {
    const names = KEYWORDS.map((k) => k.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(names)).toEqual(SUPPORTED_KEYWORDS);
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.ts') && !NOT_KEYWORDS.has(f))
      .sort();
    expect(files).toEqual(names.map((n) => `${n}.ts`).sort());
    for (const k of KEYWORDS) {
      const exported = Object.values((await import(join(DIR, `${k.name}.ts`))) as Record<string, unknown>);
      expect(exported, k.name).toContain(k);
    }
  });

  it('is the list docs/contract.md says what each keyword checks for, row by row', () => {
    const contract = readFileSync(join(ROOT, 'docs', 'contract.md'), 'utf8');
    const section = contract.slice(contract.indexOf('## The ten keywords'), contract.indexOf('### Unsupported keywords'));
    const documented: string[] = [];
    for (const m of section.matchAll(/^\| ((?:`[^`|]+`(?:, )?)+) \| .+ \|$/gm)) {
      for (const name of m[1]!.matchAll(/`([^`]+)`/g)) documented.push(name[1]!);
    }
    expect(documented).toEqual(KEYWORDS.map((k) => k.name));
  });

  it('tells data under a false sub-schema which keyword led there, as each keyword words it', () => {
    const cases: Array<[string, unknown, unknown]> = [
      ['properties', { properties: { a: false } }, { a: 1 }],
      ['items', { items: false }, [1]],
      ['additionalProperties', { additionalProperties: false }, { a: 1 }],
    ];
    for (const [name, schema, data] of cases) {
      const k = KEYWORDS.find((x) => x.name === name)!;
      expect(k.falseSchema, name).toBeDefined();
      const [v] = compile(schema, { onWarning: () => {} }).validate(data);
      expect(v, name).toMatchObject({ keyword: name, message: k.falseSchema });
    }
    expect(compile(false).validate(1)).toEqual([
      { instancePath: '', schemaPath: '', keyword: 'false', message: 'is not allowed (the schema is false)' },
    ]);
  });
});

/**
 * A schema each keyword tightens (from `{}`, or from the old schema given), with a value the
 * tightened schema rejects. A keyword added to the
 * table needs a row here, and compat must then call its tightening breaking: a supported keyword
 * is no longer an unsupported change to compat, so one it does not compare would pass silently.
 */
const TIGHTENED: Record<string, [schema: unknown, rejected: unknown, old?: unknown]> = {
  type: [{ type: 'string' }, 1],
  required: [{ required: ['a'] }, {}],
  // Adding a declared property is allowed by registry policy: the tightening is of one declared.
  properties: [{ properties: { a: { type: 'string' } } }, { a: 1 }, { properties: { a: {} } }],
  additionalProperties: [{ additionalProperties: false }, { a: 1 }],
  items: [{ items: { type: 'string' } }, [1]],
  enum: [{ enum: [1] }, 2],
  const: [{ const: 1 }, 2],
  minLength: [{ minLength: 2 }, 'a'],
  maxLength: [{ maxLength: 2 }, 'abc'],
  minimum: [{ minimum: 2 }, 1],
};

describe('compat knows every keyword of the table', () => {
  it('calls tightening each one breaking', () => {
    expect(Object.keys(TIGHTENED).sort()).toEqual(KEYWORDS.map((k) => k.name).sort());
    for (const k of KEYWORDS) {
      const [schema, rejected, old = {}] = TIGHTENED[k.name]!;
      expect(compile(schema, { onWarning: () => {} }).isValid(rejected), k.name).toBe(false);
      const result = compareSchemas(old, schema);
      expect(result.compatible, k.name).toBe(false);
      expect(
        result.changes.some((c) => c.breaking),
        k.name,
      ).toBe(true);
    }
  });
});

/** Every node of a parsed tree, with the schema it was parsed from. */
function nodes(root: SchemaNode, schema: unknown): Array<[SchemaNode, unknown]> {
  const out: Array<[SchemaNode, unknown]> = [];
  const stack: SchemaNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    let raw: unknown = schema;
    for (const token of parsePointer(n.pointer)) raw = (raw as Record<string, unknown>)[token];
    out.push([n, raw]);
    for (const [, sub] of n.properties ?? []) stack.push(sub);
    if (n.additional) stack.push(n.additional);
    if (n.items) stack.push(n.items);
  }
  return out;
}

describe("compat's witness search judges with the validator", () => {
  it(`fits() on every node of ${RUNS} generated schemas is the compiled isValid of that node's schema`, () => {
    const data = fc.oneof(
      fc.constantFrom(...VALUES),
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c', 'x'), fc.jsonValue({ maxDepth: 2 })),
    );
    let judged = 0;
    fc.assert(
      fc.property(rootArb, fc.array(data, { minLength: 1, maxLength: 6 }), (schema, values) => {
        for (const [node, raw] of nodes(parseSchema(schema).root, schema)) {
          const compiled = compile(raw, { onWarning: () => {} });
          for (const v of values) {
            expect(fits(node, v), JSON.stringify({ raw, v })).toBe(compiled.isValid(v));
            judged++;
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(judged).toBeGreaterThan(RUNS);
  });
});
