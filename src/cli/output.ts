import type { Writable } from 'node:stream';
import { stdoutGone } from './stdout.js';

/** The five styles the CLI uses; each returns its text unchanged when colour is off. */
export interface Colours {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

/**
 * Colour only on a TTY and never when NO_COLOR is set (https://no-color.org); FORCE_COLOR (set,
 * and not `0` or `false`) turns it on for a pipe, e.g. a CI log that renders ANSI.
 */
export function colourWanted(stream: { isTTY?: boolean } = process.stdout): boolean {
  if ((process.env.NO_COLOR ?? '') !== '') return false;
  const force = process.env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return stream.isTTY === true;
}

// Basic 16-colour SGR codes, closed the way chalk closes them (22 ends bold and dim, 39 a colour):
// a style nested inside another is reopened after the inner close, and each line is wrapped alone.
function style(open: string, close: string): (s: string) => string {
  return (s) => {
    if (s === '') return s;
    if (s.includes(close)) s = s.split(close).join(close + open);
    if (s.includes('\n')) s = s.replace(/\r?\n/g, (nl) => close + nl + open);
    return open + s + close;
  };
}

const same = (s: string): string => s;
const PLAIN: Colours = { bold: same, dim: same, red: same, green: same, yellow: same };
const ANSI: Colours = {
  bold: style('\x1b[1m', '\x1b[22m'),
  dim: style('\x1b[2m', '\x1b[22m'),
  red: style('\x1b[31m', '\x1b[39m'),
  green: style('\x1b[32m', '\x1b[39m'),
  yellow: style('\x1b[33m', '\x1b[39m'),
};

/** The styles for a stream (stdout by default), or for an explicit choice (a worker is told). */
export function coloursFor(stream: { isTTY?: boolean } | boolean = process.stdout): Colours {
  return (typeof stream === 'boolean' ? stream : colourWanted(stream)) ? ANSI : PLAIN;
}

// Escaping lives with the renderers of src/report, which need it too; the CLI re-exports it.
export { clean } from '../report/text.js';

/**
 * Where `Out` writes: a stream (stdout), or a file written as it goes (src/cli/write.ts openAtomic),
 * whose `write` never returns false and so needs no 'drain'.
 */
export type Sink = Pick<Writable, 'write' | 'once'> | { write(chunk: string): boolean; once?: undefined };

/** Writes to a stream, waiting for 'drain' so a slow reader cannot make output pile up in memory. */
export class Out {
  private pending = '';
  /** With `null` (in a worker, for a report rendered whole), lines only collect, for `take()`. */
  constructor(private readonly stream: Sink | null = process.stdout) {}

  /** The buffered text, removed from the buffer. */
  take(): string {
    const text = this.pending;
    this.pending = '';
    return text;
  }

  /** Buffers text that already ends in a newline (a worker's lines). */
  raw(text: string): void {
    this.pending += text;
  }

  line(text = ''): void {
    this.pending += text + '\n';
  }

  /**
   * Flushes buffered lines, respecting backpressure. Once stdout's reader has gone away and the run
   * goes on for its report files (./stdout.ts), what was meant for stdout is dropped.
   */
  async flush(): Promise<void> {
    if (this.pending === '' || this.stream === null) return;
    const chunk = this.pending;
    this.pending = '';
    const stream = this.stream;
    if ((stream as Partial<Writable>).destroyed === true || (stream === process.stdout && stdoutGone())) return;
    if (!stream.write(chunk) && stream.once !== undefined) {
      // A stream that fails or closes instead never drains: waiting for 'drain' alone would hang.
      const events = stream as Writable;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          events.off('drain', done);
          events.off('close', done);
          events.off('error', done);
          resolve();
        };
        events.on('drain', done);
        events.on('close', done);
        events.on('error', done);
      });
    }
  }

  /** Whether enough has been buffered to be worth a write. */
  wantsFlush(): boolean {
    return this.pending.length >= 65536;
  }

  /** Flushes when enough has been buffered to be worth a write. */
  async maybeFlush(): Promise<void> {
    if (this.wantsFlush()) await this.flush();
  }
}

/**
 * Prints a whole generated document (ending in a newline) on stdout, waiting for the reader;
 * a reader that goes away ends the run quietly with success (the document was the whole job).
 */
export async function printDocument(text: string): Promise<number> {
  const { exitWhenStdoutCloses } = await import('./stdout.js');
  exitWhenStdoutCloses(() => 0);
  const out = new Out();
  out.line(text.endsWith('\n') ? text.slice(0, -1) : text);
  await out.flush();
  return 0;
}
