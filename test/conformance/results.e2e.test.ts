import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const script = path.join(repoRoot, 'scripts', 'conformance.js');
const vendor = path.join(repoRoot, 'test', 'vendor', 'conformance');
const readJson = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));

// RFC 3339 date-time in UTC; ajv-formats is not installed, so the format is checked here.
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const runScript = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: repoRoot, encoding: 'utf8' });

describe('scripts/conformance.js', () => {
  let dir: string;
  let out: string;
  let run: ReturnType<typeof runScript>;
  let before: number;
  let after: number;

  beforeAll(() => {
    // `npm test` builds first; the script runs the built library, as `npm run conformance` does.
    if (!existsSync(path.join(repoRoot, 'dist', 'index.js'))) {
      throw new Error('dist/index.js is missing: run `npm run build` (npm test does) before this test');
    }
    dir = mkdtempSync(path.join(tmpdir(), 'bqschema-conformance-'));
    out = path.join(dir, 'results.json');
    before = Date.now();
    run = runScript('--out', out);
    after = Date.now();
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0 and writes only the results file (the temp file was renamed away)', () => {
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readdirSync(dir)).toEqual(['results.json']);
  });

  it('writes a file that results.schema.json accepts', () => {
    // Not strict: ajv's strict mode objects to the vendored schema's untyped `then` pattern, which is not ours to edit.
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const validate = ajv.compile(readJson(path.join(vendor, 'results.schema.json')));
    const results = readJson(out);
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    // The schema has teeth: a skip without an ADR reason is refused.
    const skipped = structuredClone(results);
    skipped.sections.payload_schema['valid-minimal'] = { status: 'skip' };
    expect(validate(skipped)).toBe(false);
    expect(results.generated_at).toMatch(RFC3339_UTC);
    const at = Date.parse(results.generated_at);
    // Millisecond precision: the stamp falls within the run (floored to the millisecond on both sides).
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(after + 1);
  });

  it('names the SDK, its version and the vendored suite version', () => {
    const results = readJson(out);
    expect(results.sdk).toBe('bqschema');
    expect(results.version).toBe(readJson(path.join(repoRoot, 'package.json')).version);
    expect(results.conformance_version).toBe(readFileSync(path.join(vendor, 'CONFORMANCE_VERSION'), 'utf8').trim());
    expect(results.bindings).toEqual([]);
  });

  it('reports every manifest case, and nothing else, as pass', () => {
    const manifest = readJson(path.join(vendor, 'manifest.json'));
    const expected: Record<string, Record<string, { status: string }>> = {};
    for (const section of Object.keys(manifest.sections)) {
      expected[section] = {};
      manifest[section].cases.forEach((c: { name?: string }, i: number) => {
        expected[section]![c.name ?? `${section}#${i}`] = { status: 'pass' };
      });
    }
    expect(Object.keys(expected).sort()).toEqual(['payload_schema', 'payload_schema_unicode']);
    expect(Object.keys(expected.payload_schema!)).toHaveLength(7);
    expect(Object.keys(expected.payload_schema_unicode!)).toHaveLength(6);
    expect(readJson(out).sections).toEqual(expected);
  });

  it('exits 1 and records each failing case with a reason when the validator is wrong', () => {
    // A copy of the script beside a stand-in dist/ whose validator accepts everything.
    const fake = path.join(dir, 'fake-repo');
    mkdirSync(path.join(fake, 'scripts'), { recursive: true });
    mkdirSync(path.join(fake, 'dist'));
    cpSync(script, path.join(fake, 'scripts', 'conformance.js'));
    cpSync(vendor, path.join(fake, 'test', 'vendor', 'conformance'), { recursive: true });
    writeFileSync(path.join(fake, 'package.json'), JSON.stringify({ version: '9.9.9', type: 'module' }));
    writeFileSync(path.join(fake, 'dist', 'index.js'), 'export const compile = () => ({ isValid: () => true, validate: () => [] });\n');
    const file = path.join(fake, 'out.json');
    const bad = spawnSync(process.execPath, [path.join(fake, 'scripts', 'conformance.js'), '--out', file], { encoding: 'utf8' });
    expect(bad.status).toBe(1);
    const results = readJson(file);
    expect(results.version).toBe('9.9.9');
    const manifest = readJson(path.join(vendor, 'manifest.json'));
    for (const section of Object.keys(manifest.sections)) {
      for (const c of manifest[section].cases as Array<{ name: string; valid: boolean }>) {
        const r = results.sections[section][c.name];
        expect(r.status, `${section} ${c.name}`).toBe(c.valid ? 'pass' : 'fail');
        if (!c.valid) {
          expect(r.reason).toMatch(/expected invalid/);
          expect(bad.stderr).toContain(`FAIL ${section} ${c.name}`);
        }
      }
    }
  });

  it('rejects an unknown argument with exit code 2 and writes nothing', () => {
    const bad = runScript('--output', path.join(dir, 'other.json'));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown or incomplete argument "--output"/);
    expect(existsSync(path.join(dir, 'other.json'))).toBe(false);
  });
});
