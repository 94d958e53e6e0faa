import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirProvider } from '../../src/index.js';
import { bq, expectExit, removeTempTrees, tempTree, type CliResult } from '../helpers/cli.js';
import { junitCases, readJunit, readSarif } from '../helpers/ci-formats.js';

// CLARIFICATIONS rule 14 end to end: an unknown keyword (a typo) fails check, is warned by validate
// with its exit code unchanged, and is a problem of the new schema in compat. And compat never
// calls a change about a malformed or unknown keyword compatible, nor gives it a rollout order.

const URN = 'urn:babel:orders:created';
const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';
const GOOD = { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } };
const TYPO = { type: 'object', requried: ['order_id'], properties: { order_id: { type: 'integer', minlength: 3 } } };
const MANIFEST = json({ schemas: [{ urn: URN, schema: 'schemas/orders.json' }] });
const lines = (r: CliResult): string[] => r.stdout.replace(/\n$/, '').split('\n');
/** What a report says: SARIF's results without its rule catalogue (which names every rule). */
const said = (r: CliResult, format: string): string =>
  format === 'sarif' ? JSON.stringify(readSarif(r.stdout).runs[0]!.results) : r.stdout;

afterAll(removeTempTrees);

describe.concurrent('check and validate', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempTree({
      'registry.json': MANIFEST,
      'schemas/orders.json': json(TYPO),
      'ok.json': JSON.stringify({ job: URN, data: { order_id: 1 } }),
      'missing.json': JSON.stringify({ job: URN, data: {} }),
      'bad.json': JSON.stringify({ job: URN, data: { order_id: 'x' } }),
    });
  });
  const run = (...args: string[]): Promise<CliResult> => bq(args, { cwd: dir });

  it('check fails (exit 1): one line per unknown keyword with its pointer, keyword and did you mean', async () => {
    const r = await run('check');
    expectExit(r, 1);
    expect(lines(r)).toEqual([
      `✗ ${URN}  schemas/orders.json`,
      '    error  /requried  unknown keyword "requried" at the schema root is not enforced (no JSON Schema draft defines it); did you mean "required"? Fix the name, or allow it with --allow-keyword requried (or name it x-requried).',
      '    error  /properties/order_id/minlength  unknown keyword "minlength" at /properties/order_id is not enforced (no JSON Schema draft defines it); did you mean "minLength"? Fix the name, or allow it with --allow-keyword minlength (or name it x-minlength).',
      '',
      'FAILED: 1 URN(s), 2 error(s), 0 warning(s)',
    ]);
  });

  it("check json and sarif: the suggestion, the keyword, rule unknown-keyword at the keyword's line", async () => {
    const r = await run('check', '-f', 'json');
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as { errors: Array<{ pointer: string; keyword: string; suggestion?: string; line?: number }> };
    expect(doc.errors.map((e) => [e.pointer, e.keyword, e.suggestion, e.line])).toEqual([
      ['/requried', 'requried', 'required', 3],
      ['/properties/order_id/minlength', 'minlength', 'minLength', 9],
    ]);
    const sarif = readSarif((await run('check', '-f', 'sarif')).stdout);
    expect(sarif.runs[0]!.results.map((x) => [x.ruleId, x.level])).toEqual([
      ['unknown-keyword', 'error'],
      ['unknown-keyword', 'error'],
    ]);
    // JUnit: one test case per URN; the one URN fails, with both errors in its failure text.
    const junit = junitCases(readJunit((await run('check', '-f', 'junit')).stdout));
    expect(junit.filter((c) => c.failure).length).toBe(1);
    expect(junit[0]!.failure!['#text']!.split('\n').map((l) => /unknown keyword "(\w+)"/.exec(l)?.[1])).toEqual(['requried', 'minlength']);
  });

  it('check --allow-keyword (repeatable): allowed unknown keywords are warnings; --fail-on-unsupported still fails on them', async () => {
    const one = await run('check', '--allow-keyword', 'requried');
    expectExit(one, 1);
    expect(one.stdout).toMatch(
      /^ {4}warning {2}\/requried {2}unknown keyword "requried" .*did you mean "required"\? Allowed by --allow-keyword\.$/m,
    );
    expect(one.stdout).toMatch(/^ {4}error {2}\/properties\/order_id\/minlength /m);
    const both = await run('check', '--allow-keyword', 'requried', '--allow-keyword', 'minlength');
    expectExit(both, 0);
    expect(lines(both).at(-1)).toBe('OK: 1 URN(s), 0 error(s), 2 warning(s)');
    expectExit(await run('check', '--allow-keyword', 'requried', '--allow-keyword', 'minlength', '--fail-on-unsupported'), 1);
  });

  it('validate prints the warning and suggestion on stderr and keeps its exit code', async () => {
    const ok = await run('validate', 'ok.json', 'missing.json');
    expectExit(ok, 0); // the typo does not make {} invalid: the warning says why
    expect(ok.stdout).toContain('✓ valid  missing.json');
    expect(ok.stderr).toContain(
      `bqschema: warning: schema for ${URN}: unknown keyword "requried" at the schema root is not enforced (no JSON Schema draft defines it); did you mean "required"?\n`,
    );
    expect(ok.stderr).toContain('did you mean "minLength"?');
    const bad = await run('validate', 'bad.json');
    expectExit(bad, 1);
    expect(bad.stdout).toContain('/order_id  must be integer, got string');
  });

  it('a strict DirProvider refuses the URN, naming the keyword, the file position and the suggestion', () => {
    const strict = new DirProvider(join(dir, 'registry.json'), { strict: true, onWarning: () => {} });
    expect(() => strict.schemaFor(URN)).toThrow(
      /has an unknown keyword "requried" at the schema root \(did you mean "required"\?\) \(and 1 more\), at \S*schemas\/orders\.json:3:15; no JSON Schema draft defines it/,
    );
    const lenient = new DirProvider(join(dir, 'registry.json'), { onWarning: () => {} });
    expect(lenient.schemaFor(URN)!.warnings.map((w) => w.kind)).toEqual(['unknown', 'unknown']);
  });
});

const FORMATS = ['text', 'json', 'markdown', 'github', 'sarif', 'junit'] as const;

describe.concurrent('compat: malformed and unknown keywords are problems, never compatible changes', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempTree({
      'old.json': json(GOOD),
      'integr.json': json({ ...GOOD, properties: { order_id: { type: 'integr' } } }),
      'typo.json': json(TYPO),
      'typo-wider.json': json({ ...TYPO, properties: { order_id: { type: 'number', minlength: 3 } } }),
    });
  });
  const run = (...args: string[]): Promise<CliResult> => bq(['compat', ...args], { cwd: dir });

  it.each(FORMATS)('"integer" -> "integr" (%s): the malformed keyword, no compatible type change, no rollout order', async (format) => {
    const r = await run('old.json', 'integr.json', '-f', format);
    expectExit(r, 1);
    expect(said(r, format)).toContain('malformed keyword');
    expect(said(r, format)).not.toMatch(/type-widened|type widened|compatible +\/|rollout|Deploy (consumers|producers)/i);
  });

  it('json: no change, the problem with pointer and keyword, no rollout', async () => {
    const doc = JSON.parse((await run('old.json', 'integr.json', '-f', 'json')).stdout) as Record<string, unknown>;
    expect(doc.changes).toEqual([]);
    expect(doc.rollout).toBeUndefined();
    expect(doc.problems).toEqual([expect.objectContaining({ side: 'new', pointer: '/properties/order_id', keyword: 'type' })]);
  });

  it.each(FORMATS)('unknown keywords the new schema introduces are problems (%s), with the suggestion', async (format) => {
    const r = await run('old.json', 'typo.json', '-f', format);
    expectExit(r, 1);
    expect(said(r, format)).toContain('unknown keyword');
    expect(said(r, format)).toContain('did you mean');
    // "no longer required" is the typo's doing, and the typo's own "added" line is the problem itself.
    expect(said(r, format)).not.toMatch(
      /required-removed|no longer required|unsupported-keyword-changed|rollout|Deploy (consumers|producers)/,
    );
  });

  it('text: one error line per unknown keyword, and the summary counts them as problems', async () => {
    const r = await run('old.json', 'typo.json');
    expect(lines(r)).toEqual([
      'error       new schema: unknown keyword "requried" at the schema root is not enforced (no JSON Schema draft defines it); did you mean "required"?',
      'error       new schema: unknown keyword "minlength" at /properties/order_id is not enforced (no JSON Schema draft defines it); did you mean "minLength"?',
      '',
      'FAILED: 0 breaking change(s), 2 schema problem(s) from old.json to typo.json, 0 compatible (backward)',
    ]);
  });

  it('an unknown keyword the old schema already had is not introduced: the other changes are judged as usual', async () => {
    const r = await run('typo.json', 'typo-wider.json');
    expectExit(r, 0);
    expect(r.stdout).toMatch(/^compatible {2}\/properties\/order_id\/type {2}type widened/m);
    expect(r.stdout).not.toContain('unknown keyword');
  });

  it('--allow-keyword lets the new schema introduce a named unknown keyword', async () => {
    const r = await run('old.json', 'typo.json', '--allow-keyword', 'requried', '--allow-keyword', 'minlength');
    expectExit(r, 0);
    expect(r.stdout).toContain('no longer required');
  });
});

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
}

describe('compat --against: an introduced unknown keyword makes the URN invalid', () => {
  it('text and json', async () => {
    const dir = tempTree({ 'registry.json': MANIFEST, 'schemas/orders.json': json(GOOD) });
    git(dir, 'init', '-q', '-b', 'main');
    git(
      dir,
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
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'base');
    writeFileSync(join(dir, 'schemas/orders.json'), json(TYPO));
    const r = await bq(['compat', '--against', 'main'], { cwd: dir });
    expectExit(r, 1);
    expect(r.stdout).toMatch(new RegExp(`^✗ ${URN}  invalid`, 'm'));
    expect(r.stdout).toContain(
      '    error       new schema: unknown keyword "requried" at the schema root is not enforced (no JSON Schema draft defines it); did you mean "required"?',
    );
    expect(r.stdout).not.toMatch(/no longer required|rollout/);
    const doc = JSON.parse((await bq(['compat', '--against', 'main', '-f', 'json'], { cwd: dir })).stdout) as {
      urns: Array<{ status: string; problems: Array<{ suggestion?: string }> }>;
    };
    expect(doc.urns[0]!.status).toBe('invalid');
    expect(doc.urns[0]!.problems.map((p) => p.suggestion)).toEqual(['required', 'minLength']);
    // A URN added with an unknown keyword introduces it too (main~1 has no registry yet: a new one).
    const added = await bq(['compat', '--against', 'main~1', '--allow-new-registry'], { cwd: dir });
    expectExit(added, 1);
    expect(added.stdout).toContain('unknown keyword "requried"');
  });
});
