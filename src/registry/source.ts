import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { RegistryError } from './errors.js';
import type { ManifestEntry } from './manifest.js';
import { decodeUtf8, EncodingError } from './text.js';

/** A file of the registry: where the source finds it, and how it is named to the user. */
export interface FileRef {
  /** Absolute in the working tree; `/`-separated from the repository's top level at a git ref. */
  readonly path: string;
  /** Relative to the current directory when inside it; `ref:path` at a git ref. */
  readonly shown: string;
}

/** Where a registry's files come from: the working tree, or a commit. Reading is synchronous. */
export interface Source {
  /** `working tree`, or `<ref> (<commit>)`. */
  readonly label: string;
  readonly manifest: FileRef;
  /**
   * The file an entry's schema path names. A path outside the registry directory (lexically or
   * through a symlink) is a RegistryError here, before anything is opened.
   */
  locate(entry: ManifestEntry): FileRef;
  /** A file's text; a missing, special or unreadable file is a RegistryError naming `what`. */
  read(file: FileRef, what: string, urn?: string): string;
}

/** The largest registry file read (manifest or schema): far beyond any real schema. */
const MAX_REGISTRY_FILE = 64 * 1024 * 1024;

/** A path relative to the current directory when it is inside it, else absolute. */
export function display(file: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel;
}

/** Whether `target` is `dir` or under it (lexically: resolve symlinks first where they matter). */
export function inside(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Reads a whole regular file, strictly as UTF-8, at most `max` bytes. It is opened non-blocking so
 * a FIFO cannot hang the run, and checked to be a regular file before a byte is read, so a device
 * (`/dev/zero`) or a directory is refused instead of read.
 */
export function readRegularFile(path: string, shown: string, what: string, urn?: string, max = MAX_REGISTRY_FILE): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new RegistryError('missing', path, `${what} not found: ${shown}`, urn);
    throw new RegistryError('unreadable', path, `${what} cannot be read: ${shown}: ${code ?? (err as Error).message}`, urn);
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new RegistryError('unreadable', path, `${what} is a directory: ${shown}`, urn);
    if (!st.isFile()) throw new RegistryError('unreadable', path, `${what} is not a regular file: ${shown}`, urn);
    if (st.size > max) throw new RegistryError('unreadable', path, `${what} is larger than ${max} bytes: ${shown}`, urn);
    // Read to the end rather than trusting the size: the file may be growing.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(chunks.length === 0 ? Math.min(st.size, max) + 1 : 65536);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > max) throw new RegistryError('unreadable', path, `${what} is larger than ${max} bytes: ${shown}`, urn);
    }
    try {
      return decodeUtf8(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    } catch (err) {
      if (err instanceof EncodingError) throw new RegistryError('malformed', path, `${what} is ${err.message}: ${shown}`, urn);
      throw err;
    }
  } catch (err) {
    if (err instanceof RegistryError) throw err;
    throw new RegistryError(
      'unreadable',
      path,
      `${what} cannot be read: ${shown}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      urn,
    );
  } finally {
    closeSync(fd);
  }
}

export interface WorkingTreeOptions {
  /** Read schema files outside the manifest's directory (refused by default). */
  allowOutsidePaths?: boolean;
  /** Directory file names are shown relative to (default: the current directory). */
  cwd?: string;
}

/** The registry as it is on disk. */
export class WorkingTree implements Source {
  readonly label = 'working tree';
  readonly manifest: FileRef;
  /** The directory schema paths are relative to. */
  readonly dir: string;
  private realDir: string | undefined;

  constructor(
    manifestPath: string,
    private readonly options: WorkingTreeOptions = {},
  ) {
    const abs = resolve(options.cwd ?? process.cwd(), manifestPath);
    this.manifest = { path: abs, shown: display(abs, options.cwd) };
    this.dir = dirname(abs);
  }

  locate(entry: ManifestEntry): FileRef {
    const target = resolve(this.dir, entry.schema);
    const file = { path: target, shown: display(target, this.options.cwd) };
    if (this.options.allowOutsidePaths) return file;
    const refuse = (): never => {
      throw new RegistryError(
        'outside',
        target,
        `schema file for ${entry.urn} is outside the registry directory: ${entry.schema} (use --allow-outside-paths to permit it)`,
        entry.urn,
      );
    };
    if (!inside(this.dir, target)) refuse();
    let real: string;
    try {
      real = realpathSync(target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Missing: nothing is there to be outside; reading it reports it missing.
      if (code === 'ENOENT' || code === 'ENOTDIR') return file;
      // Anything else (a symlink loop, no permission) leaves the real path unknown: never read it.
      throw new RegistryError(
        'unreadable',
        target,
        `schema file for ${entry.urn} cannot be resolved: ${file.shown}: ${code ?? (err as Error).message}`,
        entry.urn,
      );
    }
    this.realDir ??= realpathSync(this.dir);
    if (!inside(this.realDir, real)) refuse();
    return file;
  }

  read(file: FileRef, what: string, urn?: string): string {
    return readRegularFile(file.path, file.shown, what, urn);
  }
}

/** Files already read (a commit's, for instance): reading is a lookup. */
export class MemorySource implements Source {
  constructor(
    readonly label: string,
    readonly manifest: FileRef,
    private readonly files: ReadonlyMap<string, string>,
    /** Per URN: where its schema is, or why it cannot be read. */
    private readonly located: ReadonlyMap<string, FileRef | RegistryError>,
  ) {}

  locate(entry: ManifestEntry): FileRef {
    const found = this.located.get(entry.urn);
    if (found === undefined)
      throw new RegistryError('missing', entry.schema, `schema file for ${entry.urn} not found: ${entry.schema}`, entry.urn);
    if (found instanceof RegistryError) throw found;
    return found;
  }

  read(file: FileRef, what: string, urn?: string): string {
    const text = this.files.get(file.path);
    if (text === undefined) throw new RegistryError('missing', file.path, `${what} not found: ${file.shown}`, urn);
    return text;
  }
}
