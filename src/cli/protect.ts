import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { display, findRegistry, loadRegistry, RegistryError, type Registry } from '../registry/index.js';
import { UsageError } from './errors.js';

/*
 * What this run reads, so that nothing it writes replaces it. The readers say what they read (the
 * registry when it is opened, each command its input paths), each output is claimed before anything
 * is written (`claimOutput`: a protected file, or a file another output of this run already
 * claimed, is a usage error naming both), and `writeFileAtomic` checks again whatever a command
 * writes, so a writer that forgot to claim still cannot replace an input.
 *
 * A file is the same file when its real path is (`r.json`, `./r.json`, `sub/../r.json`, an absolute
 * path and a symlink all resolve to one), or, when both exist, when its device and inode are (a hard
 * link). A path that does not exist yet is its real directory and its name.
 */

/** The files a directory walk reads as messages (*.json, *.ndjson, *.jsonl, in any ASCII case). */
export const WALK_NAME = /\.(json|ndjson|jsonl)$/i;

interface Identity {
  /** The real path, or for a missing file its directory's real path and its name. */
  key: string;
  dev?: number;
  ino?: number;
}

interface ProtectedFile {
  id: Identity;
  /** What the file is to this run, as the refusal says it: `the registry manifest (registry.json)`. */
  what: string;
}

interface ProtectedDir {
  real: string;
  /** `in messages, an input directory whose … files this run reads` */
  what: string;
}

const files: ProtectedFile[] = [];
const dirs: ProtectedDir[] = [];
/** Registries opened by this run whose files are listed on the first check (most runs write nothing). */
const registries: Registry[] = [];
let registryOpened = false;
/** Outputs claimed so far: the identity's key and inode, with the option that named it. */
const claims: Array<{ id: Identity; option: string }> = [];
/** Files written so far (by key): a second write in one run would replace the first. */
const written = new Set<string>();

function identity(path: string): Identity {
  const abs = resolve(path);
  try {
    const st = statSync(abs);
    return { key: realpathSync(abs), dev: st.dev, ino: st.ino };
  } catch {
    // Missing (or unreadable): where it would be created.
  }
  try {
    return { key: join(realpathSync(dirname(abs)), basename(abs)) };
  } catch {
    return { key: abs };
  }
}

const same = (a: Identity, b: Identity): boolean => a.key === b.key || (a.ino !== undefined && a.dev === b.dev && a.ino === b.ino);

/** Protects one file this run reads; `what` names it in a refusal. */
export function protectFile(path: string, what: string): void {
  files.push({ id: identity(path), what });
}

/**
 * Protects the paths named on the command line as input (`-` is stdin, nothing to protect): a file
 * as itself (`file`: `an input message file`), a directory as every file a walk of it reads (`dir`:
 * `an input directory`).
 */
export function protectInputs(paths: readonly string[] | undefined, file: string, dir: string): void {
  for (const path of paths ?? []) {
    if (path === '-') continue;
    const shown = display(resolve(path));
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      // missing: nothing to replace; the reader reports it
    }
    if (!isDir) {
      protectFile(path, `${file} (${shown})`);
      continue;
    }
    try {
      dirs.push({ real: realpathSync(path), what: `in ${shown}, ${dir} whose *.json, *.ndjson and *.jsonl files this run reads` });
    } catch {
      // unreadable: the reader reports it
    }
  }
}

/** Protects a registry's manifest and every schema file its entries name (listed when first needed). */
export function protectRegistry(registry: Registry): void {
  registryOpened = true;
  registries.push(registry);
}

/** Protects a manifest that could not be opened as a registry (check reports it; its file is still an input). */
export function protectManifest(path: string): void {
  registryOpened = true;
  protectFile(path, `the registry manifest (${display(resolve(path))})`);
}

function listRegistries(): void {
  if (!registryOpened) {
    // A command that reads no registry (compat's two files, conformance) still never replaces the
    // one this directory has: it is found as every command finds it.
    registryOpened = true;
    try {
      const found = findRegistry(undefined);
      try {
        registries.push(loadRegistry({ registry: found.path, onWarning: () => {} }));
      } catch {
        protectManifest(found.path);
      }
    } catch {
      // no registry here
    }
  }
  for (const registry of registries.splice(0)) {
    protectFile(registry.manifest.path, `the registry manifest (${registry.manifest.shown})`);
    for (const { urn } of registry.entries) {
      try {
        const file = registry.file(urn);
        protectFile(file.path, `the schema file of ${urn} (${file.shown})`);
      } catch (err) {
        // A path outside the registry is never read; anything else is a bug to report.
        if (!(err instanceof RegistryError)) throw err;
      }
    }
  }
}

/** Whether a walk of `dir` reads the file at real path `key` (dot-directories and node_modules are skipped). */
function walked(dir: string, key: string): boolean {
  const rel = relative(dir, key);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return false;
  const parts = rel.split(sep);
  const name = parts.pop()!;
  return WALK_NAME.test(name) && !parts.some((p) => p === 'node_modules' || p.startsWith('.'));
}

/** What `id` is to this run, when it is an input; else undefined. */
function protectedAs(id: Identity): string | undefined {
  listRegistries();
  for (const f of files) if (same(f.id, id)) return `it is ${f.what}`;
  for (const d of dirs) if (walked(d.real, id.key)) return `it is ${d.what}`;
  return undefined;
}

const refusal = (target: string, why: string, remedy = 'choose another path'): UsageError =>
  new UsageError(`refusing to write ${target}: ${why}; ${remedy}`);

/**
 * Claims `target` as an output of this run, before anything is written: a file this run reads, or
 * one another output already claimed, is a usage error naming why. `option` names the output in
 * that message (`-o`, `--report json=r.json`).
 */
export function claimOutput(target: string, option: string): void {
  const id = identity(target);
  const why = protectedAs(id);
  if (why !== undefined) throw refusal(target, why);
  const other = claims.find((c) => same(c.id, id));
  if (other !== undefined) throw refusal(target, `${option} and ${other.option} name the same file`, 'give each output a file of its own');
  claims.push({ id, option });
}

/** The last check before `target` is written: never an input, and never twice in one run. */
export function guardWrite(target: string): void {
  const id = identity(target);
  const why = protectedAs(id);
  if (why !== undefined) throw refusal(target, why);
  if (written.has(id.key)) throw refusal(target, 'this run has written it already', 'give each output a file of its own');
  written.add(id.key);
}
