// `bqschema conformance --impl` through its command module (run(options)), as main would call it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const vendor = path.join(root, 'test', 'vendor', 'conformance');
const readJson = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));
const command = pathToFileURL(path.join(root, 'dist', 'cli', 'commands', 'conformance.js')).href;
const errors = pathToFileURL(path.join(root, 'dist', 'cli', 'errors.js')).href;
const REFERENCE = `node ${JSON.stringify(path.join(root, 'examples', 'conformance-adapter.mjs'))}`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bq-conf-run-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the command module in a fresh process: a CliError becomes one stderr line and its exit code, as in main. */
function conformance(options: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const code = `
    const { run } = await import(${JSON.stringify(command)});
    const { exitCodeFor, EXIT_INTERNAL } = await import(${JSON.stringify(errors)});
    try { process.exitCode = await run(${JSON.stringify(options)}); }
    catch (err) { if (exitCodeFor(err) === EXIT_INTERNAL) throw err; process.stderr.write('bqschema: ' + err.message + '\\n'); process.exitCode = exitCodeFor(err); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** An adapter script in the temp directory. */
function adapter(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `import { createInterface } from 'node:readline';\nconst reply = (r, o) => process.stdout.write(JSON.stringify({ id: r.id, ...o }) + '\\n');\nfor await (const line of createInterface({ input: process.stdin })) {\n  const r = JSON.parse(line);\n  if (r.op === 'hello') { reply(r, { sdk: 'wrong-sdk', version: '0.0.1' }); continue; }\n${body}\n}\n`,
  );
  return `node ${JSON.stringify(file)}`;
}

/** schemas/output/conformance.json, the shape of --format json (draft-07, strict). */
function outputSchema(): ((value: unknown) => boolean) & { errors?: unknown } {
  const ajv = new Ajv({ allErrors: true, strict: true });
  return ajv.compile(readJson(path.join(root, 'schemas', 'output', 'conformance.json')));
}

function validator(): (value: unknown) => boolean {
  // Not strict: ajv's strict mode objects to the vendored schema's untyped `then` pattern, which is not ours to edit.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  return ajv.compile(readJson(path.join(vendor, 'results.schema.json')));
}

/** Every case id the run must report: the manifest's sections, then the contract's. */
function expectedIds(): Record<string, string[]> {
  const manifest = readJson(path.join(vendor, 'manifest.json'));
  const contract = readJson(path.join(vendor, 'contract-cases.json'));
  const ids: Record<string, string[]> = {};
  for (const s of Object.keys(manifest.sections))
    ids[s] = manifest[s].cases.map((c: { name?: string }, i: number) => c.name ?? `${s}#${i}`);
  ids.contract_validation = contract.validation.flatMap((g: any) => g.tests.map((t: any) => `${g.name}/${t.description}`));
  ids.contract_warnings = contract.warnings.map((c: any) => c.name);
  ids.contract_envelopes = contract.envelopes.map((c: any) => c.name);
  return ids;
}

describe('the reference adapter', () => {
  it('passes every case; results.json validates against results.schema.json and lists every case', () => {
    const out = path.join(dir, 'reference.json');
    const r = conformance({ impl: REFERENCE, out });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^conformance 1\.6\.0: bqschema \d+\.\d+\.\d+: 145\/145 cases pass$/m);
    expect(r.stdout).toContain(
      'sections run: payload_schema, payload_schema_unicode, contract_validation, contract_warnings, contract_envelopes',
    );
    const results = readJson(out);
    const validate = validator();
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    expect(results).toMatchObject({
      sdk: 'bqschema',
      version: readJson(path.join(root, 'package.json')).version,
      conformance_version: '1.6.0',
      bindings: [],
    });
    const ids = expectedIds();
    expect(Object.keys(results.sections)).toEqual(Object.keys(ids));
    for (const [s, list] of Object.entries(ids)) {
      expect(Object.keys(results.sections[s]), s).toEqual(list);
      for (const id of list) expect(results.sections[s][id], `${s} ${id}`).toEqual({ status: 'pass' });
    }
  });
});

describe('a deliberately wrong adapter', () => {
  it('fails exactly the cases it gets wrong, each named with a reason; exit 1', () => {
    const impl = adapter(
      'wrong.mjs',
      `
  if (r.op === 'validate') reply(r, { valid: true });
  else if (r.op === 'warnings') reply(r, { warnings: [] });
  else reply(r, { urn: 'urn:babel:orders:created', warnings: 0 });`,
    );
    const out = path.join(dir, 'wrong.json');
    const r = conformance({ impl, out });
    expect(r.status).toBe(1);
    const results = readJson(out);
    expect(validator()(results)).toBe(true);
    expect(results.sdk).toBe('wrong-sdk');
    const manifest = readJson(path.join(vendor, 'manifest.json'));
    for (const s of ['payload_schema', 'payload_schema_unicode']) {
      for (const c of manifest[s].cases) {
        const got = results.sections[s][c.name];
        if (c.valid) expect(got).toEqual({ status: 'pass' });
        else {
          expect(got).toEqual({ status: 'fail', reason: 'expected invalid, the implementation said valid' });
          expect(r.stdout).toContain(`FAIL ${s} ${c.name}: expected invalid`);
        }
      }
    }
    expect(results.sections.contract_warnings['pattern at the root'].status).toBe('fail');
    expect(results.sections.contract_warnings['annotations and x- keywords are silent'].status).toBe('pass');
    expect(results.sections.contract_envelopes['urn alias only']).toEqual({ status: 'pass' });
    expect(results.sections.contract_envelopes['unknown meta.schema_version is rejected'].reason).toMatch(
      /expected the envelope rejected as "unknown schema_version", got urn/,
    );
    expect(r.stdout).toMatch(/: wrong-sdk 0\.0\.1: \d+\/145 cases pass/);
  });
});

describe('honest results', () => {
  it('a newer or out-of-scope section is reported as not run, with the reason, and does not fail the run', () => {
    const suite = path.join(dir, 'newer-suite');
    mkdirSync(suite);
    cpSync(path.join(vendor, 'CONFORMANCE_VERSION'), path.join(suite, 'CONFORMANCE_VERSION'));
    const manifest = readJson(path.join(vendor, 'manifest.json'));
    manifest.sections.retry_backoff = 'core';
    manifest.retry_backoff = { cases: [{ name: 'd1', n: 1, expect_ms: 100 }] };
    manifest.sections.kafka_poison = 'kafka';
    manifest.kafka_poison = { cases: [{ name: 'k', body: '{}', expect: 'ok' }] };
    writeFileSync(path.join(suite, 'manifest.json'), JSON.stringify(manifest));
    const out = path.join(dir, 'newer.json');
    const r = conformance({ impl: REFERENCE, out, suite, format: 'json' });
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(outputSchema()(summary), JSON.stringify(outputSchema().errors)).toBe(true);
    expect(summary.ok).toBe(true);
    expect(summary.summary).toEqual({ cases: expect.any(Number), passed: summary.summary.cases, failed: 0 });
    expect(summary.sectionsRun).toEqual([
      'payload_schema',
      'payload_schema_unicode',
      'contract_validation',
      'contract_warnings',
      'contract_envelopes',
    ]);
    expect(summary.notRun).toEqual([
      { section: 'retry_backoff', scope: 'core', reason: expect.stringMatching(/^in scope but not run: this runner does not know it/) },
      { section: 'kafka_poison', scope: 'kafka', reason: 'scope kafka is not carried (bindings: none)' },
    ]);
    const results = readJson(out);
    expect(Object.keys(results.sections)).toEqual(summary.sectionsRun);
    expect(validator()(results)).toBe(true);
  });

  it('--format json of a failing run: ok false, a failure per failing case, the counts of the results file, valid against schemas/output/conformance.json', () => {
    // Answers every validation with the opposite verdict of a fixed guess: some cases fail, some pass.
    const impl = adapter('contrary.mjs', `  reply(r, { valid: false, violations: [], warnings: [] });`);
    const out = path.join(dir, 'contrary.json');
    const r = conformance({ impl, out, format: 'json' });
    expect(r.status).toBe(1);
    const summary = JSON.parse(r.stdout);
    const check = outputSchema();
    expect(check(summary), JSON.stringify(check.errors)).toBe(true);
    expect(summary.ok).toBe(false);
    expect(summary.resultsFile).toBe(out);
    const results = readJson(out);
    const cases = Object.values(results.sections as Record<string, Record<string, { status: string }>>).flatMap((section) =>
      Object.values(section),
    );
    expect(summary.summary).toEqual({
      cases: cases.length,
      passed: cases.filter((c) => c.status === 'pass').length,
      failed: cases.filter((c) => c.status === 'fail').length,
    });
    expect(summary.failures).toHaveLength(summary.summary.failed);
    expect(summary.summary.failed).toBeGreaterThan(0);
    // Not vacuous: the old snake_case names, or a count missing, fail the schema.
    expect(check({ ...summary, sections_run: summary.sectionsRun })).toBe(false);
    expect(check({ ...summary, summary: { pass: 1, fail: 0, total: 1 } })).toBe(false);
  });

  it('an implementation that exits mid-run fails the remaining cases with why; exit 1', () => {
    const impl = adapter('crash.mjs', `  process.exit(3);`);
    const r = conformance({ impl, out: path.join(dir, 'crash.json') });
    expect(r.status).toBe(1);
    const results = readJson(path.join(dir, 'crash.json'));
    expect(results.sections.payload_schema['valid-minimal'].reason).toMatch(/the implementation exited \(code 3\)/);
    expect(results.sections.contract_envelopes['urn alias only'].reason).toMatch(/^not answered: the implementation exited \(code 3\)/);
  });

  it('an implementation that hangs is stopped after --timeout and the rest are not answered', () => {
    const impl = adapter('hang.mjs', `  await new Promise(() => {});`);
    const started = Date.now();
    const r = conformance({ impl, out: path.join(dir, 'hang.json'), timeout: '300' });
    expect(r.status).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    const results = readJson(path.join(dir, 'hang.json'));
    expect(results.sections.payload_schema['valid-minimal'].reason).toMatch(/no answer to request 2 \(validate\) within 300 ms/);
  });

  it('an answer with the wrong id breaks the protocol, named as such', () => {
    const impl = adapter('badid.mjs', `  process.stdout.write(JSON.stringify({ id: 999, valid: true }) + '\\n');`);
    const r = conformance({ impl, out: path.join(dir, 'badid.json') });
    expect(r.status).toBe(1);
    expect(readJson(path.join(dir, 'badid.json')).sections.payload_schema['valid-minimal'].reason).toMatch(
      /broke the protocol: answer to request 2 is not a JSON object with "id": 2/,
    );
  });

  it('escapes control characters an implementation writes before they reach the terminal', () => {
    const impl = adapter('esc.mjs', `  reply(r, { failure: 'boom \\u001b[2J\\nOK: forged' });`);
    const r = conformance({ impl, out: path.join(dir, 'esc.json') });
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('boom \\u001b[2J\\u000aOK: forged');
  });

  it('an implementation that cannot start, or answers hello wrongly, is a one-line usage error (exit 2)', () => {
    const missing = conformance({ impl: path.join(dir, 'no-such-adapter'), out: path.join(dir, 'none.json') });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^bqschema: the implementation exited \(code 127\).*\(before answering hello\)\n$/);
    const badHello = path.join(dir, 'badhello.mjs');
    writeFileSync(badHello, `process.stdin.once('data', () => process.stdout.write('{"id":1}\\n'));`);
    const r = conformance({ impl: `node ${JSON.stringify(badHello)}`, out: path.join(dir, 'none.json') });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^bqschema: the answer to hello must be \{"id", "sdk"/);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  it('refuses bad options and an --out that is not a regular file', () => {
    expect(conformance({ impl: '' }).status).toBe(2);
    expect(conformance({ impl: REFERENCE, timeout: '0' }).stderr).toMatch(/--timeout must be/);
    const r = conformance({ impl: REFERENCE, out: dir });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not a regular file: refusing to replace it/);
  });
});

describe("scripts/conformance.js (this package's own run)", () => {
  it('tolerates a newer and an out-of-scope section: lists the sections run and why the others were not; exit 0', () => {
    const fake = path.join(dir, 'fake-repo');
    mkdirSync(path.join(fake, 'scripts'), { recursive: true });
    cpSync(path.join(root, 'scripts', 'conformance.js'), path.join(fake, 'scripts', 'conformance.js'));
    cpSync(vendor, path.join(fake, 'test', 'vendor', 'conformance'), { recursive: true });
    cpSync(path.join(root, 'dist'), path.join(fake, 'dist'), { recursive: true });
    writeFileSync(path.join(fake, 'package.json'), JSON.stringify({ version: '9.9.9', type: 'module' }));
    const file = path.join(fake, 'test', 'vendor', 'conformance', 'manifest.json');
    const manifest = readJson(file);
    manifest.sections.poison_dlq = 'core';
    manifest.poison_dlq = { cases: [{ name: 'p', body: '{}', expect: { shape: 'splice' } }] };
    manifest.sections.kafka_poison = 'kafka';
    manifest.kafka_poison = { cases: [] };
    writeFileSync(file, JSON.stringify(manifest));
    const out = path.join(fake, 'results.json');
    const r = spawnSync(process.execPath, [path.join(fake, 'scripts', 'conformance.js'), '--out', out], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('sections run: payload_schema, payload_schema_unicode\n');
    expect(r.stdout).toContain('not run: poison_dlq (in scope but not run: this runner does not know it; a newer suite section?)\n');
    expect(r.stdout).toContain('not run: kafka_poison (scope kafka is not carried: bqschema has no bindings)\n');
    expect(Object.keys(readJson(out).sections)).toEqual(['payload_schema', 'payload_schema_unicode']);
  });
});
