import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree, type CliResult } from '../helpers/cli.js';

/*
 * compat --against follows the registry wherever the pull request took it: renamed to another
 * manifest name or format, moved into a subdirectory or out of one, found in a parent directory,
 * or only recognisable by the URNs it registers. Each repository is real (git init in a temporary
 * directory); each change retypes a field, so finding the registry at the ref is what makes the
 * gate fail. A registry that cannot be found at the ref is a one-line error (exit 2), unless the
 * user names it (--against-registry) or says it is new (--allow-new-registry).
 */

afterAll(removeTempTrees);

type Files = Record<string, string | null>;

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

function apply(dir: string, files: Files): void {
  for (const [name, contents] of Object.entries(files)) {
    const full = join(dir, name);
    if (contents === null) rmSync(full);
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, contents);
    }
  }
}

/** A repository whose `main` holds `base`, and branch `pr` (checked out) the change, committed. */
function repo(base: Files, change: Files): string {
  const dir = tempTree({});
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Compat Test');
  git(dir, 'config', 'user.email', 'compat@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  apply(dir, base);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'checkout', '-q', '-b', 'pr');
  apply(dir, change);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'change');
  return dir;
}

/** Every file under `dir` with its size and mtime: what a read-only command must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else out[full.slice(dir.length)] = `${st.size}:${st.mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

const A = 'urn:t:orders:created';
const B = 'urn:t:users:registered';
const OLD_A = '{ "type": "object", "properties": { "n": { "type": "integer" } } }\n';
/** The retyped field: integer → string, breaking backward (an old {"n": 0} is rejected). */
const NEW_A = '{ "type": "object", "properties": { "n": { "type": "string" } } }\n';
const SCHEMA_B = '{ "type": "object" }\n';

const json = (prefix = ''): string =>
  `{ "schemas": [ { "urn": "${A}", "schema": "${prefix}schemas/a.json" }, { "urn": "${B}", "schema": "${prefix}schemas/b.json" } ] }\n`;
const jsonc = (prefix = ''): string =>
  `// the registry\n{\n  "schemas": [\n    { "urn": "${A}", "schema": "${prefix}schemas/a.json" }, // orders\n    { "urn": "${B}", "schema": "${prefix}schemas/b.json" },\n  ],\n}\n`;
const yaml = (prefix = ''): string =>
  `schemas:\n  - urn: ${A}\n    schema: ${prefix}schemas/a.json\n  - urn: ${B}\n    schema: ${prefix}schemas/b.json\n`;

const BASE: Files = { 'registry.json': json(), 'schemas/a.json': OLD_A, 'schemas/b.json': SCHEMA_B };

/** The gate caught the retyped field, comparing by URN: exit 1, A breaking, B unchanged. */
function expectCaught(r: CliResult): void {
  expectExit(r, 1);
  const doc = JSON.parse(r.stdout) as {
    urns: Array<{ urn: string; status: string; changes: Array<{ rule: string }> }>;
    summary: Record<string, number>;
  };
  expect(doc.urns.find((u) => u.urn === A)).toMatchObject({
    status: 'breaking',
    changes: expect.arrayContaining([expect.objectContaining({ rule: 'type-narrowed' })]),
  });
  expect(doc.summary).toMatchObject({ urns: 2, breaking: 1, added: 0, removed: 0, unchanged: 1 });
}

/**
 * `compat --against main` run once in `cwd` and read in several formats: JSON on stdout, the others
 * written by --report to a temporary directory, each file what `--format <format>` prints for the
 * same run, with the same exit code (test/report/report-files.e2e.test.ts).
 */
async function inFormats(cwd: string, args: string[], reports: string[]): Promise<Record<string, CliResult>> {
  const out = tempTree({});
  const r = await bq(
    ['compat', '--against', 'main', ...args, '-f', 'json', ...reports.flatMap((f) => ['--report', `${f}=${join(out, f)}`])],
    {
      cwd,
    },
  );
  const all: Record<string, CliResult> = { json: r };
  for (const f of reports) all[f] = { ...r, stdout: readFileSync(join(out, f), 'utf8') };
  return all;
}

const against = (r: CliResult): { registry: string; found: boolean; foundBy?: string } =>
  (JSON.parse(r.stdout) as { against: { registry: string; found: boolean; foundBy?: string } }).against;

describe.concurrent('compat --against finds the registry where it was at the ref', () => {
  it('renamed registry.json → registry.yaml (a new format) with a retyped field: breaking, exit 1, never "every URN is added"', async () => {
    const dir = repo(BASE, { 'registry.json': null, 'registry.yaml': yaml(), 'schemas/a.json': NEW_A });
    const { json: r, text } = await inFormats(dir, [], ['text']);
    expectCaught(r!);
    // Same directory, another manifest name: discovery at the ref (git sees no rename across formats).
    expect(against(r!)).toMatchObject({ registry: 'registry.json', found: true, foundBy: 'discovery' });
    expectExit(text!, 1);
    expect(text!.stdout.split('\n')[0]).toBe(
      'compared with registry.json at main (found as the working tree finds a manifest), URN by URN',
    );
    expect(text!.stdout).not.toMatch(/every URN is added/);
    expect(text!.stdout).toMatch(new RegExp(`^✗ ${A} {2}breaking`, 'm'));
  });

  it('JSON → JSONC and YAML → JSON: the format of either side does not matter', async () => {
    const toJsonc = repo(BASE, { 'registry.json': null, 'registry.jsonc': jsonc(), 'schemas/a.json': NEW_A });
    expectCaught(await bq(['compat', '--against', 'main', '-f', 'json'], { cwd: toJsonc }));
    const fromYaml = repo(
      { 'registry.yml': yaml(), 'schemas/a.json': OLD_A, 'schemas/b.json': SCHEMA_B },
      { 'registry.yml': null, 'registry.json': json(), 'schemas/a.json': NEW_A },
    );
    const r = await bq(['compat', '--against', 'main', '-f', 'json'], { cwd: fromYaml });
    expectCaught(r);
    expect(against(r)).toMatchObject({ registry: 'registry.yml', foundBy: 'discovery' });
  });

  it('moved into a subdirectory (schemas too): found by the rename git reports, from any directory', async () => {
    const dir = repo(BASE, {
      'registry.json': null,
      'schemas/a.json': null,
      'schemas/b.json': null,
      'registries/orders/registry.json': json(),
      'registries/orders/schemas/a.json': NEW_A,
      'registries/orders/schemas/b.json': SCHEMA_B,
    });
    const r = await bq(['compat', '-r', 'registries/orders/registry.json', '--against', 'main', '-f', 'json'], { cwd: dir });
    expectCaught(r);
    expect(against(r)).toMatchObject({ registry: 'registry.json', foundBy: 'rename' });
  });

  it('run from the subdirectory it moved to: the old manifest in a parent directory is found by discovery', async () => {
    // Rewritten as well as moved, so git reports no rename: the parent directory rule finds it.
    const dir = repo(BASE, { 'registry.json': null, 'svc/registry.yaml': yaml('../'), 'schemas/a.json': NEW_A });
    const r = await bq(['compat', '--against', 'main', '-f', 'json', '--allow-outside-paths'], { cwd: join(dir, 'svc') });
    expectCaught(r);
    expect(against(r)).toMatchObject({ registry: 'registry.json', foundBy: 'discovery' });
  });

  it('moved out of a subdirectory and rewritten: recognised by the URNs it registers', async () => {
    const dir = repo(
      { 'svc/registry.json': json(), 'svc/schemas/a.json': OLD_A, 'svc/schemas/b.json': SCHEMA_B, 'README.md': '# repo\n' },
      {
        'svc/registry.json': null,
        'svc/schemas/a.json': null,
        'svc/schemas/b.json': null,
        'registry.yaml': yaml(),
        'schemas/a.json': NEW_A,
        'schemas/b.json': SCHEMA_B,
      },
    );
    const r = await bq(['compat', '--against', 'main', '-f', 'json'], { cwd: dir });
    expectCaught(r);
    expect(against(r)).toMatchObject({ registry: 'svc/registry.json', foundBy: 'urns' });
  });

  it('another registry still in the working tree is not taken for this one', async () => {
    // The top-level registry is a different one, unchanged; svc/ is new in this change.
    const other = `{ "schemas": [ { "urn": "urn:t:other", "schema": "schemas/o.json" } ] }\n`;
    const dir = repo(
      { 'registry.json': other, 'schemas/o.json': SCHEMA_B },
      { 'svc/registry.yaml': yaml(), 'svc/schemas/a.json': NEW_A, 'svc/schemas/b.json': SCHEMA_B },
    );
    const r = await bq(['compat', '--against', 'main'], { cwd: join(dir, 'svc') });
    expectOneLineError(
      r,
      /^bqschema: no registry found at main \([0-9a-f]{12}\) for registry\.yaml: .*; name the manifest it had there with --against-registry <path>, or pass --allow-new-registry if this change creates the registry$/,
    );
  });

  it('the same path at the ref is found as before, with no note', async () => {
    const dir = repo(BASE, { 'schemas/a.json': NEW_A });
    const { json: r, text } = await inFormats(dir, [], ['text']);
    expectExit(text!, 1);
    expect(text!.stdout).not.toMatch(/compared with|every URN/);
    expect(against(r!)).toEqual({
      ref: 'main',
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      registry: 'registry.json',
      found: true,
      foundBy: 'path',
    });
  });
});

describe.concurrent('no registry at the ref: an error unless named or allowed', () => {
  // Moved to a sibling directory and rewritten, with its URNs renamed too: nothing recognises it.
  const lost = (): string =>
    repo(
      { 'a/registry.json': `{ "schemas": [ { "urn": "urn:t:old", "schema": "s.json" } ] }\n`, 'a/s.json': OLD_A },
      { 'a/registry.json': null, 'a/s.json': null, 'b/registry.yaml': `schemas:\n  - urn: ${A}\n    schema: s.json\n`, 'b/s.json': NEW_A },
    );

  it('exit 2, one line saying what was looked for and what to do; nothing in the repository changes', async () => {
    const dir = lost();
    const before = snapshot(dir);
    const head = git(dir, 'rev-parse', 'HEAD');
    const r = await bq(['compat', '-r', 'b/registry.yaml', '--against', 'main'], { cwd: dir });
    expectOneLineError(
      r,
      /^bqschema: no registry found at main \([0-9a-f]{12}\) for b\/registry\.yaml: not at b\/registry\.yaml, not renamed, no registry\.json \/ registry\.jsonc \/ registry\.yaml \/ registry\.yml in b or its parents, and no manifest there registers its URNs; name the manifest it had there with --against-registry <path>, or pass --allow-new-registry if this change creates the registry$/,
    );
    expect(r.stdout).toBe('');
    // Every format: the error comes before any report is written (these would be in the snapshot).
    expectOneLineError(
      await bq(
        [
          'compat',
          '-r',
          'b/registry.yaml',
          '--against',
          'main',
          '-f',
          'json',
          ...['github', 'markdown', 'sarif', 'junit', 'text'].flatMap((f) => ['--report', `${f}=report.${f}`]),
        ],
        { cwd: dir },
      ),
      /^bqschema: no registry found at main/,
    );
    expect(snapshot(dir)).toEqual(before);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('--against-registry <path> names it: compared URN by URN (here: one removed, one added)', async () => {
    const dir = lost();
    const r = await bq(['compat', '-r', 'b/registry.yaml', '--against', 'main', '--against-registry', 'a/registry.json', '-f', 'json'], {
      cwd: dir,
    });
    expectExit(r, 1); // urn:t:old removed without being deprecated first
    expect(against(r)).toMatchObject({ registry: 'a/registry.json', found: true, foundBy: 'named' });
    const doc = JSON.parse(r.stdout) as { summary: Record<string, number> };
    expect(doc.summary).toMatchObject({ added: 1, removed: 1 });
  });

  it('--against-registry finds a registry the search would miss, and the retyped field breaks', async () => {
    // The old manifest, under a name no rule looks for, deleted and rewritten elsewhere.
    const dir = repo(
      { 'config/schemas.index.json': json('../'), 'schemas/a.json': OLD_A, 'schemas/b.json': SCHEMA_B },
      { 'config/schemas.index.json': null, 'registry.yaml': yaml(), 'schemas/a.json': NEW_A },
    );
    const named = await bq(
      ['compat', '--against', 'main', '--against-registry', 'config/schemas.index.json', '-f', 'json', '--allow-outside-paths'],
      { cwd: dir },
    );
    expectCaught(named);
    // Without it the deleted manifest is still recognised: gone, of a manifest's format, with these URNs.
    const found = await bq(['compat', '--against', 'main', '-f', 'json', '--allow-outside-paths'], { cwd: dir });
    expectCaught(found);
    expect(against(found)).toMatchObject({ registry: 'config/schemas.index.json', foundBy: 'urns' });
  });

  it('--against-registry that is not a file at the ref, or leaves the repository: exit 2, one line', async () => {
    const dir = lost();
    expectOneLineError(
      await bq(['compat', '-r', 'b/registry.yaml', '--against', 'main', '--against-registry', 'a/nope.json'], { cwd: dir }),
      /^bqschema: --against-registry a\/nope\.json is not a file at main \([0-9a-f]{12}\); give the manifest's path at that ref, from the repository's top level$/,
    );
    expectOneLineError(
      await bq(['compat', '-r', 'b/registry.yaml', '--against', 'main', '--against-registry', 'a'], { cwd: dir }),
      /^bqschema: --against-registry a is not a file at main/,
    );
    expectOneLineError(
      await bq(['compat', '-r', 'b/registry.yaml', '--against', 'main', '--against-registry', '../outside.json'], { cwd: dir }),
      /^bqschema: --against-registry must name the manifest inside the repository .*got "\.\.\/outside\.json"$/,
    );
  });

  it('--against-registry and --allow-new-registry apply to --against only', async () => {
    expectOneLineError(
      await bq(['compat', '--against-registry', 'x.json', 'a.json', 'b.json']),
      /^bqschema: --against-registry applies to --against REF/,
    );
    expectOneLineError(
      await bq(['compat', '--allow-new-registry', 'a.json', 'b.json']),
      /^bqschema: --allow-new-registry applies to --against REF/,
    );
  });

  it('the change that creates the registry: --allow-new-registry counts every URN added and says why, in every format', async () => {
    const dir = repo(
      { 'README.md': '# no registry yet\n' },
      { 'registry.json': json(), 'schemas/a.json': NEW_A, 'schemas/b.json': SCHEMA_B },
    );
    expectOneLineError(
      await bq(['compat', '--against', 'main'], { cwd: dir }),
      /^bqschema: no registry found at main .* at the top level, .*--allow-new-registry if this change creates the registry$/,
    );
    const formats = await inFormats(dir, ['--allow-new-registry'], ['text', 'markdown', 'github']);
    const r = formats.text!;
    expectExit(r, 0);
    expect(r.stdout.split('\n')[0]).toBe(
      'no registry at main for registry.json (not at registry.json, not renamed, no registry.json / registry.jsonc / registry.yaml / registry.yml at the top level, and no manifest there registers its URNs): a new registry, every URN is added (--allow-new-registry)',
    );
    expect(r.stdout.match(/^\+ urn:\S+ {2}added/gm)).toHaveLength(2);
    const doc = JSON.parse(formats.json!.stdout) as {
      against: { found: boolean; foundBy?: string };
    };
    expect(doc.against.found).toBe(false);
    expect(doc.against).not.toHaveProperty('foundBy');
    const md = formats.markdown!;
    expect(md.stdout).toContain('No registry at `main` for `registry.json`: a new registry, every URN is added (`--allow-new-registry`).');
    const gh = formats.github!;
    expect(gh.stdout).toMatch(/^::notice file=registry\.json,title=registry absent::no registry at main for registry\.json/m);
  });

  it('two removed manifests that both register its URNs: exit 2, naming them, even with --allow-new-registry', async () => {
    const dir = repo(
      { 'x/registry.json': json('../'), 'y/registry.json': json('../'), 'schemas/a.json': OLD_A, 'schemas/b.json': SCHEMA_B },
      { 'x/registry.json': null, 'y/registry.json': null, 'z/registry.yaml': yaml('../'), 'schemas/a.json': NEW_A },
    );
    for (const extra of [[], ['--allow-new-registry']]) {
      expectOneLineError(
        await bq(['compat', '-r', 'z/registry.yaml', '--against', 'main', '--allow-outside-paths', ...extra], { cwd: dir }),
        /^bqschema: z\/registry\.yaml is not at main \([0-9a-f]{12}\), and several manifests there register its URNs: x\/registry\.json, y\/registry\.json; name the one it came from with --against-registry <path>$/,
      );
    }
    expectCaught(
      await bq(
        [
          'compat',
          '-r',
          'z/registry.yaml',
          '--against',
          'main',
          '--allow-outside-paths',
          '--against-registry',
          'y/registry.json',
          '-f',
          'json',
        ],
        { cwd: dir },
      ),
    );
  });

  it('a monorepo of many registries adding one more: the others, still in the working tree, are not taken for it', async () => {
    const others: Files = {};
    for (let i = 0; i < 201; i++)
      others[`svc${String(i).padStart(3, '0')}/registry.json`] = `{ "schemas": [ { "urn": "urn:t:svc${i}", "schema": "s.json" } ] }\n`;
    const dir = repo(others, { 'new/registry.json': json(), 'new/schemas/a.json': NEW_A, 'new/schemas/b.json': SCHEMA_B });
    expectOneLineError(
      await bq(['compat', '--against', 'main'], { cwd: join(dir, 'new') }),
      /^bqschema: no registry found at main .* in new or its parents, /,
    );
    const r = await bq(['compat', '--against', 'main', '--allow-new-registry', '-f', 'json'], { cwd: join(dir, 'new') });
    expectExit(r, 0);
    expect(against(r)).toMatchObject({ found: false });
  });

  it('--allow-new-registry never hides a registry that is there: the rename is still compared', async () => {
    const dir = repo(BASE, { 'registry.json': null, 'registry.yaml': yaml(), 'schemas/a.json': NEW_A });
    const r = await bq(['compat', '--against', 'main', '--allow-new-registry', '-f', 'json'], { cwd: dir });
    expectCaught(r);
  });
});
