import { closeSync, constants, openSync, readSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from './errors.js';
import { readAll, STDIN, streamOfFile, tooLarge, wholeText, type Doc, type InputLimits, type InputPlan } from './inputs.js';

/*
 * Work for validate --jobs: the inputs ./inputs.ts reads and plans, cut into pieces a worker
 * thread can take (whole files by name, or NDJSON bytes that end at a line break, shared
 * rather than copied). One thread reads with ./inputs.ts alone.
 */

/** A pending line (no \n yet) grew past the limit while reading for tasks; streamTasks names its line. */
class LineTooLong extends Error {}

/** Task buffers this module made and owns whole: a task can take one without a copy. */
const OWNED = new WeakSet<Buffer>();

/**
 * A task's bytes live in shared memory: posted to a worker they are shared, not copied nor moved,
 * so the main thread still holds them and can judge a task itself if no worker has started it.
 * The memory of a task that was answered is used again (`recycle`): fresh memory costs the kernel
 * a zeroed page per 4 KB read into it (1M lines: ~120 ms of the main thread's CPU, ~20 ms reused).
 */
function taskBuffer(size: number): Buffer {
  for (let i = spare.length - 1; i >= 0; i--) {
    if (spare[i]!.byteLength >= size) return Buffer.from(spare.splice(i, 1)[0]!, 0, size);
  }
  return Buffer.from(new SharedArrayBuffer(Math.ceil(size / SPARE_GRAIN) * SPARE_GRAIN), 0, size);
}

// Sizes are rounded up to SPARE_GRAIN (a task's read is its size plus the line carried over), and
// at most MAX_SPARE buffers wait to be used again.
const SPARE_GRAIN = 64 * 1024;
const MAX_SPARE = 64;
const spare: SharedArrayBuffer[] = [];

/**
 * A task whose answer is in: no thread reads its bytes again (a worker that had not begun it only
 * reads its claim slot), so their memory serves a later task.
 */
export function recycle(task: Task): void {
  if (task.kind === 'lines' && task.bytes.buffer instanceof SharedArrayBuffer && spare.length < MAX_SPARE) spare.push(task.bytes.buffer);
}

/**
 * A regular file's bytes for --jobs tasks, in fresh shared buffers that end at a \n (the last one at
 * the end of the file): the bytes after the last \n are copied into the next read's buffer, so a
 * task takes its buffer whole instead of copying it.
 */
function* lineAlignedChunks(file: string, size: number, maxLineBytes: number): Generator<Buffer> {
  const fd = openSync(file, constants.O_RDONLY);
  try {
    let carry: Buffer | undefined;
    for (;;) {
      const held = carry?.length ?? 0;
      const want = Math.max(size, held); // a long line doubles the read, so it is not copied over and over
      const buf = taskBuffer(held + want);
      if (carry !== undefined) carry.copy(buf, 0);
      const n = readSync(fd, buf, held, want, null);
      if (n === 0) {
        if (carry !== undefined) yield carry;
        return;
      }
      const filled = held + n;
      const nl = buf.lastIndexOf(0x0a, filled - 1);
      if (nl === -1) {
        if (filled > maxLineBytes) throw new LineTooLong();
        carry = buf.subarray(0, filled);
        continue;
      }
      carry = nl + 1 < filled ? Buffer.from(buf.subarray(nl + 1, filled)) : undefined;
      const out = buf.subarray(0, nl + 1);
      OWNED.add(out);
      yield out;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A piece of work for a worker: documents (a string is a whole file the worker reads itself, so
 * reading spreads over the threads too), or complete NDJSON lines of one stream with the number of
 * lines and bytes before them, so the worker numbers lines and places byte offsets as one reader would.
 */
export type Task =
  { kind: 'docs'; items: Array<string | Doc> } | { kind: 'lines'; file: string; bytes: Buffer; line: number; offset: number };

/**
 * How many lines `lines()` counts in these bytes: every \n, every \r not followed by \n (a lone \r
 * ends a line too), and, at the end of the stream, a last line without a line break.
 */
function countLines(bytes: Buffer, final: boolean): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) n++;
  for (let i = bytes.indexOf(0x0d); i !== -1; i = bytes.indexOf(0x0d, i + 1)) {
    if (i + 1 < bytes.length && bytes[i + 1] !== 0x0a) n++;
  }
  if (final && bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) n++;
  return n;
}

/**
 * Cuts a byte stream into tasks of about `taskBytes`, each ending at a \n (the last one at the end
 * of the stream). Each task's bytes are a fresh shared buffer of their own (taskBuffer). A line without a \n longer than the limit stops the run after the
 * complete lines before it, as `lines()` does.
 */
async function* streamTasks(
  stream: AsyncIterable<Buffer> | Iterable<Buffer>,
  file: string,
  limits: InputLimits,
  taskBytes: number,
): AsyncGenerator<Task> {
  let line = 0;
  let offset = 0;
  let parts: Buffer[] = [];
  let size = 0;
  let tail = 0; // bytes after the last \n in parts
  const cut = (n: number, final: boolean): Task => {
    let bytes: Buffer;
    if (parts.length === 1 && parts[0]!.length === n && OWNED.has(parts[0]!)) {
      bytes = parts[0]!; // a buffer of its own that ends at a \n: the task takes it whole
      parts = [];
    } else {
      bytes = taskBuffer(n);
      let at = 0;
      const rest: Buffer[] = [];
      for (const p of parts) {
        if (at >= n) rest.push(p);
        else if (at + p.length <= n) {
          p.copy(bytes, at);
          at += p.length;
        } else {
          p.copy(bytes, at, 0, n - at);
          rest.push(p.subarray(n - at));
          at = n;
        }
      }
      parts = rest;
    }
    size -= n;
    const task: Task = { kind: 'lines', file, bytes, line, offset };
    line += countLines(bytes, final);
    offset += n;
    return task;
  };
  try {
    for await (const chunk of stream) {
      const nl = chunk.lastIndexOf(0x0a);
      tail = nl === -1 ? tail + chunk.length : chunk.length - nl - 1;
      parts.push(chunk);
      size += chunk.length;
      if (tail > limits.maxLineBytes) {
        if (size > tail) yield cut(size - tail, false);
        throw tooLarge(`${file}:${line + 1}`, 'the line', limits.maxLineBytes, '--max-line-bytes');
      }
      if (size - tail >= taskBytes) yield cut(size - tail, false);
    }
  } catch (err) {
    if (err instanceof LineTooLong) {
      if (size > tail) yield cut(size - tail, false);
      throw tooLarge(`${file}:${line + 1}`, 'the line', limits.maxLineBytes, '--max-line-bytes');
    }
    if (err instanceof UsageError || file === STDIN) throw err;
    // A read error ends the stream; its complete lines are still judged, then the error is reported.
    if (size > tail) yield cut(size - tail, false);
    yield {
      kind: 'docs',
      items: [{ kind: 'error', file, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }],
    };
    return;
  }
  if (size > 0) yield cut(size, true);
}

export interface TaskOptions {
  ndjson?: boolean;
  stdin?: Readable;
  limits: InputLimits;
  /** Bytes of NDJSON per task. */
  taskBytes: number;
  /** Whole files per task. */
  filesPerTask: number;
}

/** The plan's inputs as tasks, in input order. */
export async function* tasks(plan: InputPlan, options: TaskOptions): AsyncGenerator<Task> {
  let items: Array<string | Doc> = [];
  const take = (): Task => {
    const t: Task = { kind: 'docs', items };
    items = [];
    return t;
  };
  for (const item of plan.items) {
    if (typeof item === 'string') {
      items.push(item);
      if (items.length >= options.filesPerTask) yield take();
    } else if (item.kind === 'files') {
      for (const name of item.names) {
        items.push(item.base + name);
        if (items.length >= options.filesPerTask) yield take();
      }
    } else if (item.kind === 'error') items.push(item.doc);
    else {
      if (items.length > 0) yield take();
      if (item.kind === 'stdin') {
        const stdin = options.stdin ?? process.stdin;
        if (options.ndjson) yield* streamTasks(stdin, STDIN, options.limits, options.taskBytes);
        else {
          const doc = wholeText(await readAll(stdin, STDIN, options.limits), STDIN);
          if (doc.kind === 'error' || doc.text.trim() !== '') items.push(doc);
        }
      } else {
        const { chunks, close } = streamOfFile(item.file, (f) => lineAlignedChunks(f, options.taskBytes, options.limits.maxLineBytes));
        try {
          yield* streamTasks(chunks, item.file, options.limits, options.taskBytes);
        } finally {
          close();
        }
      }
    }
  }
  if (items.length > 0) yield take();
}
