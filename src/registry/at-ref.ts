import { statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { MANIFEST_NAMES } from './discover.js';
import { GitError, RegistryNotFoundError } from './errors.js';
import type { GitSnapshot, TreeChanges } from './git.js';
import type { FoundBy } from './manifest.js';

/*
 * Where the registry was at a git ref, for the manifest the working tree uses now. A pull request
 * may move or rename the manifest (registry.json → registry.yaml, into a subdirectory), so the
 * path it has now is only the first place to look: then a rename git reports, then the working
 * tree's discovery rules applied to the commit (any manifest name, in the directory discovery
 * started from and each parent up to the top level), then any manifest of the commit that
 * registers one of today's URNs. Schemas are compared by URN, so where their files went does not
 * matter once the manifest is found.
 */

export interface ManifestSearch {
  /** The working manifest's path in the repository (`/`-separated, from the top level). */
  path: string;
  /** The repository directory discovery starts from ('' for the top level). */
  start: string;
  /** `--against-registry`: the manifest's path at the ref, from the top level; no search. */
  named?: string;
  /** The URNs the working manifest registers (what a moved manifest is recognised by). */
  urns: ReadonlySet<string>;
  /**
   * The URNs a file of the commit registers as a manifest, or undefined when it is not one (it does
   * not decode or parse). Given by the caller, which reads manifests: this module only searches.
   */
  urnsAt: (path: string) => Promise<readonly string[] | undefined>;
  /**
   * What became of the commit's files afterwards (default: in the working tree, `git.changes()`);
   * a walk back through history gives the renames to the commit it came from.
   */
  changes?: () => TreeChanges;
}

export type ManifestAtRef =
  | { found: true; path: string; foundBy: FoundBy }
  /** `looked`: where it was looked for, in words, for the message that says so. */
  | { found: false; looked: string };

/**
 * Manifests read to recognise a moved one by its URNs (each a git object read and parsed): those
 * git reports gone, up to MAX_GONE (past it, no proof the registry is new: an error), and those
 * still in the working tree (other registries, unless one is a stale copy of this one), up to
 * MAX_PRESENT (a monorepo of many registries adding one more stays usable).
 */
const MAX_GONE = 10_000;
const MAX_PRESENT = 200;
const MANIFEST_EXTENSIONS = /\.(json|jsonc|ya?ml)$/i;

/** `dir`'s parents up to the top level, `dir` first ('' is the top level). */
function upward(dir: string): string[] {
  const dirs: string[] = [];
  for (let d = dir; ; d = posix.dirname(d)) {
    const here = d === '.' ? '' : d;
    dirs.push(here);
    if (here === '') return dirs;
  }
}

const inDir = (dir: string, name: string): string => (dir === '' ? name : `${dir}/${name}`);

/** A path given on the command line as the manifest at the ref, as a path from the top level. */
function repoPath(given: string, top: string): string {
  const p = given.replace(/\\/g, '/');
  const rel = posix.isAbsolute(p) ? posix.relative(top.replace(/\\/g, '/'), p) : posix.normalize(p);
  if (rel === '' || rel === '.' || rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel)) {
    throw new GitError(
      `--against-registry must name the manifest inside the repository (a path from its top level, as \`git show <ref>:<path>\` takes it), got ${JSON.stringify(given)}`,
    );
  }
  return rel;
}

/**
 * Finds the manifest at the commit `git` reads. `named` is taken as given (a RegistryNotFoundError
 * when it is not a file there); several manifests that each register today's URNs and none of them
 * where discovery looks are a RegistryNotFoundError listing them (which one is meant is the
 * user's to say). `present` tells whether a path is a file in the working tree: a manifest still
 * there is another registry, not where this one came from.
 */
export async function findManifestAtRef(
  git: GitSnapshot,
  search: ManifestSearch,
  present: (path: string) => boolean = inWorkingTree(git.top),
): Promise<ManifestAtRef> {
  const isFile = async (path: string): Promise<boolean> => (await git.lookup(path)).kind === 'file';
  if (search.named !== undefined) {
    const named = repoPath(search.named, git.top);
    if (await isFile(named)) return { found: true, path: named, foundBy: 'named' };
    throw new RegistryNotFoundError(
      named,
      `--against-registry ${named} is not a file at ${git.ref} (${git.commit.slice(0, 12)}); give the manifest's path at that ref, from the repository's top level`,
    );
  }
  if (await isFile(search.path)) return { found: true, path: search.path, foundBy: 'path' };

  let changes: TreeChanges;
  try {
    changes = search.changes ? search.changes() : git.changes();
  } catch (err) {
    // Without git's account of renames, the other rules still apply; none found is still refused.
    if (!(err instanceof GitError)) throw err;
    changes = { renamedFrom: new Map(), gone: [] };
  }
  const from = changes.renamedFrom.get(search.path);
  if (from !== undefined && (await isFile(from))) return { found: true, path: from, foundBy: 'rename' };

  // Discovery at the ref, as in the working tree: each manifest name in the start directory, then
  // in each parent. A manifest still in the working tree at that path is another registry.
  const dirs = upward(search.start);
  const discovered: string[] = [];
  for (const dir of dirs) {
    for (const name of MANIFEST_NAMES) {
      const path = inDir(dir, name);
      if (path !== search.path && !present(path) && (await isFile(path))) discovered.push(path);
    }
  }
  // Recognised by its URNs: the discovered ones first, then every manifest-named file of the
  // commit and every file of a manifest's format git reports gone.
  const basename = posix.basename(search.path);
  const names = new Set([...MANIFEST_NAMES, basename]);
  const elsewhere = new Set<string>();
  for (const path of git.files((name) => names.has(name))) elsewhere.add(path);
  for (const path of changes.gone) if (MANIFEST_EXTENSIONS.test(path) || posix.basename(path) === basename) elsewhere.add(path);
  for (const path of discovered) elsewhere.delete(path);
  elsewhere.delete(search.path);

  const shares = async (path: string): Promise<boolean> => (await search.urnsAt(path))?.some((urn) => search.urns.has(urn)) ?? false;
  for (const path of discovered) if (await shares(path)) return { found: true, path, foundBy: 'discovery' };
  const candidates = [...elsewhere].sort();
  const goneCandidates = candidates.filter((p) => !present(p));
  if (goneCandidates.length > MAX_GONE) {
    // Not read them all: one of the rest may be it, so this is no proof the registry is new.
    throw new RegistryNotFoundError(
      search.path,
      `${search.path} is not at ${git.ref} (${git.commit.slice(0, 12)}), and ${goneCandidates.length} manifests there are gone from the working tree, more than the ${MAX_GONE} compat reads to find it; name the one it came from with --against-registry <path>`,
    );
  }
  const sharing: string[] = [];
  for (const path of [...goneCandidates, ...candidates.filter((p) => present(p)).slice(0, MAX_PRESENT)]) {
    if (await shares(path)) sharing.push(path);
  }
  sharing.sort();
  const gone = sharing.filter((p) => !present(p));
  const only = sharing.length === 1 ? sharing[0] : gone.length === 1 ? gone[0] : undefined;
  if (only !== undefined) return { found: true, path: only, foundBy: 'urns' };
  if (sharing.length > 1) {
    const list = sharing.slice(0, 5).join(', ') + (sharing.length > 5 ? `, and ${sharing.length - 5} more` : '');
    throw new RegistryNotFoundError(
      search.path,
      `${search.path} is not at ${git.ref} (${git.commit.slice(0, 12)}), and several manifests there register its URNs: ${list}; name the one it came from with --against-registry <path>`,
    );
  }
  // Discovery found a manifest that shares no URN: it is where this registry's place was, and
  // the comparison lists its URNs as removed and today's as added.
  if (discovered.length > 0) return { found: true, path: discovered[0]!, foundBy: 'discovery' };
  const where = dirs.length === 1 ? 'at the top level' : `in ${dirs[0]} or its parents`;
  return {
    found: false,
    looked: `not at ${search.path}, not renamed, no ${MANIFEST_NAMES.join(' / ')} ${where}, and no manifest there registers its URNs`,
  };
}

/** Whether a repository path is a file in the working tree. */
function inWorkingTree(top: string): (path: string) => boolean {
  return (path) => {
    try {
      return statSync(join(top, ...path.split('/'))).isFile();
    } catch {
      return false;
    }
  };
}
