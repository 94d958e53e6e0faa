import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';

/** Reading the CI formats a command printed: SARIF checked against the vendored 2.1.0 schema, JUnit with an XML reader. */

const require = createRequire(import.meta.url);
const Ajv04 = require('ajv-draft-04') as new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const addFormats = require('ajv-formats') as (ajv: unknown) => void;
const schema = JSON.parse(readFileSync(new URL('../vendor/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const validateSarif = ajv.compile(schema);

export interface SarifResult {
  ruleId: string;
  level: string;
  message: { text: string };
  locations?: Array<{ physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number; startColumn?: number } } }>;
}

export interface SarifLog {
  version: string;
  runs: Array<{ tool: { driver: { name: string; version: string; rules: Array<{ id: string }> } }; results: SarifResult[] }>;
}

export function readSarif(text: string): SarifLog {
  const log = JSON.parse(text);
  expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
  return log as SarifLog;
}

/** A result's place as `uri:line:col` (parts left out when absent). */
export function sarifAt(r: SarifResult): string {
  const loc = r.locations?.[0]?.physicalLocation;
  if (loc === undefined) return '';
  const reg = loc.region;
  return `${loc.artifactLocation.uri}${reg ? `:${reg.startLine}` : ''}${reg?.startColumn ? `:${reg.startColumn}` : ''}`;
}

const parser = new XMLParser({
  ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false, parseTagValue: false, trimValues: false,
  htmlEntities: true, isArray: (name) => name === 'testsuite' || name === 'testcase',
});

export interface JunitCase { name: string; classname: string; file?: string; line?: string; failure?: { message: string; type: string; '#text': string }; 'system-out'?: string }
export interface JunitSuite { name: string; tests: string; failures: string; testcase?: JunitCase[] }
export interface JunitDoc { testsuites: { name: string; tests: string; failures: string; testsuite?: JunitSuite[] } }

export function readJunit(xml: string): JunitDoc {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml) as JunitDoc;
}

export const junitCases = (doc: JunitDoc): JunitCase[] => (doc.testsuites.testsuite ?? []).flatMap((s) => s.testcase ?? []);
