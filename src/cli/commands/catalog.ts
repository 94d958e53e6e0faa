import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { buildCatalog, catalogHandler, type CatalogEntry, type HistoryEntry } from '../../catalog/index.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { Out } from '../output.js';
import { exitWhenStdoutCloses } from '../stdout.js';

export { catalogHandler };

/** What the catalog needs from a registry; the registry layer provides it. */
export interface CatalogRegistry {
  entries: ReadonlyArray<{ urn: string; owner?: string; status?: string; description?: string }>;
  /** The parsed schema of a URN; throws (a UsageError, ideally) when it cannot be read. */
  document(urn: string): unknown;
  /** The schema file of a URN, as it should be shown. */
  file(urn: string): string;
  /** The registry's example messages of a URN, when it has any. */
  examples?(urn: string): readonly unknown[];
  /** The URN's compat history, when run in a git repository. */
  history?(urn: string): readonly HistoryEntry[] | undefined;
}

export interface CatalogOptions {
  registry: CatalogRegistry;
  /** The HTML file to write; stdout without it. */
  output?: string;
  title?: string;
}

function entriesOf(registry: CatalogRegistry): { entries: CatalogEntry[]; history: Map<string, readonly HistoryEntry[]> } {
  const entries: CatalogEntry[] = [];
  const history = new Map<string, readonly HistoryEntry[]>();
  for (const e of registry.entries) {
    let schema: unknown;
    try {
      schema = registry.document(e.urn);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`${e.urn}: ${(err as Error).message}`);
    }
    const entry: CatalogEntry = { urn: e.urn, schema, file: registry.file(e.urn) };
    if (e.owner !== undefined) entry.owner = e.owner;
    if (e.status !== undefined) entry.status = e.status;
    if (e.description !== undefined) entry.description = e.description;
    const examples = registry.examples?.(e.urn);
    if (examples !== undefined && examples.length > 0) entry.examples = examples;
    entries.push(entry);
    const h = registry.history?.(e.urn);
    if (h !== undefined) history.set(e.urn, h);
  }
  return { entries, history };
}

/**
 * Writes `text` to `target` atomically: a temporary file in the same directory, fsynced, then
 * renamed over the target, which must be absent or a regular file (renaming over a symlink, FIFO or
 * device would replace it, not write through it). On failure the temporary file is removed.
 */
export function writeCatalogFile(target: string, text: string): void {
  let mode: number | undefined;
  try {
    const st = lstatSync(target);
    if (!st.isFile()) {
      const what = st.isDirectory() ? 'a directory' : st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file';
      throw new UsageError(`cannot write ${target}: it is ${what}; nothing was written`, EXIT_USAGE);
    }
    mode = st.mode & 0o7777;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw writeError(target, err);
  }
  const temp = join(dirname(resolve(target)), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  let created = false;
  try {
    fd = openSync(temp, 'wx');
    created = true;
    if (mode !== undefined) fchmodSync(fd, mode);
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already failing: the first error is the one to report
      }
    }
    if (created) {
      try {
        unlinkSync(temp);
      } catch {
        // nothing more can be done; the name says what it is
      }
    }
    throw writeError(target, err);
  }
}

function writeError(target: string, err: unknown): UsageError {
  const e = err as NodeJS.ErrnoException;
  let why: string;
  if (e.code === 'ENOENT') why = `the directory ${dirname(target)} does not exist`;
  else if (e.code === 'EISDIR' || e.code === 'ENOTEMPTY') why = 'it is a directory';
  else if (e.code === 'EACCES' || e.code === 'EPERM') why = 'permission denied';
  else if (e.code === 'ENOTDIR') why = 'a part of the path is not a directory';
  else why = e.message;
  return new UsageError(`cannot write ${target}: ${why}; nothing was written`, EXIT_USAGE);
}

export async function run(options: CatalogOptions): Promise<number> {
  const { entries, history } = entriesOf(options.registry);
  const text = buildCatalog({ title: options.title, entries, history: history.size > 0 ? history : undefined });
  if (options.output === undefined) {
    exitWhenStdoutCloses(() => EXIT_OK);
    const out = new Out();
    out.line(text.slice(0, -1)); // the document ends with a newline; line() adds it back
    await out.flush();
    return EXIT_OK;
  }
  writeCatalogFile(options.output, text);
  const n = entries.length;
  const kb = Math.ceil(Buffer.byteLength(text, 'utf8') / 1024);
  process.stdout.write(`Wrote ${options.output}: ${n} event${n === 1 ? '' : 's'}, ${kb} KB\n`);
  return EXIT_OK;
}
