import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BOM, bq, expectExit, FIXTURES, inRepository, removeTempTrees, tempTree, type CliResult, type RunOptions } from '../helpers/cli.js';

// `bqschema validate` end to end, against test/fixtures/cli/reg (urn:test:order in JSON,
// urn:test:note in YAML, urn:test:pay in JSONC with an unsupported `format` keyword).

const REG = ['--registry', 'reg/registry.json'];
/** Annotations name files from the repository's root; the commands run in FIXTURES. */
const AT = inRepository(FIXTURES);
const validate = (args: string[], options: RunOptions = {}): Promise<CliResult> =>
  bq(['validate', ...REG, ...args], { cwd: FIXTURES, ...options });

interface JsonResult {
  file: string;
  line?: number;
  col?: number;
  urn?: string;
  status: 'valid' | 'invalid' | 'skipped' | 'error';
  violations: { instancePath: string; schemaPath?: string; keyword: string; message: string }[];
  warnings: string[];
  error?: string;
}
interface JsonReport {
  ok: boolean;
  summary: { messages: number; valid: number; invalid: number; skipped: number; errors: number };
  results: JsonResult[];
}
const report = (r: CliResult): JsonReport => JSON.parse(r.stdout) as JsonReport;

afterAll(removeTempTrees);

const ORDER_OK = { order_id: 1, sku: 'ABC', lines: [] };
const envelope = (job: string, data: unknown): string => JSON.stringify({ job, data });

describe.concurrent('validate: inputs', () => {
  it('validates a file: valid exits 0, invalid exits 1 with the violations', async () => {
    const [ok, bad] = await Promise.all([validate(['messages/order-valid.json']), validate(['messages/order-invalid.json'])]);
    expectExit(ok, 0);
    expect(ok.stdout).toMatch(/✓ valid {2}messages\/order-valid\.json {2}urn:test:order/);
    expect(ok.stdout).toMatch(/OK: 1 message: 1 valid, 0 invalid, 0 skipped, 0 errors/);
    expectExit(bad, 1);
    expect(bad.stdout).toMatch(/✗ invalid {2}messages\/order-invalid\.json/);
    expect(bad.stdout).toContain('/order_id  must be >= 1, got 0');
    expect(bad.stdout).toMatch(/FAILED: 1 message: 0 valid, 1 invalid/);
  });

  it('walks a directory for *.json, *.ndjson and *.jsonl in sorted order, ignoring other extensions', async () => {
    const msg = envelope('urn:test:order', ORDER_OK) + '\n';
    const dir = tempTree({
      // Extensions in any ASCII case, a dot-file named only by its extension, a directory with a
      // message extension (walked into), and names that merely end in "json".
      'd/UP.JSON': msg,
      'd/Up.NDJSON': msg,
      'd/.json': msg,
      'd/dir.json/e.json': msg,
      'd/a.xjson': '{',
      'd/json': '{',
      'd/b.json': msg,
      'd/a.ndjson': msg + msg,
      'd/10.json': msg,
      'd/9.json': msg,
      'd/Z/z.jsonl': msg,
      'd/sub/c.json': msg,
      'd/notes.txt': 'not json',
      'd/config.yaml': 'a: [',
      'd/x.json.bak': '{',
      'registry.json': '{"schemas":[{"urn":"urn:test:order","schema":"order.json"}]}',
      'order.json': readFileSync(join(FIXTURES, 'reg/schemas/order.json')),
    });
    const r = await bq(['validate', '--format', 'json', 'd'], { cwd: dir });
    expectExit(r, 0);
    const seen = report(r).results.map((x) => (x.line === undefined ? x.file : `${x.file}:${x.line}`));
    expect(seen).toEqual([
      'd/.json',
      'd/10.json',
      'd/9.json',
      'd/UP.JSON',
      'd/Up.NDJSON:1',
      'd/Z/z.jsonl:1',
      'd/a.ndjson:1',
      'd/a.ndjson:2',
      'd/b.json',
      'd/dir.json/e.json',
      'd/sub/c.json',
    ]);
  });

  it('a symlink loop in a walked directory finishes and reads each file once', async () => {
    const dir = tempTree({
      'registry.json': '{"schemas":[{"urn":"urn:l","schema":"s.json"}]}',
      's.json': '{"type":"object"}',
      'd/one.json': envelope('urn:l', {}),
      'd/inner/two.json': envelope('urn:l', {}),
    });
    symlinkSync('..', join(dir, 'd', 'inner', 'parent'));
    symlinkSync('.', join(dir, 'd', 'self'));
    const r = await bq(['validate', '--format', 'json', 'd'], { cwd: dir });
    expectExit(r, 0);
    const files = report(r).results.map((x) => x.file);
    expect(files).toHaveLength(2);
    expect(files.map((f) => f.split('/').pop()).sort()).toEqual(['one.json', 'two.json']);
  });

  it('- reads one whole JSON document from stdin', async () => {
    const pretty = JSON.stringify({ job: 'urn:test:order', data: ORDER_OK }, null, 2);
    const r = await validate(['--format', 'json', '-'], { input: pretty });
    expectExit(r, 0);
    expect(report(r).results).toEqual([{ file: '<stdin>', urn: 'urn:test:order', status: 'valid', violations: [], warnings: [] }]);
  });

  it('text: an envelope identity warning comes after the violations, as it did before the Report (warnings last)', async () => {
    const both = JSON.stringify({ job: 'urn:test:order', urn: 'urn:test:order', data: { order_id: 'x' } });
    const r = await validate(['-'], { input: both });
    expectExit(r, 1);
    const body = r.stdout.split('\n').slice(1, -3);
    expect(body.length).toBeGreaterThan(1);
    expect(body.at(-1)).toBe('    warning: both "job" and "urn" are set: "job" wins and "urn" is dropped');
    expect(body.slice(0, -1).every((l) => !l.includes('warning:'))).toBe(true);
  });

  it('--ndjson - reads one envelope per stdin line, each reported with its line, blank lines skipped', async () => {
    const input = `${envelope('urn:test:order', ORDER_OK)}\n\n  \t\n${envelope('urn:test:order', { ...ORDER_OK, sku: 'A' })}\n`;
    const r = await validate(['--ndjson', '--format', 'json', '-'], { input });
    expectExit(r, 1);
    expect(report(r).results.map((x) => [x.file, x.line, x.status])).toEqual([
      ['<stdin>', 1, 'valid'],
      ['<stdin>', 4, 'invalid'],
    ]);
  });

  it('NDJSON files report each message as file:line and skip blank lines', async () => {
    const [json, text] = await Promise.all([validate(['--format', 'json', 'messages/mixed.ndjson']), validate(['messages/mixed.ndjson'])]);
    expectExit(json, 1);
    expect(report(json).results.map((x) => [x.file, x.line, x.status])).toEqual([
      ['messages/mixed.ndjson', 1, 'valid'],
      ['messages/mixed.ndjson', 3, 'invalid'],
      ['messages/mixed.ndjson', 5, 'skipped'],
      ['messages/mixed.ndjson', 6, 'error'],
      ['messages/mixed.ndjson', 7, 'invalid'],
    ]);
    expectExit(text, 1);
    expect(text.stdout).toMatch(/^messages\/mixed\.ndjson$/m);
    expect(text.stdout).toMatch(/✗ invalid {2}line 3 {2}urn:test:order\n\s+\/order_id {2}must be integer, got string/);
    expect(text.stdout).not.toMatch(/line [24]\b/);
  });

  it('--urn validates bare data objects', async () => {
    const [ok, bad, notObject] = await Promise.all([
      validate(['--urn', 'urn:test:order', 'messages/bare-order.json']),
      validate(['--urn', 'urn:test:order', '--format', 'json', '-'], { input: '{"order_id": 5}' }),
      validate(['--urn', 'urn:test:order', '--format', 'json', '-'], { input: '[1]' }),
    ]);
    expectExit(ok, 0);
    expect(ok.stdout).toMatch(/✓ valid {2}messages\/bare-order\.json {2}urn:test:order/);
    expectExit(bad, 1);
    expect(report(bad).results[0]!.violations.map((v) => v.message)).toEqual([
      'must have required property "sku"',
      'must have required property "lines"',
    ]);
    expectExit(notObject, 1);
    expect(report(notObject).results[0]!.status).toBe('invalid');
  });

  it('an unregistered URN is skipped (exit 0), and fails with --strict (exit 1)', async () => {
    const [plain, strict] = await Promise.all([
      validate(['--format', 'json', 'messages/unregistered.json']),
      validate(['--strict', '--format', 'json', 'messages/unregistered.json']),
    ]);
    expectExit(plain, 0);
    expect(report(plain).results[0]).toMatchObject({ urn: 'urn:test:unknown', status: 'skipped' });
    expect(report(plain).ok).toBe(true);
    // Under --strict the message cannot be judged: an error, counted as one.
    expectExit(strict, 1);
    expect(report(strict).results[0]).toMatchObject({
      status: 'error',
      error: 'no schema registered for "urn:test:unknown"; --strict makes a URN with no schema an error: register one, or correct the URN',
    });
    expect(report(strict).summary).toEqual({ messages: 1, valid: 0, invalid: 0, skipped: 0, errors: 1 });
    expect(report(strict).ok).toBe(false);
  });

  it('an envelope without identity is invalid (exit 1)', async () => {
    const r = await validate(['--format', 'json', 'messages/no-identity.json']);
    expectExit(r, 1);
    const [res] = report(r).results;
    expect(res!.status).toBe('invalid');
    expect(res!.urn).toBeUndefined();
    expect(res!.violations[0]!.message).toMatch(/no identity/);
  });

  it('data that is an array is invalid', async () => {
    const r = await validate(['--format', 'json', 'messages/data-array.json']);
    expectExit(r, 1);
    expect(report(r).results[0]!.status).toBe('invalid');
    expect(report(r).results[0]!.violations[0]!.message).toMatch(/"data" must be a JSON object/);
  });

  it('an unknown meta.schema_version is invalid, even when the data would pass', async () => {
    const r = await validate(['--format', 'json', 'messages/schema-v2.json']);
    expectExit(r, 1);
    expect(report(r).results[0]!.status).toBe('invalid');
    expect(report(r).results[0]!.violations[0]!.message).toMatch(/schema_version/);
  });

  it('malformed JSON is an error naming file:line:col; exit 1 when other files were read', async () => {
    const [json, text] = await Promise.all([
      validate(['--format', 'json', 'messages/malformed.json', 'messages/order-valid.json']),
      validate(['messages/malformed.json', 'messages/order-valid.json']),
    ]);
    expectExit(json, 1);
    // messages/malformed.json line 3: `  "data": { "order_id": 1,, }` has a second comma at column 27.
    expect(report(json).results[0]).toMatchObject({ file: 'messages/malformed.json', status: 'error', line: 3, col: 27 });
    expect(report(json).results[0]!.error).toMatch(/invalid JSON/);
    expect(report(json).results[1]!.status).toBe('valid');
    expectExit(text, 1);
    expect(text.stdout).toMatch(/! error {2}messages\/malformed\.json:3:27 {2}invalid JSON/);
  });

  it('malformed JSON exits 1 alone as beside a good file: a bad input counts the same in any batch', async () => {
    const r = await validate(['messages/malformed.json']);
    expectExit(r, 1);
    expect(r.stdout).toContain('messages/malformed.json:3:27');
  });

  it('a missing path is an error result; exit 1 alone and beside a readable file', async () => {
    const [alone, beside] = await Promise.all([
      validate(['--format', 'json', 'messages/no-such-file.json']),
      validate(['--format', 'json', 'messages/no-such-file.json', 'messages/order-valid.json']),
    ]);
    expectExit(alone, 1);
    expect(report(alone).results).toEqual([
      { file: 'messages/no-such-file.json', status: 'error', violations: [], warnings: [], error: 'no such file or directory' },
    ]);
    expectExit(beside, 1);
    expect(report(beside).summary).toEqual({ messages: 2, valid: 1, invalid: 0, skipped: 0, errors: 1 });
  });

  it('empty stdin is no input: exit 2 with one line, with and without --ndjson; the JSON document is still complete', async () => {
    const results = await Promise.all([
      validate(['-'], { input: '' }),
      validate(['--ndjson', '-'], { input: '\n\n' }),
      validate(['--format', 'json', '-'], { input: ' ' }),
    ]);
    for (const r of results) {
      expectExit(r, 2);
      expect(r.stderr).toBe('bqschema: no input on stdin\n');
    }
    expect(report(results[2]!)).toEqual({ results: [], summary: { messages: 0, valid: 0, invalid: 0, skipped: 0, errors: 0 }, ok: false });
  });

  it('stdin given twice is a usage error', async () => {
    const r = await validate(['-', '-'], { input: '{}' });
    expectExit(r, 2);
    expect(r.stderr).toMatch(/stdin \(-\) can be given only once/);
  });

  it('a malformed schema file is an error result for each message of its URN; the run goes on (exit 1)', async () => {
    const r = await bq(['validate', '-r', 'syntax/json/registry.json', '--format', 'json', '--ndjson', '-'], {
      cwd: FIXTURES,
      input: [envelope('urn:s:json', {}), envelope('urn:other', {}), envelope('urn:s:json', {})].join('\n'),
    });
    expectExit(r, 1);
    expect(r.stderr).toBe('');
    const doc = report(r);
    expect(doc.results.map((x) => x.status)).toEqual(['error', 'skipped', 'error']);
    expect(doc.results[0]!.error).toMatch(/schema file for urn:s:json is malformed: .*:\d+:\d+: invalid JSON/);
    expect(doc.summary).toEqual({ messages: 3, valid: 0, invalid: 0, skipped: 1, errors: 2 });
  });

  it('an envelope keeps its BOM out of github columns', async () => {
    const dir = tempTree({
      'registry.json': '{"schemas":[{"urn":"u","schema":"s.json"}]}',
      's.json': '{"type":"object","required":["x"]}',
      'bom.json': BOM + '{"job":"u","data":{}}',
      'plain.json': '{"job":"u","data":{}}',
    });
    const r = await bq(['validate', '--format', 'github', 'bom.json', 'plain.json'], { cwd: dir });
    expectExit(r, 1);
    // `{"job":"u","data":` is 18 characters: the data object starts at column 19 either way.
    expect(r.stdout).toContain('::error file=bom.json,line=1,col=19,title=invalid data::u: (root) must have required property "x"');
    expect(r.stdout).toContain('::error file=plain.json,line=1,col=19,title=invalid data::u: (root) must have required property "x"');
  });
});

describe.concurrent('validate: unsupported-keyword warnings', () => {
  const pay = (amount: number): string => envelope('urn:test:pay', { amount, at: 'now' });
  const input = [pay(1), pay(0), pay(2)].join('\n') + '\n';

  it('go to stderr once per URN', async () => {
    const r = await validate(['--ndjson', '-'], { input });
    expectExit(r, 1);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
    expect(warnings).toEqual([
      'bqschema: warning: schema for urn:test:pay: unsupported keyword "format" at /properties/at is not enforced',
    ]);
    expect(r.stdout).not.toContain('format');
  });

  it('never change stdout or the exit code', async () => {
    const withFormat = readFileSync(join(FIXTURES, 'reg/schemas/pay.jsonc'), 'utf8');
    const withoutFormat = withFormat.replace(', "format": "date-time"', '');
    expect(withoutFormat).not.toBe(withFormat);
    const manifest = '{"schemas":[{"urn":"urn:test:pay","schema":"pay.jsonc"}]}';
    const a = tempTree({ 'registry.json': manifest, 'pay.jsonc': withFormat });
    const b = tempTree({ 'registry.json': manifest, 'pay.jsonc': withoutFormat });
    for (const format of ['text', 'json', 'github']) {
      const [warned, quiet] = await Promise.all([
        bq(['validate', '--ndjson', '--format', format, '-'], { cwd: a, input }),
        bq(['validate', '--ndjson', '--format', format, '-'], { cwd: b, input }),
      ]);
      expect(warned.stderr).toContain('unsupported keyword "format"');
      expect(quiet.stderr).toBe('');
      expect(warned.stdout).toBe(quiet.stdout);
      expect(warned.code).toBe(quiet.code);
    }
  });
});

describe.concurrent('validate --format json', () => {
  it('prints one JSON document with ok, summary and results of the documented shape', async () => {
    const r = await validate(['--format', 'json', 'messages/order-invalid.json', 'messages/order-valid.json', 'messages/mixed.ndjson']);
    expectExit(r, 1);
    const doc = report(r);
    expect(Object.keys(doc).sort()).toEqual(['ok', 'results', 'summary']);
    expect(doc.ok).toBe(false);
    expect(doc.summary).toEqual({ messages: 7, valid: 2, invalid: 3, skipped: 1, errors: 1 });
    const counted = { messages: 0, valid: 0, invalid: 0, skipped: 0, errors: 0 };
    for (const res of doc.results) {
      counted.messages++;
      counted[res.status === 'error' ? 'errors' : res.status]++;
      expect(typeof res.file).toBe('string');
      expect(Array.isArray(res.violations)).toBe(true);
      expect(Array.isArray(res.warnings)).toBe(true);
      for (const v of res.violations) {
        expect(typeof v.instancePath).toBe('string');
        expect(typeof v.keyword).toBe('string');
        expect(typeof v.message).toBe('string');
      }
    }
    expect(counted).toEqual(doc.summary);
    expect(doc.results[0]).toEqual({
      file: 'messages/order-invalid.json',
      urn: 'urn:test:order',
      status: 'invalid',
      violations: [
        // Positions as in the github test below: JSON output carries them too.
        {
          instancePath: '/order_id',
          schemaPath: '/properties/order_id/minimum',
          keyword: 'minimum',
          message: 'must be >= 1, got 0',
          line: 4,
          col: 17,
        },
        {
          instancePath: '/sku',
          schemaPath: '/properties/sku/minLength',
          keyword: 'minLength',
          message: 'must be at least 3 characters long, got 2',
          line: 5,
          col: 12,
        },
        {
          instancePath: '/lines/1',
          schemaPath: '/properties/lines/items/required',
          keyword: 'required',
          message: 'must have required property "id"',
          line: 8,
          col: 7,
        },
        {
          instancePath: '/lines/1/qty',
          schemaPath: '/properties/lines/items/properties/qty/type',
          keyword: 'type',
          message: 'must be integer, got string',
          line: 8,
          col: 16,
        },
      ],
      warnings: [],
    });
  });

  it('ok is true and the summary all valid when everything passes', async () => {
    const r = await validate(['--format', 'json', 'messages/order-valid.json']);
    expectExit(r, 0);
    expect(report(r).ok).toBe(true);
    expect(report(r).summary).toEqual({ messages: 1, valid: 1, invalid: 0, skipped: 0, errors: 0 });
  });
});

describe.concurrent('validate --format github', () => {
  it('prints one ::error per violation at the offending value (hand-counted in messages/order-invalid.json)', async () => {
    const r = await validate(['--format', 'github', 'messages/order-invalid.json']);
    expectExit(r, 1);
    const F = `${AT}messages/order-invalid.json`;
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      // line 4 `    "order_id": 0,`: the value 0 at column 17
      `::error file=${F},line=4,col=17,title=invalid data::urn:test:order: /order_id must be >= 1, got 0`,
      // line 5 `    "sku": "AB",`: the string at column 12
      `::error file=${F},line=5,col=12,title=invalid data::urn:test:order: /sku must be at least 3 characters long, got 2`,
      // line 8 `      { "qty": "two" }`: the object lacking "id" opens at column 7, "two" at column 16
      `::error file=${F},line=8,col=7,title=invalid data::urn:test:order: /lines/1 must have required property "id"`,
      `::error file=${F},line=8,col=16,title=invalid data::urn:test:order: /lines/1/qty must be integer, got string`,
      'FAILED: 1 message: 0 valid, 1 invalid, 0 skipped, 0 errors',
    ]);
  });

  it('NDJSON lines report their own line number', async () => {
    const r = await validate(['--format', 'github', 'messages/mixed.ndjson']);
    expectExit(r, 1);
    const F = `${AT}messages/mixed.ndjson`;
    // line 3: `{"job":"urn:test:order","data":{"order_id":` is 43 characters, so "x" is at column 44
    expect(r.stdout).toContain(`::error file=${F},line=3,col=44,title=invalid data::urn:test:order: /order_id must be integer, got string`);
    // urn:test:nope is one edit from the registered urn:test:note: a warning with the suggestion.
    expect(r.stdout).toContain(
      `::warning file=${F},line=5,title=no schema::no schema registered for "urn:test:nope"; did you mean "urn:test:note"?\n`,
    );
    expect(r.stdout).toContain(`::error file=${F},line=6,col=2,title=cannot validate::invalid JSON: invalid symbol`);
    expect(r.stdout).toMatch(new RegExp(`^::error file=${F},line=7,col=1,title=invalid data::message: \\(envelope\\) .*no identity`, 'm'));
  });

  it('an unregistered URN is an ::error under --strict', async () => {
    const r = await validate(['--strict', '--format', 'github', 'messages/unregistered.json']);
    expectExit(r, 1);
    expect(r.stdout).toContain(`::error file=${AT}messages/unregistered.json,title=no schema::no schema registered for "urn:test:unknown"`);
  });
});

describe.concurrent('validate: YAML and JSONC schemas', () => {
  it('applies the YAML schema (urn:test:note)', async () => {
    const r = await validate(['--format', 'json', '--ndjson', '-'], {
      input: `${envelope('urn:test:note', { text: 'short' })}\n${envelope('urn:test:note', { text: 'far too long here' })}\n`,
    });
    expectExit(r, 1);
    expect(report(r).results.map((x) => x.status)).toEqual(['valid', 'invalid']);
    expect(report(r).results[1]!.violations[0]!.keyword).toBe('maxLength');
  });
});
