import { closeSync, constants, createReadStream, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { firstInvalidUtf8 } from '../registry/index.js';
import { STDIN } from '../report/model.js';
import { UsageError } from './errors.js';
import { WALK_NAME } from './protect.js';

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

/**
 * Far beyond real messages (a queue's message is kilobytes; Kafka's default cap is 1 MB), and what
 * node's default heap holds whatever the message's shape: parsed and judged, a message takes up to
 * HEAP_PER_BYTE times its size (16 MiB of nested arrays peaks at ~0.5 GB of heap, 0.9 GB RSS;
 * docs/cli/validate.md). A larger message needs the limit and the heap raised together.
 */
export const DEFAULT_LIMITS: InputLimits = { maxFileBytes: 16 * 1024 * 1024, maxLineBytes: 16 * 1024 * 1024 };

/**
 * Heap a JSON message may take while it is parsed and judged, per character of its text: the worst
 * shapes measured (`[[[…]]]`, `[{}, {}, …]`) need ~31; the rest is margin. A YAML message takes
 * sixteen times that (the parser's document tree), so YAML is read up to a sixteenth of the limit.
 */
export const HEAP_PER_BYTE = 40;
export const YAML_SHARE = 16;

// The files a walk takes (WALK_NAME, from ./protect.ts, which keeps outputs out of them), and those
// read as streams.
const STREAM_NAME = /\.(ndjson|jsonl)$/i;

// How stdin is named (the report layer knows it too: it is no file of the repository).
export { STDIN };

function isStream(file: string): boolean {
  return STREAM_NAME.test(file);
}

/**
 * An input larger than the limit: the run stops (exit 2), since the limit is the caller's setting.
 * Named: the input, its size (`undefined`: not known, the reading stopped at the limit), the limit,
 * and how to raise it with the heap it then needs.
 */
export function tooLarge(file: string, what: string, limit: number, option: string, size?: number): UsageError {
  const is = size === undefined ? `is larger than ${limit} bytes` : `is ${size} bytes, larger than ${limit}`;
  return new UsageError(
    `${file}: ${what} ${is} (the limit of ${option}); raise the limit with ${option} <bytes>, and give node ${HEAP_PER_BYTE} bytes of heap per byte of message (NODE_OPTIONS=--max-old-space-size=<MiB>)`,
  );
}

/**
 * Expands a directory into its message files, sorted, following symlinks without looping, as plan
 * items: whole files of one directory in a row as one item of names (their paths are made as they
 * are read, and die young: 10,000 long-lived paths cost the young-generation collector a copy each).
 * `node_modules` and dot-directories are skipped unless named on the command line; a directory
 * that cannot be read is one error and the walk goes on.
 */
function walk(dir: string, seen: Set<string>, out: PlanItem[]): void {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (err) {
    out.push({
      kind: 'error',
      doc: { kind: 'error', file: dir, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` },
    });
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    out.push({
      kind: 'error',
      doc: {
        kind: 'error',
        file: dir,
        message: `directory cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      },
    });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // join(dir, name) for every name, with the directory normalised once rather than per entry.
  const base = join(dir, '_').slice(0, -1);
  let files: { kind: 'files'; base: string; names: string[] } | undefined;
  for (const entry of entries) {
    const name = entry.name;
    // The entry's own type spares a stat per file; only symlinks (and unknown types) need one to be followed.
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (!isDir && !isFile) {
      try {
        const st = statSync(base + name);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') continue; // a dangling symlink: nothing is there
        // A symlink loop or a permission error hides a file the user may expect checked: say so.
        if (WALK_NAME.test(name)) {
          out.push({
            kind: 'error',
            doc: { kind: 'error', file: base + name, message: `cannot be read: ${code ?? (err as Error).message}` },
          });
          files = undefined;
        }
        continue;
      }
    }
    if (isDir) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      walk(base + name, seen, out);
      files = undefined;
    } else if (isFile) {
      const kind = nameKind(name);
      if (kind === 'whole') {
        if (files === undefined) out.push((files = { kind: 'files', base, names: [] }));
        files.names.push(name);
      } else if (kind === 'stream') {
        out.push({ kind: 'stream', file: base + name });
        files = undefined;
      }
    }
  }
}

/** How a walk takes a file by its name: whole (*.json), as a stream (*.ndjson, *.jsonl), or not at all. */
function nameKind(name: string): 'whole' | 'stream' | undefined {
  // Most names in a message directory end in a lower-case ".json": that is settled without a pattern.
  const n = name.length;
  if (n > 5 && name.charCodeAt(n - 5) === 0x2e && name.endsWith('json')) return 'whole';
  if (!WALK_NAME.test(name)) return undefined;
  return STREAM_NAME.test(name) ? 'stream' : 'whole';
}

/** Text of a line's bytes; bytes that are not UTF-8 are an error naming the offset in the file. */
function lineText(bytes: Buffer, file: string, line: number, offset: number): Doc {
  if (!isUtf8(bytes)) {
    return { kind: 'error', file, line, message: `not valid UTF-8 (byte offset ${offset + firstInvalidUtf8(bytes)})` };
  }
  return { kind: 'doc', file, line, text: bytes.toString('utf8') };
}

/**
 * The lines of a byte stream, in batches (one per chunk read), with readline's semantics: `\n`,
 * `\r\n` and a lone `\r` end a line; line numbers count every line, blank ones (skipped) included;
 * a BOM is dropped on line 1 only. A line longer than the limit stops the run, after every line
 * before it (so what is reported does not depend on where a read happened to end). `start` lets a
 * worker continue a stream from a line boundary.
 *
 * The complete lines of a chunk are decoded as one string and cut there (one native call per chunk,
 * not four per line); a chunk that is not UTF-8 or may hold a line over the limit takes the byte
 * path, which names the offending byte and line. Both give the same documents (test/validate/ndjson-lines.e2e.test.ts).
 */
export async function* lines(
  stream: AsyncIterable<Buffer> | Iterable<Buffer>,
  file: string,
  limits: InputLimits,
  start = { line: 0, offset: 0 },
): AsyncGenerator<Doc[]> {
  const cut = new LineCutter(file, limits, start.line, start.offset);
  for await (const chunk of stream) {
    const batch: Doc[] = [];
    try {
      cut.chunk(chunk, batch);
    } catch (err) {
      if (batch.length > 0) yield batch;
      throw err;
    }
    if (batch.length > 0) yield batch;
  }
  const batch: Doc[] = [];
  cut.end(batch);
  if (batch.length > 0) yield batch;
}

const BLANK = /^[ \t\r\n\f\v]*$/;

/** A line's text is skipped when it holds only whitespace (its first character is then one, ≤ U+0020). */
const blank = (text: string): boolean => text.charCodeAt(0) <= 0x20 && BLANK.test(text);

/** The state of `lines()` between chunks: the line count, the byte offset, a line not yet ended. */
class LineCutter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(
    private readonly file: string,
    private readonly limits: InputLimits,
    private line: number,
    /** Byte offset of the pending line's start. */
    private offset: number,
  ) {}

  chunk(chunk: Buffer, batch: Doc[]): void {
    const nl = chunk.lastIndexOf(0x0a);
    if (nl === -1) {
      this.hold(chunk);
      return;
    }
    // The line held from earlier chunks ends at the first \n: it alone is copied to be joined.
    let from = 0;
    if (this.pendingBytes > 0) {
      const first = chunk.indexOf(0x0a);
      const line = Buffer.concat([...this.pending, chunk.subarray(0, first + 1)], this.pendingBytes + first + 1);
      this.pending = [];
      this.pendingBytes = 0;
      this.region(line, batch);
      from = first + 1;
    }
    // Every other complete line in the chunk, as it is; then the rest held.
    if (from <= nl) this.region(from === 0 && nl + 1 === chunk.length ? chunk : chunk.subarray(from, nl + 1), batch);
    if (nl + 1 < chunk.length) this.hold(chunk.subarray(nl + 1));
  }

  /** Complete lines (the region ends with \n). */
  private region(region: Buffer, batch: Doc[]): void {
    if (region.length <= this.limits.maxLineBytes && isUtf8(region)) this.fast(region, batch);
    else this.bytes(region, batch);
  }

  end(batch: Doc[]): void {
    if (this.pendingBytes === 0) return;
    const rest = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.emit(rest, batch);
  }

  private hold(bytes: Buffer): void {
    if (this.pendingBytes + bytes.length > this.limits.maxLineBytes) {
      // The line so far can only grow: it is over the limit whatever follows.
      throw tooLarge(`${this.file}:${this.line + 1}`, 'the line', this.limits.maxLineBytes, '--max-line-bytes');
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  /** Complete lines, valid UTF-8, none over the limit (each is at most as long as the region). */
  private fast(region: Buffer, batch: Doc[]): void {
    const text = region.toString('utf8');
    let from = this.line === 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
    const hasCr = text.indexOf('\r') !== -1;
    for (let nl = text.indexOf('\n', from); nl !== -1; nl = text.indexOf('\n', from)) {
      if (hasCr) this.crLine(text.slice(from, nl), batch);
      else this.take(text.slice(from, nl), batch);
      from = nl + 1;
    }
    this.offset += region.length;
  }

  /** A line that may hold `\r`s: a lone one ends a line, one at the end belongs to `\r\n`. */
  private crLine(text: string, batch: Doc[]): void {
    let rest = text;
    for (let cr = rest.indexOf('\r'); cr !== -1 && cr < rest.length - 1; cr = rest.indexOf('\r')) {
      this.take(rest.slice(0, cr), batch);
      rest = rest.slice(cr + 1);
    }
    this.take(rest.endsWith('\r') ? rest.slice(0, -1) : rest, batch);
  }

  /** One line's text: counted, and kept unless empty or blank. */
  private take(text: string, batch: Doc[]): void {
    this.line++;
    if (text.length > 0 && !blank(text)) batch.push({ kind: 'doc', file: this.file, line: this.line, text });
  }

  /** The byte path: line by line, each checked for UTF-8 and the limit on its own. */
  private bytes(region: Buffer, batch: Doc[]): void {
    let from = 0;
    for (let nl = region.indexOf(0x0a); nl !== -1; nl = region.indexOf(0x0a, from)) {
      const part = region.subarray(from, nl);
      if (part.length > this.limits.maxLineBytes) {
        throw tooLarge(`${this.file}:${this.line + 1}`, 'the line', this.limits.maxLineBytes, '--max-line-bytes');
      }
      this.emit(part, batch);
      this.offset += part.length + 1;
      from = nl + 1;
    }
  }

  /** One line's bytes (without its \n), for the byte path and the last line of a stream. */
  private emit(bytes: Buffer, batch: Doc[]): void {
    this.line++;
    let body = bytes;
    let start = this.offset;
    if (this.line === 1 && body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) {
      body = body.subarray(3);
      start += 3; // offsets count the BOM's bytes: they are the file's
    }
    // A lone \r inside the line also ends a line (readline does so); \r at the end is part of \r\n.
    let cr = body.indexOf(0x0d);
    while (cr !== -1 && cr < body.length - 1) {
      this.push(body.subarray(0, cr), start, batch);
      this.line++;
      start += cr + 1;
      body = body.subarray(cr + 1);
      cr = body.indexOf(0x0d);
    }
    if (cr === body.length - 1) body = body.subarray(0, cr);
    this.push(body, start, batch);
  }

  private push(bytes: Buffer, start: number, batch: Doc[]): void {
    if (bytes.length === 0) return;
    const doc = lineText(bytes, this.file, this.line, start);
    if (doc.kind === 'doc' && blank(doc.text)) return;
    batch.push(doc);
  }
}

export async function readAll(stream: Readable, file: string, limits: InputLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limits.maxFileBytes) throw tooLarge(file, 'the input', limits.maxFileBytes, '--max-file-bytes');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

// Buffer's UTF-8 decoder without toString's argument handling and without a subarray per file
// (10k files: ~3 ms): utf8Slice is what toString('utf8') calls. A runtime without it gets toString.
type Utf8Slice = { utf8Slice(start: number, end: number): string };
const decode: (bytes: Buffer, end: number) => string =
  typeof (Buffer.prototype as Partial<Utf8Slice>).utf8Slice === 'function'
    ? (bytes, end) => (bytes as unknown as Utf8Slice).utf8Slice(0, end)
    : (bytes, end) => bytes.toString('utf8', 0, end);

/** A whole document from its bytes (the first `end` of them). */
export function wholeText(bytes: Buffer, file: string, end = bytes.length): Doc {
  // Decoding turns every byte that is not UTF-8 into U+FFFD: text without one came from valid UTF-8,
  // and only text with one (bad bytes, or a real U+FFFD) needs the bytes checked.
  const text = decode(bytes, end);
  if (text.includes('\ufffd')) {
    const used = bytes.subarray(0, end);
    if (!isUtf8(used)) return { kind: 'error', file, message: `not valid UTF-8 (byte offset ${firstInvalidUtf8(used)})` };
  }
  return { kind: 'doc', file, text };
}

// One buffer, grown as needed, serves every whole-file read: a run over 10,000 files allocates once.
let shared = Buffer.allocUnsafe(1 << 20);

/** A whole file: read into the shared buffer, at most the limit. */
export function wholeFile(file: string, limits: InputLimits): Doc {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      kind: 'error',
      file,
      message: code === 'ENOENT' ? 'no such file or directory' : `cannot be read: ${code ?? (err as Error).message}`,
    };
  }
  try {
    // Read to the end, the limit applied as the bytes arrive (memory stays under it): no fstat first,
    // whose Stats object cost more than the extra read that finds the end (10k files: ~80 vs ~100 ms CPU).
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
      if (total > limits.maxFileBytes) throw tooLarge(file, 'the file', limits.maxFileBytes, '--max-file-bytes', sizeOf(fd));
    }
    return wholeText(shared, file, total);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    return { kind: 'error', file, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

/** A regular file's size (its reading stopped at a limit), else undefined (a FIFO, a device). */
function sizeOf(fd: number): number | undefined {
  try {
    const st = fstatSync(fd);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

// Chunk sizes of a regular stream file: 64 KB when this thread judges the lines (peak RSS 75-78 MB
// on 100k lines, 85-93 MB with 256 KB, the same CPU), a task's size when ./tasks.ts reads for --jobs tasks.
const READ_BYTES = 64 * 1024;

/** A regular file's bytes in fresh chunks (a chunk is never reused: lines may still hold parts of it). */
function* fileChunks(file: string, size: number): Generator<Buffer> {
  const fd = openSync(file, constants.O_RDONLY);
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(size);
      const n = readSync(fd, buf, 0, size, null);
      if (n === 0) return;
      yield n === size ? buf : buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of a stream file: a regular file is read synchronously, which costs less CPU than a
 * stream (100k lines, one thread: 540 vs 630 ms; wall time at the read+parse floor's). A FIFO or a
 * device goes through a stream, so that opening and waiting on one does not block the thread.
 */
export function streamOfFile(
  file: string,
  direct: (file: string) => Generator<Buffer>,
): { chunks: AsyncIterable<Buffer> | Iterable<Buffer>; close: () => void } {
  let regular = false;
  try {
    regular = statSync(file).isFile();
  } catch {
    // reported when it is opened
  }
  if (regular) {
    const chunks = direct(file);
    return { chunks, close: () => void chunks.return(undefined) };
  }
  const stream = createReadStream(file, { highWaterMark: 65536 });
  return { chunks: stream, close: () => void stream.destroy() };
}

async function* streamFile(file: string, limits: InputLimits): AsyncGenerator<Doc[]> {
  const { chunks, close } = streamOfFile(file, (f) => fileChunks(f, READ_BYTES));
  try {
    yield* lines(chunks, file, limits);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    yield [{ kind: 'error', file, message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }];
  } finally {
    close();
  }
}

/** A path named on the command line that cannot be stat'ed: an error result naming why. */
function unreadable(path: string, err: unknown): Doc {
  const code = (err as NodeJS.ErrnoException).code;
  return {
    kind: 'error',
    file: path,
    message: code === 'ENOENT' ? 'no such file or directory' : `cannot be read: ${code ?? (err as Error).message}`,
  };
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
      yield [unreadable(path, err)];
      continue;
    }
    if (!st.isDirectory()) {
      // A file named on the command line is read whatever its name (a FIFO or /dev/stdin included).
      if (isStream(path)) yield* streamFile(path, limits);
      else yield [wholeFile(path, limits)];
      continue;
    }
    const walked: PlanItem[] = [];
    walk(path, new Set(), walked);
    yield* batches(walked, options);
  }
}

// ---- the plan: what the paths hold, before any is read (one thread reads it with documentsOf; --jobs cuts it into tasks: ./tasks.ts) ----

/**
 * What the paths hold, found before any is read: the default `--jobs` depends on it. A whole file
 * named on the command line is its path; a walked directory's run of whole files is one item.
 */
type PlanItem =
  | string
  | { kind: 'files'; base: string; names: string[] }
  | { kind: 'stdin' }
  | { kind: 'stream'; file: string }
  | { kind: 'error'; doc: Doc };

export interface InputPlan {
  items: PlanItem[];
  /** Whole files (stdin as a document counts as one). */
  wholeFiles: number;
  /** Bytes of the NDJSON files (and of stdin when it is a regular file). */
  streamBytes: number;
}

/** Stats and walks the paths, in order; errors become items so they are reported where they were. */
export function planInputs(paths: string[], ndjson: boolean | undefined): InputPlan {
  const plan: InputPlan = { items: [], wholeFiles: 0, streamBytes: 0 };
  const streamOf = (file: string, size: number): void => {
    plan.items.push({ kind: 'stream', file });
    plan.streamBytes += size;
  };
  for (const path of paths) {
    if (path === '-') {
      plan.items.push({ kind: 'stdin' });
      let size = 0;
      try {
        const st = fstatSync(0);
        if (st.isFile()) size = st.size;
      } catch {
        // unknown size: counted as small
      }
      if (ndjson) plan.streamBytes += size;
      else plan.wholeFiles++;
      continue;
    }
    let st;
    try {
      st = statSync(path);
    } catch (err) {
      plan.items.push({ kind: 'error', doc: unreadable(path, err) });
      continue;
    }
    if (!st.isDirectory()) {
      if (isStream(path)) streamOf(path, st.size);
      else {
        plan.items.push(path);
        plan.wholeFiles++;
      }
      continue;
    }
    const from = plan.items.length;
    walk(path, new Set(), plan.items);
    for (let i = from; i < plan.items.length; i++) {
      const item = plan.items[i]!;
      if (typeof item === 'string') plan.wholeFiles++;
      else if (item.kind === 'files') plan.wholeFiles += item.names.length;
      else if (item.kind === 'stream') {
        try {
          plan.streamBytes += statSync(item.file).size;
        } catch {
          // reported when it is read
        }
      }
    }
  }
  return plan;
}

/** `documents()` over a plan already made (so a directory is walked once), for one thread. */
export function documentsOf(plan: InputPlan, options: DocumentOptions = {}): AsyncGenerator<Doc[]> {
  return batches(plan.items, options);
}

/** The most text (UTF-16 units) of whole files one batch holds. */
const BATCH_TEXT = 4 * 1024 * 1024;

/**
 * The documents of planned items in order. Whole files go out in batches (one async-generator hop
 * per batch, not per file); a file over the limit stops the run after the files before it.
 */
async function* batches(items: Iterable<PlanItem>, options: DocumentOptions): AsyncGenerator<Doc[]> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  let batch: Doc[] = [];
  let batchBytes = 0;
  for (const item of items) {
    if (typeof item === 'string' || item.kind === 'files') {
      const [base, names] = typeof item === 'string' ? ['', [item]] : [item.base, item.names];
      for (const name of names) {
        let doc: Doc;
        try {
          doc = wholeFile(base + name, limits);
        } catch (err) {
          if (batch.length > 0) yield batch;
          throw err;
        }
        batch.push(doc);
        batchBytes += doc.kind === 'doc' ? doc.text.length : 0;
        // 64 documents a hop: the texts of a batch stay alive until it is judged, and the young
        // generation's collector copies what is alive (10k files: 256 a batch 194 ms, 64 191 ms);
        // and no more than BATCH_TEXT of text, so large messages are held one or a few at a time.
        if (batch.length >= 64 || batchBytes >= BATCH_TEXT) {
          yield batch;
          batch = [];
          batchBytes = 0;
        }
      }
    } else if (item.kind === 'error') batch.push(item.doc);
    else {
      if (batch.length > 0) yield batch;
      batch = [];
      batchBytes = 0;
      if (item.kind === 'stream') yield* streamFile(item.file, limits);
      else yield* documents(['-'], options);
    }
  }
  if (batch.length > 0) yield batch;
}
