import { describe, expect, it } from 'vitest';
import {
  generateCsharp,
  generateGo,
  generateJava,
  generatePhp,
  generatePython,
  generateTypes,
  type TypesEntry,
} from '../../src/types/index.js';

// Generated types in every language mark a deprecated URN (with its dates, reason and replacement)
// and a property its schema marks `"deprecated": true`. That each output still compiles, with hostile
// deprecation text, is proven by test/types/roundtrip-random-registries.test.ts (its registries' first URN is deprecated).

const ENTRIES: TypesEntry[] = [
  {
    urn: 'urn:x:orders:placed',
    status: 'deprecated',
    deprecated: { since: '2026-01-31', sunset: '2026-06-30', replacement: 'urn:x:orders:placed.v2', reason: 'split by region' },
    schema: { type: 'object', properties: { coupon: { type: 'string', deprecated: true }, id: { type: 'integer' } } },
  },
  { urn: 'urn:x:orders:placed.v2', schema: { type: 'object', properties: { id: { type: 'integer' } } } },
];
const URN_TEXT = 'registry deprecates this URN (since 2026-01-31, sunset 2026-06-30): split by region; use urn:x:orders:placed.v2.';
const PROPERTY_TEXT = 'Deprecated: the schema marks it deprecated (an annotation: it is validated as before).';
const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('generated types mark deprecation', () => {
  it("TypeScript: @deprecated on the URN's type and on the property", () => {
    const ts = generateTypes(ENTRIES);
    expect(ts).toContain(`@deprecated The ${URN_TEXT}`);
    expect(ts).toContain(
      '@deprecated The schema marks it deprecated (an annotation: it is validated as before).\n   */\n  coupon?: string;',
    );
    expect(count(ts, '@deprecated')).toBe(2);
  });

  it("Go: a Deprecated: paragraph on the URN's struct and the field", () => {
    const go = generateGo(ENTRIES);
    expect(go).toContain(`//\n// Deprecated: the ${URN_TEXT}\n`);
    expect(go).toMatch(new RegExp(`\\t// ${PROPERTY_TEXT.replace(/[().]/g, '\\$&')}\\n\\tCoupon `));
  });

  it('Python, PHP, Java and C#: their own markers', () => {
    const py = generatePython(ENTRIES);
    expect(py).toContain(`Deprecated: the ${URN_TEXT}`);
    expect(py).toContain(PROPERTY_TEXT);
    const php = generatePhp(ENTRIES);
    expect(php).toContain(`@deprecated The ${URN_TEXT}`);
    expect(php).toContain(PROPERTY_TEXT);
    const java = generateJava(ENTRIES);
    expect(java).toContain(`@deprecated The ${URN_TEXT}`);
    expect(count(java, '@Deprecated\n')).toBe(1);
    expect(java).toContain(PROPERTY_TEXT);
    const cs = generateCsharp(ENTRIES);
    expect(cs).toContain(`[Obsolete("The ${URN_TEXT}")]`);
    expect(cs).toContain(PROPERTY_TEXT);
  });

  it('an active URN and an unmarked property say nothing of deprecation', () => {
    const plain: TypesEntry[] = [{ urn: 'urn:x:a', schema: { type: 'object', properties: { id: { type: 'integer' } } } }];
    for (const gen of [generateTypes, generateGo, generatePython, generatePhp, generateJava, generateCsharp]) {
      expect(gen(plain)).not.toMatch(/deprecat|Obsolete/i);
    }
  });
});
