import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { display } from '../registry/index.js';
import { UsageError } from './errors.js';
import { claimOutput, guardWrite } from './protect.js';

/**
 * Where `-o target` is written: a regular file or a new path. A symlink is written through (its
 * target file is replaced, the link stays a link). A device, FIFO, socket or directory is refused:
 * renaming over `/dev/null` would replace the device with a file.
 */
export function outputTarget(target: string): string {
  let path = resolve(target);
  try {
    if (lstatSync(path).isSymbolicLink()) path = realpathSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new UsageError(`cannot write ${target}: ${code ?? (err as Error).message}; nothing was written`);
    // A dangling symlink or a new path: written as a new file where the path (or link) points.
    try {
      if (lstatSync(resolve(target)).isSymbolicLink())
        throw new UsageError(`cannot write ${target}: it is a symbolic link to a missing file; nothing was written`);
    } catch (e) {
      if (e instanceof UsageError) throw e;
    }
    return path;
  }
  let st;
  try {
    st = statSync(path);
  } catch {
    // The link resolved to a name that does not exist: only a kernel-made link does that, such as
    // `/dev/stdout` → `/proc/self/fd/1` → `pipe:[…]`. There is no file to write through to.
    throw new UsageError(
      `cannot write ${target}: it is a symbolic link to something that is not a file (such as /dev/stdout on a pipe); nothing was written`,
    );
  }
  if (st.isDirectory()) throw new UsageError(`cannot write ${target}: it is a directory; nothing was written`);
  if (!st.isFile())
    throw new UsageError(`cannot write ${target}: it is not a regular file (a device, FIFO or socket); nothing was written`);
  // `-o /dev/stdout >> build.log` resolves to build.log: renaming over it would replace the log
  // the shell opened (and lose what it held) instead of appending to it.
  for (const [fd, name] of [
    [1, 'standard output'],
    [2, 'standard error'],
  ] as const) {
    try {
      const open = fstatSync(fd);
      if (open.dev === st.dev && open.ino === st.ino) {
        throw new UsageError(
          `cannot write ${target}: it is this process's ${name}; leave out -o to write to standard output; nothing was written`,
        );
      }
    } catch (err) {
      if (err instanceof UsageError) throw err; // a closed descriptor is nobody's file
    }
  }
  return path;
}

/**
 * Checks an output named on the command line before any work is done, so that nothing is written
 * when it is refused: a target `outputTarget` refuses, a file this run reads, or a file another
 * output of this run names (./protect.ts). `option` names it in the refusal (`-o`, `--out`).
 */
export function claimTarget(target: string, option: string): void {
  outputTarget(target);
  claimOutput(target, option);
}

function writeError(target: string, err: unknown): UsageError {
  const e = err as NodeJS.ErrnoException;
  const dir = dirname(resolve(target));
  let why: string;
  if (e.code === 'ENOENT') why = `the directory ${display(dir)} does not exist`;
  else if (e.code === 'EISDIR' || e.code === 'ENOTEMPTY') why = 'it is a directory';
  else if (e.code === 'EACCES' || e.code === 'EPERM') why = 'permission denied';
  else if (e.code === 'ENOTDIR') why = 'a part of the path is not a directory';
  else why = e.message;
  return new UsageError(`cannot write ${target}: ${why}; nothing was written`);
}

/**
 * A file written atomically, piece by piece: a temporary file in the target's directory, renamed
 * over the target by `commit` (after an fsync), or removed by `abort`, so the target is either the
 * whole new text or left as it was (see `outputTarget` for what a target may be; never a file this run
 * reads, nor one it has written already: ./protect.ts). Writes are
 * synchronous and buffered: it is a sink for `Out` (its `write` never asks to wait). While it is
 * open, SIGINT and SIGTERM remove the temporary file before the process ends, and so does any
 * exit; its permissions are the target's.
 */
export interface AtomicFile {
  /** Adds text; written out a megabyte at a time. Always true: there is never a reason to wait. */
  write(text: string): boolean;
  /** Writes what is left, fsyncs, and renames the temporary file over the target. */
  commit(): void;
  /** Removes the temporary file: the target is left as it was. */
  abort(): void;
}

/** Opens the temporary file for `target` (checked by `outputTarget`). */
export function openAtomic(target: string): AtomicFile {
  const path = outputTarget(target);
  // Whatever the command claimed before, an input of this run is never replaced.
  guardWrite(target);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  let created = false;
  let pending = '';
  let mode: number | undefined;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    mode = undefined; // a new file: the umask decides
  }
  const removeTemp = (): void => {
    if (!created) return;
    try {
      unlinkSync(temp);
    } catch {
      // renamed already, or removed before; nothing more can be done
    }
    created = false;
  };
  // With a handler installed, a signal is handled once a synchronous write has returned.
  const onSignal = (signal: NodeJS.Signals): void => {
    removeTemp();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const release = (): void => {
    process.off('exit', removeTemp);
    // A signal that arrived during a write is read from libuv's signal pipe in the next poll
    // phase. One setImmediate can run before that poll (when the write ran in an I/O callback) and
    // would drop the signal with its listener; the second runs after it.
    setImmediate(() =>
      setImmediate(() => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }),
    );
  };
  const fail = (err?: unknown): UsageError | undefined => {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already failing: the first error is the one to report
      }
      fd = undefined;
    }
    removeTemp();
    pending = '';
    release();
    return err === undefined ? undefined : writeError(target, err);
  };
  const flush = (): void => {
    if (pending === '' || fd === undefined) return;
    const bytes = Buffer.from(pending, 'utf8');
    pending = '';
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (err) {
      throw fail(err);
    }
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', removeTemp);
  try {
    fd = openSync(temp, 'wx');
    created = true;
    if (mode !== undefined) fchmodSync(fd, mode);
  } catch (err) {
    throw fail(err);
  }
  return {
    write(text) {
      pending += text;
      if (pending.length >= WRITE_CHUNK) flush();
      return true;
    },
    commit() {
      flush();
      try {
        fsyncSync(fd!);
        closeSync(fd!);
        fd = undefined;
        renameSync(temp, path);
        created = false;
      } catch (err) {
        throw fail(err);
      }
      release();
    },
    abort() {
      fail();
    },
  };
}

// Text is written to the temporary file a megabyte (of UTF-16 units) at a time.
const WRITE_CHUNK = 1024 * 1024;

/**
 * Writes `text` to `target` atomically (see `AtomicFile`): a temporary file in the same directory,
 * fsynced, then renamed over the target. On any failure the temporary file is removed and an
 * existing target is left as it was; its permissions are kept. SIGINT and SIGTERM wait for the
 * write to finish or fail, so no temporary file is left behind.
 */
export function writeFileAtomic(target: string, text: string): void {
  const file = openAtomic(target);
  file.write(text);
  file.commit();
}
