import type { SourcePositions } from '../../registry/index.js';
import { EXIT_GATE, EXIT_OK, UsageError } from '../errors.js';
import { DEFAULT_LIMITS, documents, documentsOf, planInputs, type InputLimits, type InputPlan } from '../inputs.js';
import { recycle, tasks } from '../tasks.js';
import { clean, colourWanted, coloursFor, Out, type Colours } from '../output.js';
import { isWholeDocument, setCategory } from '../report/emit.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { protectInputs } from '../protect.js';
import { checkReportTargets } from '../reports.js';
import { Formatter } from '../validate/formatter.js';
import type { Result } from '../../validate/judge.js';
import { Judge, type TaskAnswer, type ValidateOptions, type WorkerInit } from '../validate/judge.js';
import type { Pending } from '../workers/pool.js';
import { defaultJobs } from '../workers/default-jobs.js';
import { openAtomic, type AtomicFile } from '../write.js';

export type { ValidateOptions };

/*
 * validate: reads the inputs (in this thread or in workers), judges each message (../validate/judge),
 * formats each result as it comes (../validate/formatter) and prints the summary.
 */

class Reporter {
  readonly formatter: Formatter;
  readonly counts: Formatter['counts'];
  private readonly warned = new Set<string>();
  private readonly startedAt = performance.now();

  constructor(
    options: ValidateOptions,
    c: Colours,
    positions: typeof SourcePositions | undefined,
    /** stdout, or a --report's file, written as the run goes and put in place when it ends. */
    readonly out: Out = new Out(),
  ) {
    this.formatter = new Formatter(options, c, positions, this.out);
    this.counts = this.formatter.counts;
  }

  /** What the format writes before the first message (JSON's opening, SARIF's head). */
  begin(): Promise<void> | undefined {
    return this.formatter.begin();
  }

  add(r: Result, text: string | undefined): boolean {
    return this.formatter.add(r, text);
  }

  flush(): Promise<void> {
    return this.out.flush();
  }

  /** A worker's task, in input order: its text joined to what came before, as one reader would have written it. */
  merge(a: TaskAnswer): boolean {
    const f = this.formatter;
    const fresh = new Set<string>();
    for (const [urn, line] of a.warnings) {
      if (this.warned.has(urn) && !fresh.has(urn)) continue; // another worker met this URN first
      fresh.add(urn);
      process.stderr.write(line);
    }
    for (const urn of fresh) this.warned.add(urn);
    let text = a.text;
    if (a.leadingHeader !== undefined && a.leadingHeader.file === f.currentStreamFile) text = text.slice(a.leadingHeader.length);
    text = f.joinTask(text);
    if (a.endStreamFile !== null) f.currentStreamFile = a.endStreamFile;
    this.out.raw(text);
    const n = this.counts;
    n.valid += a.counts[0];
    n.invalid += a.counts[1];
    n.skipped += a.counts[2];
    n.error += a.counts[3];
    n.suggested += a.counts[4];
    return this.out.wantsFlush();
  }

  /** The summary; the JSON document is always completed, whatever stopped the run. */
  async finish(ok: boolean): Promise<void> {
    await this.formatter.finish(ok, performance.now() - this.startedAt);
    await this.out.flush();
  }
}

function byteLimit(raw: string | undefined, fallback: number, option: string): number {
  if (raw === undefined) return fallback;
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${option} must be a positive number of bytes, got ${JSON.stringify(raw)}`);
  return n;
}

// A task: ~1 MB of NDJSON (about four thousand envelopes) or 128 whole files; two in flight per
// worker. (1M lines, --jobs 2: 1 MB tasks 1,962 ms, 256 KB 2,020 ms, 128 KB 2,065 ms.)
const TASK_BYTES = 1024 * 1024;
const FILES_PER_TASK = 128;
// Answers waiting to be reported in order: what bounds memory while one thread runs ahead of another.
const QUEUED_ANSWERS = 32;

function jobsFor(raw: string | undefined, plan: InputPlan): number {
  if (raw !== undefined) {
    const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > 256)
      throw new UsageError(`--jobs must be a number of threads from 1 to 256, got ${JSON.stringify(raw)}`);
    return n;
  }
  // Whole files: one thread measured faster than two (bench:cli, 10k files: 294 vs 313 ms wall), since
  // each worker pays for its own registry and the main thread still reads the walk.
  return defaultJobs(plan.streamBytes);
}

export async function run(paths: string[], options: ValidateOptions): Promise<number> {
  if (paths.length === 0) throw new UsageError('validate needs at least one path (a file, a directory, or - for stdin)');
  setCategory(options.category);
  if (paths.filter((p) => p === '-').length > 1) throw new UsageError('stdin (-) can be given only once');
  const limits: InputLimits = {
    maxFileBytes: byteLimit(options.maxFileBytes, DEFAULT_LIMITS.maxFileBytes, '--max-file-bytes'),
    maxLineBytes: byteLimit(options.maxLineBytes, DEFAULT_LIMITS.maxLineBytes, '--max-line-bytes'),
  };
  // The registry is opened here whatever the thread count: a missing registry or an unknown --urn
  // is a usage error before any input is read.
  const judge = new Judge(options, undefined, limits);
  // Every report's file is checked now, the registry and the inputs known, before anything is written.
  protectInputs(paths, 'an input message file', 'an input directory');
  checkReportTargets(options.report);
  const plan = options.jobs === '1' ? undefined : planInputs(paths, options.ndjson);
  // SARIF and JUnit are written by one formatter (SARIF's head, JUnit's spool), and --report
  // renders the same results once more per file: one thread keeps them in one place.
  const reports = options.report ?? [];
  const jobs = plan === undefined || isWholeDocument(options.format) || reports.length > 0 ? 1 : jobsFor(options.jobs, plan);
  const placed = [options.format, ...reports.map((r) => r.format)].some((f) => f !== 'text');
  const positions = placed ? (await import('../../registry/positions.js')).SourcePositions : undefined;
  const colour = colourWanted();
  const reporter = new Reporter(options, coloursFor(colour), positions);
  const extra = reports.length === 0 ? [] : await openReports(reports, options, positions);
  await reporter.begin();
  const finishAll = async (ok: boolean, write: boolean): Promise<void> => {
    if (extra.length > 0) await finishReports(extra, ok, write);
    await reporter.finish(ok);
  };
  const failed = (): boolean => {
    const n = reporter.counts;
    return n.invalid > 0 || n.error > 0 || (options.strict === true && n.skipped > 0);
  };
  // With report files to write, a reader of stdout that goes away (`| head`) does not end the run:
  // it goes on without printing, and every report is written whole.
  exitWhenStdoutCloses(() => (failed() ? EXIT_GATE : EXIT_OK), { finishFirst: extra.length > 0 });
  try {
    if (jobs === 1 || plan === undefined) {
      const docs =
        plan === undefined ? documents(paths, { ndjson: options.ndjson, limits }) : documentsOf(plan, { ndjson: options.ndjson, limits });
      for await (const batch of docs) {
        let flush = false;
        for (const doc of batch) {
          const text = doc.kind === 'doc' ? doc.text : undefined;
          const result = judge.document(doc);
          for (const e of extra) if (e.reporter.add(result, text)) await e.reporter.flush();
          flush = reporter.add(result, text) || flush;
        }
        if (flush) await reporter.flush();
        // With report files open, a signal is handled by their cleanup (openAtomic), which runs in
        // the event loop: a turn of it per batch, or Ctrl-C would wait for the run to end.
        if (extra.length > 0) await new Promise(setImmediate);
      }
    } else {
      await inWorkers(plan, jobs, { options, limits, colour }, judge, reporter);
    }
  } catch (err) {
    // Whatever stops the run, the summary is printed and a JSON document is complete; no report
    // file is written for a run that did not finish (an existing one is left as it was).
    await finishAll(false, false);
    throw err;
  }
  const n = reporter.counts;
  if (n.valid + n.invalid + n.skipped + n.error === 0) {
    await finishAll(false, false);
    const what =
      paths.length === 1 && paths[0] === '-'
        ? 'no input on stdin'
        : `no messages found in ${paths.map((p) => clean(p)).join(', ')} (looked for *.json, *.ndjson and *.jsonl files)`;
    throw new UsageError(what);
  }
  await finishAll(!failed(), true);
  // A SARIF log (on stdout or in a report) that left results out says so in the log; the run says it once here.
  for (const note of new Set([reporter, ...extra.map((e) => e.reporter)].map((r) => r.formatter.omittedNote))) {
    if (note !== undefined) process.stderr.write(`bqschema: warning: ${note}\n`);
  }
  return failed() ? EXIT_GATE : EXIT_OK;
}

type ReportFile = { file: AtomicFile; reporter: Reporter };

/**
 * One Reporter per --report, fed the same results as stdout's, without colour, each writing a
 * temporary file as it goes (a report of any size is never held whole), renamed over its target
 * when the run ends (finishReports) and removed if it does not.
 */
async function openReports(
  reports: NonNullable<ValidateOptions['report']>,
  options: ValidateOptions,
  positions: typeof SourcePositions | undefined,
): Promise<ReportFile[]> {
  const extra: ReportFile[] = [];
  try {
    for (const r of reports) {
      const file = openAtomic(r.file);
      extra.push({
        file,
        reporter: new Reporter({ ...options, format: r.format as ValidateOptions['format'] }, coloursFor(false), positions, new Out(file)),
      });
    }
    for (const e of extra) await e.reporter.begin();
  } catch (err) {
    for (const e of extra) e.file.abort();
    throw err;
  }
  return extra;
}

/** Each report's end, and its file put in place (`write`) or removed. */
async function finishReports(extra: readonly ReportFile[], ok: boolean, write: boolean): Promise<void> {
  for (const e of extra) {
    try {
      await e.reporter.finish(ok);
    } catch (err) {
      e.file.abort();
      throw err;
    }
    if (write) e.file.commit();
    else e.file.abort();
  }
}

/**
 * The inputs cut into tasks and judged by `jobs` threads: `jobs - 1` workers, each with its own
 * registry, and this one with `judge`. Answers are reported strictly in input order, so the output
 * is the one a single thread writes.
 */
async function inWorkers(plan: InputPlan, jobs: number, init: WorkerInit, judge: Judge, reporter: Reporter): Promise<void> {
  const [{ Pool }, { TaskRunner }] = await Promise.all([import('../workers/pool.js'), import('../workers/task.js')]);
  const pool = new Pool(jobs - 1, init, new TaskRunner(init, judge));
  const queue: Pending[] = [];
  // A test hook's crash must be met: with it, no task is taken back from a worker.
  const takeBack = process.env.BQSCHEMA_TEST_WORKER_CRASH !== '1';
  /**
   * The oldest answer, reported. While a worker has not answered it, this thread judges the posted
   * tasks no worker has begun, latest first (the workers begin theirs earliest first), instead of
   * waiting: a worker that starts late or gets little CPU holds up nothing but its own task.
   */
  const reportOldest = async (): Promise<void> => {
    const head = queue[0]!;
    if (takeBack) for (let i = queue.length - 1; i >= 0 && head.posted !== undefined; i--) await pool.takeBack(queue[i]!);
    queue.shift();
    const answer = await head.answer;
    recycle(head.task);
    if (reporter.merge(answer)) await reporter.flush();
    if (answer.stop !== undefined) throw new UsageError(answer.stop);
  };
  // A test hook: tiny tasks put task boundaries everywhere in small fixtures ("bytes,files").
  const [taskBytes, filesPerTask] = /^[1-9][0-9]*,[1-9][0-9]*$/.test(process.env.BQSCHEMA_TEST_TASK_SIZE ?? '')
    ? (process.env.BQSCHEMA_TEST_TASK_SIZE!.split(',').map(Number) as [number, number])
    : [TASK_BYTES, FILES_PER_TASK];
  const input = tasks(plan, { ndjson: init.options.ndjson, limits: init.limits, taskBytes, filesPerTask });
  try {
    let inputError: unknown;
    for (;;) {
      let next;
      try {
        next = await input.next();
      } catch (err) {
        // The input stopped (a line over the limit, say): everything before it is reported first.
        inputError = err;
        break;
      }
      if (next.done === true) break;
      // The workers' answers are events: let them in, so a worker that is free gets the next task
      // rather than this thread (whose own tasks run without turning the event loop).
      await new Promise(setImmediate);
      queue.push(pool.run(next.value));
      // Answers this thread made wait here for the workers' earlier ones, up to a bound.
      while (queue.length >= QUEUED_ANSWERS) await reportOldest();
    }
    while (queue.length > 0) await reportOldest();
    if (inputError !== undefined) throw inputError;
  } finally {
    await input.return(undefined); // closes a stream still open when a task's answer stopped the run
    await pool.close();
  }
}
