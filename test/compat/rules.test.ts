import { describe, expect, it } from 'vitest';
import { RULES, compareSchemas, isRuleId, listRules, rulesMarkdown, type RuleId } from '../../src/compat/index.js';

/*
 * The Difference.Type names of Confluent's JSON Schema checker that a bqschema rule may point at
 * (json-schema-provider, io.confluent.kafka.schemaregistry.json.diff.Difference.Type), so a typo
 * in the mapping fails here.
 */
const CONFLUENT_TYPES = new Set([
  'TYPE_EXTENDED',
  'TYPE_NARROWED',
  'TYPE_CHANGED',
  'MAX_LENGTH_ADDED',
  'MAX_LENGTH_REMOVED',
  'MAX_LENGTH_INCREASED',
  'MAX_LENGTH_DECREASED',
  'MIN_LENGTH_ADDED',
  'MIN_LENGTH_REMOVED',
  'MIN_LENGTH_INCREASED',
  'MIN_LENGTH_DECREASED',
  'MINIMUM_ADDED',
  'MINIMUM_REMOVED',
  'MINIMUM_INCREASED',
  'MINIMUM_DECREASED',
  'REQUIRED_ATTRIBUTE_ADDED',
  'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED',
  'REQUIRED_ATTRIBUTE_REMOVED',
  'ADDITIONAL_PROPERTIES_ADDED',
  'ADDITIONAL_PROPERTIES_REMOVED',
  'ADDITIONAL_PROPERTIES_EXTENDED',
  'ADDITIONAL_PROPERTIES_NARROWED',
  'PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL',
  'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL',
  'PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL',
  'ENUM_ARRAY_EXTENDED',
  'ENUM_ARRAY_NARROWED',
  'ENUM_ARRAY_CHANGED',
  'PRODUCT_TYPE_EXTENDED',
  'PRODUCT_TYPE_NARROWED',
  'SUM_TYPE_EXTENDED',
  'SUM_TYPE_NARROWED',
]);

/** Exhaustive over the union: adding a RuleId without a rule (or the reverse) fails to compile or here. */
const EVERY_ID: Record<RuleId, true> = {
  'schema-became-false': true,
  'schema-no-longer-false': true,
  'type-narrowed': true,
  'type-widened': true,
  'required-added': true,
  'required-removed': true,
  'property-removed': true,
  'property-added': true,
  'property-resurrected': true,
  'additional-properties-closed': true,
  'additional-properties-opened': true,
  'enum-added': true,
  'enum-removed': true,
  'enum-value-removed': true,
  'enum-value-added': true,
  'const-added': true,
  'const-removed': true,
  'const-changed': true,
  'min-length-raised': true,
  'min-length-lowered': true,
  'max-length-lowered': true,
  'max-length-raised': true,
  'minimum-raised': true,
  'minimum-lowered': true,
  'unsupported-keyword-changed': true,
};

describe('the rule registry', () => {
  it('lists every RuleId once', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(Object.keys(EVERY_ID).sort());
    for (const id of ids) expect(isRuleId(id)).toBe(true);
    expect(isRuleId('no-such-rule')).toBe(false);
    expect(isRuleId('__proto__')).toBe(false);
  });

  it('names a real Confluent Difference.Type or null on every rule', () => {
    for (const r of RULES) {
      if (r.confluent !== null) expect(CONFLUENT_TYPES.has(r.confluent), r.id).toBe(true);
    }
    // The headline difference is documented on the rule it concerns.
    const added = RULES.find((r) => r.id === 'property-added')!;
    expect(added.confluent).toBe('PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL');
    expect(added.breaks).toBe('forward');
    expect(added.confluentBreaks).toBe('both');
    expect(added.note).toMatch(/open model/);
  });

  it('listRules is plain JSON: it survives a round trip unchanged', () => {
    const rules = listRules();
    const json = JSON.parse(JSON.stringify({ rules })) as { rules: unknown[] };
    expect(json.rules).toEqual(rules.map((r) => ({ ...r })));
    for (const r of json.rules as Array<Record<string, unknown>>) {
      expect(Object.keys(r).sort()).toEqual(['breaks', 'confluent', 'confluentBreaks', 'description', 'id', 'note']);
    }
  });

  it('every rule id compareSchemas emits is listed', () => {
    const listed = new Set(RULES.map((r) => r.id));
    const pairs: Array<[unknown, unknown]> = [
      [{ type: 'string' }, { type: 'integer', pattern: 'x' }],
      [{ properties: { a: {} } }, { properties: { b: {} }, required: ['b'], additionalProperties: false }],
      [{ enum: [1, 2] }, { enum: [2, 3], const: 2 }],
    ];
    for (const [a, b] of pairs) {
      for (const c of compareSchemas(a, b, { level: 'full' }).changes) expect(listed.has(c.rule), c.rule).toBe(true);
    }
  });
});

describe('rulesMarkdown', () => {
  const md = rulesMarkdown();
  const rows = md.trimEnd().split('\n');

  it('is a table with one row per rule, in RULES order', () => {
    expect(rows).toHaveLength(RULES.length + 2);
    expect(rows[1]).toBe('| --- | --- | --- | --- | --- | --- |');
    RULES.forEach((r, i) => expect(rows[i + 2]!.startsWith(`| \`${r.id}\` |`)).toBe(true));
  });

  it('every row has six cells (no unescaped pipe, no line break)', () => {
    for (const row of rows) {
      const cells = row.replace(/\\\|/g, '').split('|').slice(1, -1);
      expect(cells, row).toHaveLength(6);
    }
  });

  it('states both verdicts and the Confluent name', () => {
    const row = rows.find((r) => r.startsWith('| `property-added` |'))!;
    expect(row).toContain('| forward | backward and forward | `PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL` |');
    const notice = rows.find((r) => r.startsWith('| `unsupported-keyword-changed` |'))!;
    expect(notice).toContain('| never (a notice) | never (a notice) | — |');
  });
});
