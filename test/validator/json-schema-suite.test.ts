import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compile, joinPointer } from '../../src/validator/index.js';

/*
 * The official JSON-Schema-Test-Suite (draft-07 files of the ten keywords, vendored). A group is in
 * scope when its schema uses only the ten keywords (`items` in schema form), annotations and boolean
 * schemas; in-scope groups must pass. The rest expect unsupported keywords to take effect, which the
 * contract deliberately does not do, so they are listed below by name and never run.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'vendor', 'json-schema-test-suite', 'draft7');

// Written out here rather than taken from the validator, so scope is decided independently of it.
const TEN = new Set([
  'type',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'minimum',
]);
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'examples', 'default', '$comment']);

/** Every out-of-scope group, `<file>: <group description>` → the unsupported keywords it uses. */
const OUT_OF_SCOPE: Record<string, string> = {
  'additionalProperties.json: additionalProperties being false does not allow other properties': 'patternProperties',
  'additionalProperties.json: non-ASCII pattern with additionalProperties': 'patternProperties',
  'additionalProperties.json: additionalProperties does not look in applicators': 'allOf',
  'items.json: an array of schemas for items': 'items (array form)',
  'items.json: items with boolean schemas': 'items (array form)',
  'items.json: items and subitems': 'additionalItems, definitions, items (array form)',
  'items.json: array-form items with null instance elements': 'items (array form)',
  'optional/bignum.json: maximum integer comparison': 'maximum',
  'optional/bignum.json: float comparison with high precision': 'exclusiveMaximum',
  'optional/bignum.json: float comparison with high precision on negative numbers': 'exclusiveMinimum',
  'properties.json: properties, patternProperties, additionalProperties interaction': 'maxItems, patternProperties',
};

/** `label` names the tuple form of items apart from the supported schema form. */
type Unsupported = { pointer: string; keyword: string; label: string };

/**
 * The unsupported keywords of a schema, one per occurrence. Descends only into properties, items
 * (schema form) and additionalProperties; an unsupported keyword's value is not searched.
 */
function unsupported(schema: unknown, pointer = ''): Unsupported[] {
  if (typeof schema === 'boolean') return [];
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error(`not a schema at ${JSON.stringify(pointer)}`);
  }
  const out: Unsupported[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if (!TEN.has(key)) {
      out.push({ pointer, keyword: key, label: key });
    } else if (key === 'items' && Array.isArray(value)) {
      out.push({ pointer, keyword: key, label: 'items (array form)' });
    } else if (key === 'properties') {
      for (const [name, sub] of Object.entries(value as object)) out.push(...unsupported(sub, joinPointer(pointer, 'properties', name)));
    } else if (key === 'items' || key === 'additionalProperties') {
      out.push(...unsupported(value, joinPointer(pointer, key)));
    }
  }
  return out;
}

const reason = (found: Unsupported[]): string => [...new Set(found.map((u) => u.label))].sort().join(', ');

interface Group {
  id: string;
  schema: any;
  tests: Array<{ description: string; data: unknown; valid: boolean }>;
  unsupported: Unsupported[];
}

const files = [
  ...readdirSync(root).filter((f) => f.endsWith('.json')),
  ...readdirSync(path.join(root, 'optional'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `optional/${f}`),
].sort();

const groups: Group[] = files.flatMap((file) =>
  (JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Array<Omit<Group, 'id' | 'unsupported'> & { description: string }>).map(
    (g) => ({ id: `${file}: ${g.description}`, schema: g.schema, tests: g.tests, unsupported: unsupported(g.schema) }),
  ),
);
const inScope = groups.filter((g) => g.unsupported.length === 0);
const outOfScope = groups.filter((g) => g.unsupported.length > 0);

let testsRun = 0;

describe('in-scope groups pass', () => {
  for (const g of inScope) {
    describe(g.id, () => {
      const compiled = compile(g.schema, { onWarning: () => {} });
      for (const t of g.tests) {
        it(`${t.description} is ${t.valid ? 'valid' : 'invalid'}`, () => {
          expect(compiled.isValid(t.data), 'isValid').toBe(t.valid);
          const violations = compiled.validate(t.data);
          expect(violations.length === 0, `validate returned ${JSON.stringify(violations)}`).toBe(t.valid);
          testsRun++;
        });
      }
    });
  }
});

describe('scope', () => {
  it('reads all eleven files', () => {
    expect(files).toEqual([
      'additionalProperties.json',
      'const.json',
      'enum.json',
      'items.json',
      'maxLength.json',
      'minLength.json',
      'minimum.json',
      'optional/bignum.json',
      'properties.json',
      'required.json',
      'type.json',
    ]);
  });

  it('has 71 in-scope groups with 267 tests', () => {
    expect(inScope).toHaveLength(71);
    expect(inScope.reduce((n, g) => n + g.tests.length, 0)).toBe(267);
  });

  it('leaves out exactly the listed groups, for the listed reasons', () => {
    const computed = Object.fromEntries(outOfScope.map((g) => [g.id, reason(g.unsupported)]));
    expect(computed).toEqual(OUT_OF_SCOPE);
    expect(new Set(groups.map((g) => g.id)).size).toBe(groups.length);
  });

  it('the validator warns exactly where the walker finds unsupported keywords (so never for in-scope groups)', () => {
    const key = (u: { pointer: string; keyword: string }): string => JSON.stringify([u.pointer, u.keyword]);
    for (const g of groups) {
      const warned = compile(g.schema, { onWarning: () => {} })
        .warnings.map(key)
        .sort();
      expect(warned, g.id).toEqual(g.unsupported.map(key).sort());
    }
  });

  // Runs after the in-scope tests above (vitest keeps file order), so none can be skipped silently.
  it('ran every in-scope test', () => {
    expect(testsRun).toBe(267);
  });
});
