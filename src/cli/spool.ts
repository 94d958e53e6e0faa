import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from './errors.js';

/** Text held in memory before a spool moves to a temporary file. */
export const SPOOL_MEMORY_BYTES = 8 * 1024 * 1024;

/**
 * What a spool holds in memory: SPOOL_MEMORY_BYTES, or less for a test (BQSCHEMA_TEST_SPOOL_BYTES, a
 * whole number of bytes from 1 to SPOOL_MEMORY_BYTES; anything else is ignored), so the end-to-end
 * tests cross the bound with small inputs.
 */
export function spoolMemoryBytes(): number {
  const raw = process.env.BQSCHEMA_TEST_SPOOL_BYTES ?? '';
  return /^[1-9][0-9]{0,7}$/.test(raw) && Number(raw) <= SPOOL_MEMORY_BYTES ? Number(raw) : SPOOL_MEMORY_BYTES;
}
/** The most read back (or written) at once. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Pieces of text kept in order under keys (JUnit's test cases under their suite), read back key by
 * key once everything is in: what a document needs when its heads carry counts only the end
 * knows. Up to `memoryBytes` stay in memory; past that everything goes to a temporary file (made
 * in the OS's temporary directory, removed on close, and on POSIX unlinked as soon as it is open,
 * so not even a crash leaves it behind), and reading it back costs a bounded buffer.
 */
export class Spool {
  /** In memory: each key's pieces. */
  private held: Map<string, string[]> | undefined = new Map();
  private heldBytes = 0;
  /** On disk: each key's byte ranges in the file, in order. */
  private readonly ranges = new Map<string, Array<[number, number]>>();
  private fd: number | undefined;
  private path: string | undefined;
  private size = 0;
  private pending = '';

  constructor(private readonly memoryBytes = spoolMemoryBytes()) {}

  /** Whether the pieces went to a temporary file. */
  get onDisk(): boolean {
    return this.fd !== undefined;
  }

  add(key: string, text: string): void {
    if (this.held !== undefined) {
      const list = this.held.get(key);
      if (list === undefined) this.held.set(key, [text]);
      else list.push(text);
      this.heldBytes += text.length;
      if (this.heldBytes > this.memoryBytes) this.spill();
      return;
    }
    const bytes = Buffer.byteLength(text);
    const list = this.ranges.get(key);
    const last = list?.[list.length - 1];
    // A key's pieces that follow one another are one range.
    if (last !== undefined && last[1] === this.size) last[1] += bytes;
    else if (list === undefined) this.ranges.set(key, [[this.size, this.size + bytes]]);
    else list.push([this.size, this.size + bytes]);
    this.size += bytes;
    this.pending += text;
    if (this.pending.length >= CHUNK_BYTES) this.write();
  }

  /** A key's pieces, in the order they were added, as text of at most about a megabyte at a time. */
  *read(key: string): Generator<string> {
    if (this.held !== undefined) {
      yield* this.held.get(key) ?? [];
      return;
    }
    this.write();
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    for (const [from, to] of this.ranges.get(key) ?? []) {
      for (let at = from; at < to;) {
        const n = readSync(this.fd!, buf, 0, Math.min(CHUNK_BYTES, to - at), at);
        if (n === 0) throw new Error(`the spool file ended at byte ${at} of ${to}`);
        at += n;
        const text = decoder.write(buf.subarray(0, n));
        if (text !== '') yield text;
      }
    }
    const rest = decoder.end();
    if (rest !== '') yield rest;
  }

  /** Removes the temporary file, if there is one. */
  close(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // closing is all that is left to do
      }
      this.fd = undefined;
    }
    if (this.path !== undefined) {
      try {
        unlinkSync(this.path);
      } catch {
        // unlinked when it was opened (POSIX)
      }
      this.path = undefined;
    }
    this.held = new Map();
    this.heldBytes = 0;
    this.ranges.clear();
    this.pending = '';
    this.size = 0;
  }

  /** Moves what is held in memory to a new temporary file, key by key. */
  private spill(): void {
    const dir = tmpdir();
    const path = join(dir, `bqschema-spool-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
    try {
      this.fd = openSync(path, 'wx+', 0o600);
    } catch (err) {
      throw new UsageError(
        `cannot write a temporary file in ${dir} for a report too large to hold in memory: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; set TMPDIR to a writable directory`,
      );
    }
    this.path = path;
    try {
      unlinkSync(path); // the open descriptor keeps the file; no name is left behind
      this.path = undefined;
    } catch {
      // a system that cannot unlink an open file: removed on close
    }
    const held = this.held!;
    this.held = undefined;
    this.heldBytes = 0;
    for (const [key, pieces] of held) for (const p of pieces) this.add(key, p);
  }

  private write(): void {
    if (this.pending === '' || this.fd === undefined) return;
    const bytes = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at);
    } catch (err) {
      throw new UsageError(
        `cannot write the temporary file of a report too large to hold in memory (in ${tmpdir()}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; set TMPDIR to a directory with room`,
      );
    }
  }
}
