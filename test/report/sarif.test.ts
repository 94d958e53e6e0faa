import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { fileUri, renderSarif } from '../../src/report/sarif.js';
import type { ReportInput } from '../../src/report/model.js';

// The official schema is draft-04: ajv's draft-04 class, with formats (uri, uri-reference) checked.
const require = createRequire(import.meta.url);
const Ajv04 = require('ajv-draft-04') as new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const addFormats = require('ajv-formats') as (ajv: unknown) => void;
const schema = JSON.parse(readFileSync(new URL('../vendor/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const validateSarif = ajv.compile(schema);

function expectValid(text: string): Record<string, any> {
  const log = JSON.parse(text);
  const ok = validateSarif(log);
  expect(ok, JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
  return log;
}

const INPUT: ReportInput = {
  tool: {
    name: 'bqschema',
    version: '0.1.0',
    informationUri: 'https://example.invalid/bqschema',
    rules: [
      {
        id: 'type-narrowed',
        description: '`type` lost a type.',
        fullDescription: '`type` lost a type: data the old schema accepted is rejected.',
        help: 'Mint a new URN.',
        helpUri: 'https://example.invalid/rules',
      },
      {
        id: 'required-added',
        description: 'A property became required.',
        help: 'Mint a new URN.',
        helpUri: 'https://example.invalid/rules',
      },
    ],
  },
  findings: [
    { rule: 'type-narrowed', level: 'error', message: 'type narrowed', location: { file: 'schemas/orders.json', line: 12, col: 7 } },
    { rule: 'required-added', level: 'warning', message: 'now required', location: { file: 'schemas/orders.json', line: 3 } },
    { rule: 'BQ_INVALID_ENVELOPE', level: 'error', message: 'no urn', location: { file: 'in.ndjson', line: 4, col: 1 } },
    { rule: 'urn-removed', level: 'note', message: 'removed' },
  ],
};

describe('renderSarif', () => {
  it('is valid SARIF 2.1.0 by the official schema', () => {
    expectValid(renderSarif(INPUT));
  });

  it('the schema check is not vacuous: broken logs fail it', () => {
    const log = JSON.parse(renderSarif(INPUT));
    expect(validateSarif({ ...log, version: '2.0.0' })).toBe(false);
    const badLevel = structuredClone(log);
    badLevel.runs[0].results[0].level = 'fatal';
    expect(validateSarif(badLevel)).toBe(false);
    const badRegion = structuredClone(log);
    badRegion.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0;
    expect(validateSarif(badRegion)).toBe(false);
    const badUri = structuredClone(log);
    badUri.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = 'a b\\c';
    expect(validateSarif(badUri)).toBe(false);
  });

  it('one run: the driver, its rules (cited ones added), results pointing at them', () => {
    const log = expectValid(renderSarif(INPUT));
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    const { driver } = log.runs[0].tool;
    expect(driver).toMatchObject({ name: 'bqschema', version: '0.1.0', informationUri: 'https://example.invalid/bqschema' });
    expect(driver.rules.map((r: { id: string }) => r.id)).toEqual([
      'type-narrowed',
      'required-added',
      'BQ_INVALID_ENVELOPE',
      'urn-removed',
    ]);
    expect(driver.rules[0]).toEqual({
      id: 'type-narrowed',
      shortDescription: { text: '`type` lost a type.' },
      fullDescription: { text: '`type` lost a type: data the old schema accepted is rejected.' },
      help: {
        text: 'Mint a new URN. See https://example.invalid/rules',
        markdown:
          '**type-narrowed**: `type` lost a type: data the old schema accepted is rejected.\n\nMint a new URN.\n\n[Documentation](https://example.invalid/rules)',
      },
      helpUri: 'https://example.invalid/rules',
    });
    // fullDescription falls back to the description; a cited rule nobody declared is still described.
    expect(driver.rules[1].fullDescription).toEqual({ text: 'A property became required.' });
    expect(driver.rules[2]).toMatchObject({
      shortDescription: { text: 'BQ_INVALID_ENVELOPE' },
      helpUri: 'https://example.invalid/bqschema',
    });
    expect(log.runs[0].columnKind).toBe('unicodeCodePoints');
    expect(Object.keys(log.runs[0].originalUriBaseIds)).toEqual(['SRCROOT']);
    const results = log.runs[0].results;
    // Every result has a location (code scanning rejects the whole log otherwise); the finding about
    // no file is a notification of the run, citing its rule.
    expect(results).toHaveLength(3);
    for (const r of results) expect(driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    expect(results.map((r: { level: string }) => r.level)).toEqual(['error', 'warning', 'error']);
    expect(results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'schemas/orders.json', uriBaseId: 'SRCROOT' },
      region: { startLine: 12, startColumn: 7 },
    });
    expect(results[1].locations[0].physicalLocation.region).toEqual({ startLine: 3 });
    expect(log.runs[0].invocations).toEqual([
      {
        executionSuccessful: true,
        toolExecutionNotifications: [{ level: 'note', message: { text: 'removed' }, associatedRule: { id: 'urn-removed', index: 3 } }],
      },
    ]);
    // The analysis category code scanning keeps the run under.
    expect(log.runs[0].automationDetails).toEqual({ id: 'bqschema/run/' });
  });

  it('positions that are not positive integers are left out (a file without a line is its first line)', () => {
    const log = expectValid(
      renderSarif({
        tool: { name: 't', version: '1' },
        findings: [
          { rule: 'r', level: 'error', message: 'm', location: { file: 'a.json', line: 0, col: 3 } },
          { rule: 'r', level: 'error', message: 'm', location: { file: 'a.json', line: 2.5 } },
          { rule: 'r', level: 'error', message: 'm', location: { file: 'a.json', line: 2, col: -1 } },
          { rule: 'r', level: 'error', message: 'm', location: { file: 'a.json', col: 4 } },
        ],
      }),
    );
    const regions = log.runs[0].results.map((r: any) => r.locations[0].physicalLocation.region);
    expect(regions).toEqual([{ startLine: 1 }, { startLine: 1 }, { startLine: 2 }, { startLine: 1 }]);
  });

  it('file paths become URI references', () => {
    expect(fileUri('schemas/a b#1?.json')).toBe('schemas/a%20b%231%3F.json');
    expect(fileUri('schemas\\win\\x.json')).toBe('schemas/win/x.json');
    expect(fileUri('/abs/dir/ü.json')).toBe('file:///abs/dir/%C3%BC.json');
    expect(fileUri('C:\\reg\\x.json')).toBe('file:///C:/reg/x.json');
    const files = ['schemas/a b#1?.json', 'schemas\\win\\x.json', '/abs/ü.json', 'C:\\reg\\x.json', '%41.json', '<script>.json'];
    const log = expectValid(
      renderSarif({
        tool: { name: 't', version: '1' },
        findings: files.map((file) => ({ rule: 'r', level: 'error' as const, message: 'm', location: { file, line: 1 } })),
      }),
    );
    expect(log.runs[0].results[4].locations[0].physicalLocation.artifactLocation.uri).toBe('%2541.json');
  });

  it('hostile text survives exactly, and the output stays valid JSON and SARIF', () => {
    const hostile = 'quote " back \\ nl \n cr \r nul \u0000 ctl \u0001 ls \u2028 ps \u2029 </script> ]]> */ __proto__';
    const log = expectValid(
      renderSarif({
        tool: {
          name: 'bq"schema',
          version: '1\n',
          rules: [{ id: '__proto__', description: hostile, help: hostile, helpUri: 'https://example.invalid/x' }],
        },
        findings: [{ rule: '__proto__', level: 'error', message: hostile, location: { file: '__proto__/x.json', line: 1, col: 1 } }],
      }),
    );
    expect(log.runs[0].results[0].message.text).toBe(hostile);
    expect(log.runs[0].tool.driver.rules[0].shortDescription.text).toBe(hostile);
    expect(log.runs[0].tool.driver.name).toBe('bq"schema');
  });

  it('an empty message names the rule (SARIF wants text)', () => {
    const log = expectValid(
      renderSarif({
        tool: { name: 't', version: '1' },
        findings: [
          { rule: 'r1', level: 'note', message: '', location: { file: 'a.json' } },
          { rule: 'r1', level: 'note', message: '' },
        ],
      }),
    );
    expect(log.runs[0].results[0].message.text).toBe('r1');
    expect(log.runs[0].invocations[0].toolExecutionNotifications[0].message.text).toBe('r1');
  });

  it('no findings: a valid log with an empty result list', () => {
    const log = expectValid(renderSarif({ tool: { name: 't', version: '1' }, findings: [] }));
    expect(log.runs[0].results).toEqual([]);
  });

  it('is deterministic: the same input gives the same bytes, duplicate rules declared once', () => {
    const twice = {
      ...INPUT,
      tool: {
        ...INPUT.tool,
        rules: [...INPUT.tool.rules!, { id: 'type-narrowed', description: 'again', help: 'h', helpUri: 'https://example.invalid/x' }],
      },
    };
    expect(renderSarif(twice)).toBe(renderSarif(twice));
    const log = JSON.parse(renderSarif(twice));
    expect(log.runs[0].tool.driver.rules.filter((r: { id: string }) => r.id === 'type-narrowed')).toHaveLength(1);
    expect(renderSarif(INPUT).endsWith('}\n')).toBe(true);
  });
});
