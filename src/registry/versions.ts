import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { canonicalKey, isSchemaObject } from '../validator/index.js';
import { findManifestAtRef } from './at-ref.js';
import { EncodingError } from './text.js';
import { GitError } from './errors.js';
import { CatFile, git, gitFields, GitSnapshot, GIT_TIMEOUT_MS, type TreeChanges } from './git.js';
import { readManifest, type ManifestEntry } from './manifest.js';
import { parseText, ParseFailure, type ParseOptions } from './parse.js';

/*
 * Every distinct version of every URN's schema, read from git history: the registry's commits,
 * newest first, each read through one long-lived `git cat-file --batch` (no process per blob, no
 * checkout). A URN is followed by its name, not by a path: at each commit its manifest is found
 * where the newer commit had it, or where it moved from (at-ref.ts's rules, with the renames
 * between the two commits), and each URN's schema is wherever that manifest says. Two schemas that
 * are equal as JSON values (key order, formatting, `1` and `1.0` aside) are one version. What is
 * kept is the versions; a commit that changes nothing of a URN costs a tree lookup and is gone.
 */

/** One distinct schema of a URN. */
interface SchemaVersion {
  urn: string;
  /** Its place in the URN's history: 1 is the oldest read. */
  version: number;
  value: unknown;
  /** `canonicalKey(value)`: what makes two versions one. */
  key: string;
  /**
   * The oldest commit read that has it (its first registration when the history was read to the
   * registry's start); undefined for a schema only the working tree has.
   */
  commit?: string;
  /** That commit's committer date (ISO 8601). */
  date?: string;
  /** The schema file's repository path there. */
  path: string;
}

/** A schema that could not be read at some commit: skipped, and said. */
interface UnreadableVersion {
  urn: string;
  commit: string;
  path: string;
  message: string;
}

export interface History {
  /** The repository's top level. */
  top: string;
  /** Commits read. */
  commits: number;
  /** The window's start (`--since`, or `--against`'s base), inclusive; undefined: the whole history. */
  since?: { ref: string; commit: string; date: string };
  /** Each URN's versions, oldest first (URNs the working tree no longer registers included). */
  versions: Map<string, SchemaVersion[]>;
  /** Schemas that could not be read or parsed at some commit (at most MAX_UNREADABLE listed). */
  unreadable: UnreadableVersion[];
}

export interface HistoryOptions {
  /** The working manifest (a file path). */
  manifestPath: string;
  /** The window's start: a ref whose commit is an ancestor of `tip`; read inclusive. Default: the whole history. */
  since?: string;
  /**
   * `since` is the base a branch is compared with (`compat --against`): when it is no ancestor of
   * the tip (the base moved on), the window starts at their merge base.
   */
  sinceBase?: boolean;
  /** The newest commit read (default HEAD). */
  tip?: string;
  /** Walk every parent of a merge too (default: first parents only, the branch's own line). */
  allParents?: boolean;
  /** The working tree's schemas: the newest state, before any commit. */
  working?: ReadonlyArray<{ urn: string; value: unknown; path: string }>;
  allowOutsidePaths?: boolean;
  parseOptions?: ParseOptions;
}

const MAX_UNREADABLE = 100;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A ref that git could take for an option, or that holds control characters, is refused. */
function checkRef(ref: string, what: string): void {
  if (ref === '' || ref.startsWith('-') || /[\u0000-\u001f\u007f]/.test(ref))
    throw new GitError(`${what}: not a git ref: ${JSON.stringify(ref)}`);
}

function commitOf(top: string, ref: string, what: string): string {
  checkRef(ref, what);
  const r = git(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!r.ok || !SHA.test(r.stdout))
    throw new GitError(
      `${what}: unknown git ref: ${ref} (not a commit in this repository; in CI, fetch it first, e.g. with fetch-depth: 0)`,
    );
  return r.stdout;
}

/** The repository's top level, or a one-line GitError: no git, or not in a repository. */
function topLevel(dir: string): string {
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  if (!top.ok || top.stdout === '') {
    const why =
      /not a git repository/i.test(top.stderr) || top.stderr === '' ? `${dir} is not in a git repository` : top.stderr.split('\n')[0]!;
    throw new GitError(`cannot read the registry's history: ${why}`);
  }
  return top.stdout;
}

/** The commits a shallow clone was cut at (their parents are missing), or none in a full clone. */
function shallowBoundary(top: string): Set<string> {
  const shallow = git(top, ['rev-parse', '--is-shallow-repository']);
  if (!shallow.ok || shallow.stdout !== 'true') return new Set();
  const file = git(top, ['rev-parse', '--git-path', 'shallow']);
  if (!file.ok) return new Set();
  try {
    const path = isAbsolute(file.stdout) ? file.stdout : join(top, file.stdout);
    return new Set(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => SHA.test(l)),
    );
  } catch {
    return new Set();
  }
}

/** A directory as a repository path ('' for the top level). */
function inRepo(path: string, top: string): string {
  let real: string;
  try {
    real = join(realpathSync(dirname(path)), basename(path));
  } catch {
    real = path;
  }
  const rel = relative(top, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new GitError(`the registry manifest is not inside the git repository at ${top}: ${path}`);
  return rel.split(sep).join('/');
}

/** `git log`'s commits, newest first, one at a time (never the whole list in memory). */
async function* commits(top: string, args: string[]): AsyncGenerator<{ commit: string; date: string }> {
  const child = spawn('git', ['log', '--format=%H %cI', ...args], { cwd: top, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let failed: Error | undefined;
  child.stderr.on('data', (c: Buffer) => {
    if (stderr.length < 4096) stderr += c.toString('utf8');
  });
  child.on('error', (err) => {
    failed = new GitError(
      (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed (or not on PATH)' : `cannot run git log: ${err.message}`,
    );
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), GIT_TIMEOUT_MS * 10);
  try {
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      const space = line.indexOf(' ');
      if (space === -1) continue;
      yield { commit: line.slice(0, space), date: line.slice(space + 1) };
    }
    const code = await closed;
    if (failed) throw failed;
    if (code !== 0) throw new GitError(`git log failed: ${stderr.trim().split('\n')[0] ?? `exit ${code}`}`);
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** What is known of one URN while the walk goes back. */
interface Trail {
  /** The blob its schema was at the newer commit read: the same blob is the same version. */
  lastOid?: string;
  lastVersion?: Building;
  byKey: Map<string, Building>;
}

interface Building {
  value: unknown;
  key: string;
  commit?: string;
  date?: string;
  path: string;
  /** Walk position of the oldest commit that has it (-1: the working tree only). */
  oldest: number;
}

/** The version is at walk position `at` too: the oldest place it is known at moves back. */
function touch(b: Building, at: number, path: string, commit: string | undefined, date: string | undefined): void {
  if (at < b.oldest) return;
  b.oldest = at;
  if (commit === undefined) return;
  b.commit = commit;
  b.date = date;
  b.path = path;
}

/**
 * Reads every distinct version of every URN from the repository that holds the manifest. Without
 * git, outside a repository, with a `since` that is no ancestor of the tip, or in a shallow clone
 * whose cut the history needs, a one-line GitError (exit 2): never a silent partial history.
 */
export async function readHistory(options: HistoryOptions): Promise<History> {
  const top = topLevel(dirname(options.manifestPath));
  const tip = commitOf(top, options.tip ?? 'HEAD', 'history');
  let since: History['since'];
  if (options.since !== undefined) {
    const what = options.sinceBase ? '--against' : '--since';
    let commit = commitOf(top, options.since, what);
    let ancestor = git(top, ['merge-base', '--is-ancestor', commit, tip]);
    if (!ancestor.ok && options.sinceBase) {
      const mergeBase = git(top, ['merge-base', commit, tip]);
      if (mergeBase.ok && SHA.test(mergeBase.stdout)) {
        commit = mergeBase.stdout;
        ancestor = mergeBase;
      }
    }
    if (!ancestor.ok)
      throw new GitError(
        `${what} ${options.since} (${commit.slice(0, 12)}) ${options.sinceBase ? 'shares no history with' : 'is not an ancestor of'} ${options.tip ?? 'HEAD'}: the transitive window must start in its history`,
      );
    const date = git(top, ['show', '-s', '--format=%cI', commit]).stdout;
    since = { ref: options.since, commit, date };
  }
  const boundary = shallowBoundary(top);
  const parse = (text: string, path: string): unknown => parseText(text, path, undefined, options.parseOptions ?? {});
  const trails = new Map<string, Trail>();
  const trail = (urn: string): Trail => {
    let t = trails.get(urn);
    if (t === undefined) trails.set(urn, (t = { byKey: new Map() }));
    return t;
  };
  const unreadable: UnreadableVersion[] = [];
  const note = (u: UnreadableVersion): void => {
    if (unreadable.length < MAX_UNREADABLE) unreadable.push(u);
  };
  /** Records the schema `value` of `urn` as seen at walk position `at`. */
  const seen = (urn: string, value: unknown, path: string, at: number, commit?: string, date?: string): Building => {
    const t = trail(urn);
    const key = canonicalKey(value);
    let b = t.byKey.get(key);
    if (b === undefined) t.byKey.set(key, (b = { value, key, path, oldest: at }));
    touch(b, at, path, commit, date);
    return b;
  };
  for (const w of options.working ?? []) seen(w.urn, w.value, w.path, -1);

  let manifestPath = inRepo(options.manifestPath, top);
  let urns = new Set((options.working ?? []).map((w) => w.urn));
  let manifestOid: string | undefined;
  let lastDirOid: string | undefined;
  let entries: ManifestEntry[] = [];
  let newer: string | undefined;
  let walked = 0;
  const cat = new CatFile(top);
  const args = [...(options.allParents ? ['--topo-order'] : ['--first-parent']), tip, ...(since ? ['--not', since.commit] : []), '--'];
  const window = async function* (): AsyncGenerator<{ commit: string; date: string }> {
    yield* commits(top, args);
    if (since) yield { commit: since.commit, date: since.date };
  };
  try {
    for await (const { commit, date } of window()) {
      const at = walked++;
      const snap = await GitSnapshot.shared(cat, top, commit);
      // The manifest: where the newer commit had it, else where it came from.
      let found = await snap.lookup(manifestPath);
      if (found.kind !== 'file') {
        const later = newer;
        const present = later === undefined ? undefined : filesOf(top, later);
        const where = await findManifestAtRef(
          snap,
          {
            path: manifestPath,
            start: posix.dirname(manifestPath).replace(/^\.$/, ''),
            urns,
            urnsAt: async (path) => {
              const f = await snap.lookup(path);
              if (f.kind !== 'file') return undefined;
              try {
                return readManifest(parse(await snap.read(f.oid), path)).entries.map((e) => e.urn);
              } catch (err) {
                if (err instanceof EncodingError || err instanceof ParseFailure) return undefined;
                throw err;
              }
            },
            ...(later === undefined ? {} : { changes: (): TreeChanges => snap.changesTo(later) }),
          },
          present === undefined ? undefined : (p) => present.has(p),
        );
        if (!where.found) break; // the registry starts after this commit
        manifestPath = where.path;
        found = await snap.lookup(manifestPath);
        if (found.kind !== 'file') break;
      }
      const manifestChanged = found.oid !== manifestOid;
      if (manifestChanged) {
        manifestOid = found.oid;
        try {
          entries = readManifest(parse(await snap.read(found.oid), manifestPath)).entries;
        } catch (err) {
          if (!(err instanceof EncodingError || err instanceof ParseFailure)) throw err;
          note({ urn: '', commit, path: manifestPath, message: `the manifest cannot be read: ${err.message}` });
          entries = [];
        }
        urns = new Set(entries.map((e) => e.urn));
      }
      const dir = posix.dirname(manifestPath) === '.' ? '' : posix.dirname(manifestPath);
      // The registry's directory as the newer commit had it (every schema inside it, the rule
      // without allowOutsidePaths): the same versions, nothing to read.
      const dirTree = options.allowOutsidePaths ? undefined : await snap.lookup(dir);
      const dirOid = dirTree?.kind === 'directory' ? dirTree.oid : undefined;
      if (dirOid !== undefined && dirOid === lastDirOid && !manifestChanged) {
        for (const entry of entries) {
          const t = trails.get(entry.urn);
          if (t?.lastVersion !== undefined) touch(t.lastVersion, at, t.lastVersion.path, commit, date);
        }
        snap.close();
        newer = commit;
        if (boundary.has(commit) && commit !== since?.commit) throw shallow(commit, walked, since);
        continue;
      }
      lastDirOid = dirOid;
      await Promise.all(
        entries.map(async (entry) => {
          const t = trail(entry.urn);
          const repoPath = isAbsolute(entry.schema)
            ? relative(top, entry.schema).split(sep).join('/')
            : posix.normalize(posix.join(dir || '.', entry.schema));
          const inside = !(repoPath === '..' || repoPath.startsWith('../') || isAbsolute(repoPath));
          if (!inside || (!options.allowOutsidePaths && dir !== '' && !(repoPath === dir || repoPath.startsWith(`${dir}/`)))) return;
          const file = await snap.lookup(repoPath);
          if (file.kind !== 'file') return;
          // A symbolic link out of the registry's directory is refused, as in the working tree.
          if (!options.allowOutsidePaths && dir !== '' && !(file.path === dir || file.path.startsWith(`${dir}/`))) return;
          if (file.oid === t.lastOid) {
            if (t.lastVersion !== undefined) touch(t.lastVersion, at, file.path, commit, date);
            return;
          }
          t.lastOid = file.oid;
          t.lastVersion = undefined;
          let value: unknown;
          try {
            value = parse(await snap.read(file.oid), file.path);
          } catch (err) {
            if (!(err instanceof EncodingError || err instanceof ParseFailure)) throw err;
            return note({ urn: entry.urn, commit, path: file.path, message: err.message });
          }
          if (typeof value !== 'boolean' && !isSchemaObject(value))
            return note({ urn: entry.urn, commit, path: file.path, message: 'a schema must be an object or a boolean' });
          t.lastVersion = seen(entry.urn, value, file.path, at, commit, date);
        }),
      );
      snap.close();
      newer = commit;
      if (boundary.has(commit) && commit !== since?.commit) throw shallow(commit, walked, since);
    }
  } finally {
    cat.close();
  }
  const versions = new Map<string, SchemaVersion[]>();
  for (const [urn, t] of trails) {
    const list = [...t.byKey.values()].sort((a, b) => b.oldest - a.oldest);
    versions.set(
      urn,
      list.map((b, i) => ({
        urn,
        version: i + 1,
        value: b.value,
        key: b.key,
        path: b.path,
        ...(b.commit === undefined ? {} : { commit: b.commit, date: b.date! }),
      })),
    );
  }
  return { top, commits: walked, ...(since ? { since } : {}), versions, unreadable };
}

/** The registry is at the clone's cut, and the clone holds nothing older: what came before is unknown. */
function shallow(commit: string, walked: number, since: History['since']): GitError {
  return new GitError(
    `history needs the full clone: this is a shallow clone, cut at ${commit.slice(0, 12)} (${walked} commit(s) back) where the registry still exists; ` +
      `run git fetch --unshallow (in GitHub Actions: actions/checkout with fetch-depth: 0)${since ? `, or fetch at least to ${since.ref}` : ''}`,
  );
}

/** The files of a commit (only read when a manifest moved: what is still there is another registry's). */
function filesOf(top: string, commit: string): Set<string> {
  return new Set(gitFields(top, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit]));
}
