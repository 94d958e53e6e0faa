import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ImplementationError, type Implementation, type ImplementationInfo } from './runner.js';

export interface LineImplementationOptions {
  /** The longest one answer may take, in ms (default 10000). After a timeout the implementation is stopped. */
  timeoutMs?: number;
  /** The longest the answer to `hello` may take: start-up included (default 30000, and never less than timeoutMs). */
  startTimeoutMs?: number;
  cwd?: string;
}

const STDERR_TAIL = 2000;

/**
 * Drives an implementation over the line protocol (docs/conformance-protocol.md): `command` runs
 * through the shell; one JSON request per line on its stdin, one JSON answer per line on its stdout.
 */
export function spawnImplementation(command: string, options: LineImplementationOptions = {}): Implementation {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const startTimeoutMs = Math.max(options.startTimeoutMs ?? 30_000, timeoutMs);
  const child: ChildProcess = spawn(command, { shell: true, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let gone: string | undefined;
  let nextId = 1;
  let pending: { id: number; resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void; timer: NodeJS.Timeout } | undefined;

  const tail = (): string => {
    const t = stderr.trim().split('\n').slice(-3).join(' | ');
    return t === '' ? '' : `; its stderr ends: ${t.slice(-300)}`;
  };
  const stop = (reason: string): void => {
    if (gone !== undefined) return;
    gone = reason;
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
  createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', (line) => {
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
      child.kill('SIGKILL');
      return;
    }
    p.resolve(answer as Record<string, unknown>);
  });

  function request(op: string, fields: Record<string, string>, ms = timeoutMs): Promise<Record<string, unknown>> {
    if (gone !== undefined) return Promise.reject(new ImplementationError(gone));
    const id = nextId++;
    // Field values are JSON texts, spliced as written: the implementation parses one ordinary JSON line.
    let line = `{"id":${id},"op":${JSON.stringify(op)}`;
    for (const [k, v] of Object.entries(fields)) line += `,${JSON.stringify(k)}:${oneLine(v)}`;
    line += '}\n';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const reason = `no answer to request ${id} (${op}) within ${ms} ms: the implementation was stopped`;
        stop(reason);
        child.kill('SIGKILL');
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
      if (typeof answer.sdk !== 'string' || answer.sdk === '' || typeof answer.version !== 'string' || answer.version === '' || !Array.isArray(bindings) || !bindings.every((b) => typeof b === 'string')) {
        throw new ImplementationError(`the answer to hello must be {"id", "sdk": "<name>", "version": "<version>", "bindings"?: ["<binding>", …]}, got ${JSON.stringify(answer).slice(0, 200)}`);
      }
      return { sdk: answer.sdk, version: answer.version, bindings: bindings as string[] };
    },
    request: (op, fields) => request(op, fields),
    async close(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
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
