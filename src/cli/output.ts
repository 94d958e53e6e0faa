import { Chalk, type ChalkInstance } from 'chalk';
import type { Writable } from 'node:stream';

/** Colour only on a TTY and never when NO_COLOR is set (https://no-color.org). */
export function makeChalk(stream: { isTTY?: boolean } = process.stdout): ChalkInstance {
  const off = (process.env.NO_COLOR ?? '') !== '' || !stream.isTTY;
  return new Chalk({ level: off ? 0 : 1 });
}

// C0 controls, DEL and C1 controls (ESC among them), plus the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const CONTROL_TEST = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Text from input (a URN, a file name, a message) made safe for a terminal or a log: every control
 * character is written as an escape (`\n`, `\x1b`, `\u2028`), so input can neither move the cursor,
 * recolour the screen nor forge a line of output.
 */
export function clean(s: string): string {
  if (!CONTROL_TEST.test(s)) return s;
  return s.replace(CONTROL, (ch) => {
    switch (ch) {
      case '\n': return '\\n';
      case '\r': return '\\r';
      case '\t': return '\\t';
      default: {
        const code = ch.charCodeAt(0);
        return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
      }
    }
  });
}

/** Writes to a stream, waiting for 'drain' so a slow reader cannot make output pile up in memory. */
export class Out {
  private pending = '';
  constructor(private readonly stream: Writable = process.stdout) {}

  line(text = ''): void {
    this.pending += text + '\n';
  }

  /** Flushes buffered lines, respecting backpressure. */
  async flush(): Promise<void> {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    if (!this.stream.write(chunk)) {
      await new Promise<void>((resolve) => this.stream.once('drain', resolve));
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
 * A GitHub Actions workflow command; property and message values escaped as the runner expects,
 * and control characters from input escaped so they cannot end the command or forge another.
 */
export function githubCommand(
  level: 'error' | 'warning' | 'notice',
  props: { file?: string; line?: number; col?: number; title?: string },
  message: string,
): string {
  const esc = (s: string): string => clean(s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
  const escProp = (s: string): string => esc(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const parts: string[] = [];
  if (props.file !== undefined) parts.push(`file=${escProp(props.file)}`);
  if (props.line !== undefined) parts.push(`line=${props.line}`);
  if (props.col !== undefined) parts.push(`col=${props.col}`);
  if (props.title !== undefined) parts.push(`title=${escProp(props.title)}`);
  return `::${level}${parts.length ? ' ' + parts.join(',') : ''}::${esc(message)}`;
}

export type Format = 'text' | 'json' | 'github';

/** How the data root and the envelope are labelled in every output. */
export const DATA_ROOT = '(root)';
export const ENVELOPE = '(envelope)';
