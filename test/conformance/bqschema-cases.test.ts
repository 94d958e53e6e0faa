import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compile, MapProvider, SchemaError, warningMessage, WARNING_CODE, type SchemaWarning } from '../../src/index.js';
import { nearestKeyword, SUPPORTED_KEYWORDS } from '../../src/validator/index.js';

// The project's own contract cases (test/conformance/bqschema-cases.json; the vendored copy of
// ../shared stays as it is): CLARIFICATIONS rule 14, unknown keywords.

interface Case {
  name: string;
  schema: Record<string, unknown>;
  warnings: Array<Pick<SchemaWarning, 'kind' | 'pointer' | 'keyword' | 'suggestion'>>;
  tests: Array<{ data: unknown; valid: boolean }>;
}
const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bqschema-cases.json');
const cases = (JSON.parse(readFileSync(file, 'utf8')) as { unknown: Case[] }).unknown;

/** The schema without its unknown keywords: what the verdict must be (an unknown keyword never changes one). */
function withoutUnknown(schema: unknown, warnings: readonly SchemaWarning[]): unknown {
  const copy = structuredClone(schema);
  for (const w of warnings.filter((x) => x.kind === 'unknown')) {
    let node = copy as Record<string, unknown>;
    for (const t of w.pointer.split('/').slice(1)) node = node[t.replace(/~1/g, '/').replace(/~0/g, '~')] as Record<string, unknown>;
    delete node[w.keyword];
  }
  return copy;
}

describe('bqschema-cases.json: unknown keywords (rule 14)', () => {
  it('holds the cases', () => expect(cases.length).toBe(11));
  for (const c of cases) {
    it(c.name, () => {
      const compiled = compile(c.schema, { onWarning: () => {} });
      expect(
        compiled.warnings.map(({ kind, pointer, keyword, suggestion }) => ({
          kind,
          pointer,
          keyword,
          ...(suggestion ? { suggestion } : {}),
        })),
      ).toEqual(c.warnings);
      const plain = compile(withoutUnknown(c.schema, compiled.warnings), { onWarning: () => {} });
      for (const t of c.tests) {
        expect(compiled.isValid(t.data), JSON.stringify(t.data)).toBe(t.valid);
        expect(compiled.validate(t.data).length === 0).toBe(t.valid);
        expect(plain.isValid(t.data)).toBe(t.valid);
      }
    });
  }
});

describe('unknown keyword warnings', () => {
  it('the message says unknown and names the suggestion; unsupported ones keep their words', () => {
    const [typo, format] = compile({ requried: ['a'], format: 'email' }, { urn: 'urn:t', onWarning: () => {} }).warnings;
    expect(warningMessage(typo!)).toBe(
      'schema for urn:t: unknown keyword "requried" at the schema root is not enforced (no JSON Schema draft defines it); did you mean "required"?',
    );
    expect(warningMessage(format!)).toBe('schema for urn:t: unsupported keyword "format" at the schema root is not enforced');
  });

  it("without onWarning, an unknown keyword goes to process.emitWarning under the contract's code", async () => {
    const seen: Array<[string, string | undefined]> = [];
    const listener = (w: Error & { code?: string }): void => {
      seen.push([w.message, w.code]);
    };
    process.on('warning', listener);
    try {
      compile({ proprties: {} }, { urn: 'urn:emit:unknown' });
      await new Promise((done) => setImmediate(done)); // warnings are delivered on a later tick
    } finally {
      process.off('warning', listener);
    }
    expect(seen).toContainEqual([expect.stringMatching(/unknown keyword "proprties" .*did you mean "properties"\?$/), WARNING_CODE]);
  });

  it('nearestKeyword: two edits at most, any case, ties to the first candidate', () => {
    const near = (w: string): string | undefined => nearestKeyword(w, SUPPORTED_KEYWORDS);
    expect([
      near('requried'),
      near('minlength'),
      near('enun'),
      near('proprties'),
      near('MAXLENGTH'),
      near('tpye'),
      near('minimun'),
    ]).toEqual(['required', 'minLength', 'enum', 'properties', 'maxLength', 'type', 'minimum']);
    expect([near('nullable'), near('id'), near('additionalProperty')]).toEqual([undefined, undefined, undefined]);
  });

  it('strict refuses an unknown keyword as it does a malformed one; MapProvider names the URN', () => {
    expect(() => compile({ type: 'object', requried: ['a'] }, { strict: true })).toThrow(SchemaError);
    expect(() => compile({ type: 'object', requried: ['a'] }, { strict: true })).toThrow(
      /unknown keyword "requried" .*did you mean "required"\?/,
    );
    expect(() => compile({ format: 'email', 'x-a': 1 }, { strict: true, onWarning: () => {} })).not.toThrow();
    expect(() => new MapProvider({ 'urn:t:typo': { enun: [1] } }, { strict: true })).toThrow(
      /^schema for urn:t:typo: unknown keyword "enun"/,
    );
    const warned: SchemaWarning[] = [];
    const lenient = new MapProvider({ 'urn:t:typo': { enun: [1] } }, { onWarning: (w) => warned.push(w) });
    expect(lenient.schemaFor('urn:t:typo')!.isValid(2)).toBe(true);
    expect(warned.map((w) => [w.kind, w.keyword, w.suggestion])).toEqual([['unknown', 'enun', 'enum']]);
  });
});
