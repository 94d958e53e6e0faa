// Each command's `--format json` output has a JSON Schema, shipped in the
// package as schemas/output/<command>.json; every JSON document below (the bundled registries, the
// test fixtures, a git registry with corpus and exceptions) is valid against it, checked by ajv.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaFingerprint } from '../../src/compat/index.js';
import { bq, FIXTURES, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';
import { asSarifPlaces, junitCounts, readGithub, readJunit, readMarkdown, readSarif, sarifSaid } from '../helpers/ci-formats.js';

afterAll(removeTempTrees);

const require = createRequire(import.meta.url);
const Ajv = require('ajv').default as new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const ajv = new Ajv({ allErrors: true, strict: true, strictTuples: false });
const compiled = new Map<string, ((d: unknown) => boolean) & { errors?: unknown }>();
function schemaOf(command: string): ((d: unknown) => boolean) & { errors?: unknown } {
  let v = compiled.get(command);
  if (v === undefined)
    compiled.set(command, (v = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas', 'output', `${command}.json`), 'utf8')))));
  return v;
}

const REG = ['-r', join(ROOT, 'registry.example.json')];
const ex = (p: string): string => join(ROOT, 'examples', p);

function git(dir: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

let repo = '';
beforeAll(() => {
  const old = { type: 'object', properties: { id: { type: 'string' }, currency: { enum: ['USD', 'TRY'] } } };
  repo = tempTree({
    'registry.json': JSON.stringify({
      schemas: [
        { urn: 'urn:t:orders', schema: 'schemas/orders.json', owner: 'o' },
        { urn: 'urn:t:gone', schema: 'schemas/gone.json', owner: 'o' },
        { urn: 'urn:t:same', schema: 'schemas/same.json', owner: 'o' },
      ],
    }),
    'schemas/orders.json': JSON.stringify(old),
    'schemas/gone.json': '{"type":"object"}',
    'schemas/same.json': '{"type":"object"}',
  });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  writeFileSync(
    join(repo, 'schemas/orders.json'),
    JSON.stringify({ ...old, required: ['id'], properties: { ...old.properties, currency: { enum: ['USD'] } } }),
  );
  writeFileSync(join(repo, 'schemas/new.json'), '{"type":"object","requried":["x"]}');
  writeFileSync(
    join(repo, 'registry.json'),
    JSON.stringify({
      schemas: [
        { urn: 'urn:t:orders', schema: 'schemas/orders.json', owner: 'o' },
        { urn: 'urn:t:same', schema: 'schemas/same.json', owner: 'o' },
        { urn: 'urn:t:new', schema: 'schemas/new.json', owner: 'o' },
      ],
    }),
  );
  writeFileSync(
    join(repo, 'corpus.ndjson'),
    '{"job":"urn:t:orders","data":{"currency":"TRY"}}\n{"job":"urn:t:orders","data":{"id":"a"}}\nnot json\n',
  );
  writeFileSync(
    join(repo, 'exceptions.yaml'),
    `exceptions:\n  - urn: urn:t:orders\n    rule: required-added\n    path: /required/id\n    fingerprint: ${schemaFingerprint(old)}\n    reason: every producer sends id\n    owner: team\n    expires: "2099-01-01"\n  - urn: urn:t:orders\n    rule: const-added\n    path: /const\n    fingerprint: ${schemaFingerprint(old)}\n    reason: unused\n    owner: team\n    expires: "2099-01-01"\n`,
  );
});

const RUNS: Array<[string, string, string[], { cwd?: string }?]> = [
  ['validate', 'examples', ['validate', ...REG, ex('messages')]],
  [
    'validate',
    'fixtures (errors, suggestions, envelope problems)',
    ['validate', '-r', join(FIXTURES, 'reg', 'registry.json'), join(FIXTURES, 'messages')],
  ],
  ['validate', 'envelope identity warnings', ['validate', ...REG, join(FIXTURES, 'envelope-warnings')]],
  ['check', 'examples', ['check', ...REG]],
  ['check', 'examples/broken', ['check', '-r', ex('broken/registry.json')]],
  ['check', 'fixtures/broken', ['check'], { cwd: join(FIXTURES, 'broken') }],
  ['gdpr', 'inventory', ['gdpr', ...REG]],
  ['gdpr', '--require', ['gdpr', ...REG, '--require', '--pattern', 'locale']],
  ['gdpr', '--require fixtures', ['gdpr', '--registry', 'registry.json', '--require'], { cwd: join(ROOT, 'test', 'fixtures', 'gdpr') }],
  [
    'compat',
    'two files, breaking, with corpus',
    [
      'compat',
      ex('compat/orders-created.v1.json'),
      ex('compat/orders-created.breaking.json'),
      '--urn',
      'urn:babel:orders:created',
      '--corpus',
      ex('compat/corpus.ndjson'),
    ],
  ],
  ['compat', 'two files, next', ['compat', ex('compat/orders-created.v1.json'), ex('compat/orders-created.next.json')]],
  [
    'compat',
    'two files, level none',
    ['compat', '--mode', 'none', ex('compat/orders-created.v1.json'), ex('compat/orders-created.breaking.json')],
  ],
  [
    'compat',
    '--against, corpus and exceptions',
    ['compat', '--against', 'main', '--corpus', 'corpus.ndjson', '--exceptions', 'exceptions.yaml'],
  ],
  ['compat', '--list-rules', ['compat', '--list-rules']],
];

describe('schemas/output/<command>.json', () => {
  for (const [command, what, args, options] of RUNS) {
    it(`${command}: ${what}`, async () => {
      const r = await bq(
        [...args, '--format', 'json'],
        options?.cwd === undefined && command === 'compat' && args.includes('--against') ? { cwd: repo } : (options ?? {}),
      );
      expect([0, 1], r.stderr).toContain(r.code);
      const validate = schemaOf(command);
      const doc = JSON.parse(r.stdout);
      expect(validate(doc), JSON.stringify(validate.errors, null, 2)).toBe(true);
      if (what.startsWith('--against')) {
        // The optional parts are there to be checked: exceptions, corpus, problems, statuses.
        expect(Object.keys(doc)).toEqual(expect.arrayContaining(['exceptions', 'corpus']));
        expect((doc.urns as Array<{ status: string; problems?: unknown }>).map((u) => u.status).sort()).toEqual([
          'breaking',
          'invalid',
          'removed',
          'unchanged',
        ]);
        expect(doc.exceptions.unused).toHaveLength(1);
      }
    });
  }

  it('the schemas are not vacuous: an unknown key, a missing summary, a wrong status fail them', async () => {
    const r = await bq(['validate', ...REG, '--format', 'json', ex('messages')]);
    const doc = JSON.parse(r.stdout);
    const v = schemaOf('validate');
    expect(v({ ...doc, extra: 1 })).toBe(false);
    const { summary: _s, ...noSummary } = doc;
    expect(v(noSummary)).toBe(false);
    expect(v({ ...doc, results: [{ ...doc.results[0], status: 'fine' }] })).toBe(false);
  });

  it('ship in the package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schemas/output/');
  });
});

// The JSON documents were checked against their schemas above: read loosely here.
type Json = any;

/** What JUnit must count, from the run's --format json (docs/ci-reports.md says how each command counts). */
function junitFromJson(command: string, doc: Json): { tests: number; failures: number; errors: number; skipped: number } {
  const s = doc.summary;
  if (command === 'validate') return { tests: s.messages, failures: s.invalid, errors: s.errors, skipped: s.skipped };
  if (command === 'check') {
    // A manifest problem no URN owns is one more test case, an error.
    const runLevel = [...doc.errors].some((e: Json) => e.urn === undefined) ? 1 : 0;
    return { tests: s.urns + runLevel, failures: s.failed, errors: runLevel, skipped: 0 };
  }
  if (command === 'gdpr') return { tests: s.urns, failures: s.failed, errors: 0, skipped: 0 };
  // compat: the corpus and the exceptions file have a test case each when given.
  const corpus = doc.corpus === undefined ? 0 : 1;
  const exceptions = doc.exceptions === undefined ? 0 : 1;
  const unreadable = doc.corpus !== undefined && doc.corpus.unreadable > 0 ? 1 : 0;
  const expired = doc.exceptions !== undefined && doc.exceptions.expired.length > 0 ? 1 : 0;
  if (doc.urns === undefined) {
    const rejected = doc.corpus !== undefined && [...doc.corpus.urns].some((u: Json) => u.rejected > 0) && unreadable === 0 ? 1 : 0;
    return {
      tests: s.changes + s.errors + corpus + exceptions,
      failures: s.breaking + rejected + expired,
      errors: s.errors + unreadable,
      skipped: 0,
    };
  }
  const failing = [...doc.urns].filter((u: Json) => u.breaking && u.status !== 'invalid').length;
  return { tests: s.urns + corpus + exceptions, failures: failing + expired, errors: s.errors + unreadable, skipped: 0 };
}

describe('one run, every format: the reports agree with the JSON and with each other', () => {
  for (const [command, what, args, options] of RUNS) {
    if (args.includes('--list-rules') || (command === 'gdpr' && !args.includes('--require'))) continue;
    it(`${command}: ${what}`, async () => {
      const out = tempTree({});
      const f = (name: string): string => join(out, name);
      const cwd = options?.cwd === undefined && command === 'compat' && args.includes('--against') ? { cwd: repo } : (options ?? {});
      // compat's markdown is its own (the PR comment, below); the other gates' is the Report's table.
      const markdown = command === 'compat' ? [] : ['--report', `markdown=${f('r.md')}`];
      const r = await bq(
        [
          ...args,
          '--format',
          'json',
          '--report',
          `sarif=${f('r.sarif')}`,
          '--report',
          `junit=${f('r.xml')}`,
          '--report',
          `github=${f('r.gh')}`,
          '--report',
          `text=${f('r.txt')}`,
          ...markdown,
        ],
        cwd,
      );
      expect([0, 1], r.stderr).toContain(r.code);
      const doc = JSON.parse(r.stdout) as Json;
      expect(doc.ok).toBe(r.code === 0);
      // JUnit counts the summary's units.
      expect(junitCounts(readJunit(readFileSync(f('r.xml'), 'utf8')))).toEqual(junitFromJson(command, doc));
      // Every annotation is a SARIF result and the other way round: the same level, file, line,
      // column and message, in the same order (both are the findings of one Report).
      const sarifRun = readSarif(readFileSync(f('r.sarif'), 'utf8')).runs[0]!;
      const sarif = sarifRun.results;
      // The run's verdict and counts: the JSON's own, the same object (both are the Report's summary).
      expect((sarifRun as Json).properties).toEqual({ command, ok: doc.ok, summary: doc.summary });
      const gh = readGithub(readFileSync(f('r.gh'), 'utf8'));
      expect(gh.annotations.map(asSarifPlaces)).toEqual(sarif.map(sarifSaid));
      // The annotations end with the text's summary line.
      const last = (t: string): string => t.replace(/\n$/, '').split('\n').at(-1)!;
      expect(gh.summary).toBe(last(readFileSync(f('r.txt'), 'utf8')));
      expect(gh.summary).toMatch(doc.ok ? /^OK/ : /^FAILED/);
      if (command !== 'compat') {
        // The job summary: the same summary line, and a row per SARIF result with its rule and message.
        const md = readMarkdown(readFileSync(f('r.md'), 'utf8'));
        expect(md.heading).toBe(`bqschema ${command}: ${gh.summary}`);
        expect(md.rows.map(([, , rule, finding]) => [rule, finding])).toEqual(sarif.map((x) => [x.ruleId, x.message.text]));
      }
      if (command === 'compat') {
        // compat's markdown (the PR comment): a failing row per failing unit, and the same counts.
        const m = await bq([...args, '--format', 'markdown'], cwd);
        expect(m.code).toBe(r.code);
        const failingRows = m.stdout.split('\n').filter((l) => /^\| (\*\*breaking\*\*|`[^`]+` \| \*\*)/.test(l)).length;
        expect(failingRows).toBe(doc.urns === undefined ? doc.summary.breaking : [...doc.urns].filter((u: Json) => u.breaking).length);
        if (doc.urns === undefined)
          expect(last(m.stdout)).toContain(`${doc.summary.breaking} breaking, ${doc.summary.compatible} compatible change(s)`);
      }
    });
  }
});
