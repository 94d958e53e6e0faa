import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** End-to-end helpers: the tests run the BUILT binary, as a user would (`npm test` builds first). */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'bqschema.js');
export const FIXTURES = join(ROOT, 'test', 'fixtures', 'cli');

/**
 * A directory's path from the root of the git repository it is in, with a final `/` ('' outside
 * one): annotations, SARIF and JUnit's `file` name files from the repository's root, so a command
 * run in FIXTURES names `messages/x.json` as `${inRepository(FIXTURES)}messages/x.json`.
 */
export function inRepository(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d === dir ? '' : `${relative(d, dir).split(sep).join('/')}/`;
    if (dirname(d) === d) return '';
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  /** Added to (or, when undefined, removed from) the inherited environment. */
  env?: Record<string, string | undefined>;
  /** Written to stdin; stdin is closed either way so a command never waits on it. */
  input?: string | Buffer;
  /** Run under a pseudo-terminal (util-linux `script`), so stdout is a TTY. */
  tty?: boolean;
}

/** Whether `tty: true` can be used here (util-linux `script -qec`). */
export const CAN_TTY = process.platform === 'linux' && existsSync('/usr/bin/script');

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The built CLI is the e2e project's: a unit test (vitest.config.ts sets BQ_TEST_PROJECT=unit) that
 * reaches here would need a build, so it is refused, naming the fix.
 */
export function assertBuilt(): void {
  if (process.env.BQ_TEST_PROJECT === 'unit') {
    throw new Error(
      'a unit test ran the built CLI: name its file *.e2e.test.ts (the e2e project), or test the source without bin/ and dist/',
    );
  }
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/cli/main.js is missing: run `npm run build` first (`npm test` builds before testing)');
  }
}

/** Runs `node bin/bqschema.js ...args` with NO_COLOR=1 and no BQSCHEMA_REGISTRY unless given. */
export function bq(args: string[], options: RunOptions = {}): Promise<CliResult> {
  assertBuilt();
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.BQSCHEMA_REGISTRY;
  delete env.BQSCHEMA_DEBUG;
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const argv = [process.execPath, BIN, ...args];
  const [file, rest] = options.tty ? ['/usr/bin/script', ['-qec', argv.map(shellQuote).join(' '), '/dev/null']] : [argv[0]!, argv.slice(1)];
  return startProcess({ file, args: rest, cwd: options.cwd ?? ROOT, env, input: options.input ?? '' }).then((r) => ({
    code: r.code ?? -1,
    stdout: r.stdout,
    stderr: r.stderr,
  }));
}

/** A process to start (test/helpers/spawner.cjs): stdin is `input`, or the file `stdinFile` names. */
export interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
  stdinFile?: string;
  /** Killed (SIGKILL) after this long; the answer says timedOut. */
  timeoutMs?: number;
}
/** How it ended, and what it wrote. */
export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}
type SpawnAnswer =
  | { id: number; error: string }
  | { id: number; code: number | null; signal: NodeJS.Signals | null; timedOut: boolean; stdout: Uint8Array; stderr: Uint8Array };

/** UTF-8 text of bytes the starter sent (a view of them, not a copy: an output can be megabytes). */
const text = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

/** Starts a process through the worker's small process starter (why: test/helpers/spawner.cjs). */
export function startProcess(request: SpawnRequest): Promise<SpawnResult> {
  return spawner().run(request);
}

/**
 * The worker's process starter (test/helpers/spawner.cjs, why: there): one per worker process,
 * shared by the test files it runs (they each evaluate this module anew), and not keeping the
 * worker alive while nothing waits on it.
 */
class Spawner {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<number, { resolve: (r: SpawnResult) => void; reject: (e: Error) => void }>();
  private next = 0;
  private gone = false;

  constructor() {
    this.child = fork(join(ROOT, 'test', 'helpers', 'spawner.cjs'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      execArgv: [],
    });
    this.child.on('message', (m: SpawnAnswer) => {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      this.hold();
      if ('error' in m) w.reject(new Error(m.error));
      else
        w.resolve({
          code: m.code,
          signal: m.signal,
          timedOut: m.timedOut,
          stdout: text(m.stdout),
          stderr: text(m.stderr),
        });
    });
    this.child.on('exit', (code, signal) => {
      this.gone = true;
      for (const w of this.waiting.values()) w.reject(new Error(`the test process starter ended (${code ?? signal})`));
      this.waiting.clear();
    });
    this.hold();
  }

  get usable(): boolean {
    return !this.gone;
  }

  run(request: SpawnRequest): Promise<SpawnResult> {
    return new Promise((resolve, reject) => {
      const id = this.next++;
      this.waiting.set(id, { resolve, reject });
      this.hold();
      this.child.send({ id, ...request });
    });
  }

  /** Keeps the worker's event loop alive only while a run is waited on. */
  private hold(): void {
    const channel = this.child.channel as { ref(): void; unref(): void } | null | undefined;
    if (this.waiting.size > 0) {
      this.child.ref();
      channel?.ref();
    } else {
      this.child.unref();
      channel?.unref();
    }
  }
}

const SPAWNER = Symbol.for('bqschema.test.spawner');
function spawner(): Spawner {
  const held = globalThis as { [SPAWNER]?: Spawner };
  const s = held[SPAWNER];
  if (s !== undefined && s.usable) return s;
  return (held[SPAWNER] = new Spawner());
}

/**
 * One run read in several formats: text on stdout, the others written by --report to a temporary
 * directory, each file what `--format <format>` prints for the same run, with the same exit code
 * (test/report/report-files.e2e.test.ts). Tests reading different formats of one run share it.
 */
export function inFormats(
  run: (args: string[]) => Promise<CliResult>,
  args: string[],
  reports: string[],
): (format: string) => Promise<CliResult> {
  let done: Promise<{ r: CliResult; out: string }> | undefined;
  return async (format) => {
    done ??= (async () => {
      const out = tempTree({});
      const r = await run([...args, ...reports.flatMap((f) => ['--report', `${f}=${join(out, f)}`])]);
      return { r, out };
    })();
    const { r, out } = await done;
    return format === 'text' ? r : { ...r, stdout: readFileSync(join(out, format), 'utf8') };
  };
}

/** Asserts the exit code (showing stderr when it differs) and that stderr carries no stack trace. */
export function expectExit(result: CliResult, code: number): void {
  expect(result.code, `exit code; stderr was:\n${result.stderr}`).toBe(code);
  expect(result.stderr).not.toMatch(/^ {4}at /m);
}

/** A one-line error on stderr, nothing else; exit 2 (usage) unless another code is given. */
export function expectOneLineError(result: CliResult, pattern: RegExp, code = 2): void {
  expectExit(result, code);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

/** A message that could not be judged: exit 1, an error result on stdout, nothing on stderr. */
export function expectErrorResult(result: CliResult, pattern: RegExp): void {
  expectExit(result, 1);
  expect(result.stderr).toBe('');
  expect(result.stdout).toMatch(/! error/);
  expect(result.stdout).toMatch(pattern);
}

/** `check` reports the problem as an error in its output and exits 1. */
export function expectCheckError(result: CliResult, pattern: RegExp): void {
  expectExit(result, 1);
  expect(result.stdout).toMatch(pattern);
  expect(result.stdout).toMatch(/^FAILED: /m);
}

const created: string[] = [];

/** A fresh temporary directory holding the given files (relative path → contents); see removeTempTrees. */
export function tempTree(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bqschema-cli-'));
  created.push(dir);
  for (const [name, contents] of Object.entries(files)) {
    const full = join(dir, name);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, contents);
  }
  return dir;
}

/** Removes every directory tempTree made (call from afterAll). */
export function removeTempTrees(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export const BOM = '\uFEFF';
