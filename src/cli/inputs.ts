import { closeSync, constants, createReadStream, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { firstInvalidUtf8 } from '../registry/index.js';
import { UsageError } from './errors.js';

/** One JSON document to process: a whole file, one NDJSON line, or a read failure. */
export type Doc =
  | { kind: 'doc'; file: string; line?: number; text: string }
  | { kind: 'error'; file: string; message: string; line?: number; col?: number };

export interface InputLimits {
  /** The largest whole file (or stdin document) read, in bytes. */
  maxFileBytes: number;
  /** The longest NDJSON line read, in bytes. */
  maxLineBytes: number;
}

/** Generous defaults: far beyond real messages, well below what would exhaust memory. */
export const DEFAULT_LIMITS: InputLimits = { maxFileBytes: 256 * 1024 * 1024, maxLineBytes: 64 * 1024 * 1024 };

const STREAM_EXT = ['.ndjson', '.jsonl'];
const WALK_EXT = ['.json', ...STREAM_EXT];

export const STDIN = '<stdin>';

function isStream(file: string): boolean {
  const lower = file.toLowerCase();
  return STREAM_EXT.some((e) => lower.endsWith(e));
}

/** An input larger than the limit: the run stops (exit 2), since the limit is the caller's setting. */
export function tooLarge(file: string, what: string, limit: number, option: string): UsageError {
  return new UsageError(`${file}: ${what} is larger than ${limit} bytes (raise the limit with ${option})`);
}

type Walked = { file: string } | { error: Doc };

/**
 * Expands a directory into its message files, sorted, following symlinks without looping.
 * `node_modules` and dot-directories are skipped unless named on the command line; a directory
 * that cannot be read is one error and the walk goes on.
 */
function walk(dir: string, seen: Set<string>, out: Walked[]): void {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (err) {
    out.push({ error: { kind: 'error', file: dir, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` } });
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    out.push({ error: { kind: 'error', file: dir, message: `directory cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` } });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const name = entry.name;
    const full = join(dir, name);
    // The entry's own type spares a stat per file; only symlinks (and unknown types) need one to be followed.
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (!isDir && !isFile) {
      try {
        const st = statSync(full);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch {
        continue; // a dangling symlink
      }
    }
    if (isDir) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      walk(full, seen, out);
    } else if (isFile && WALK_EXT.some((e) => name.toLowerCase().endsWith(e))) out.push({ file: full });
  }
}

/** Text of a line's bytes; bytes that are not UTF-8 are an error naming the offset in the file. */
function lineText(bytes: Buffer, file: string, line: number, offset: number): Doc {
  if (!isUtf8(bytes)) {
    return { kind: 'error', file, line, message: `not valid UTF-8 (byte offset ${offset + firstInvalidUtf8(bytes)})` };
  }
  return { kind: 'doc', file, line, text: bytes.toString('utf8') };
}

const BLANK = /^[ \t\r\n\f\v]*$/;

/**
 * The lines of a byte stream, in batches (one per chunk read), with readline's semantics: `\n`,
 * `\r\n` and a lone `\r` end a line; line numbers count every line, blank ones (skipped) included;
 * a BOM is dropped on line 1 only. A line longer than the limit stops the run.
 */
async function* lines(stream: Readable, file: string, limits: InputLimits): AsyncGenerator<Doc[]> {
  let line = 0;
  let offset = 0; // byte offset of the pending line's start
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const emit = (bytes: Buffer, batch: Doc[]): void => {
    line++;
    let body = bytes;
    if (line === 1 && body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) body = body.subarray(3);
    // A lone \r inside the line also ends a line (readline does so); \r at the end is part of \r\n.
    let cr = body.indexOf(0x0d);
    let start = offset;
    while (cr !== -1 && cr < body.length - 1) {
      push(body.subarray(0, cr), start, batch);
      line++;
      start += cr + 1;
      body = body.subarray(cr + 1);
      cr = body.indexOf(0x0d);
    }
    if (cr === body.length - 1) body = body.subarray(0, cr);
    push(body, start, batch);
  };
  const push = (bytes: Buffer, start: number, batch: Doc[]): void => {
    if (bytes.length === 0) return;
    const doc = lineText(bytes, file, line, start);
    if (doc.kind === 'doc' && BLANK.test(doc.text)) return;
    batch.push(doc);
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const batch: Doc[] = [];
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      const part = chunk.subarray(from, nl);
      if (pendingBytes + part.length > limits.maxLineBytes) throw tooLarge(`${file}:${line + 1}`, 'the line', limits.maxLineBytes, '--max-line-bytes');
      const bytes = pending.length === 0 ? part : Buffer.concat([...pending, part], pendingBytes + part.length);
      pending = [];
      pendingBytes = 0;
      emit(bytes, batch);
      offset += bytes.length + 1;
      from = nl + 1;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      if (pendingBytes + rest.length > limits.maxLineBytes) throw tooLarge(`${file}:${line + 1}`, 'the line', limits.maxLineBytes, '--max-line-bytes');
      pending.push(rest);
      pendingBytes += rest.length;
    }
    if (batch.length > 0) yield batch;
  }
  if (pendingBytes > 0) {
    const batch: Doc[] = [];
    emit(pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes), batch);
    if (batch.length > 0) yield batch;
  }
}

async function readAll(stream: Readable, file: string, limits: InputLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limits.maxFileBytes) throw tooLarge(file, 'the input', limits.maxFileBytes, '--max-file-bytes');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function wholeText(bytes: Buffer, file: string): Doc {
  if (!isUtf8(bytes)) return { kind: 'error', file, message: `not valid UTF-8 (byte offset ${firstInvalidUtf8(bytes)})` };
  return { kind: 'doc', file, text: bytes.toString('utf8') };
}

// One buffer, grown as needed, serves every whole-file read: a run over 10,000 files allocates once.
let shared = Buffer.allocUnsafe(1 << 20);

/** A whole file: read into the shared buffer, at most the limit. */
function wholeFile(file: string, limits: InputLimits): Doc {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { kind: 'error', file, message: code === 'ENOENT' ? 'no such file or directory' : `cannot be read: ${code ?? (err as Error).message}` };
  }
  try {
    const st = fstatSync(fd);
    if (st.isFile() && st.size > limits.maxFileBytes) throw tooLarge(file, 'the file', limits.maxFileBytes, '--max-file-bytes');
    let total = 0;
    for (;;) {
      if (total === shared.length) {
        const bigger = Buffer.allocUnsafe(Math.min(shared.length * 2, limits.maxFileBytes + 1));
        shared.copy(bigger, 0, 0, total);
        shared = bigger;
      }
      const n = readSync(fd, shared, total, shared.length - total, null);
      if (n === 0) break;
      total += n;
      if (total > limits.maxFileBytes) throw tooLarge(file, 'the file', limits.maxFileBytes, '--max-file-bytes');
    }
    return wholeText(shared.subarray(0, total), file);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return { kind: 'error', file, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

async function* streamFile(file: string, limits: InputLimits): AsyncGenerator<Doc[]> {
  const stream = createReadStream(file, { highWaterMark: 65536 });
  try {
    yield* lines(stream, file, limits);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    yield [{ kind: 'error', file, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }];
  } finally {
    stream.destroy();
  }
}

export interface DocumentOptions {
  ndjson?: boolean;
  stdin?: Readable;
  limits?: InputLimits;
}

/**
 * Yields every document of the given paths in order, in batches: files whole, NDJSON line by line
 * (streamed, a batch per chunk read), directories walked. A path that cannot be read yields an
 * error and the run goes on; an input over a size limit stops it (UsageError).
 */
export async function* documents(paths: string[], options: DocumentOptions = {}): AsyncGenerator<Doc[]> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  for (const path of paths) {
    if (path === '-') {
      const stdin = options.stdin ?? process.stdin;
      if (options.ndjson) {
        yield* lines(stdin, STDIN, limits);
      } else {
        // Empty stdin holds no message: nothing is yielded, and the caller says there was no input.
        const doc = wholeText(await readAll(stdin, STDIN, limits), STDIN);
        if (doc.kind === 'error' || doc.text.trim() !== '') yield [doc];
      }
      continue;
    }
    let st;
    try {
      st = statSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      yield [{ kind: 'error', file: path, message: code === 'ENOENT' ? 'no such file or directory' : `cannot be read: ${code ?? (err as Error).message}` }];
      continue;
    }
    if (!st.isDirectory()) {
      // A file named on the command line is read whatever its name (a FIFO or /dev/stdin included).
      if (isStream(path)) yield* streamFile(path, limits);
      else yield [wholeFile(path, limits)];
      continue;
    }
    const walked: Walked[] = [];
    walk(path, new Set(), walked);
    // Whole files go out in batches too: one async-generator hop per batch, not per file.
    let batch: Doc[] = [];
    for (const w of walked) {
      if ('error' in w) batch.push(w.error);
      else if (isStream(w.file)) {
        if (batch.length > 0) yield batch;
        batch = [];
        yield* streamFile(w.file, limits);
      } else {
        batch.push(wholeFile(w.file, limits));
        if (batch.length >= 256) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  }
}

