// SARIF that GitHub code scanning takes whole, however large the run and wherever it ran: at most
// 25,000 results a run (the rest counted, errors kept first), a location on every result, regions
// that end where the value ends, an analysis category per command (--category to set it), and
// URIs from the repository's root whatever the working directory, standard input named as such.
// The limits are GitHub's documented ones ("SARIF support for code scanning": runs per file 20,
// results per run 25,000, rules per run 25,000, tags per rule 20, locations per result 1,000,
// thread flow locations per result 10,000, tool extensions 100; an upload at most 10 MB gzipped),
// checked on the log of an NDJSON run with more findings than the cap; the Multitool judges it too.
// The run lowers the cap to 250 with its test knob (BQSCHEMA_TEST_SARIF_CAP), so a 300-line stream
// crosses it as 30,000 lines cross GitHub's 25,000: the same code keeps and counts the results
// (test/report/bounds.test.ts holds the real cap, and the negative control below renders 30,000).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSarif } from '../../src/report/sarif.js';
import { readGithub, readJunit, junitCases, readSarif, sarifNotifications } from '../helpers/ci-formats.js';
import { bq, expectExit, expectOneLineError, inRepository, removeTempTrees, ROOT, tempTree, type CliResult } from '../helpers/cli.js';

afterAll(removeTempTrees);

interface Region {
  startLine: number;
  startColumn?: number;
  endLine?: number;
  endColumn?: number;
}
interface Result {
  ruleId: string;
  level: string;
  message: { text: string };
  locations?: Array<{
    physicalLocation?: { artifactLocation?: { uri?: string; uriBaseId?: string; description?: { text: string } }; region?: Region };
  }>;
  codeFlows?: Array<{ threadFlows: Array<{ locations: unknown[] }> }>;
}
interface Run {
  tool: { driver: { rules: Array<{ id: string; properties?: { tags?: string[] } }> }; extensions?: unknown[] };
  automationDetails?: { id: string };
  results: Result[];
  properties?: { summary?: Record<string, number>; omittedResults?: Record<string, number> };
}

/** The limits GitHub documents for an upload; each broken one is named. */
function codeScanningLimits(text: string): string[] {
  const log = JSON.parse(text) as { runs: Run[] };
  const broken: string[] = [];
  if (log.runs.length > 20) broken.push(`runs per file: ${log.runs.length} > 20`);
  const gz = gzipSync(text).length;
  if (gz > 10 * 1024 * 1024) broken.push(`gzipped size: ${gz} > 10 MB`);
  for (const run of log.runs) {
    if (run.results.length > 25_000) broken.push(`results per run: ${run.results.length} > 25000`);
    if (run.tool.driver.rules.length > 25_000) broken.push(`rules per run: ${run.tool.driver.rules.length}`);
    if ((run.tool.extensions ?? []).length > 100) broken.push('tool extensions per run > 100');
    for (const rule of run.tool.driver.rules) if ((rule.properties?.tags ?? []).length > 20) broken.push(`tags of ${rule.id} > 20`);
    run.results.forEach((r, i) => {
      // Code scanning rejects the whole file for one result without a location ("locationFromSarifResult: expected at least one location").
      if ((r.locations ?? []).length === 0) broken.push(`result ${i}: no location`);
      else if (r.locations!.some((l) => l.physicalLocation?.artifactLocation?.uri === undefined))
        broken.push(`result ${i}: a location without an artifact URI`);
      if (r.locations!.length > 1000) broken.push(`result ${i}: more than 1,000 locations`);
      for (const f of r.codeFlows ?? [])
        for (const t of f.threadFlows) if (t.locations.length > 10_000) broken.push(`result ${i}: thread flow locations > 10,000`);
      if (r.message.text === '') broken.push(`result ${i}: no message`);
    });
  }
  return broken;
}

const require = createRequire(import.meta.url);
/**
 * The Multitool's error- and warning-level findings (rule kinds Sarif and Ghas) on SARIF files, each
 * naming its file: one run judges them all (it takes seconds to start).
 */
function multitool(dir: string, files: string[]): string[] {
  const bin = require('@microsoft/sarif-multitool') as string;
  if (!existsSync(bin)) throw new Error(`the SARIF Multitool binary is missing (${bin}): npm ci installs @microsoft/sarif-multitool`);
  const out = join(dir, 'multitool.sarif');
  rmSync(out, { force: true });
  const r = spawnSync(bin, ['validate', '--rule-kind', 'Sarif;Ghas', '--output', out, ...files], { encoding: 'utf8', cwd: dir });
  if (r.error) throw r.error;
  expect(existsSync(out), `the Multitool wrote no log:\n${r.stdout}\n${r.stderr}`).toBe(true);
  const log = JSON.parse(readFileSync(out, 'utf8')) as {
    runs: Array<{
      results?: Array<{
        ruleId: string;
        level?: string;
        message: { text?: string };
        locations?: Array<{ physicalLocation?: { artifactLocation?: { uri?: string } } }>;
      }>;
    }>;
  };
  return (log.runs[0]!.results ?? [])
    .filter((x) => x.level !== 'note' && x.level !== 'none')
    .map((x) => `${x.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? ''}: ${x.ruleId}: ${x.message.text ?? ''}`);
}

/** validate's SARIF of NDJSON on standard input (run once, for the two tests that read it). */
let stdinRun: Promise<CliResult> | undefined;
const stdinSarif = (): Promise<CliResult> =>
  (stdinRun ??= bq(['validate', '-r', 'registry.example.json', '--format', 'sarif', '--ndjson', '-'], {
    input: '{"job":"urn:babel:orders:cancelled","data":{"order_id":"x"}}\n',
  }));

const REGISTRY = JSON.stringify({ schemas: [{ urn: 'urn:t:order', schema: 'order.json', owner: 'o' }] });
const SCHEMA = JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } });

describe('more findings than the cap: a log code scanning accepts', () => {
  let dir = '';
  let sarif = '';
  let json = { summary: {} as Record<string, number> };
  const NOTES = 100;
  const ERRORS = 200;
  const CAP = 250;
  beforeAll(async () => {
    // 100 messages of an unregistered URN (a note each) and then 200 invalid ones (an error each):
    // 300 results. Every error is kept, then the first 50 notes.
    const lines: string[] = [];
    for (let i = 0; i < NOTES; i++) lines.push(`{"job":"urn:t:unknown","data":{"id":${i + 1}}}`);
    for (let i = 0; i < ERRORS; i++) lines.push(`{"job":"urn:t:order","data":{"id":0}}`);
    dir = tempTree({ 'registry.json': REGISTRY, 'order.json': SCHEMA, 'm.ndjson': lines.join('\n') + '\n' });
    // One run writes both: the SARIF log on stdout, its JSON report beside it.
    const s = await bq(['validate', '--format', 'sarif', '--report', 'json=report.json', 'm.ndjson'], {
      cwd: dir,
      env: { BQSCHEMA_TEST_SARIF_CAP: String(CAP) },
    });
    expectExit(s, 1);
    sarif = s.stdout;
    json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    writeFileSync(join(dir, 'big.sarif'), sarif);
    writeFileSync(join(dir, 'stdin.sarif'), (await stdinSarif()).stdout);
    // The run says on stderr that results were left out.
    expect(s.stderr).toMatch(
      /^bqschema: warning: SARIF: 50 of 300 results left out \(50 notes\): GitHub code scanning accepts at most 250 per run/m,
    );
    expect(s.stderr.match(/left out/g)).toHaveLength(1);
  }, 120_000);

  it('keeps within every limit GitHub documents, and is valid SARIF 2.1.0', () => {
    expect(codeScanningLimits(sarif)).toEqual([]);
    expect(readSarif(sarif).runs).toHaveLength(1);
  });

  it("keeps every error before any note, each in input order, and counts the rest in a notification and in the run's properties", () => {
    const run = JSON.parse(sarif).runs[0] as Run;
    expect(run.results).toHaveLength(CAP);
    const lineOf = (r: Result): number => r.locations![0]!.physicalLocation!.region!.startLine;
    const errors = run.results.filter((r) => r.level === 'error');
    const notes = run.results.filter((r) => r.level === 'note');
    expect(errors).toHaveLength(ERRORS);
    expect(notes.map(lineOf)).toEqual(Array.from({ length: CAP - ERRORS }, (_, i) => i + 1));
    // The results stay in the order found.
    const lines = run.results.map(lineOf);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(run.properties!.omittedResults).toEqual({ total: 50, error: 0, warning: 0, note: 50 });
    // The verdict and counts are the whole run's, as --format json has them.
    expect(run.properties!.summary).toEqual(json.summary);
    const notes_ = sarifNotifications(run);
    expect(notes_).toHaveLength(1);
    expect(notes_[0]!.message.text).toMatch(/^50 of 300 results left out \(50 notes\)/);
  });

  it('the SARIF Multitool (Sarif and Ghas rules) finds no error and no warning in it, nor in a log of standard input', () => {
    expect(multitool(dir, [join(dir, 'big.sarif'), join(dir, 'stdin.sarif')])).toEqual([]);
  }, 120_000);

  it("negative control: one finding more than GitHub's 25,000 breaks the results-per-run limit without the cap, and is within it with the real cap", () => {
    const findings = Array.from({ length: 25_001 }, (_, i) => ({
      rule: 'r',
      level: 'error' as const,
      message: 'm',
      location: { file: 'a.json', line: i + 1 },
    }));
    expect(codeScanningLimits(renderSarif({ tool: { name: 't', version: '1' }, findings }, 25_001))).toEqual([
      'results per run: 25001 > 25000',
    ]);
    expect(codeScanningLimits(renderSarif({ tool: { name: 't', version: '1' }, findings }))).toEqual([]);
  });

  it('the whole-document renderer keeps the same ones: errors first, then warnings, then notes, each in order', () => {
    const f = (level: 'error' | 'warning' | 'note', line: number) => ({
      rule: 'r',
      level,
      message: `${level} ${line}`,
      location: { file: 'a.json', line },
    });
    const findings = [f('note', 1), f('warning', 2), f('error', 3), f('note', 4), f('error', 5), f('warning', 6)];
    const log = JSON.parse(renderSarif({ tool: { name: 't', version: '1' }, findings }, 3)) as { runs: Run[] };
    expect(log.runs[0]!.results.map((r) => r.message.text)).toEqual(['warning 2', 'error 3', 'error 5']);
    expect(log.runs[0]!.properties!.omittedResults).toEqual({ total: 3, error: 0, warning: 1, note: 2 });
  });
});

describe('regions end where the value ends', () => {
  it('a violation spans its value: a number, a string, an object, in JSON and YAML', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:o', schema: 'o.json', owner: 'x' }] }),
      'o.json': JSON.stringify({
        type: 'object',
        properties: { n: { minimum: 1 }, s: { minLength: 3 }, o: { type: 'object', required: ['k'] } },
      }),
      'm.json': '{"job": "urn:t:o", "data": {"n": 0, "s": "ab",\n  "o": {\n    "x": 1\n  }}}\n',
      'y.yaml': 'job: urn:t:o\ndata:\n  n: -25\n  s: "é"\n',
    });
    const r = await bq(['validate', '--format', 'sarif', 'm.json', 'y.yaml'], { cwd: dir });
    expectExit(r, 1);
    const regions = (JSON.parse(r.stdout).runs[0] as Run).results.map((x) => [
      x.locations![0]!.physicalLocation!.artifactLocation!.uri,
      x.locations![0]!.physicalLocation!.region,
    ]);
    expect(regions).toEqual([
      ['m.json', { startLine: 1, startColumn: 34, endLine: 1, endColumn: 35 }], // 0
      ['m.json', { startLine: 1, startColumn: 42, endLine: 1, endColumn: 46 }], // "ab"
      ['m.json', { startLine: 2, startColumn: 8, endLine: 4, endColumn: 4 }], // { … } across lines
      ['y.yaml', { startLine: 3, startColumn: 6, endLine: 3, endColumn: 9 }], // -25
      ['y.yaml', { startLine: 4, startColumn: 6, endLine: 4, endColumn: 9 }], // "é": a code point is a column
    ]);
    expect(codeScanningLimits(r.stdout)).toEqual([]);
  });

  it("check's findings in a schema span the keyword's value; its JSON still places them at their start", async () => {
    const [sarif, json] = await Promise.all([
      bq(['check', '-r', 'examples/broken/registry.json', '--format', 'sarif']),
      bq(['check', '-r', 'examples/broken/registry.json', '--format', 'json']),
    ]);
    const regions = (JSON.parse(sarif.stdout).runs[0] as Run).results
      .filter((x) => x.locations![0]!.physicalLocation!.artifactLocation!.uri!.endsWith('orders-refunded.json'))
      .map((x) => [x.ruleId, x.locations![0]!.physicalLocation!.region]);
    // examples/broken/schemas/orders-refunded.json: line 3 `  "required": "order_id",`, line 5
    // `    "order_id": { "type": "integr" },`, line 6 `… "maximum": 10000 }`, line 8 `  "examples": [{ … }]`.
    expect(regions).toEqual([
      ['malformed-keyword', { startLine: 3, startColumn: 15, endLine: 3, endColumn: 25 }],
      ['malformed-keyword', { startLine: 5, startColumn: 27, endLine: 5, endColumn: 35 }],
      ['example-fails-schema', { startLine: 8, startColumn: 16, endLine: 8, endColumn: 47 }],
      ['unsupported-keyword', { startLine: 6, startColumn: 60, endLine: 6, endColumn: 65 }],
    ]);
    const doc = JSON.parse(json.stdout) as { errors: object[]; warnings: object[] };
    for (const i of [...doc.errors, ...doc.warnings]) expect(Object.keys(i)).not.toContain('endLine');
  });
});

describe('an analysis category per command', () => {
  it('each command names its own run, so validate and compat uploads do not replace each other; --category sets it', async () => {
    const [validate, check, compat, named, gdpr] = await Promise.all([
      bq(['validate', '-r', 'registry.example.json', '--format', 'sarif', 'examples/messages/valid']),
      bq(['check', '-r', 'registry.example.json', '--format', 'sarif']),
      bq(['compat', 'examples/compat/orders-created.v1.json', 'examples/compat/orders-created.next.json', '--format', 'sarif']),
      bq(['check', '-r', 'registry.example.json', '--format', 'sarif', '--category', 'registries/orders']),
      bq(['gdpr', '-r', 'registry.example.json', '--require', '--format', 'sarif', '--category', 'pii/']),
    ]);
    const id = (text: string): string | undefined => (JSON.parse(text).runs[0] as Run).automationDetails?.id;
    expect([validate, check, compat, named, gdpr].map((x) => id(x.stdout))).toEqual([
      'bqschema/validate/',
      'bqschema/check/',
      'bqschema/compat/',
      'registries/orders/',
      'pii/',
    ]);
  });

  it("a registry below the repository's root names its directory under the command's category: two registries, two categories", async () => {
    const [broken, example] = await Promise.all([
      bq(['check', '-r', 'examples/broken/registry.json', '--format', 'sarif']),
      bq(['check', '-r', 'registry.example.json', '--format', 'sarif']),
    ]);
    const id = (text: string): string | undefined => (JSON.parse(text).runs[0] as Run).automationDetails?.id;
    expect([id(broken.stdout), id(example.stdout)]).toEqual([
      `bqschema/check/${inRepository(ROOT)}examples/broken/`,
      inRepository(ROOT) === '' ? 'bqschema/check/' : `bqschema/check/${inRepository(ROOT)}`,
    ]);
  });

  it('a --report file carries it too, and a category that is empty or holds a control character is a usage error', async () => {
    const dir = tempTree({});
    const r = await bq(['check', '-r', 'registry.example.json', '--report', `sarif=${join(dir, 'c.sarif')}`, '--category', 'ci/check']);
    expectExit(r, 0);
    expect((JSON.parse(readFileSync(join(dir, 'c.sarif'), 'utf8')).runs[0] as Run).automationDetails).toEqual({ id: 'ci/check/' });
    for (const bad of ['', ' x', 'a\u0007b']) {
      const e = await bq(['validate', '-r', 'registry.example.json', '--format', 'sarif', '--category', bad, 'examples/messages/valid']);
      expectOneLineError(
        e,
        /^bqschema: --category must be a name without surrounding whitespace or control characters, got ".*"; e\.g\. --category /,
      );
      expect(e.stdout).toBe('');
    }
  });
});

describe('paths from the repository root, whatever the working directory; stdin named as such', () => {
  it("run in a subdirectory of a git repository (the Action's dir), SARIF, annotations and JUnit name files from the root", async () => {
    const repo = tempTree({
      'svc/orders/registry.json': REGISTRY,
      'svc/orders/order.json': SCHEMA,
      'svc/orders/msgs/a.json': '{"job":"urn:t:order","data":{"id":0}}',
    });
    spawnSync('git', ['init', '-q'], { cwd: repo });
    const cwd = join(repo, 'svc', 'orders');
    const [sarif, gh, junit, json] = await Promise.all(
      ['sarif', 'github', 'junit', 'json'].map((f) => bq(['validate', '--format', f, 'msgs', '../orders/msgs/a.json'], { cwd })),
    );
    const run = JSON.parse(sarif!.stdout).runs[0] as Run;
    // The category names the registry's directory: a job per registry keeps its own alerts.
    expect(run.automationDetails).toEqual({ id: 'bqschema/validate/svc/orders/' });
    const uris = run.results.map((x) => x.locations![0]!.physicalLocation!.artifactLocation);
    expect(uris).toEqual([
      { uri: 'svc/orders/msgs/a.json', uriBaseId: 'SRCROOT' },
      { uri: 'svc/orders/msgs/a.json', uriBaseId: 'SRCROOT' },
    ]);
    expect(readGithub(gh!.stdout).annotations.map((a) => a.file)).toEqual(['svc/orders/msgs/a.json', 'svc/orders/msgs/a.json']);
    expect(junitCases(readJunit(junit!.stdout)).map((c) => [c.name, c.file, c.line])).toEqual([
      ['msgs/a.json', 'svc/orders/msgs/a.json', '1'],
      ['../orders/msgs/a.json', 'svc/orders/msgs/a.json', '1'],
    ]);
    // The text and JSON outputs keep the paths as given: they are read where the command ran.
    expect((JSON.parse(json!.stdout) as { results: Array<{ file: string }> }).results.map((x) => x.file)).toEqual([
      'msgs/a.json',
      '../orders/msgs/a.json',
    ]);
    // The same run at the root of the repository, or outside one, names them as given.
    const outside = tempTree({ 'registry.json': REGISTRY, 'order.json': SCHEMA, 'msgs/a.json': '{"job":"urn:t:order","data":{"id":0}}' });
    const plain = await bq(['validate', '--format', 'sarif', 'msgs'], { cwd: outside });
    expect((JSON.parse(plain.stdout).runs[0] as Run).results[0]!.locations![0]!.physicalLocation!.artifactLocation).toEqual({
      uri: 'msgs/a.json',
      uriBaseId: 'SRCROOT',
    });
    expect((JSON.parse(plain.stdout).runs[0] as Run).automationDetails).toEqual({ id: 'bqschema/validate/' });
  });

  it('standard input is named as standard input, under no base: it is no file of the repository', async () => {
    // The Multitool judges this log with the capped one above (one run of it).
    const r = await stdinSarif();
    expectExit(r, 1);
    const run = JSON.parse(r.stdout).runs[0] as Run;
    for (const x of run.results) {
      expect(x.locations![0]!.physicalLocation!.artifactLocation).toEqual({
        uri: '%3Cstdin%3E',
        description: { text: 'standard input: the data was piped to bqschema, not read from a file' },
      });
    }
    expect(codeScanningLimits(r.stdout)).toEqual([]);
  });
});
