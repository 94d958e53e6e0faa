import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { bq, expectExit, expectOneLineError, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

const FILES = ['registry.json', 'schemas/orders-created.json', 'messages/orders-created.json', '.github/workflows/bqschema.yml'];

/** Every file under dir, relative, sorted. */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => !readdirSafe(join(dir, f))).sort();
}
function readdirSafe(path: string): boolean {
  try {
    readdirSync(path);
    return true;
  } catch {
    return false;
  }
}

describe('bqschema init', () => {
  it('in an empty directory: init, then check and validate the example message all exit 0', async () => {
    const dir = tempTree({});
    // No bqschema on PATH (a local install): the next step goes through npx.
    const init = await bq(['init'], { cwd: dir, env: { PATH: join(dir, 'no-bin') } });
    expectExit(init, 0);
    expect(init.stderr).toBe('');
    expect(init.stdout).toBe(
      FILES.map((f) => `created ${f}`).join('\n') + '\n\nnext: npx bqschema check && npx bqschema validate messages/orders-created.json\n',
    );
    expect(tree(dir)).toEqual([...FILES].sort());

    // Discovery finds the new registry.json: no --registry needed.
    const check = await bq(['check'], { cwd: dir });
    expectExit(check, 0);
    expect(check.stdout).toContain('OK: 1 URN(s), 0 error(s), 0 warning(s)');
    expect(check.stderr).toBe('');
    const validate = await bq(['validate', 'messages/orders-created.json'], { cwd: dir });
    expectExit(validate, 0);
    expect(validate.stdout).toContain('1 valid, 0 invalid, 0 skipped, 0 errors');
    // --strict: the message's URN really has the scaffolded schema (not skipped as unregistered).
    expectExit(await bq(['validate', '--strict', 'messages/'], { cwd: dir }), 0);
  });

  it('the manifest points editors at the packaged registry.schema.json', () => {
    const dir = tempTree({});
    return bq(['init', dir]).then((r) => {
      expectExit(r, 0);
      const manifest = JSON.parse(readFileSync(join(dir, 'registry.json'), 'utf8'));
      expect(manifest.$schema).toBe('./node_modules/bqschema/registry.schema.json');
      // The package exports that file, so the relative path resolves once bqschema is installed.
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
      expect(pkg.exports['./registry.schema.json']).toBe('./registry.schema.json');
      expect(pkg.files).toContain('registry.schema.json');
    });
  });

  it('the workflow runs check, validate --strict (a misspelt URN fails) and compat --against origin/main with the full history', async () => {
    const dir = tempTree({});
    expectExit(await bq(['init', dir]), 0);
    const wf = YAML.parse(readFileSync(join(dir, '.github/workflows/bqschema.yml'), 'utf8'));
    const steps = wf.jobs.schemas.steps as Array<{ uses: string; with?: Record<string, unknown> }>;
    expect(steps[0]!.uses).toBe('actions/checkout@v5'); // the first major on the node24 runtime
    expect(steps[0]!.with!['fetch-depth']).toBe(0);
    const runs = steps.slice(1).map((s) => [s.with!.command, s.with!.args ?? '']);
    expect(runs).toEqual([
      ['check', ''],
      ['validate', '--strict messages/'],
      // The pull request that adds the registry has none at main: counted as new, not an error.
      ['compat', '--against origin/main --allow-new-registry'],
    ]);
    // The action is this repository, as package.json names it, pinned to the release tag of the
    // version that wrote the workflow (scripts/action-release.js makes v<version>).
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const repo = /github\.com\/([^/]+\/[^/.]+)(\.git)?$/.exec(pkg.repository.url)![1];
    for (const s of steps.slice(1)) expect(s.uses).toBe(`${repo}@v${pkg.version}`);
    // Each step's inputs are ones action.yml declares.
    const action = YAML.parse(readFileSync(join(ROOT, 'action.yml'), 'utf8'));
    for (const s of steps.slice(1)) for (const k of Object.keys(s.with!)) expect(Object.keys(action.inputs)).toContain(k);
  });

  it('init <dir> creates the directory and names its files relative to the working directory', async () => {
    const parent = tempTree({});
    const r = await bq(['init', 'team/registry'], { cwd: parent });
    expectExit(r, 0);
    expect(r.stdout).toContain('created team/registry/registry.json\n');
    expect(r.stdout).toMatch(/^next: cd team\/registry && (npx )?bqschema check/m);
    expectExit(await bq(['check'], { cwd: join(parent, 'team/registry') }), 0);
  });

  it('refuses to overwrite any existing file: exit 2, one line, nothing written', async () => {
    for (const existing of FILES) {
      const dir = tempTree({ [existing]: 'mine\n' });
      const r = await bq(['init'], { cwd: dir });
      expectOneLineError(r, new RegExp(`^bqschema: refusing to overwrite ${existing.replace(/\./g, '\\.')}; nothing was written$`));
      expect(r.stdout).toBe('');
      expect(tree(dir)).toEqual([existing]);
      expect(readFileSync(join(dir, existing), 'utf8')).toBe('mine\n');
    }
  });

  it('a dangling symlink counts as existing (writing would go through it)', async () => {
    const dir = tempTree({});
    symlinkSync(join(dir, 'elsewhere.json'), join(dir, 'registry.json'));
    expectOneLineError(await bq(['init'], { cwd: dir }), /refusing to overwrite registry\.json/);
    expect(existsSync(join(dir, 'elsewhere.json'))).toBe(false);
  });

  it('a second init in the same directory refuses and changes nothing', async () => {
    const dir = tempTree({});
    expectExit(await bq(['init'], { cwd: dir }), 0);
    writeFileSync(join(dir, 'registry.json'), '{"schemas":[]}\n');
    const again = await bq(['init'], { cwd: dir });
    expectOneLineError(
      again,
      /refusing to overwrite registry\.json, schemas\/orders-created\.json, messages\/orders-created\.json, \.github\/workflows\/bqschema\.yml/,
    );
    expect(readFileSync(join(dir, 'registry.json'), 'utf8')).toBe('{"schemas":[]}\n');
  });

  it('a dir that is a file is a usage error', async () => {
    const dir = tempTree({ 'plain.txt': 'x' });
    expectOneLineError(
      await bq(['init', 'plain.txt'], { cwd: dir }),
      /cannot initialise plain\.txt: it is not a directory; nothing was written/,
    );
  });
});
