import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempTree } from './cli.js';

/*
 * Real git repositories in temporary directories, built commit by commit: what the history tests
 * read. Every git runs with the system config ignored and `safe.directory=*`, so the tests pass as
 * root or not, whoever owns the temporary directory.
 */

export type Files = Record<string, string | null>;

const ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'History Test',
  GIT_AUTHOR_EMAIL: 'history@example.invalid',
  GIT_COMMITTER_NAME: 'History Test',
  GIT_COMMITTER_EMAIL: 'history@example.invalid',
};

export function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'safe.directory=*', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', env: ENV });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Writes (or, for null, deletes) files under `dir`. */
function apply(dir: string, files: Files): void {
  for (const [name, contents] of Object.entries(files)) {
    const full = join(dir, name);
    if (contents === null) rmSync(full, { force: true });
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, contents);
    }
  }
}

/** A repository on branch `main`; `commit` applies files and commits them with a fixed date per commit. */
export class Repo {
  readonly dir: string;
  private n = 0;
  constructor(dir?: string) {
    this.dir = dir ?? tempTree({});
    git(this.dir, 'init', '-q', '-b', 'main');
  }

  /** Applies `files`, commits everything, and returns the commit's id. Dates: 2026-01-01 plus a day per commit. */
  commit(files: Files, message = `commit ${this.n + 1}`): string {
    apply(this.dir, files);
    const day = new Date(Date.UTC(2026, 0, 1 + this.n++)).toISOString();
    spawnSync('git', ['-c', 'safe.directory=*', 'add', '-A'], { cwd: this.dir, env: ENV });
    const r = spawnSync('git', ['-c', 'safe.directory=*', '-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', message], {
      cwd: this.dir,
      encoding: 'utf8',
      env: { ...ENV, GIT_AUTHOR_DATE: day, GIT_COMMITTER_DATE: day },
    });
    if (r.status !== 0) throw new Error(`git commit failed: ${r.stderr}`);
    return git(this.dir, 'rev-parse', 'HEAD');
  }

  git(...args: string[]): string {
    return git(this.dir, ...args);
  }
}

/** A manifest registering `urns` (each URN's schema file named by `files`, default `<name>.json`). */
export function manifest(entries: Record<string, string>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify(
    { schemas: Object.entries(entries).map(([urn, schema]) => ({ urn, schema, ...(extra[urn] as object | undefined) })) },
    null,
    2,
  );
}

/** An object schema with the given properties (each a JSON Schema), none required. */
export const objectSchema = (properties: Record<string, unknown>, more: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: 'object', properties, ...more }, null, 2);
