import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compile, EnvelopeError, readEnvelope } from '../../src/index.js';

// Reads the vendored copy, so the cases run in a checkout without ../shared too.
const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'vendor', 'conformance');
const load = (name: string): any => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));

interface VerdictCase {
  schema: unknown;
  data: unknown;
  valid: boolean;
}

const manifest = load('manifest.json');
const contract = load('contract-cases.json');

const MANIFEST_SECTIONS = ['payload_schema', 'payload_schema_unicode'] as const;

/** The number of case objects in the raw files, counted without the loaders below. */
const expected = {
  payload_schema: 7,
  payload_schema_unicode: 6,
  validationGroups: 42,
  validationTests: 105,
  warnings: 13,
  envelopes: 14,
};

const ran = { verdicts: 0, warnings: 0, envelopes: 0 };

function checkVerdict(c: VerdictCase): void {
  const compiled = compile(c.schema, { onWarning: () => {} });
  expect(compiled.isValid(c.data), 'isValid').toBe(c.valid);
  const violations = compiled.validate(c.data);
  expect(violations.length === 0, `validate returned ${JSON.stringify(violations)}`).toBe(c.valid);
  ran.verdicts++;
}

describe('the data files hold the expected number of cases', () => {
  it.each(MANIFEST_SECTIONS)('manifest section %s', (section) => {
    expect(manifest.sections[section]).toBe('core');
    expect(manifest[section].cases).toHaveLength(expected[section]);
  });
  it('contract-cases.json', () => {
    expect(contract.validation).toHaveLength(expected.validationGroups);
    const tests = contract.validation.reduce((n: number, g: { tests: unknown[] }) => n + g.tests.length, 0);
    expect(tests).toBe(expected.validationTests);
    expect(contract.warnings).toHaveLength(expected.warnings);
    expect(contract.envelopes).toHaveLength(expected.envelopes);
  });
});

for (const section of MANIFEST_SECTIONS) {
  describe(`manifest.json ${section}`, () => {
    const { schema, cases } = manifest[section];
    for (const c of cases as Array<{ name: string; data: unknown; valid: boolean }>) {
      it(`${c.name} is ${c.valid ? 'valid' : 'invalid'}`, () => {
        checkVerdict({ schema, data: c.data, valid: c.valid });
      });
    }
  });
}

describe('contract-cases.json validation', () => {
  for (const group of contract.validation as Array<{ name: string; schema: unknown; tests: any[] }>) {
    describe(group.name, () => {
      for (const t of group.tests) {
        // data_json carries instances a JSON object cannot hold verbatim (1.0, -0, a lone surrogate).
        const data = t.data_json !== undefined ? JSON.parse(t.data_json) : t.data;
        it(`${t.description} is ${t.valid ? 'valid' : 'invalid'}`, () => {
          checkVerdict({ schema: group.schema, data, valid: t.valid });
        });
      }
    });
  }
});

type Warn = { pointer: string; keyword: string };
const byPosition = (a: Warn, b: Warn): number =>
  a.pointer === b.pointer ? (a.keyword < b.keyword ? -1 : a.keyword > b.keyword ? 1 : 0) : a.pointer < b.pointer ? -1 : 1;

describe('contract-cases.json warnings', () => {
  for (const c of contract.warnings as Array<{ name: string; schema: unknown; expect: Warn[] }>) {
    it(c.name, () => {
      // The contract's warnings are the unsupported keywords, unknown ones included (rule 14); malformed ones are bqschema's own report.
      const got = compile(c.schema, { onWarning: () => {} })
        .warnings.filter((w) => w.kind !== 'malformed')
        .map((w) => ({ pointer: w.pointer, keyword: w.keyword }));
      // Compared as a multiset: one warning per occurrence, order not part of the contract.
      expect([...got].sort(byPosition)).toEqual([...c.expect].sort(byPosition));
      ran.warnings++;
    });
  }
});

describe('contract-cases.json envelopes', () => {
  type EnvelopeCase = { name: string; envelope_json: string; expect: { urn?: string; error?: string }; warns: boolean };
  for (const c of contract.envelopes as EnvelopeCase[]) {
    it(c.name, () => {
      const value: unknown = JSON.parse(c.envelope_json);
      if (c.expect.error !== undefined) {
        let thrown: unknown;
        try {
          readEnvelope(value);
        } catch (err) {
          thrown = err;
        }
        expect(thrown).toBeInstanceOf(EnvelopeError);
        const err = thrown as EnvelopeError;
        expect(err.reason).toBe(c.expect.error);
        // The error carries the identity warnings raised before the problem was found.
        expect(err.warnings.length > 0, `warnings: ${JSON.stringify(err.warnings)}`).toBe(c.warns);
      } else {
        expect(typeof c.expect.urn).toBe('string');
        const env = readEnvelope(value);
        expect(env.urn).toBe(c.expect.urn);
        expect(env.warnings.length > 0, `warnings: ${JSON.stringify(env.warnings)}`).toBe(c.warns);
      }
      ran.envelopes++;
    });
  }
});

// Vitest runs a file's tests in order, so this runs last: a loader bug cannot pass by running nothing.
it('ran every case of every section', () => {
  expect(ran).toEqual({
    verdicts: expected.payload_schema + expected.payload_schema_unicode + expected.validationTests,
    warnings: expected.warnings,
    envelopes: expected.envelopes,
  });
});
