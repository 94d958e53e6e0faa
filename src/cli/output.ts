import { Chalk, type ChalkInstance } from 'chalk';
import type { Writable } from 'node:stream';

/** Colour only on a TTY and never when NO_COLOR is set (https://no-color.org). */
export function makeChalk(stream: { isTTY?: boolean } = process.stdout): ChalkInstance {
  const off = (process.env.NO_COLOR ?? '') !== '' || !stream.isTTY;
  return new Chalk({ level: off ? 0 : 1 });
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

/** A GitHub Actions workflow command; property and message values escaped as the runner expects. */
export function githubCommand(
  level: 'error' | 'warning' | 'notice',
  props: { file?: string; line?: number; col?: number; title?: string },
  message: string,
): string {
  const esc = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const escProp = (s: string): string => esc(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const parts: string[] = [];
  if (props.file !== undefined) parts.push(`file=${escProp(props.file)}`);
  if (props.line !== undefined) parts.push(`line=${props.line}`);
  if (props.col !== undefined) parts.push(`col=${props.col}`);
  if (props.title !== undefined) parts.push(`title=${escProp(props.title)}`);
  return `::${level}${parts.length ? ' ' + parts.join(',') : ''}::${esc(message)}`;
}

export type Format = 'text' | 'json' | 'github';
