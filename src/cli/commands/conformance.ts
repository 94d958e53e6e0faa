import { randomBytes } from 'node:crypto';
import { lstatSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DEFAULT_MAX_LINE_BYTES, spawnImplementation, type LineImplementation } from '../../conformance/line-impl.js';
import { ImplementationError, loadSuite, runConformance, SuiteError, type ConformanceRun } from '../../conformance/runner.js';
import { EXIT_GATE, EXIT_OK, UsageError } from '../errors.js';
import { claimOutput, guardWrite, protectFile } from '../protect.js';
import { clean, CONFORMANCE_FORMATS, isConformanceFormat } from '../report/conformance.js';

export interface ConformanceOptions {
  /** `--impl <command>`: the implementation's adapter, run through the shell (required). */
  impl: string;
  /** `--out <file>`: where results.json goes (default `results.json`). */
  out?: string;
  /** `--suite <path>`: another copy of the suite, its directory (manifest.json + CONFORMANCE_VERSION) or its manifest.json; default the shipped one. */
  suite?: string;
  /** `--timeout <ms>`: the longest one answer may take (default 10000). */
  timeout?: string;
  /** `--max-line-bytes <n>`: the longest line the implementation may write (default 16 MiB). */
  maxLineBytes?: string;
  /** `-f, --format <text|json>`: the summary on stdout (default text). */
  format?: 'text' | 'json';
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_EXIT: Record<(typeof SIGNALS)[number], number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** Writes beside the target and renames; refuses a target that is not a regular file (a device, a FIFO, a symlink, a directory). */
function writeResults(file: string, text: string): void {
  guardWrite(file);
  try {
    if (!lstatSync(file).isFile()) throw new UsageError(`--out ${file} is not a regular file: refusing to replace it`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`--out ${file}: ${(err as Error).message}`);
  }
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new UsageError(`cannot write ${file}: ${(err as Error).message}`);
  }
}

/**
 * `bqschema conformance --impl "<command>"`: runs the suite's payload-schema sections and the
 * contract's cases through an implementation over the line protocol (docs/conformance-protocol.md)
 * and writes results.json. Exit 0 when every case run passes, 1 when one fails, 2 when the
 * implementation cannot be started or the options are wrong. Sections not run never fail the run.
 */
export async function run(options: ConformanceOptions): Promise<number> {
  if (typeof options.impl !== 'string' || options.impl.trim() === '')
    throw new UsageError("--impl needs the command that runs your implementation's adapter");
  const timeoutMs = options.timeout === undefined ? 10_000 : /^[0-9]{1,7}$/.test(options.timeout) ? Number(options.timeout) : NaN;
  if (!(timeoutMs >= 1))
    throw new UsageError(`--timeout must be a whole number of milliseconds from 1 to 9999999, got ${JSON.stringify(options.timeout)}`);
  const format = options.format ?? 'text';
  if (!isConformanceFormat(format)) throw new UsageError(`--format must be text or json, got ${JSON.stringify(format)}`);
  const out = resolve(options.out ?? 'results.json');
  let suite;
  try {
    suite = loadSuite(options.suite === undefined ? undefined : resolve(options.suite));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  // The results file is checked before the adapter runs: never a file of the suite or the registry.
  if (options.suite !== undefined) {
    // --suite names the suite's directory or its manifest.json (loadSuite read it either way).
    const dir = isFile(options.suite) ? dirname(options.suite) : options.suite;
    for (const name of ['manifest.json', 'CONFORMANCE_VERSION']) protectFile(join(dir, name), `the suite's ${name} (${join(dir, name)})`);
  }
  claimOutput(options.out ?? 'results.json', '--out');
  const maxLineBytes =
    options.maxLineBytes === undefined
      ? DEFAULT_MAX_LINE_BYTES
      : /^[0-9]{1,15}$/.test(options.maxLineBytes)
        ? Number(options.maxLineBytes)
        : NaN;
  if (!(maxLineBytes >= 1))
    throw new UsageError(`--max-line-bytes must be a positive number of bytes, got ${JSON.stringify(options.maxLineBytes)}`);

  // The adapter runs in a process group of its own, out of reach of the terminal's Ctrl-C: a signal
  // to the runner kills that group, the cases left fail as not answered, and the run still ends
  // with its results file and summary (exit 128 + the signal's number, as a shell reports it).
  let impl: LineImplementation | undefined;
  let interrupted: (typeof SIGNALS)[number] | undefined;
  const onSignal = (signal: (typeof SIGNALS)[number]): void => {
    if (interrupted !== undefined) process.exit(SIGNAL_EXIT[signal]); // a second signal: stop now
    interrupted = signal;
    impl?.stop(`the run was interrupted (${signal}): the implementation was stopped`);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  let result: ConformanceRun;
  try {
    impl = spawnImplementation(options.impl, { timeoutMs, maxLineBytes });
    if (interrupted !== undefined) impl.stop(`the run was interrupted (${interrupted}): the implementation was stopped`);
    result = await runConformance(impl, suite);
  } catch (err) {
    if (err instanceof SuiteError) throw new UsageError(clean(err.message));
    if (!(err instanceof ImplementationError)) throw err;
    if (interrupted === undefined) throw new UsageError(clean(err.message));
    process.stderr.write(`bqschema: ${clean(err.message)}; nothing was written\n`);
    return SIGNAL_EXIT[interrupted];
  } finally {
    await impl?.close();
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
  writeResults(out, JSON.stringify(result.results, null, 2) + '\n');
  process.stdout.write(CONFORMANCE_FORMATS[format](result, out));
  if (interrupted !== undefined) return SIGNAL_EXIT[interrupted];
  return result.failed.length === 0 ? EXIT_OK : EXIT_GATE;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
