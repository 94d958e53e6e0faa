import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaPointer, sensitivePaths } from '../../src/gdpr/index.js';
import { parsePointer } from '../../src/validator/index.js';
import {
  BIN,
  bq,
  expectExit,
  expectOneLineError,
  inFormats,
  inRepository,
  removeTempTrees,
  ROOT,
  tempTree,
  type CliResult,
  type RunOptions,
} from '../helpers/cli.js';
import { junitCases, junitCounts, readJunit, readSarif, sarifAt } from '../helpers/ci-formats.js';

// Properties run from a fixed seed in `npm test`; BQ_FC_SEED=<seed> draws others (or replays one).
const FC_SEED = Number(process.env.BQ_FC_SEED ?? 38467);

// `bqschema gdpr` end to end, against test/fixtures/gdpr: urn:test:customer (JSON, every field
// marked: nested objects, array items, union types, additionalProperties), urn:test:profile (YAML,
// PII-named fields left unmarked) and urn:test:plain (JSONC, nothing personal by the default pattern).

const DIR = join(ROOT, 'test', 'fixtures', 'gdpr');
/** Annotations and SARIF name files from the repository's root; the commands run in DIR. */
const AT = inRepository(DIR);
const gdpr = (args: string[], options: RunOptions = {}): Promise<CliResult> =>
  bq(['gdpr', '--registry', 'registry.json', ...args], { cwd: DIR, ...options });
const fixture = (name: string): string => readFileSync(join(DIR, name), 'utf8');

const inventory = inFormats(gdpr, [], ['json', 'github']);
const required = inFormats(gdpr, ['--require'], ['json', 'github', 'sarif', 'junit']);

afterAll(removeTempTrees);

/** Every leaked value in the fixtures contains "leak": none may reach stdout or stderr. */
function expectNoLeak(r: CliResult): void {
  expect(r.stdout).not.toContain('leak');
  expect(r.stderr).not.toContain('leak');
}

describe.concurrent('gdpr: inventory', () => {
  it('lists every marked path per URN, sorted by URN, with its category and a summary', async () => {
    const r = await inventory('text');
    expectExit(r, 0);
    expect(r.stdout).toBe(
      [
        'urn:test:customer  schemas/customer.json',
        '    contact.geo.lat       location',
        '    contact.geo.lon       location',
        '    contact.street        address',
        '    email                 email',
        '    name                  (no category)',
        '    orders[].card_number  card',
        '    phone                 phone',
        '    tags.*                free-text',
        'urn:test:plain  schemas/plain.jsonc',
        '    no sensitive fields',
        'urn:test:profile  schemas/profile.yaml',
        '    passport  id-document',
        '',
        '3 URN(s), 9 sensitive field(s)',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
  });

  it('--format json: { ok, summary, urns: [{urn, fields: [{path, category}]}] }', async () => {
    const r = await inventory('json');
    expectExit(r, 0);
    const loc = { category: 'location' };
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      urns: [
        {
          urn: 'urn:test:customer',
          fields: [
            { path: 'contact.geo.lat', ...loc },
            { path: 'contact.geo.lon', ...loc },
            { path: 'contact.street', category: 'address' },
            { path: 'email', category: 'email' },
            { path: 'name', category: '' },
            { path: 'orders[].card_number', category: 'card' },
            { path: 'phone', category: 'phone' },
            { path: 'tags.*', category: 'free-text' },
          ],
        },
        { urn: 'urn:test:plain', fields: [] },
        { urn: 'urn:test:profile', fields: [{ path: 'passport', category: 'id-document' }] },
      ],
      summary: { urns: 3, fields: 9, errors: 0 },
    });
  });

  it('--format github: one summary notice listing every marked field, then the summary line', async () => {
    const r = await inventory('github');
    expectExit(r, 0);
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      '::notice title=Personal data inventory::9 sensitive field(s) in 2 of 3 URN(s)%0A' +
        'urn:test:customer: contact.geo.lat (location), contact.geo.lon (location), contact.street (address), email (email), name, ' +
        'orders[].card_number (card), phone (phone), tags.* (free-text)%0Aurn:test:profile: passport (id-document)',
      '3 URN(s), 9 sensitive field(s)',
    ]);
  });

  it('a schema file that cannot be loaded is a one-line error (exit 1: a broken registry)', async () => {
    const dir = tempTree({
      'registry.json': '{"schemas":[{"urn":"urn:x","schema":"x.json"}]}',
      'x.json': '{"type": "object",\n  "properties": }',
    });
    const r = await bq(['gdpr', '--registry', join(dir, 'registry.json')]);
    expectOneLineError(r, /^bqschema: schema file for urn:x is malformed: .*x\.json:2:17: invalid JSON/, 1);
    expect(r.stdout).toBe('');
  });
});

describe.concurrent('gdpr --require', () => {
  it('lists each URN, and under it each unmarked PII-named leaf (nested, array items, additionalProperties, union); exits 1', async () => {
    const r = await required('text');
    expectExit(r, 1);
    const tail = 'looks like personal data but is not marked x-gdpr-sensitive';
    expect(r.stdout).toBe(
      [
        '✓ urn:test:customer  schemas/customer.json',
        '✓ urn:test:plain  schemas/plain.jsonc',
        '✗ urn:test:profile  schemas/profile.yaml',
        `    error  billing.*.iban  ${tail}`,
        `    error  contact.email  ${tail}`,
        `    error  phones[]  ${tail}`,
        '',
        'FAILED: 3 PII-named field(s) not marked x-gdpr-sensitive; 3 URN(s) checked',
        '',
      ].join('\n'),
    );
  });

  it('exits 0 when every PII-named field is marked (a marked container covers its subtree)', async () => {
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', 'x-gdpr-sensitive': 'email' },
        address: { type: 'object', 'x-gdpr-sensitive': true, properties: { street: { type: 'string' } } },
        order_id: { type: 'integer' },
      },
    };
    const dir = tempTree({ 'registry.json': '{"schemas":[{"urn":"urn:ok","schema":"ok.json"}]}', 'ok.json': JSON.stringify(schema) });
    const [text, json] = await Promise.all([
      bq(['gdpr', '--require', '--registry', join(dir, 'registry.json')]),
      bq(['gdpr', '--require', '--format', 'json', '--registry', join(dir, 'registry.json')]),
    ]);
    expectExit(text, 0);
    expect(text.stdout).toBe(`✓ urn:ok  ${join(dir, 'ok.json')}\n\nOK: no unmarked PII-named field; 1 URN(s) checked\n`);
    expectExit(json, 0);
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, summary: { urns: 1, failed: 0, errors: 0 }, findings: [] });
  });

  it('--format json: { ok, summary, findings: [{urn, path}] }', async () => {
    const r = await required('json');
    expectExit(r, 1);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      summary: { urns: 3, failed: 1, errors: 3 },
      findings: [
        { urn: 'urn:test:profile', path: 'billing.*.iban' },
        { urn: 'urn:test:profile', path: 'contact.email' },
        { urn: 'urn:test:profile', path: 'phones[]' },
      ],
    });
  });

  it('--format github: an error on the property in the YAML schema file', async () => {
    const r = await required('github');
    expectExit(r, 1);
    const error = (line: number, col: number, path: string): string =>
      `::error file=${AT}schemas/profile.yaml,line=${line},col=${col},title=unmarked PII::urn:test:profile: ${path} looks like personal data but is not marked x-gdpr-sensitive`;
    // Each YAML sub-schema starts on the line below its key, at its first keyword.
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      error(24, 11, 'billing.*.iban'),
      error(11, 9, 'contact.email'),
      error(17, 7, 'phones[]'),
      'FAILED: 3 PII-named field(s) not marked x-gdpr-sensitive; 3 URN(s) checked',
    ]);
  });

  it('--format github maps escaped paths back to the property (dots, stars, brackets, emoji in names)', async () => {
    const text = [
      '{',
      '  "type": "object",',
      '  "properties": {',
      '    "e.mail": { "type": "string" },',
      '    "*phone*": { "type": "string" },',
      '    "😀": { "properties": { "ssn[0]": { "type": "string" } } },',
      '    "list": { "items": { "additionalProperties": { "properties": { "iban": {} } } } }',
      '  }',
      '}',
    ].join('\n');
    const dir = tempTree({ 'registry.json': '{"schemas":[{"urn":"urn:odd","schema":"odd.json"}]}', 'odd.json': text });
    const r = await bq(['gdpr', '--require', '--format', 'github', '--registry', 'registry.json'], { cwd: dir });
    expectExit(r, 1);
    const lines = text.split('\n');
    const at = (line: number, key: string): string => {
      // Columns count code points: the emoji before ssn[0] is one column.
      const col = [...lines[line - 1]!.slice(0, lines[line - 1]!.indexOf('{', lines[line - 1]!.indexOf(`"${key}":`)))].length + 1;
      return `line=${line},col=${col}`;
    };
    const tail = 'looks like personal data but is not marked x-gdpr-sensitive';
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      `::error file=odd.json,${at(5, '*phone*')},title=unmarked PII::urn:odd: \\*phone\\* ${tail}`,
      `::error file=odd.json,${at(4, 'e.mail')},title=unmarked PII::urn:odd: e\\.mail ${tail}`,
      `::error file=odd.json,${at(7, 'iban')},title=unmarked PII::urn:odd: list[].*.iban ${tail}`,
      `::error file=odd.json,${at(6, 'ssn[0]')},title=unmarked PII::urn:odd: 😀.ssn\\[0\\] ${tail}`,
      'FAILED: 4 PII-named field(s) not marked x-gdpr-sensitive; 1 URN(s) checked',
    ]);
  });

  it('--pattern replaces the default pattern, case-insensitively', async () => {
    const r = await gdpr(['--require', '--pattern', 'license_?plate']);
    expectExit(r, 1);
    expect(r.stdout).toBe(
      [
        '✓ urn:test:customer  schemas/customer.json',
        '✗ urn:test:plain  schemas/plain.jsonc',
        '    error  LicensePlate  looks like personal data but is not marked x-gdpr-sensitive',
        '✓ urn:test:profile  schemas/profile.yaml',
        '',
        'FAILED: 1 PII-named field(s) not marked x-gdpr-sensitive; 3 URN(s) checked',
        '',
      ].join('\n'),
    );
  });

  it('an invalid or empty --pattern is a one-line usage error (exit 2)', async () => {
    const [bad, empty] = await Promise.all([gdpr(['--require', '--pattern', '(unclosed']), gdpr(['--require', '--pattern', ''])]);
    expectOneLineError(bad, /^bqschema: --pattern: invalid PII pattern "\(unclosed": .*/);
    expectOneLineError(empty, /^bqschema: --pattern: the PII pattern is empty/);
    expect(bad.stdout + empty.stdout).toBe('');
  });

  it('options that would be silently ignored are usage errors', async () => {
    const runs = await Promise.all([
      gdpr(['--pattern', 'x']),
      gdpr(['--urn', 'urn:test:customer']),
      gdpr(['--ndjson']),
      gdpr(['--mask', 'messages/bare.json', '--require']),
      gdpr(['--mask', 'messages/stream.ndjson', '--ndjson']),
      gdpr(['--mask', 'messages']),
    ]);
    const patterns = [
      /--pattern applies to --require/,
      /--urn applies to --mask/,
      /--ndjson applies to --mask -/,
      /cannot be combined/,
      /--ndjson applies to stdin/,
      /messages is a directory/,
    ];
    runs.forEach((r, i) => expectOneLineError(r, patterns[i]!));
  });
});

const CUSTOMER_MASKED = `{
  "meta": { "id": "m-1", "schema_version": 1 },
  "job": "urn:test:customer",
  "data": {
    "id": 12345678901234567891,
    "email": "a***",
    "name": "😀***",
    "phone": "***",
    "contact": { "street": "İ***", "city": "İstanbul", "geo": { "lat": "***", "lon": "***" } },
    "orders": [
      { "sku": "A-1", "card_number": "4***" },
      { "sku": "B-2", "card_number": "***" }
    ],
    "tags": { "note": "𝒱***", "mood": "***" },
    "undeclared": { "email": "kept@example.com" }
  },
  "attempts": 0,
  "trace": 1.50
}
`;

/** `gdpr --mask - --ndjson` with stdin left open for the test to feed, line by line. */
function maskStream(): {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  firstLine: Promise<string>;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [BIN, 'gdpr', '--registry', 'registry.json', '--mask', '-', '--ndjson'], {
    cwd: DIR,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stderr.on('data', (c: Buffer) => (output.stderr += c.toString('utf8')));
  child.stdin.on('error', () => {}); // the child may be gone before the last lines are written
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      output.stdout += c.toString('utf8');
      if (output.stdout.includes('\n')) resolve(output.stdout);
    });
    child.on('close', () => reject(new Error(`exited before writing a line; stderr: ${output.stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, output, firstLine, exited };
}

describe.concurrent('gdpr --mask', () => {
  it('masks an envelope: nested objects, array items, union types, additionalProperties, emoji first letters; the rest byte for byte', async () => {
    const file = join(DIR, 'messages', 'customer.json');
    const before = readFileSync(file);
    const r = await gdpr(['--mask', 'messages/customer.json']);
    expectExit(r, 0);
    // Key order, spacing, a 64-bit integer and `1.50` are all kept: only the marked values change.
    expect(r.stdout).toBe(CUSTOMER_MASKED);
    expect(r.stderr).toBe('');
    expect(readFileSync(file).equals(before)).toBe(true);
    // --format text is the masked message; a report format is refused, not ignored. One condition
    // refuses every format but text (src/cli/commands/gdpr.ts): github (the Action's default) and
    // json show it.
    const text = await gdpr(['--mask', 'messages/customer.json', '--format', 'text']);
    expectExit(text, 0);
    expect(text.stdout).toBe(CUSTOMER_MASKED);
    for (const format of ['json', 'github']) {
      const r = await gdpr(['--mask', 'messages/customer.json', '--format', format]);
      expectOneLineError(
        r,
        new RegExp(
          `^bqschema: --format ${format} does not apply to --mask, which prints the masked message: --mask supports only --format text \\(the default\\);`,
        ),
      );
      expect(r.stdout).toBe('');
    }
  });

  it('masks bare data against --urn, from a file or from stdin', async () => {
    const expected = '{"email":"b***","name":"B***","contact":{"geo":{"lat":"***","lon":"***"}}}\n';
    const [file, stdin] = await Promise.all([
      gdpr(['--mask', 'messages/bare.json', '--urn', 'urn:test:customer']),
      gdpr(['--mask', '-', '--urn', 'urn:test:customer'], { input: fixture('messages/bare.json') }),
    ]);
    expectExit(file, 0);
    expect(file.stdout).toBe(expected);
    expectExit(stdin, 0);
    expect(stdin.stdout).toBe(expected);
    const notObject = await gdpr(['--mask', '-', '--urn', 'urn:test:customer'], { input: '["leak@example.com"]' });
    expectExit(notObject, 1);
    expect(notObject.stdout).toBe('');
    expect(notObject.stderr).toBe('bqschema: <stdin>: data must be a JSON object\n');
    expectNoLeak(notObject);
  });

  it('a URN without a schema, an envelope without identity: exit 1, one line, nothing echoed', async () => {
    const [unknown, anonymous] = await Promise.all([
      gdpr(['--mask', 'messages/unknown.json']),
      gdpr(['--mask', 'messages/no-identity.json']),
    ]);
    expectExit(unknown, 1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe(
      'bqschema: messages/unknown.json: no schema registered for urn:test:nope: it cannot be masked, so it is not printed\n',
    );
    expectNoLeak(unknown);
    expectExit(anonymous, 1);
    expect(anonymous.stdout).toBe('');
    expect(anonymous.stderr).toBe('bqschema: messages/no-identity.json: the envelope has no identity: no usable "job" or "urn"\n');
    expectNoLeak(anonymous);
  });

  it('malformed JSON or a missing file: exit 1 (a bad input, as in validate), one line with file:line:col, nothing echoed', async () => {
    const r = await gdpr(['--mask', 'messages/malformed.json']);
    expectOneLineError(r, /^bqschema: messages\/malformed\.json:3:42: invalid JSON: property name expected$/, 1);
    expect(r.stdout).toBe('');
    expectNoLeak(r);
    const missing = await gdpr(['--mask', 'messages/none.json']);
    expectOneLineError(missing, /^bqschema: messages\/none\.json: no such file or directory$/, 1);
  });

  it('NDJSON: each line masked in order; unmaskable lines reported as file:line and left out; exit 1', async () => {
    const file = join(DIR, 'messages', 'stream.ndjson');
    const before = readFileSync(file);
    const r = await gdpr(['--mask', 'messages/stream.ndjson']);
    expectExit(r, 1);
    expect(r.stdout).toBe(
      '{"job":"urn:test:customer","data":{"email":"a***","id":1}}\n' +
        '{"urn":"urn:test:customer","data":{"name":"Ü***","orders":[{"card_number":"5***"}]},"attempts":2}\n',
    );
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'bqschema: messages/stream.ndjson:2: no schema registered for urn:test:nope: it cannot be masked, so it is not printed',
      'bqschema: messages/stream.ndjson:3:63: invalid JSON: close brace expected',
      'bqschema: messages/stream.ndjson:4: the envelope has no identity: no usable "job" or "urn"',
      'bqschema: messages/stream.ndjson:7: "data" must be a JSON object, got an array',
    ]);
    expectNoLeak(r);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('a clean NDJSON stream exits 0; identity warnings go to stderr', async () => {
    const input = [
      '{"job":"urn:test:customer","data":{"phone":"+90 555"}}',
      '{"job":7,"urn":"urn:test:customer","data":{"phone":null}}',
    ].join('\n');
    const r = await gdpr(['--mask', '-', '--ndjson'], { input });
    expectExit(r, 0);
    expect(r.stdout).toBe(
      '{"job":"urn:test:customer","data":{"phone":"+***"}}\n{"job":7,"urn":"urn:test:customer","data":{"phone":"***"}}\n',
    );
    expect(r.stderr).toBe('bqschema: warning: <stdin>:2: "job" is not a string (number) and is ignored\n');
  });

  it('a repeated key on the masked path never lets the earlier value through', async () => {
    const input = '{"job":"urn:test:customer","data":{"email":"leak@example.com","email":"bob@example.com","id":12}}\n';
    const r = await gdpr(['--mask', '-', '--ndjson'], { input });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).toEqual({ job: 'urn:test:customer', data: { email: 'b***', id: 12 } });
    expectNoLeak(r);
  });

  it('streams stdin: a masked line is written before stdin is closed', async () => {
    const { child, output, firstLine, exited } = maskStream();
    child.stdin.write('{"job":"urn:test:customer","data":{"email":"alice@example.com"}}\n');
    // Stdin is still open here: the line can only have come out if it was streamed.
    expect(await firstLine).toBe('{"job":"urn:test:customer","data":{"email":"a***"}}\n');
    expect(child.stdin.writableEnded).toBe(false);
    child.stdin.end('{"job":"urn:test:customer","data":{"name":"Zoë"}}\n');
    expect(await exited).toBe(0);
    expect(output.stdout).toBe('{"job":"urn:test:customer","data":{"email":"a***"}}\n{"job":"urn:test:customer","data":{"name":"Z***"}}\n');
    expect(output.stderr).toBe('');
  });
});

describe('gdpr --mask: a reader that goes away', () => {
  it('`… | bqschema gdpr --mask - --ndjson | head -1`: stops quietly, exit 0, no stack trace', async () => {
    const { child, output, firstLine, exited } = maskStream();
    const line = '{"job":"urn:test:customer","data":{"email":"alice@example.com"}}\n';
    child.stdin.write(line);
    await firstLine;
    child.stdout.destroy(); // like `head -1` after its line
    for (let i = 0; i < 200; i++) child.stdin.write(line);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(output.stderr).toBe('');
  });
});

describe('schemaPointer (the gdpr path → schema pointer mapping behind --format github)', () => {
  /** Resolves a pointer the RFC 6901 way, own properties only. */
  function resolve(doc: unknown, pointer: string): unknown {
    let cur = doc;
    for (const t of parsePointer(pointer)) {
      if (typeof cur !== 'object' || cur === null || !Object.prototype.hasOwnProperty.call(cur, t)) return undefined;
      cur = (cur as Record<string, unknown>)[t];
    }
    return cur;
  }

  it('each inventoried path points at its marked node, whatever the property names hold', () => {
    const name = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('', '.', '*', '[]', '\\', 'a.b', '~/', '😀', '__proto__', ']'));
    const node: fc.Memo<Record<string, unknown>> = fc.memo((depth) =>
      fc.record(
        {
          'x-gdpr-sensitive': fc.constantFrom('cat', true),
          properties: depth > 1 ? fc.dictionary(name, node(depth - 1), { maxKeys: 3 }) : fc.constant({}),
          items: depth > 1 ? node(depth - 1) : fc.constant(true),
          additionalProperties: depth > 1 ? node(depth - 1) : fc.constant(false),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(node(4), (schema) => {
        for (const { path, category } of sensitivePaths(schema)) {
          const target = resolve(schema, schemaPointer(path)) as Record<string, unknown>;
          expect(target['x-gdpr-sensitive'] === true ? '' : target['x-gdpr-sensitive']).toBe(category);
        }
      }),
      { numRuns: 300, seed: FC_SEED },
    );
  });

  it('known paths', () => {
    expect(schemaPointer('')).toBe('');
    expect(schemaPointer('a.b[]')).toBe('/properties/a/properties/b/items');
    expect(schemaPointer('*')).toBe('/additionalProperties');
    expect(schemaPointer('[].*.x')).toBe('/items/additionalProperties/properties/x');
    expect(schemaPointer('.')).toBe('/properties/');
    expect(schemaPointer('..*')).toBe('/properties//additionalProperties');
    expect(schemaPointer('\\*')).toBe('/properties/*');
    expect(schemaPointer('a\\.b.c~/d')).toBe('/properties/a.b/properties/c~0~1d');
    for (const bad of ['a[', 'a]', 'a.*b', 'a\\', '[x]']) expect(() => schemaPointer(bad), bad).toThrow(/not a gdpr path/);
  });
});

describe.concurrent('gdpr --require: SARIF and JUnit', () => {
  it('sarif: valid SARIF 2.1.0, one error per unmarked field at its property in the schema file', async () => {
    const r = await required('sarif');
    expectExit(r, 1);
    const results = readSarif(r.stdout).runs[0]!.results;
    // The same positions as the github format (counted there by hand).
    expect(results.map((x) => `${sarifAt(x)} ${x.ruleId} ${x.level}`)).toEqual([
      `${AT}schemas/profile.yaml:24:11 gdpr-unmarked-pii error`,
      `${AT}schemas/profile.yaml:11:9 gdpr-unmarked-pii error`,
      `${AT}schemas/profile.yaml:17:7 gdpr-unmarked-pii error`,
    ]);
    expect(results[1]!.message.text).toBe('urn:test:profile: contact.email looks like personal data but is not marked x-gdpr-sensitive');
    // The URN, and the field's JSON Pointer in the schema file, in the result's property bag.
    expect((results[1] as { properties?: unknown }).properties).toEqual({
      urn: 'urn:test:profile',
      pointer: '/properties/contact/properties/email',
    });
  });

  it('junit: a failing testcase per unmarked field; the other schema files pass', async () => {
    const r = await required('junit');
    expectExit(r, 1);
    const doc = readJunit(r.stdout);
    // One test case per URN checked (the JSON summary's urns and failed); each unmarked field is a line of its URN's failure.
    const json = JSON.parse((await required('json')).stdout) as {
      summary: { urns: number; failed: number; errors: number };
    };
    expect(json.summary).toEqual({ urns: 3, failed: 1, errors: 3 });
    expect(junitCounts(doc)).toEqual({ tests: json.summary.urns, failures: json.summary.failed, errors: 0, skipped: 0 });
    const cases = junitCases(doc);
    const failing = cases.filter((c) => c.failure);
    expect(failing.map((c) => c.name)).toEqual(['urn:test:profile']);
    expect(failing[0]!.failure!['#text']!.split('\n').map((l) => l.split(':').slice(0, 2).join(':'))).toEqual([
      'schemas/profile.yaml:24',
      'schemas/profile.yaml:11',
      'schemas/profile.yaml:17',
    ]);
  });

  it('sarif and junit report the --require gate only', async () => {
    expectOneLineError(await gdpr(['--format', 'sarif']), /--format sarif reports the --require gate: add --require/);
  });
});
