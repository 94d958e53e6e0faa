// Shared by the hostile-input tests: run the built CLI under a watch, and prove that it
// ended promptly, said one line, and changed nothing outside the test's temp directory.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT, startProcess } from './cli.js';

export { ROOT };

export const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time in milliseconds. */
  ms: number;
  /** Every path the child opened or read through fs (only with `watchOpens`). */
  opened: string[];
  /** Whether the timeout killed it. */
  timedOut: boolean;
}

export interface RunOptions {
  cwd: string;
  input?: string | Buffer;
  /** A file whose contents become stdin (e.g. /dev/zero), instead of `input`. */
  stdinFile?: string;
  env?: Record<string, string>;
  /** Node flags before the binary (e.g. --max-old-space-size=256). */
  nodeFlags?: string[];
  /** Log every path opened through fs (a --require preload). */
  watchOpens?: boolean;
  /** Killed (SIGKILL) after this long; the result says timedOut. Default 20 s. */
  timeoutMs?: number;
  /** Called with the child once spawned (to signal it). */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  /** Run as this command prefix (e.g. setpriv … to drop root). */
  prefix?: string[];
  /** The CLI to run (default the checkout's bin/bqschema.js; asNobody() gives a copy nobody can read). */
  bin?: string;
}

const PRELOAD = `
const fs = require('fs');
const log = process.env.BQ_HOSTILE_OPEN_LOG;
const appendFileSync = fs.appendFileSync;
const note = (p) => { try { appendFileSync(log, String(p) + '\\n'); } catch {} };
for (const name of ['openSync', 'readFileSync', 'createReadStream', 'open', 'readFile', 'opendirSync', 'readdirSync']) {
  const orig = fs[name];
  fs[name] = function (p, ...rest) { if (typeof p === 'string' || p instanceof URL || Buffer.isBuffer(p)) note(p); return orig.call(this, p, ...rest); };
}
for (const name of ['open', 'readFile']) {
  const orig = fs.promises[name];
  fs.promises[name] = function (p, ...rest) { if (typeof p === 'string') note(p); return orig.call(this, p, ...rest); };
}
// ESM named imports of node:fs read these bindings: make them see the wrappers.
require('module').syncBuiltinESMExports();
`;

let preloadFile: string | undefined;
function preload(): string {
  if (preloadFile === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'bq-hostile-preload-'));
    chmodSync(dir, 0o755);
    preloadFile = join(dir, 'watch-opens.cjs');
    writeFileSync(preloadFile, PRELOAD);
    chmodSync(preloadFile, 0o644);
  }
  return preloadFile;
}

/** Runs `node [flags] bin/bqschema.js …args` in `cwd`, NO_COLOR, no BQSCHEMA_* from outside. */
export function run(args: string[], options: RunOptions): Promise<Run> {
  assertBuilt();
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  delete env.BQSCHEMA_REGISTRY;
  delete env.BQSCHEMA_DEBUG;
  const flags = [...(options.nodeFlags ?? [])];
  let log: string | undefined;
  if (options.watchOpens) {
    log = join(mkdtempSync(join(tmpdir(), 'bq-hostile-log-')), 'opened.log');
    writeFileSync(log, '');
    chmodSync(dirname(log), 0o777);
    chmodSync(log, 0o666);
    env.BQ_HOSTILE_OPEN_LOG = log;
    flags.push('--require', preload());
  }
  const argv = [...(options.prefix ?? []), process.execPath, ...flags, options.bin ?? BIN, ...args];
  const started = performance.now();
  const opened = (): string[] => {
    if (log === undefined) return [];
    const lines = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    rmSync(dirname(log), { recursive: true, force: true });
    return lines;
  };
  if (options.onSpawn === undefined) {
    // Nothing needs the child itself: the worker's small process starter runs it (test/helpers/spawner.cjs).
    const request = { file: argv[0]!, args: argv.slice(1), cwd: options.cwd, env, timeoutMs: options.timeoutMs ?? 20_000 };
    return startProcess(
      options.stdinFile !== undefined ? { ...request, stdinFile: options.stdinFile } : { ...request, input: options.input ?? '' },
    ).then((r) => ({ ...r, opened: opened(), ms: performance.now() - started }));
  }
  return new Promise((resolve, reject) => {
    let stdin: 'pipe' | number = 'pipe';
    let fd: number | undefined;
    if (options.stdinFile !== undefined) {
      fd = openSync(options.stdinFile, 'r');
      stdin = fd;
    }
    const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env, stdio: [stdin, 'pipe', 'pipe'] });
    if (fd !== undefined) closeQuietly(fd);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 20_000);
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        timedOut,
        opened: opened(),
        ms: performance.now() - started,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    if (child.stdin) {
      child.stdin.on('error', () => {});
      child.stdin.end(options.input ?? '');
    }
    options.onSpawn?.(child);
  });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** The exit code, no timeout, no stack trace, and stderr at most one line (exactly one when `line` is given). */
export function expectRun(r: Run, code: number, line?: RegExp): void {
  expect(r.timedOut, `timed out; stderr: ${r.stderr}`).toBe(false);
  expect(r.code, `exit code; stderr was:\n${r.stderr}`).toBe(code);
  expect(r.stderr).not.toMatch(/^ {4}at /m);
  expect(r.stderr).not.toMatch(/internal error/);
  const lines = r.stderr === '' ? [] : r.stderr.replace(/\n$/, '').split('\n');
  expect(lines.length, `stderr: ${r.stderr}`).toBeLessThanOrEqual(1);
  if (line !== undefined) {
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
  }
}

/** Neither a raw ESC nor any other C0/C1 control (but newline and tab between lines) in the output. */
export function expectNoRawControls(text: string): void {
  expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}

const dirs: string[] = [];

/** A fresh world-readable temp directory holding the given files (relative path → contents). */
export function tree(files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'bq-hostile-'));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  for (const [name, contents] of Object.entries(files)) {
    const full = join(dir, name);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, contents);
  }
  return dir;
}

export function removeTrees(): void {
  if (nobodyBuild !== undefined) {
    rmSync(nobodyBuild, { recursive: true, force: true });
    nobodyBuild = undefined;
    nobody = undefined;
  }
  if (preloadFile !== undefined) {
    rmSync(dirname(preloadFile), { recursive: true, force: true });
    preloadFile = undefined;
  }
  for (const dir of dirs.splice(0)) {
    try {
      execFileSync('chmod', ['-R', 'u+rwx', dir], { stdio: 'ignore' });
    } catch {
      // nothing was locked
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every file under a directory (relative, sorted), symlinks not followed. */
export function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const full = join(dir, rel);
    let st;
    try {
      st = lstatSync(full);
    } catch {
      return;
    }
    if (rel !== '') out.push(rel);
    if (st.isDirectory() && (st.mode & 0o500) === 0o500) {
      for (const name of readdirSync(full)) walk(rel === '' ? name : join(rel, name));
    }
  };
  walk('');
  return out.sort();
}

/**
 * The repository's files (tracked and untracked, not ignored) with size and mtime: taken before and
 * after a test, equal when the CLI wrote nothing into the repository. /dev/null is checked too.
 */
/**
 * Registers, in the current suite (or file), a check that each test leaves the repository's tree
 * (tracked and untracked files, sizes, mtimes) exactly as it found it.
 */
export function guardRepo(): void {
  let before: string;
  beforeEach(() => {
    before = repoSnapshot();
  });
  afterEach(() => {
    expect(repoSnapshot()).toBe(before);
  });
}

function repoSnapshot(): string {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  const rows = files.map((f) => {
    try {
      const st = lstatSync(join(ROOT, f));
      return `${f}\t${st.size}\t${st.mtimeMs}`;
    } catch {
      return `${f}\t-`;
    }
  });
  rows.push(`/dev/null\t${statSync('/dev/null').isCharacterDevice()}`);
  return rows.join('\n');
}

/** The example CLI registry (three schemas: JSON, YAML, JSONC) copied into `dir/reg`. */
export function copyExampleRegistry(dir: string): string {
  const src = join(ROOT, 'test', 'fixtures', 'cli', 'reg');
  execFileSync('cp', ['-r', src, join(dir, 'reg')]);
  // Readable by nobody too, whatever the checkout's umask was (cp keeps a private clone's 0600).
  execFileSync('chmod', ['-R', 'a+rX', join(dir, 'reg')]);
  return join(dir, 'reg', 'registry.json');
}

export const ORDER_VALID = '{ "job": "urn:test:order", "data": { "order_id": 7, "sku": "ABC", "lines": [{ "id": "a" }] } }\n';

const SETPRIV = ['/usr/bin/setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'];
let nobody: { prefix: string[]; bin: string } | { skip: string } | undefined;
let nobodyBuild: string | undefined;

/**
 * How to run the CLI as nobody (as root, permissions are not enforced): `setpriv`, and a copy of the
 * build that nobody can read; or why that cannot be done here, for `ctx.skip`. The checkout may sit
 * in a directory only its owner can enter (`mktemp -d`, /root), so the CLI runs from a copy under
 * os.tmpdir(): bin/, dist/, package.json and the packages it loads at run time. Removed by removeTrees.
 */
export function asNobody(): { prefix: string[]; bin: string } | { skip: string } {
  if (nobody !== undefined) return nobody;
  if (!IS_ROOT) return (nobody = { skip: 'not root: changing to user nobody needs root' });
  if (!existsSync(SETPRIV[0]!)) return (nobody = { skip: `${SETPRIV[0]} (util-linux) is not installed: it changes to user nobody` });
  const node = spawnSync(SETPRIV[0]!, [...SETPRIV.slice(1), process.execPath, '-e', '0'], { encoding: 'utf8' });
  if (node.status !== 0) {
    return (nobody = {
      skip: `user nobody cannot run node (${process.execPath}): ${(node.error?.message ?? node.stderr).trim().split('\n')[0]}`,
    });
  }
  const dir = mkdtempSync(join(tmpdir(), 'bq-nobody-build-'));
  nobodyBuild = dir;
  for (let up = dirname(dir); ; up = dirname(up)) {
    if ((statSync(up).mode & 0o001) === 0)
      return (nobody = {
        skip: `${up} (on the way to os.tmpdir(), ${tmpdir()}) cannot be searched by other users: nobody cannot reach a copy of the build there`,
      });
    if (dirname(up) === up) break;
  }
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  // What the CLI requires at run time (package.json dependencies; none of them has dependencies of its own).
  for (const pkg of ['commander', 'yaml', 'jsonc-parser'])
    cpSync(join(ROOT, 'node_modules', pkg), join(dir, 'node_modules', pkg), { recursive: true });
  // Readable by all whatever the checkout's umask was (a private clone may have made its files 0600).
  execFileSync('chmod', ['-R', 'a+rX', dir]);
  return (nobody = { prefix: SETPRIV, bin: join(dir, 'bin', 'bqschema.js') });
}

/** The self-referencing YAML of the issue: `properties` is an alias of a node that contains it. */
export const CYCLIC_SCHEMA_YAML = 'type: object\nproperties: &p\n  child:\n    type: object\n    properties: *p\n';

/** A registry whose schema paths are the hostile ones, plus one good schema. */
export function hostileRegistry(): { dir: string; manifest: string; outsideFifo: string } {
  const outer = tree();
  const dir = join(outer, 'reg');
  mkdirSync(join(dir, 'schemas'), { recursive: true });
  writeFileSync(join(dir, 'schemas', 'order.json'), readFileSync(join(ROOT, 'test', 'fixtures', 'cli', 'reg', 'schemas', 'order.json')));
  execFileSync('mkfifo', [join(dir, 'fifo-in'), join(outer, 'fifo-out')]);
  const manifest = join(dir, 'registry.json');
  writeFileSync(
    manifest,
    JSON.stringify({
      schemas: [
        { urn: 'urn:test:order', schema: 'schemas/order.json' },
        { urn: 'urn:hostile:zero', schema: '/dev/zero' },
        { urn: 'urn:hostile:fifo-in', schema: 'fifo-in' },
        { urn: 'urn:hostile:fifo-out', schema: '../fifo-out' },
        { urn: 'urn:hostile:shadow', schema: '../../etc/shadow' },
      ],
    }),
  );
  return { dir, manifest, outsideFifo: join(outer, 'fifo-out') };
}

/** Paths that must never be opened: the outside ones of hostileRegistry. */
export function refusedOpens(r: Run, outsideFifo: string): string[] {
  return r.opened.filter((p) => p === '/dev/zero' || p === outsideFifo || p.endsWith('/fifo-out') || p.endsWith('etc/shadow'));
}

/**
 * For a command with `-o`: a device, FIFO, socket or directory target is one usage
 * line (exit 2) and stays what it was; a symlink to a file is written through and stays a link; a
 * symlink to /dev/stdout is refused, on a pipe and on a file the shell opened for appending.
 * `args(manifest)` gives the command and its options before `-o`.
 */
export function describeOutputTargets(name: string, args: (manifest: string) => string[]): void {
  describe(`${name} -o: only a regular file or a new path is written`, () => {
    guardRepo();
    const setup = (): { dir: string; manifest: string } => {
      const dir = tree();
      return { dir, manifest: copyExampleRegistry(dir) };
    };
    const noTemp = (dir: string): void => expect(listing(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const refused = /^bqschema: cannot write .+: .+; nothing was written$/;

    it.runIf(IS_ROOT)('/dev/null (as root, where a rename would replace the device) is refused and stays a character device', async () => {
      const { dir, manifest } = setup();
      const r = await run([...args(manifest), '-o', '/dev/null'], { cwd: dir });
      expectRun(r, 2, /^bqschema: cannot write \/dev\/null: it is not a regular file \(a device, FIFO or socket\); nothing was written$/);
      expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
      expect(r.stdout).toBe('');
      noTemp('/dev');
    });

    it('a FIFO is refused at once (no reader needed) and stays a FIFO', async () => {
      const { dir, manifest } = setup();
      execFileSync('mkfifo', [join(dir, 'pipe')]);
      const r = await run([...args(manifest), '-o', 'pipe'], { cwd: dir, timeoutMs: 10_000 });
      expectRun(r, 2, /^bqschema: cannot write pipe: it is not a regular file/);
      expect(lstatSync(join(dir, 'pipe')).isFIFO()).toBe(true);
      noTemp(dir);
    });

    it('a listening Unix socket is refused and stays a socket', async () => {
      const { dir, manifest } = setup();
      const server = createNetServer();
      await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
      try {
        const r = await run([...args(manifest), '-o', 'sock'], { cwd: dir });
        expectRun(r, 2, /^bqschema: cannot write sock: it is not a regular file/);
        expect(lstatSync(join(dir, 'sock')).isSocket()).toBe(true);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
      noTemp(dir);
    });

    it('a directory is refused and keeps its contents', async () => {
      const { dir, manifest } = setup();
      mkdirSync(join(dir, 'out'));
      writeFileSync(join(dir, 'out', 'keep'), 'kept');
      const r = await run([...args(manifest), '-o', 'out'], { cwd: dir });
      expectRun(r, 2, /^bqschema: cannot write out: it is a directory; nothing was written$/);
      expect(readFileSync(join(dir, 'out', 'keep'), 'utf8')).toBe('kept');
      noTemp(dir);
    });

    it('a symlink to a file is written through: the file gets the output, the link stays a link', async () => {
      const { dir, manifest } = setup();
      writeFileSync(join(dir, 'real.out'), 'old');
      symlinkSync('real.out', join(dir, 'link.out'));
      const r = await run([...args(manifest), '-o', 'link.out'], { cwd: dir });
      expectRun(r, 0);
      expect(lstatSync(join(dir, 'link.out')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dir, 'link.out'))).toBe('real.out');
      const written = readFileSync(join(dir, 'real.out'), 'utf8');
      expect(written).not.toBe('old');
      expect(written.length).toBeGreaterThan(100);
      noTemp(dir);
    });

    it('a symlink to /dev/stdout is refused when stdout is a pipe, and stays a link', async () => {
      const { dir, manifest } = setup();
      symlinkSync('/dev/stdout', join(dir, 'so'));
      const r = await run([...args(manifest), '-o', 'so'], { cwd: dir });
      expectRun(r, 2, refused);
      expect(r.stdout).toBe('');
      expect(readlinkSync(join(dir, 'so'))).toBe('/dev/stdout');
      noTemp(dir);
    });

    it('-o /dev/stdout with stdout appended to a log is refused: the log is not replaced', async () => {
      const { dir, manifest } = setup();
      const log = join(dir, 'build.log');
      writeFileSync(log, 'earlier lines\n');
      const r = await runToFile([...args(manifest), '-o', '/dev/stdout'], dir, log);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^bqschema: cannot write \/dev\/stdout: it is this process's standard output; .*nothing was written\n$/);
      expect(readFileSync(log, 'utf8')).toBe('earlier lines\n');
      noTemp(dir);
    });
  });
}

/** Runs the CLI with stdout appended to `file` (as `>> file` would), stderr captured. */
function runToFile(args: string[], cwd: string, file: string): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(file, 'a');
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.BQSCHEMA_REGISTRY;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}
