import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { BIN, bq, expectExit, expectOneLineError, removeTempTrees, ROOT, tempTree, type CliResult } from '../helpers/cli.js';

afterAll(removeTempTrees);

const FILES = ['registry.json', 'schemas/orders-created.json', 'messages/orders-created.json', '.github/workflows/bqschema.yml'];

/** Every entry under dir (files, directories, symlinks, FIFOs) with its kind, sorted; `.git` left out. */
function snapshot(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f !== '.git' && !f.startsWith('.git/'))
    .map((f) => {
      const st = lstatSync(join(dir, f));
      const kind = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFIFO() ? 'fifo' : 'file';
      return `${f} ${kind}${kind === 'file' ? ' ' + readFileSync(join(dir, f), 'utf8') : ''}`;
    })
    .sort();
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
}

/** The built CLI under a file-size limit of `blocks` × 512 bytes (bash --posix counts ulimit -f in 512-byte blocks). */
function bqLimited(args: string[], cwd: string, blocks: number): Promise<CliResult> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((done, fail) => {
    const child = spawn('bash', ['--posix', '-c', `ulimit -f ${blocks} && exec ${quoted}`], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end();
  });
}

/** A limit (in 512-byte blocks) under which init writes its first three files and fails on the workflow. */
async function limitFailingOnWorkflow(): Promise<number> {
  const probe = tempTree({});
  expectExit(await bq(['init'], { cwd: probe }), 0);
  const sizes = FILES.map((f) => lstatSync(join(probe, f)).size);
  const blocks = Math.ceil(Math.max(...sizes.slice(0, 3)) / 512);
  // The workflow is written last and is the largest file: the limit lets the others through.
  expect(sizes[3]!, 'the workflow must be larger than the limit the other files fit in').toBeGreaterThan(blocks * 512);
  return blocks;
}

describe('init is all or nothing', () => {
  it('a write that fails midway removes every file and directory it created, keeps what was there, and a rerun succeeds', async () => {
    const blocks = await limitFailingOnWorkflow();
    // messages/ existed before (the user's own, empty): it must survive; schemas/ and .github/ are init's.
    const dir = tempTree({ 'README.md': 'mine\n' });
    mkdirSync(join(dir, 'messages'));
    const before = snapshot(dir);
    const r = await bqLimited(['init'], dir, blocks);
    expectOneLineError(r, /^bqschema: cannot write \.github\/workflows\/bqschema\.yml: file too large \(EFBIG\); nothing was written$/);
    expect(r.stdout).toBe('');
    expect(snapshot(dir)).toEqual(before);
    // Nothing is left behind to refuse: the same command without the limit succeeds.
    expectExit(await bq(['init'], { cwd: dir }), 0);
    expect(FILES.every((f) => existsSync(join(dir, f)))).toBe(true);
  });

  it('in a repository subdirectory it created, a failure removes that subdirectory and the root .github/ too', async () => {
    const blocks = await limitFailingOnWorkflow();
    const repo = tempTree({ 'package.json': '{}\n' });
    git(repo, 'init', '-q');
    const before = snapshot(repo);
    const r = await bqLimited(['init', 'services/orders'], repo, blocks);
    expectOneLineError(r, /^bqschema: cannot write \.github\/workflows\/bqschema\.yml: file too large \(EFBIG\); nothing was written$/);
    expect(snapshot(repo)).toEqual(before);
  });

  it('a path component that is not a directory is named as such (not EEXIST), and nothing is written', async () => {
    const cases: Array<[string, (dir: string) => void]> = [
      ['schemas', (d) => writeFileSync(join(d, 'schemas'), 'x')],
      ['messages', (d) => expect(spawnSync('mkfifo', [join(d, 'messages')]).status).toBe(0)],
      ['.github', (d) => writeFileSync(join(d, '.github'), 'x')],
      ['.github/workflows', (d) => (mkdirSync(join(d, '.github')), writeFileSync(join(d, '.github', 'workflows'), 'x'))],
    ];
    for (const [name, make] of cases) {
      const dir = tempTree({});
      make(dir);
      const before = snapshot(dir);
      const r = await bq(['init'], { cwd: dir });
      expectOneLineError(
        r,
        new RegExp(`^bqschema: cannot initialise \\.: ${name.replace(/\./g, '\\.')} exists and is not a directory; nothing was written$`),
      );
      expect(r.stdout).toBe('');
      expect(snapshot(dir), name).toEqual(before);
    }
  });

  it('an existing registry.jsonc, .yaml or .yml is refused by name, not shadowed by a new registry.json', async () => {
    for (const name of ['registry.jsonc', 'registry.yaml', 'registry.yml']) {
      const dir = tempTree({ [name]: 'schemas: []\n' });
      const before = snapshot(dir);
      const r = await bq(['init'], { cwd: dir });
      expectOneLineError(
        r,
        new RegExp(
          `^bqschema: cannot initialise \\.: a registry is already here: ${name.replace(/\./g, '\\.')} \\(.*shadow.*\\); edit it instead; nothing was written$`,
        ),
      );
      expect(snapshot(dir)).toEqual(before);
    }
  });

  it('never writes through a symlinked schemas/, messages/, .github/ or .github/workflows/ that leads outside the target', async () => {
    for (const link of ['schemas', 'messages', '.github', '.github/workflows']) {
      const outside = tempTree({ 'keep.txt': 'outside\n' });
      const dir = tempTree({});
      if (link === '.github/workflows') mkdirSync(join(dir, '.github'));
      symlinkSync(outside, join(dir, link));
      const [beforeInside, beforeOutside] = [snapshot(dir), snapshot(outside)];
      const r = await bq(['init'], { cwd: dir });
      expectOneLineError(
        r,
        new RegExp(
          `^bqschema: cannot initialise \\.: ${link.replace(/\./g, '\\.')} is a symbolic link to .*, outside \\.: init writes only inside it; nothing was written$`,
        ),
      );
      expect(snapshot(outside), link).toEqual(beforeOutside);
      expect(snapshot(dir), link).toEqual(beforeInside);
    }
  });

  it('a dangling or looping symlinked directory is refused, and one that stays inside the target is followed', async () => {
    const dangling = tempTree({});
    symlinkSync(join(dangling, 'nowhere'), join(dangling, 'schemas'));
    expectOneLineError(
      await bq(['init'], { cwd: dangling }),
      /^bqschema: cannot initialise \.: schemas is a symbolic link that cannot be followed: .*\(ENOENT\); nothing was written$/,
    );
    expect(existsSync(join(dangling, 'nowhere'))).toBe(false);
    const loop = tempTree({});
    symlinkSync('messages', join(loop, 'messages'));
    expectOneLineError(
      await bq(['init'], { cwd: loop }),
      /^bqschema: cannot initialise \.: messages is a symbolic link that cannot be followed: .*\(ELOOP\); nothing was written$/,
    );
    expect(snapshot(loop)).toEqual(['messages link']);

    const inside = tempTree({});
    mkdirSync(join(inside, 'defs'));
    symlinkSync('defs', join(inside, 'schemas'));
    expectExit(await bq(['init'], { cwd: inside }), 0);
    expect(existsSync(join(inside, 'defs', 'orders-created.json'))).toBe(true);
    expectExit(await bq(['check'], { cwd: inside }), 0);
  });
});

describe('init tells the command that will work', () => {
  const next = async (path: string): Promise<string> => {
    const dir = tempTree({});
    const r = await bq(['init'], { cwd: dir, env: { PATH: path } });
    expectExit(r, 0);
    return /^next: (.*)$/m.exec(r.stdout)![1]!;
  };
  const withBin = (sub: string, mode = 0o755): string => {
    const dir = join(tempTree({}), sub);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bqschema'), '#!/bin/sh\n');
    chmodSync(join(dir, 'bqschema'), mode);
    return dir;
  };

  it('bqschema when an executable bqschema is on PATH', async () => {
    expect(await next(withBin('bin'))).toBe('bqschema check && bqschema validate messages/orders-created.json');
  });

  it('npx bqschema when it is not, or only in a node_modules/.bin (which npm and npx add for their run only), or not executable', async () => {
    const npx = 'npx bqschema check && npx bqschema validate messages/orders-created.json';
    expect(await next(join(tempTree({}), 'empty'))).toBe(npx);
    expect(await next(withBin('node_modules/.bin'))).toBe(npx);
    expect(await next(withBin('bin', 0o644))).toBe(npx);
  });
});

describe('init in a subdirectory of a git repository', () => {
  /** Each Action step of a workflow: its command, then the argv and working directory action.yml builds from its inputs. */
  function actionSteps(workflowText: string, repo: string): Array<{ argv: string[]; cwd: string }> {
    const wf = YAML.parse(workflowText) as { jobs: { schemas: { steps: Array<{ uses: string; with?: Record<string, string> }> } } };
    return wf.jobs.schemas.steps
      .filter((s) => s.uses.startsWith('babelqueue/bqschema@'))
      .map((s) => {
        const w = s.with!;
        const argv = [
          w.command!,
          ...(w.registry ? ['--registry', w.registry] : []),
          '--format',
          'github',
          ...(w.args ?? '').split(/\s+/).filter(Boolean),
        ];
        return { argv, cwd: resolve(repo, w.dir ?? '.') };
      });
  }

  for (const sub of ['services/orders', 'my services/orders']) {
    it(`puts the workflow at the repository root, running the registry in ${sub}; $schema resolves from the registry`, async () => {
      const repo = tempTree({ 'package.json': '{}\n' });
      // bqschema installed at the repository root, as a dependency of the project would be.
      mkdirSync(join(repo, 'node_modules'));
      symlinkSync(ROOT, join(repo, 'node_modules', 'bqschema'));
      git(repo, 'init', '-q');
      const target = join(repo, sub);
      mkdirSync(target, { recursive: true });
      const r = await bq(['init'], { cwd: target });
      expectExit(r, 0);
      expect(r.stdout).toContain(`created ${join(repo, '.github/workflows/bqschema.yml')}\n`);
      expect(r.stdout).toContain(
        `note: the workflow is at the repository root, where GitHub reads workflows; its steps run the registry in ${sub}\n`,
      );
      expect(existsSync(join(target, '.github'))).toBe(false);

      const manifest = JSON.parse(readFileSync(join(target, 'registry.json'), 'utf8'));
      expect(manifest.$schema).toBe('../../node_modules/bqschema/registry.schema.json');
      expect(existsSync(resolve(target, manifest.$schema))).toBe(true);

      // The steps, run the way the Action runs them from the repository root, pass.
      git(repo, 'add', '-A');
      git(repo, 'commit', '-qm', 'registry');
      git(repo, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
      const steps = actionSteps(readFileSync(join(repo, '.github/workflows/bqschema.yml'), 'utf8'), repo);
      expect(steps.map((s) => s.argv[0])).toEqual(['check', 'validate', 'compat']);
      expect(steps[1]!.argv).toContain('--strict');
      for (const step of steps) {
        const run = await bq(step.argv, { cwd: step.cwd });
        expectExit(run, 0);
        expect(run.stdout).not.toContain('::error');
      }
      // --strict: a misspelt URN fails the validate step instead of being skipped.
      writeFileSync(join(target, 'messages', 'typo.json'), JSON.stringify({ job: 'urn:babel:orders:craeted', data: {} }));
      expectExit(await bq(steps[1]!.argv, { cwd: steps[1]!.cwd }), 1);
    });
  }

  it('at the repository root the workflow is beside the registry, with plain paths', async () => {
    const repo = tempTree({});
    git(repo, 'init', '-q');
    const r = await bq(['init'], { cwd: repo });
    expectExit(r, 0);
    expect(r.stdout).not.toContain('note:');
    const wf = readFileSync(join(repo, '.github/workflows/bqschema.yml'), 'utf8');
    expect(wf).not.toMatch(/registry:|dir:/);
    expect(wf).toContain('args: --strict messages/');
  });

  it('refuses a subdirectory whose path GitHub would evaluate (${{ }}) in the workflow, writing nothing', async () => {
    const repo = tempTree({});
    git(repo, 'init', '-q');
    const before = snapshot(repo);
    const r = await bq(['init', 'x${{ secrets.TOKEN }}'], { cwd: repo });
    expectOneLineError(
      r,
      /^bqschema: cannot initialise x\$\{\{ secrets\.TOKEN \}\}: its path from the repository root cannot go into a workflow .*; nothing was written$/,
    );
    expect(snapshot(repo)).toEqual(before);
  });

  it('refuses to overwrite a workflow already at the repository root, and writes nothing in the subdirectory', async () => {
    const repo = tempTree({ '.github/workflows/bqschema.yml': 'mine\n' });
    git(repo, 'init', '-q');
    const before = snapshot(repo);
    const r = await bq(['init', 'services/orders'], { cwd: repo });
    expectOneLineError(r, /^bqschema: refusing to overwrite \.github\/workflows\/bqschema\.yml; nothing was written$/);
    expect(snapshot(repo)).toEqual(before);
  });
});
