import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// The README's install, as written, in a project a team shares: one machine runs it and commits;
// another clones the commit and runs `npm ci` with an empty npm cache. The README's first line
// (clone bqschema from GitHub, npm ci, npm pack) needs the network, so this checkout's build is
// packed in its place, to the same file; every other line runs verbatim in bash.

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const block = /## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
const lines = block.trimEnd().split('\n');

// npm under `npm test` describes this repository (npm_config_local_prefix, npm_package_*): the
// projects must see only themselves. Each machine gets an npm cache of its own, empty at first.
function env(cache: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_|^INIT_CWD$/i.test(k)) e[k] = v;
  return {
    ...e,
    npm_config_cache: cache,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    NO_COLOR: '1',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
}

function sh(script: string, cwd: string, cache: string): { code: number | null; out: string } {
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd,
    env: env(cache),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

let work = '';
let first: { code: number | null; out: string } | undefined;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-install-shared-'));
  // The first line's result: a clone named bqschema holding the packed tarball.
  expect(lines[0]).toBe('git clone https://github.com/babelqueue/bqschema && (cd bqschema && npm ci && npm pack)');
  mkdirSync(join(work, 'bqschema'));
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', join(work, 'bqschema')], {
    cwd: ROOT,
    env: env(join(work, 'cache-pack')),
    encoding: 'utf8',
  });
  expect(packed.status, packed.stderr).toBe(0);
  expect(existsSync(join(work, 'bqschema', `bqschema-${pkg.version}.tgz`))).toBe(true);
  // The team's project: a git repository with a package.json, next to the clone.
  const project = join(work, 'your-project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'your-project', version: '1.0.0', private: true }, null, 2)}\n`);
  writeFileSync(join(project, '.gitignore'), 'node_modules/\n');
  expect(sh('git init -q && git add -A && git commit -qm project', project, join(work, 'cache-a')).code).toBe(0);
  // Every other line of the README, verbatim, from the directory holding both.
  first = sh(lines.slice(1).join('\n'), work, join(work, 'cache-a'));
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the README's install, shared through git", () => {
  it('runs as written: bqschema installed, init scaffolds, check passes', () => {
    expect(first!.code, first!.out).toBe(0);
    expect(first!.out).toMatch(/created registry\.json/);
    expect(first!.out).toMatch(/^OK: 1 URN\(s\), 0 error\(s\), 0 warning\(s\)/m);
    const manifest = JSON.parse(readFileSync(join(work, 'your-project', 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies.bqschema).toBe(`file:vendor/bqschema-${pkg.version}.tgz`);
  });

  it("survives a teammate's (or CI's) npm ci: a fresh clone on another machine, with an empty npm cache and no clone of bqschema", () => {
    const project = join(work, 'your-project');
    // What the README had git add, committed; the rest of the work tree stays on the first machine.
    expect(sh('git commit -qm "add bqschema"', project, join(work, 'cache-a')).code).toBe(0);
    const other = join(work, 'other-machine');
    mkdirSync(other);
    expect(sh(`git clone -q ${JSON.stringify(project)} project`, other, join(work, 'cache-b')).code).toBe(0);
    const clone = join(other, 'project');
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);
    const cache = join(work, 'cache-b');
    expect(existsSync(cache)).toBe(false); // nothing cached on this machine yet
    const ci = sh('npm ci --loglevel=error', clone, cache);
    expect(ci.code, ci.out).toBe(0);
    const version = sh('npx --no-install bqschema --version', clone, cache);
    expect(version.out.trim()).toBe(pkg.version);
    // The same package the first machine installed: the lockfile's checksum held.
    const lock = JSON.parse(readFileSync(join(clone, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; integrity?: string }>;
    };
    expect(lock.packages['node_modules/bqschema']!.resolved).toBe(`file:vendor/bqschema-${pkg.version}.tgz`);
    expect(lock.packages['node_modules/bqschema']!.integrity).toMatch(/^sha512-/);
    expect(readFileSync(join(clone, 'node_modules', 'bqschema', 'package.json'), 'utf8')).toBe(
      readFileSync(join(project, 'node_modules', 'bqschema', 'package.json'), 'utf8'),
    );
  });
});
