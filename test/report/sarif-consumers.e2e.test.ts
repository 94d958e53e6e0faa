// Every SARIF document bqschema writes is one GitHub code scanning accepts. Each
// command's SARIF on the bundled registries and fixtures is checked against the SARIF 2.1.0 schema
// (readSarif) and by Microsoft's SARIF Multitool (`@microsoft/sarif-multitool`, dev-only, a native
// binary that runs wherever Node 20 does here) with its Sarif and Ghas rule sets: no error, no
// warning. A negative control shows the Multitool still finds what it is asked to find.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS } from '../../src/cli/report/emit.js';
import { readSarif } from '../helpers/ci-formats.js';
import { bq, FIXTURES, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

const require = createRequire(import.meta.url);
/** The Multitool's native binary (the package's bin.js runs it through a shell, which splits `Sarif;Ghas`). */
function multitool(): string {
  const bin = require('@microsoft/sarif-multitool') as string;
  if (!existsSync(bin)) throw new Error(`the SARIF Multitool binary is missing (${bin}): npm ci installs @microsoft/sarif-multitool`);
  return bin;
}

interface Verdict {
  file: string;
  rule: string;
  level: string;
  text: string;
}

/** The Multitool's findings (error and warning level) on the given SARIF files. */
function judge(dir: string, files: string[]): Verdict[] {
  const out = join(dir, 'multitool.sarif');
  rmSync(out, { force: true }); // it refuses to overwrite its log
  const r = spawnSync(multitool(), ['validate', '--rule-kind', 'Sarif;Ghas', '--output', out, ...files], { encoding: 'utf8', cwd: dir });
  if (r.error) throw r.error;
  expect(existsSync(out), `the Multitool wrote no log:\n${r.stdout}\n${r.stderr}`).toBe(true);
  const log = JSON.parse(readFileSync(out, 'utf8')) as {
    runs: Array<{
      results?: Array<{
        ruleId: string;
        level?: string;
        message: { text?: string; id?: string; arguments?: string[] };
        locations?: Array<{ physicalLocation?: { artifactLocation?: { uri?: string } } }>;
      }>;
    }>;
  };
  return (log.runs[0]!.results ?? [])
    .filter((x) => x.level === 'error' || x.level === 'warning' || x.level === undefined)
    .map((x) => ({
      file: x.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? '',
      rule: x.ruleId,
      level: x.level ?? 'warning',
      text: x.message.text ?? (x.message.arguments ?? []).join(' | '),
    }));
}

function git(dir: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

const REG = ['-r', 'registry.example.json'];
let work = '';
const sarif = new Map<string, string>();

beforeAll(async () => {
  work = tempTree({});
  // A registry repository whose working tree changes a schema, for compat --against.
  const repo = tempTree({
    'registry.json': JSON.stringify({
      schemas: [
        { urn: 'urn:t:orders', schema: 'schemas/orders.json', owner: 'orders' },
        { urn: 'urn:t:gone', schema: 'schemas/gone.json', owner: 'x' },
      ],
    }),
    'schemas/orders.json': JSON.stringify(
      { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer', enum: [1, 2] } } },
      null,
      2,
    ),
    'schemas/gone.json': '{"type":"object"}',
  });
  git(repo, 'init', '-q', '-b', 'main');
  git(
    repo,
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.invalid',
    '-c',
    'commit.gpgsign=false',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'empty',
  );
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'base');
  writeFileSync(
    join(repo, 'schemas/orders.json'),
    JSON.stringify(
      { type: 'object', required: ['id'], properties: { id: { type: 'string' }, n: { type: 'integer', enum: [1] } } },
      null,
      2,
    ),
  );
  writeFileSync(
    join(repo, 'registry.json'),
    JSON.stringify({ schemas: [{ urn: 'urn:t:orders', schema: 'schemas/orders.json', owner: 'orders' }] }),
  );
  const runs: Array<[string, string[], { cwd?: string }?]> = [
    ['validate-examples', ['validate', ...REG, 'examples/messages']],
    ['validate-fixtures', ['validate', '-r', 'test/fixtures/cli/reg/registry.json', 'test/fixtures/cli/messages']],
    ['validate-strict', ['validate', ...REG, '--strict', 'examples/messages/invalid']],
    ['validate-envelope-warnings', ['validate', ...REG, 'test/fixtures/cli/envelope-warnings']],
    ['check-examples', ['check', ...REG]],
    ['check-broken-example', ['check', '-r', 'examples/broken/registry.json']],
    ['check-broken-fixture', ['check'], { cwd: join(FIXTURES, 'broken') }],
    [
      'compat-files',
      [
        'compat',
        'examples/compat/orders-created.v1.json',
        'examples/compat/orders-created.breaking.json',
        '--urn',
        'urn:babel:orders:created',
        '--corpus',
        'examples/compat/corpus.ndjson',
      ],
    ],
    ['compat-compatible', ['compat', 'examples/compat/orders-created.v1.json', 'examples/compat/orders-created.next.json']],
    ['compat-against', ['compat', '--against', 'main'], { cwd: repo }],
    ['gdpr-require', ['gdpr', '--registry', 'registry.json', '--require'], { cwd: join(ROOT, 'test', 'fixtures', 'gdpr') }],
    ['gdpr-require-examples', ['gdpr', ...REG, '--require']],
  ];
  await Promise.all(
    runs.map(async ([name, args, options]) => {
      const r = await bq([...args, '--format', 'sarif'], options ?? {});
      expect(
        r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('bqschema: warning:')),
        name,
      ).toEqual([]);
      sarif.set(name, r.stdout);
    }),
  );
}, 120_000);

describe('SARIF that code scanning accepts', () => {
  it("every command's SARIF is valid SARIF 2.1.0 and has findings to judge", () => {
    let results = 0;
    for (const [name, text] of sarif) {
      const log = readSarif(text);
      expect(log.runs, name).toHaveLength(1);
      results += log.runs[0]!.results.length;
    }
    expect(results).toBeGreaterThan(30);
  });

  /**
   * One Multitool run (it takes seconds to start) judges every command's SARIF and the negative
   * control below, a copy of one with what GH2012 asks for taken out: the findings by file.
   */
  let judged: { commands: Verdict[]; control: Verdict[] } | undefined;
  function multitoolFindings(): { commands: Verdict[]; control: Verdict[] } {
    if (judged !== undefined) return judged;
    const files = [...sarif].map(([name, text]) => {
      const file = join(work, `${name}.sarif`);
      writeFileSync(file, text);
      return file;
    });
    const log = JSON.parse(sarif.get('validate-examples')!) as {
      runs: Array<{ tool: { driver: { rules: Array<Record<string, unknown>> } } }>;
    };
    for (const rule of log.runs[0]!.tool.driver.rules) {
      delete rule.help;
      delete rule.fullDescription;
      delete rule.helpUri;
    }
    const control = join(work, 'control.sarif');
    writeFileSync(control, JSON.stringify(log, null, 2));
    const all = judge(work, [...files, control]);
    const isControl = (v: Verdict): boolean => v.file.endsWith('/control.sarif') || v.file === 'control.sarif';
    judged = { commands: all.filter((v) => !isControl(v)), control: all.filter(isControl) };
    return judged;
  }

  it('the SARIF Multitool (rule kinds Sarif and Ghas) finds no error and no warning in any of them', () => {
    expect(multitoolFindings().commands).toEqual([]);
  }, 120_000);

  it('every result has a location with an artifact URI, and every run an analysis category of its command (code scanning rejects a log otherwise, or lets one upload replace another)', () => {
    for (const [name, text] of sarif) {
      const run = JSON.parse(text).runs[0] as {
        automationDetails?: { id: string };
        properties?: { command?: string };
        results: Array<{ locations?: Array<{ physicalLocation?: { artifactLocation?: { uri?: string } } }> }>;
      };
      for (const r of run.results) expect(r.locations?.[0]?.physicalLocation?.artifactLocation?.uri, name).toBeTypeOf('string');
      // The command's category, under it the registry's directory when that is not the repository's root.
      expect(run.automationDetails!.id, name).toMatch(new RegExp(`^bqschema/${run.properties!.command}/([^/]+/)*$`));
    }
  });

  it('negative control: without help, fullDescription and helpUri the Multitool reports GH2012', () => {
    expect(new Set(multitoolFindings().control.map((v) => v.rule))).toContain('GH2012');
  }, 120_000);

  it('every run declares columnKind (code points) and SRCROOT; relative URIs name it; every rule has full text, help and a docs page that exists', () => {
    for (const [name, text] of sarif) {
      const run = JSON.parse(text).runs[0] as {
        columnKind: string;
        originalUriBaseIds: Record<string, unknown>;
        tool: {
          driver: {
            rules: Array<{
              id: string;
              shortDescription: { text: string };
              fullDescription: { text: string };
              help: { text: string; markdown: string };
              helpUri: string;
            }>;
          };
        };
        results: Array<{
          ruleIndex: number;
          ruleId: string;
          locations?: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }>;
        }>;
      };
      expect(run.columnKind, name).toBe('unicodeCodePoints');
      expect(Object.keys(run.originalUriBaseIds), name).toEqual(['SRCROOT']);
      for (const r of run.results) {
        expect(run.tool.driver.rules[r.ruleIndex]!.id).toBe(r.ruleId);
        for (const l of r.locations ?? []) {
          const a = l.physicalLocation.artifactLocation;
          expect(a.uri.startsWith('file:') ? undefined : a.uriBaseId, `${name}: ${a.uri}`).toBe(
            a.uri.startsWith('file:') ? undefined : 'SRCROOT',
          );
        }
      }
      for (const rule of run.tool.driver.rules) {
        expect(rule.fullDescription.text.length, rule.id).toBeGreaterThanOrEqual(rule.shortDescription.text.length);
        expect(rule.help.text, rule.id).toContain(rule.helpUri);
        expect(rule.help.markdown, rule.id).toContain(`[Documentation](${rule.helpUri})`);
        expect(rule.helpUri.startsWith(DOCS), rule.id).toBe(true);
        expect(existsSync(join(ROOT, 'docs', rule.helpUri.slice(DOCS.length))), rule.helpUri).toBe(true);
      }
    }
  });

  it("the docs address is the package's repository", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository: { url: string } };
    expect(`${pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/main/docs/`).toBe(DOCS);
  });

  it('a column counts code points: a value after an emoji is one column nearer than its UTF-16 offset', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json', owner: 'x' }] }),
      'a.json': '{"type":"object","properties":{"n":{"type":"integer"}}}',
      'm.json': '{"job":"urn:t:a","data":{"😀":1,"n":"x"}}',
    });
    const r = await bq(['validate', '--format', 'sarif', 'm.json'], { cwd: dir });
    const region = JSON.parse(r.stdout).runs[0].results[0].locations[0].physicalLocation.region as {
      startLine: number;
      startColumn: number;
    };
    // `"x"` starts at UTF-16 offset 36 (column 37); the emoji is two units and one code point: column 36.
    // It ends after its closing quote: column 39.
    expect(region).toEqual({ startLine: 1, startColumn: 36, endLine: 1, endColumn: 39 });
  });
});
