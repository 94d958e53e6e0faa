// Shared by the serve tests: start the built CLI as a child process and talk HTTP to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBuilt } from './cli.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'bqschema.js');
export const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

export interface Served {
  child: ChildProcess;
  port: number;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves once stderr matches (looking only at output after `from` characters). */
  waitFor(pattern: RegExp, from?: number): Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts `bqschema serve --port 0 …` (in `cwd`, without $BQSCHEMA_REGISTRY) and waits for its "listening" line. */
export async function serve(args: string[], options: { cwd?: string } = {}): Promise<Served> {
  assertBuilt();
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.BQSCHEMA_REGISTRY; // so a registry is only discovered from `cwd`
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  const waiters: { pattern: RegExp; from: number; resolve: () => void }[] = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      if (w.pattern.test(err.slice(w.from))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
    check();
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (pattern: RegExp, from = 0): Promise<void> =>
    new Promise((resolve, reject) => {
      waiters.push({ pattern, from, resolve });
      check();
      void exited.then((code) => reject(new Error(`serve exited (${code}) before printing ${pattern}; stderr:\n${err}`)));
    });
  await waitFor(/listening on http:\/\/[^\s]+:\d+/);
  const port = Number(/listening on http:\/\/.+:(\d+) /.exec(err)![1]);
  return { child, port, stderr: () => err, waitFor, exited };
}

export async function stop(served: Served): Promise<void> {
  if (served.child.exitCode === null && served.child.signalCode === null) {
    served.child.kill('SIGKILL');
    await served.exited;
  }
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (`undefined` when it is empty). */
  body: any;
}

/** One request on a fresh connection. `path` is sent as written (percent-encoding is the caller's). */
export async function call(
  port: number,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string | number> = {},
): Promise<Reply> {
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    method,
    path,
    agent: false,
    headers: body === undefined ? headers : { 'content-length': Buffer.byteLength(body), ...headers },
  });
  req.end(body);
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: res.statusCode!, headers: res.headers, text, body: text === '' ? undefined : JSON.parse(text) };
}

/** A temporary registry directory: file name → content; returns the directory. */
export function registryDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bq-serve-'));
  writeFiles(dir, files);
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

export const manifest = (entries: { urn: string; schema: string }[]): string => JSON.stringify({ schemas: entries }, null, 2);
