// JUnit as the reporters CI runs read it: each command's document is parsed by
// two reporters' own parsers, `test-results-parser` (behind testbeats) and `junit-to-ctrf` (behind
// ctrf-io's GitHub Test Reporter), and their counts are the JSON summary's under every flag
// (`validate --strict` included); each test case carries `file` and `line`, where annotating
// reporters (mikepenz/action-junit-report, dorny/test-reporter) place it; the root carries
// `skipped`, without which a reporter counting from it counts a skipped test as passed. xmllint
// checks each document against junit-10.xsd (the Jenkins xUnit plugin's) with exactly those three
// attributes added, and junit-10.xsd as it is rejects nothing else.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { convertJUnitToCTRFReport } from 'junit-to-ctrf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { junitCases, junitCounts, junitSchemaErrors, readJunit } from '../helpers/ci-formats.js';
import { bq, expectExit, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

const require = createRequire(import.meta.url);
const trp = require('test-results-parser') as {
  parse(o: { type: 'junit'; files: string[] }): {
    total: number;
    passed: number;
    failed: number;
    errors: number;
    skipped: number;
    status: string;
    suites: Array<{ cases: Array<{ name: string; status: string }> }>;
  };
};

interface Summary {
  [k: string]: number;
}
/** The JUnit counts a command's JSON summary gives: tests, failures, errors, skipped. */
type Counts = { tests: number; failures: number; errors: number; skipped: number };

// Each run: its JUnit and JSON, and how the summary maps to the JUnit counts (docs/ci-reports.md).
const RUNS: Array<{ name: string; args: string[]; cwd?: string; counts: (s: Summary) => Counts }> = [
  {
    name: 'validate examples',
    args: ['validate', '-r', 'registry.example.json', 'examples/messages'],
    counts: (s) => ({ tests: s.messages!, failures: s.invalid!, errors: s.errors!, skipped: s.skipped! }),
  },
  {
    name: 'validate --strict',
    args: ['validate', '-r', 'registry.example.json', '--strict', 'examples/messages'],
    counts: (s) => ({ tests: s.messages!, failures: s.invalid!, errors: s.errors!, skipped: s.skipped! }),
  },
  {
    name: 'validate fixtures',
    args: ['validate', '-r', 'test/fixtures/cli/reg/registry.json', 'test/fixtures/cli/messages'],
    counts: (s) => ({ tests: s.messages!, failures: s.invalid!, errors: s.errors!, skipped: s.skipped! }),
  },
  {
    name: 'validate fixtures --strict',
    args: ['validate', '-r', 'test/fixtures/cli/reg/registry.json', '--strict', 'test/fixtures/cli/messages'],
    counts: (s) => ({ tests: s.messages!, failures: s.invalid!, errors: s.errors!, skipped: s.skipped! }),
  },
  {
    name: 'check examples',
    args: ['check', '-r', 'registry.example.json'],
    counts: (s) => ({ tests: s.urns!, failures: s.failed!, errors: 0, skipped: 0 }),
  },
  {
    name: 'check broken',
    args: ['check', '-r', 'examples/broken/registry.json'],
    counts: (s) => ({ tests: s.urns!, failures: s.failed!, errors: 0, skipped: 0 }),
  },
  {
    name: 'gdpr --require',
    args: ['gdpr', '--registry', 'registry.json', '--require'],
    cwd: join(ROOT, 'test', 'fixtures', 'gdpr'),
    counts: (s) => ({ tests: s.urns!, failures: s.failed!, errors: 0, skipped: 0 }),
  },
  {
    name: 'compat two files',
    args: ['compat', 'examples/compat/orders-created.v1.json', 'examples/compat/orders-created.breaking.json'],
    counts: (s) => ({ tests: s.changes! + s.errors!, failures: s.breaking!, errors: s.errors!, skipped: 0 }),
  },
];

const docs = new Map<
  string,
  {
    xml: string;
    file: string;
    json: { summary: Summary; results?: Array<{ file: string; line?: number; status: string; violations: Array<{ line?: number }> }> };
  }
>();

beforeAll(async () => {
  const dir = tempTree({});
  await Promise.all(
    RUNS.map(async (run, i) => {
      const [junit, json] = await Promise.all([
        bq([...run.args, '--format', 'junit'], { cwd: run.cwd }),
        bq([...run.args, '--format', 'json'], { cwd: run.cwd }),
      ]);
      expect(junit.code, `${run.name}: ${junit.stderr}`).toBe(json.code);
      const file = join(dir, `r${i}.xml`);
      writeFileSync(file, junit.stdout);
      docs.set(run.name, { xml: junit.stdout, file, json: JSON.parse(json.stdout) });
    }),
  );
}, 120_000);

describe("JUnit read by two reporters' parsers", () => {
  it('test-results-parser (testbeats) counts what the JSON summary counts, for every command and flag', () => {
    for (const run of RUNS) {
      const { file, json } = docs.get(run.name)!;
      const want = run.counts(json.summary);
      const r = trp.parse({ type: 'junit', files: [file] });
      // Its total leaves the skipped out; its passed is what is neither failed, an error nor skipped.
      expect({ run: run.name, total: r.total, failed: r.failed, errors: r.errors, skipped: r.skipped, passed: r.passed }).toEqual({
        run: run.name,
        total: want.tests - want.skipped,
        failed: want.failures,
        errors: want.errors,
        skipped: want.skipped,
        passed: want.tests - want.failures - want.errors - want.skipped,
      });
      expect(r.status, run.name).toBe(want.failures + want.errors > 0 ? 'FAIL' : 'PASS');
    }
  });

  it('junit-to-ctrf (GitHub Test Reporter) counts the same, and gives every test case of a file its file', async () => {
    for (const run of RUNS) {
      const { file, json, xml } = docs.get(run.name)!;
      const want = run.counts(json.summary);
      const ctrf = (await convertJUnitToCTRFReport(file))!;
      const s = ctrf.results.summary;
      // CTRF has no "error": a test that could not run failed.
      expect({ run: run.name, tests: s.tests, failed: s.failed, skipped: s.skipped, passed: s.passed }).toEqual({
        run: run.name,
        tests: want.tests,
        failed: want.failures + want.errors,
        skipped: want.skipped,
        passed: want.tests - want.failures - want.errors - want.skipped,
      });
      const cases = junitCases(readJunit(xml));
      expect(
        ctrf.results.tests.map((t) => t.filePath),
        run.name,
      ).toEqual(cases.map((c) => c.file));
      for (const c of cases) if (c.name !== 'bqschema') expect(c.file, `${run.name}: ${c.name}`).toBeTypeOf('string');
    }
  });

  it("counts are the JSON summary's in the document itself: root and suites (readJunit checks they add up)", () => {
    for (const run of RUNS) {
      const { xml, json } = docs.get(run.name)!;
      expect({ run: run.name, ...junitCounts(readJunit(xml)) }).toEqual({ run: run.name, ...run.counts(json.summary) });
    }
  });

  it('--strict: the unregistered message is an error in every reader, not a skip (the gate fails on it)', () => {
    const { file, json } = docs.get('validate --strict')!;
    expect(json.summary).toMatchObject({ skipped: 0, errors: 1 });
    const r = trp.parse({ type: 'junit', files: [file] });
    expect([r.skipped, r.errors, r.status]).toEqual([0, 1, 'FAIL']);
  });

  it("each message's test case is at its file and line: an NDJSON line's own, else its first violation's", () => {
    const { xml, json } = docs.get('validate examples')!;
    const cases = junitCases(readJunit(xml));
    const results = json.results!;
    expect(cases).toHaveLength(results.length);
    cases.forEach((c, i) => {
      const r = results[i]!;
      expect(c.file).toBe(r.file); // run at the repository's root: the path as given
      const line = r.line ?? r.violations[0]?.line ?? 1;
      expect([c.name, Number(c.line)]).toEqual([c.name, line]);
    });
    // Hand-checked: the invalid order's first violation is on line 4; the NDJSON's fourth message on line 4.
    expect(cases.find((c) => c.name === 'examples/messages/invalid/order-created-invalid.json')!.line).toBe('4');
    expect(cases.find((c) => c.name === 'examples/messages/invalid/traffic.ndjson:4')).toMatchObject({
      file: 'examples/messages/invalid/traffic.ndjson',
      line: '4',
    });
  });

  it("negative control: without the root's skipped, test-results-parser counts the skipped message as passed", () => {
    const { xml, json } = docs.get('validate examples')!;
    expect(json.summary.skipped).toBe(1);
    const dir = tempTree({});
    const stripped = join(dir, 'no-root-skipped.xml');
    writeFileSync(stripped, xml.replace(/(<testsuites [^>]*?) skipped="\d+"/, '$1'));
    const r = trp.parse({ type: 'junit', files: [stripped] });
    expect(r.skipped).toBe(0);
    expect(r.passed).toBe(json.summary.valid! + json.summary.skipped!);
  });
});

describe('JUnit against its schema', () => {
  it('every document is valid against junit-10.xsd with the three attributes reporters read added', () => {
    for (const run of RUNS) expect(junitSchemaErrors(docs.get(run.name)!.xml), run.name).toBe('');
  });

  it('junit-10.xsd as it is rejects those attributes and nothing else (so the Jenkins xUnit plugin is told apart in docs/ci-reports.md)', () => {
    for (const run of RUNS) {
      const errors = junitSchemaErrors(docs.get(run.name)!.xml, true)
        .split('\n')
        .filter((l) => l.includes('validity error'));
      expect(errors.length, run.name).toBeGreaterThan(0);
      for (const e of errors)
        expect(e, run.name).toMatch(
          /element (testsuites: Schemas validity error : Element 'testsuites', attribute 'skipped'|testcase: Schemas validity error : Element 'testcase', attribute '(file|line)'): The attribute '(skipped|file|line)' is not allowed\./,
        );
    }
  });
});

describe('JUnit names files from the repository root', () => {
  it('run in a subdirectory of a repository, the file attributes name files from its root', async () => {
    const repo = tempTree({
      'sub/registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json', owner: 'o' }] }),
      'sub/a.json': JSON.stringify({ type: 'object', required: ['id'] }),
      'sub/m.ndjson': '{"job":"urn:t:a","data":{}}\n{"job":"urn:t:a","data":{"id":1}}\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
    });
    const r = await bq(['validate', '--format', 'junit', 'm.ndjson'], { cwd: join(repo, 'sub') });
    expectExit(r, 1);
    const doc = readJunit(r.stdout);
    expect(doc.testsuites.testsuite![0]).toMatchObject({ name: 'm.ndjson', file: 'sub/m.ndjson' });
    expect(junitCases(doc).map((c) => [c.name, c.file, c.line])).toEqual([
      ['m.ndjson:1', 'sub/m.ndjson', '1'],
      ['m.ndjson:2', 'sub/m.ndjson', '2'],
    ]);
  });
});
