import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
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
      if (lstatSync(resolve(target)).isSymbolicLink()) throw new UsageError(`cannot write ${target}: it is a symbolic link to a missing file; nothing was written`);
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
    throw new UsageError(`cannot write ${target}: it is a symbolic link to something that is not a file (such as /dev/stdout on a pipe); nothing was written`);
  }
  if (st.isDirectory()) throw new UsageError(`cannot write ${target}: it is a directory; nothing was written`);
  if (!st.isFile()) throw new UsageError(`cannot write ${target}: it is not a regular file (a device, FIFO or socket); nothing was written`);
  // `-o /dev/stdout >> build.log` resolves to build.log: renaming over it would replace the log
  // the shell opened (and lose what it held) instead of appending to it.
  for (const [fd, name] of [[1, 'standard output'], [2, 'standard error']] as const) {
    try {
      const open = fstatSync(fd);
      if (open.dev === st.dev && open.ino === st.ino) {
        throw new UsageError(`cannot write ${target}: it is this process's ${name}; leave out -o to write to standard output; nothing was written`);
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
 * Writes `text` to `target` atomically: a temporary file in the same directory, fsynced, then
 * renamed over the target (see `outputTarget` for what a target may be; never a file this run
 * reads, nor one it has written already: ./protect.ts). On any failure the
 * temporary file is removed and an existing target is left as it was; its permissions are kept.
 * SIGINT and SIGTERM wait for the write to finish or fail, so no temporary file is left behind.
 */
export function writeFileAtomic(target: string, text: string): void {
  const path = outputTarget(target);
  // Whatever the command claimed before, an input of this run is never replaced.
  guardWrite(target);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let mode: number | undefined;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    mode = undefined; // a new file: the umask decides
  }
  let fd: number | undefined;
  let created = false;
  // With a handler installed, a signal is handled once this synchronous write has returned.
  const interrupted = (signal: NodeJS.Signals): void => {
    if (created) {
      try {
        unlinkSync(temp);
      } catch {
        // renamed already, or removed by the failure path
      }
    }
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    fd = openSync(temp, 'wx');
    created = true;
    if (mode !== undefined) fchmodSync(fd, mode);
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
    created = false;
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
  } finally {
    // A signal that arrived during the write is read from libuv's signal pipe in the next poll
    // phase. One setImmediate can run before that poll (when the write ran in an I/O callback) and
    // would drop the signal with its listener; the second runs after it.
    setImmediate(() => setImmediate(() => {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
    }));
  }
}
