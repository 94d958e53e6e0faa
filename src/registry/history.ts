import { spawnSync } from 'node:child_process';
import { dirname, relative, sep } from 'node:path';
import { parseText } from './parse.js';
import type { Registry } from './registry.js';

/** One commit that changed a URN's schema file: the document before (absent when added) and after. */
export interface SchemaChange {
  commit: string;
  /** Commit date, YYYY-MM-DD. */
  date: string;
  /** The commit's author name. */
  author: string;
  subject: string;
  before: unknown;
  after: unknown;
  /** Whether `before` exists (false: the file was added in this commit). */
  existed: boolean;
}

function git(cwd: string, args: string[]): string | undefined {
  // Killed after a minute (history is a courtesy: a git that stalls gives none, never a hung command).
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return r.status === 0 ? r.stdout : undefined;
}

/**
 * The last `limit` commits that changed the schema file of `urn` in the working tree's repository,
 * newest first, with the document on each side (unparseable sides are skipped). Empty when the
 * registry is not in a git repository or git is missing: history is a courtesy, never an error.
 */
export function schemaHistory(registry: Registry, urn: string, limit = 10): SchemaChange[] {
  let path: string;
  try {
    path = registry.file(urn).path;
  } catch {
    return [];
  }
  const cwd = dirname(path);
  const top = git(cwd, ['rev-parse', '--show-toplevel'])?.trim();
  if (top === undefined || top === '') return [];
  const rel = relative(top, path).split(sep).join('/');
  if (rel.startsWith('..')) return [];
  const log = git(top, ['log', `-n${limit}`, '--format=%H%x00%cs%x00%an%x00%s', '--', rel]);
  if (log === undefined) return [];
  const changes: SchemaChange[] = [];
  for (const line of log.split('\n')) {
    if (line === '') continue;
    const [commit, date, author, subject] = line.split('\0') as [string, string, string, string];
    const show = (rev: string): { ok: boolean; value?: unknown } => {
      const text = git(top, ['show', `${rev}:${rel}`]);
      if (text === undefined) return { ok: false };
      try {
        return { ok: true, value: parseText(text, rel, undefined, registry.parseOptions) };
      } catch {
        return { ok: false };
      }
    };
    const after = show(commit);
    if (!after.ok) continue; // deleted, or unparseable, at that commit
    const before = show(`${commit}^`);
    changes.push({ commit, date, author, subject, before: before.value, after: after.value, existed: before.ok });
  }
  return changes;
}

/**
 * How many distinct versions the schema file of `urn` has had in the working tree's repository
 * (distinct contents, from the commit that added it, following its current path), counting the
 * working tree's when it differs from every committed one; undefined outside git. One `git log`.
 */
export function versionCount(registry: Registry, urn: string): number | undefined {
  let path: string;
  try {
    path = registry.file(urn).path;
  } catch {
    return undefined;
  }
  const cwd = dirname(path);
  const top = git(cwd, ['rev-parse', '--show-toplevel'])?.trim();
  if (top === undefined || top === '') return undefined;
  const rel = relative(top, path).split(sep).join('/');
  if (rel.startsWith('..')) return undefined;
  // Each commit's resulting blob of the file (`--raw`'s new id; all zeros when it was deleted).
  const log = git(top, ['log', '--format=', '--raw', '--no-abbrev', '--no-renames', '--', rel]);
  if (log === undefined) return undefined;
  const blobs = new Set<string>();
  for (const line of log.split('\n')) {
    const m = /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) /.exec(line);
    if (m && !/^0+$/.test(m[1]!)) blobs.add(m[1]!);
  }
  const working = git(top, ['hash-object', '--', rel])?.trim();
  if (working !== undefined && working !== '') blobs.add(working);
  return blobs.size;
}
