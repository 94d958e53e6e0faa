import { spawnSync } from 'node:child_process';
import { dirname, relative, sep } from 'node:path';
import { parseText } from './parse.js';
import type { Registry } from './registry.js';

/** One commit that changed a URN's schema file: the document before (absent when added) and after. */
export interface SchemaChange {
  commit: string;
  /** Commit date, YYYY-MM-DD. */
  date: string;
  subject: string;
  before: unknown;
  after: unknown;
  /** Whether `before` exists (false: the file was added in this commit). */
  existed: boolean;
}

function git(cwd: string, args: string[]): string | undefined {
  // Killed after a minute (history is a courtesy: a git that stalls gives none, never a hung command).
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024, timeout: 60_000, killSignal: 'SIGKILL' });
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
  const log = git(top, ['log', `-n${limit}`, '--format=%H%x00%cs%x00%s', '--', rel]);
  if (log === undefined) return [];
  const changes: SchemaChange[] = [];
  for (const line of log.split('\n')) {
    if (line === '') continue;
    const [commit, date, subject] = line.split('\0') as [string, string, string];
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
    changes.push({ commit, date, subject, before: before.value, after: after.value, existed: before.ok });
  }
  return changes;
}
