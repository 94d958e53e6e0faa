import { spawn, type ChildProcess } from 'node:child_process';
import { ImplementationError, type Implementation, type ImplementationInfo } from './runner.js';

export interface LineImplementationOptions {
  /** The longest one answer may take, in ms (default 10000). After a timeout the implementation is stopped. */
  timeoutMs?: number;
  /** The longest the answer to `hello` may take: start-up included (default 30000, and never less than timeoutMs). */
  startTimeoutMs?: number;
  /** The longest line the implementation may write, in bytes without its newline (default 16 MiB). A longer one stops it. */
  maxLineBytes?: number;
  cwd?: string;
}

/** An implementation over the line protocol, which its runner can stop at any time (on SIGINT, say). */
export interface LineImplementation extends Implementation {
  /** Kills the implementation's process group now; the pending request and every later one fail with `reason`. */
  stop(reason: string): void;
}

export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;
const STDERR_TAIL = 2000;

/**
 * Drives an implementation over the line protocol (docs/conformance-protocol.md): `command` runs
 * through the shell; one JSON request per line on its stdin, one JSON answer per line on its stdout.
 *
 * The shell and everything it starts run in a process group of their own, and the whole group is
 * killed whenever the implementation is stopped (timeout, protocol error, a line over the cap,
 * close(), the runner's exit): killing the shell alone would leave its children holding stdout,
 * and the run would wait for them.
 */
export function spawnImplementation(command: string, options: LineImplementationOptions = {}): LineImplementation {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const startTimeoutMs = Math.max(options.startTimeoutMs ?? 30_000, timeoutMs);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const child: ChildProcess = spawn(command, { shell: true, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  let gone: string | undefined;
  let nextId = 1;
  let pending: { id: number; resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | undefined;

  let groupKilled = false;
  const killGroup = (): void => {
    if (groupKilled || child.pid === undefined) return;
    groupKilled = true;
    try {
      // detached: the shell leads a new process group, whose id is its pid (Windows has no groups).
      process.kill(process.platform === 'win32' ? child.pid : -child.pid, 'SIGKILL');
    } catch {
      // ESRCH: every process of the group has exited already
    }
  };
  // A runner that exits without close() (an internal error) leaves nothing behind either.
  process.on('exit', killGroup);

  const tail = (): string => {
    const t = stderr.trim().split('\n').slice(-3).join(' | ');
    return t === '' ? '' : `; its stderr ends: ${t.slice(-300)}`;
  };
  const stop = (reason: string): void => {
    if (gone !== undefined) return;
    gone = reason;
    killGroup();
    if (pending !== undefined) {
      clearTimeout(pending.timer);
      pending.reject(new ImplementationError(reason));
      pending = undefined;
    }
  };

  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  child.on('error', (err) => stop(`the implementation could not run: ${err.message}`));
  child.on('exit', (code, signal) => stop(`the implementation exited (${signal ?? `code ${code}`})${tail()}`));
  child.stdin!.on('error', () => {}); // EPIPE after an exit: reported by the exit handler

  // Lines are split here, not by readline, so that a line is never held past maxLineBytes: what has
  // come of the current line is kept as the chunks' slices, and is dropped once it is over the cap.
  let parts: Buffer[] = [];
  let partBytes = 0;
  const tooLong = (): void => {
    parts = [];
    stop(
      `the implementation wrote a line longer than ${maxLineBytes} bytes${pending === undefined ? '' : ` in answer to request ${pending.id}`} (the limit is --max-line-bytes): it was stopped`,
    );
  };
  const take = (bytes: Buffer): void => {
    parts.push(bytes);
    const text = (parts.length === 1 ? bytes : Buffer.concat(parts)).toString('utf8');
    parts = [];
    partBytes = 0;
    onLine(text.endsWith('\r') ? text.slice(0, -1) : text);
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    let from = 0;
    while (gone === undefined) {
      const eol = chunk.indexOf(0x0a, from);
      const end = eol === -1 ? chunk.length : eol;
      if (partBytes + (end - from) > maxLineBytes) return tooLong();
      if (eol === -1) {
        if (end > from) parts.push(chunk.subarray(from));
        partBytes += end - from;
        return;
      }
      take(chunk.subarray(from, eol));
      from = eol + 1;
    }
  });
  // A last line without its newline still counts, as readline would have it.
  child.stdout!.on('end', () => {
    if (gone === undefined && partBytes > 0) take(Buffer.alloc(0));
  });

  function onLine(line: string): void {
    if (pending === undefined) {
      if (line.trim() !== '') stop(`the implementation wrote a line nobody asked for: ${line.slice(0, 200)}`);
      return;
    }
    const p = pending;
    pending = undefined;
    clearTimeout(p.timer);
    let answer: unknown;
    try {
      answer = JSON.parse(line);
    } catch {
      answer = undefined;
    }
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer) || (answer as { id?: unknown }).id !== p.id) {
      const reason = `the implementation broke the protocol: answer to request ${p.id} is not a JSON object with "id": ${p.id}: ${line.slice(0, 200)}`;
      p.reject(new ImplementationError(reason));
      stop(reason);
      return;
    }
    p.resolve(answer as Record<string, unknown>);
  }

  function request(op: string, fields: Record<string, string>, ms = timeoutMs): Promise<Record<string, unknown>> {
    if (gone !== undefined) return Promise.reject(new ImplementationError(gone));
    const id = nextId++;
    // Field values are JSON texts, spliced as written: the implementation parses one ordinary JSON line.
    let line = `{"id":${id},"op":${JSON.stringify(op)}`;
    for (const [k, v] of Object.entries(fields)) line += `,${JSON.stringify(k)}:${oneLine(v)}`;
    line += '}\n';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop(`no answer to request ${id} (${op}) within ${ms} ms: the implementation was stopped`);
      }, ms);
      pending = { id, resolve, reject, timer };
      child.stdin!.write(line);
    });
  }

  return {
    async hello(): Promise<ImplementationInfo> {
      let answer: Record<string, unknown>;
      try {
        answer = await request('hello', {}, startTimeoutMs);
      } catch (err) {
        throw new ImplementationError(`${(err as Error).message} (before answering hello)`);
      }
      const bindings = answer.bindings ?? [];
      if (
        typeof answer.sdk !== 'string' ||
        answer.sdk === '' ||
        typeof answer.version !== 'string' ||
        answer.version === '' ||
        !Array.isArray(bindings) ||
        !bindings.every((b) => typeof b === 'string')
      ) {
        throw new ImplementationError(
          `the answer to hello must be {"id", "sdk": "<name>", "version": "<version>", "bindings"?: ["<binding>", …]}, got ${JSON.stringify(answer).slice(0, 200)}`,
        );
      }
      return { sdk: answer.sdk, version: answer.version, bindings: bindings as string[] };
    },
    request: (op, fields) => request(op, fields),
    stop,
    async close(): Promise<void> {
      if (child.exitCode === null && child.signalCode === null && !groupKilled) {
        // The protocol's end: stdin closes and the implementation exits; 2 s later it is killed.
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.stdin!.end();
        const timer = setTimeout(killGroup, 2000);
        await exited;
        clearTimeout(timer);
      }
      // Whatever it started and left running goes too, and no pipe it holds keeps this process alive.
      killGroup();
      process.off('exit', killGroup);
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    },
  };
}

/**
 * A JSON text on one line, same value: CR/LF can only be whitespace between tokens (raw in a string
 * they are not JSON), and U+2028/U+2029, legal raw inside strings, are escaped so that no reader
 * (Python's splitlines, for one) splits the request there.
 */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]/g, (c) => (c === '\n' || c === '\r' ? ' ' : c === '\u2028' ? '\\u2028' : '\\u2029'));
}
