import { availableParallelism } from 'node:os';
import { readEnvelope, EnvelopeError } from '../../guard/index.js';
import { closest, formatOf, ParseFailure, parseJsonLine, parseText, RegistryError, type Registry, type SourcePositions } from '../../registry/index.js';
import { pointerLabel, warningMessage, type SchemaWarning } from '../../validator/index.js';
import { EXIT_GATE, EXIT_OK, UsageError } from '../errors.js';
import { DEFAULT_LIMITS, documents, documentsOf, planInputs, tasks, type Doc, type InputLimits, type InputPlan } from '../inputs.js';
import { envelopeAsData, envelopeMessage, parseHint } from '../diagnose.js';
import { clean, colourWanted, ENVELOPE, githubCommand, makeChalk, Out, quote, type Colours, type Format } from '../output.js';
import { openRegistry, requireUrn, type RegistryCliOptions } from '../registry.js';
import { docsPage, isCiFormat, renderCi, tool, type CiFormat } from '../report/emit.js';
import type { ReportFinding, ReportRule, ReportUnit } from '../report/findings.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { checkReportTargets, type ReportTarget } from '../reports.js';
import { writeFileAtomic } from '../write.js';

/** The rules validate's SARIF and JUnit findings cite. */
const VALIDATE_PAGE = docsPage('cli/validate.md');
const VALIDATE_RULES: ReportRule[] = [
  {
    id: 'invalid-data', description: "A message's data fails the schema registered for its URN, or its envelope cannot be read.",
    fullDescription: "The message's data (or its envelope: job, data, meta) breaks a constraint of the schema registered for its URN; a producer sending it would be rejected by every BabelQueue SDK that validates.",
    help: 'Fix the message (the finding names the value and the constraint), or, if the schema is what is wrong, change the schema in a new URN (bqschema compat tells which changes are safe).', helpUri: VALIDATE_PAGE,
  },
  {
    id: 'unreadable-input', description: 'An input cannot be read or parsed, or the schema of its URN cannot be used.',
    fullDescription: 'The file, or an NDJSON line, is not JSON (or YAML for a .yaml/.yml file) that bqschema can read, or the schema registered for its URN cannot be loaded: nothing about the message was checked.',
    help: 'Fix the syntax at the position given; for a stream of one message per line, pass --ndjson; for a schema problem, run bqschema check.', helpUri: VALIDATE_PAGE,
  },
  {
    id: 'no-schema', description: 'No schema is registered for the URN (an error under --strict).',
    fullDescription: 'The message names a URN that has no schema in the registry, so its data was not validated (validation is opt-in per URN); a close registered URN is suggested when there is one.',
    help: 'Correct the URN if it is a typo (the finding suggests the nearest registered one), or register a schema for it; pass --strict to make this an error.', helpUri: VALIDATE_PAGE,
  },
];

export interface ValidateOptions extends RegistryCliOptions {
  urn?: string;
  ndjson?: boolean;
  strict?: boolean;
  quiet?: boolean;
  format: Format | CiFormat;
  maxFileBytes?: string;
  maxLineBytes?: string;
  jobs?: string;
  /** --report <format>=<file>, repeatable. */
  report?: ReportTarget[];
}

export type Status = 'valid' | 'invalid' | 'skipped' | 'error';

interface Problem {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message: string;
  /** Pointer into the source document (the data's path under /data for an envelope). */
  at: string;
}

/** One message's verdict. Built field by field (no spreads): this runs once per message. */
export interface Result {
  file: string;
  /** The NDJSON line, for a message read from a stream. */
  line: number | undefined;
  urn: string | undefined;
  status: Status;
  violations: Problem[] | undefined;
  /** Identity warnings of the envelope. */
  warnings: string[] | undefined;
  /** Why the message could not be judged (status `error`). */
  error: string | undefined;
  /** Where the error is in the file, when known. */
  errorLine: number | undefined;
  col: number | undefined;
  /** For an unregistered URN: the closest registered one (a likely typo). */
  suggestion: string | undefined;
}

function result(file: string, line: number | undefined, urn: string | undefined, status: Status): Result {
  return { file, line, urn, status, violations: undefined, warnings: undefined, error: undefined, errorLine: undefined, col: undefined, suggestion: undefined };
}

const printWarning = (w: SchemaWarning): void => {
  process.stderr.write(`bqschema: warning: ${clean(warningMessage(w))}\n`);
};

/**
 * Judges messages against the registry; hands each URN's schema warnings to `warn` once, when the
 * schema is first used (by default: printed on stderr).
 */
export class Judge {
  private readonly pending: SchemaWarning[] = [];
  readonly registry: Registry;
  /** Each unregistered URN's suggestion, worked out once: a stream repeats its URNs. */
  private readonly suggestions = new Map<string, string | undefined>();
  /** Registered URNs by their folded form (`fold`), made on the first unregistered URN. */
  private folded: Map<string, string> | undefined;

  constructor(
    private readonly options: ValidateOptions,
    /** Where schema warnings go (a task runner collects them to travel with its answer). */
    public warn: (w: SchemaWarning) => void = printWarning,
  ) {
    this.registry = openRegistry(options, { onWarning: (w) => this.pending.push(w) });
    if (options.urn !== undefined) requireUrn(this.registry, options.urn);
  }

  /** One parsed document: an envelope, or bare data when `--urn` is given. */
  judge(value: unknown, file: string, line: number | undefined): Result {
    let urn: string;
    let data: unknown;
    let warnings: string[] | undefined;
    let dataAt = '';
    if (this.options.urn !== undefined) {
      urn = this.options.urn;
      data = value;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        const r = result(file, line, urn, 'invalid');
        r.violations = [{ instancePath: '', keyword: 'type', message: 'data must be a JSON object', at: '' }];
        return r;
      }
    } else {
      try {
        const envelope = readEnvelope(value);
        urn = envelope.urn;
        data = envelope.data;
        if (envelope.warnings.length > 0) warnings = envelope.warnings;
        dataAt = '/data';
      } catch (err) {
        if (!(err instanceof EnvelopeError)) throw err;
        const at = err.reason === 'data is not an object' ? '/data' : err.reason === 'unknown schema_version' ? '/meta/schema_version' : '';
        const r = result(file, line, err.urn, 'invalid');
        r.violations = [{ instancePath: ENVELOPE, keyword: 'envelope', message: envelopeMessage(value, err.reason, err.message, file), at }];
        if (err.warnings.length > 0) r.warnings = [...err.warnings];
        return r;
      }
    }
    let schema;
    try {
      schema = this.registry.compiled(urn);
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      // A URN whose schema cannot be used fails each of its messages; the run goes on.
      const r = result(file, line, urn, 'error');
      r.error = err.message;
      r.warnings = warnings;
      return r;
    } finally {
      if (this.pending.length > 0) for (const w of this.pending.splice(0)) this.warn(w);
    }
    if (schema === undefined) {
      const r = result(file, line, urn, 'skipped');
      r.warnings = warnings;
      r.suggestion = this.suggestion(urn);
      return r;
    }
    // With --urn, a whole envelope naming that very URN is a message given as data: its `data` was
    // never checked, so it must not pass as valid (an open schema accepts the envelope's keys).
    const envelopeHint = this.options.urn !== undefined ? envelopeAsData(data) : undefined;
    const namesUrn = envelopeHint !== undefined && [(data as Record<string, unknown>).job, (data as Record<string, unknown>).urn].some((u) => typeof u === 'string' && u.trim() === urn);
    if (schema.isValid(data) && !namesUrn) {
      const r = result(file, line, urn, 'valid');
      r.warnings = warnings;
      return r;
    }
    const r = result(file, line, urn, 'invalid');
    r.warnings = warnings;
    r.violations = schema.validate(data).map((v) => ({ instancePath: v.instancePath, schemaPath: v.schemaPath, keyword: v.keyword, message: v.message, at: dataAt + v.instancePath }));
    if (envelopeHint !== undefined) r.violations.unshift({ instancePath: ENVELOPE, keyword: 'envelope', message: envelopeHint, at: '' });
    return r;
  }

  /** The registered URN an unregistered one is likely a typo of. */
  private suggestion(urn: string): string | undefined {
    const known = this.suggestions.get(urn);
    if (known !== undefined || this.suggestions.has(urn)) return known;
    // Registered URNs are short: a long one is no typo of them, and is not worth the edit distance.
    let found: string | undefined;
    if (urn.length <= MAX_SUGGESTED_URN) {
      // Case and surrounding whitespace first (any number of them is one slip), then the edit distance.
      if (this.folded === undefined) {
        this.folded = new Map();
        for (const u of this.registry.urns()) if (!this.folded.has(fold(u))) this.folded.set(fold(u), u);
      }
      found = this.folded.get(fold(urn)) ?? closest(urn, this.registry.urns());
    }
    if (this.suggestions.size >= MAX_SUGGESTIONS) this.suggestions.clear(); // many distinct URNs: memory stays bounded
    this.suggestions.set(urn, found);
    return found;
  }

  document(doc: Doc): Result {
    if (doc.kind === 'error') {
      const r = result(doc.file, doc.line, undefined, 'error');
      r.error = doc.message;
      r.errorLine = doc.line;
      r.col = doc.col;
      return r;
    }
    let value: unknown;
    try {
      value = doc.line === undefined ? parseText(doc.text, doc.file, 'json') : parseJsonLine(doc.text, doc.file, doc.line);
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err;
      return this.unparsed(doc.text, doc.file, doc.line, err);
    }
    return this.judge(value, doc.file, doc.line);
  }

  /**
   * A document JSON.parse refused: a YAML file is read as YAML (only here, so reading .json files
   * pays nothing for it); otherwise an error result, with what the text looks like when that tells
   * the fix.
   */
  private unparsed(text: string, file: string, line: number | undefined, failure: ParseFailure): Result {
    let err = failure;
    let problem = err.problem;
    if (line === undefined && formatOf(file) === 'yaml') {
      try {
        return this.judge(parseText(text, file, 'yaml'), file, line);
      } catch (e) {
        if (!(e instanceof ParseFailure)) throw e;
        err = e;
        problem = e.problem;
      }
    } else if (line === undefined) {
      problem += parseHint(text, file, problem);
    }
    const r = result(file, line, undefined, 'error');
    r.error = problem;
    r.errorLine = err.line;
    r.col = err.col;
    return r;
  }
}

const fold = (urn: string): string => urn.trim().toLowerCase();

// Suggestions: URNs longer than this get none; at most this many remembered.
const MAX_SUGGESTED_URN = 512;
const MAX_SUGGESTIONS = 10_000;

const label = (p: Problem): string => pointerLabel(p.instancePath);

/**
 * Formats results into an `Out`. In the main thread it is the whole report; in a worker it formats
 * one task, not knowing what came before: `currentStreamFile` starts unknown (`null`), and the
 * header it then prints first is named in `leadingHeader` so the main thread can drop it when it
 * has printed that header already. JSON lines all start with a comma there, and the main thread
 * drops the first one.
 */
export class Formatter {
  currentStreamFile: string | undefined | null;
  first: boolean;
  leadingHeader: { file: string; length: number } | undefined;
  /** `suggested`: skipped messages whose URN is close to a registered one (a warning). */
  readonly counts = { valid: 0, invalid: 0, skipped: 0, error: 0, suggested: 0 };
  // Colour marks are computed once, not per message.
  private readonly marks: Record<Status, string>;

  constructor(
    private readonly options: ValidateOptions,
    private readonly c: Colours,
    // Loaded only for --format github and json positions: it is needed only to place a violation.
    private readonly positions: typeof SourcePositions | undefined,
    readonly out: Out,
    partial = false,
  ) {
    this.currentStreamFile = partial ? null : undefined;
    this.first = !partial;
    this.marks = { valid: c.green('✓ valid'), invalid: c.red('✗ invalid'), skipped: c.yellow('- skipped'), error: c.red('! error') };
  }

  /** Synchronous so a clean document costs no await; the caller flushes when this says so. */
  add(r: Result, text: string | undefined): boolean {
    this.counts[r.status]++;
    if (r.suggestion !== undefined) this.counts.suggested++;
    const f = this.options.format;
    if (f === 'json') this.json(r, text);
    else if (f === 'github') this.github(r, text);
    else if (isCiFormat(f)) this.finding(r, text);
    else this.text(r);
    return this.out.wantsFlush();
  }

  /**
   * SARIF and JUnit are whole documents: the units (one per message, what the summary counts) and
   * their findings are kept and rendered at the end.
   */
  readonly findings: ReportFinding[] = [];
  readonly artifacts = new Set<string>();
  readonly units: ReportUnit[] = [];
  private lastAt = performance.now();

  private finding(r: Result, text: string | undefined): void {
    // The renderers place each finding at its file, line and column; the message says what is wrong.
    this.artifacts.add(r.file);
    const unit = r.line === undefined ? r.file : `${r.file}:${r.line}`;
    const now = performance.now();
    // Under --strict a skipped message fails the run, so it is a failure, not a skipped test.
    const outcome = r.status === 'valid' ? 'pass' : r.status === 'invalid' ? 'fail' : r.status === 'error' ? 'error' : this.options.strict ? 'fail' : 'skip';
    this.units.push({ id: unit, file: r.file, outcome, timeMs: now - this.lastAt });
    this.lastAt = now;
    if (r.status === 'error') {
      this.findings.push({ ruleId: 'unreadable-input', level: 'error', message: r.error ?? 'error', file: r.file, line: r.errorLine ?? r.line, col: r.col, unit });
    } else if (r.status === 'skipped') {
      const level = this.options.strict ? 'error' : r.suggestion !== undefined ? 'warning' : 'note';
      this.findings.push({ ruleId: 'no-schema', level, message: noSchema(r), file: r.file, line: r.line, unit });
    } else if (r.status === 'invalid') {
      const place = this.where(r, text);
      for (const v of r.violations ?? []) {
        const pos = place?.(v);
        this.findings.push({ ruleId: 'invalid-data', level: 'error', message: `${r.urn ?? 'message'}: ${label(v)} ${v.message}`, file: r.file, line: pos?.line ?? r.line, col: pos?.col, unit });
      }
    }
  }

  private where(r: Result, text: string | undefined): ((p: Problem) => { line?: number; col?: number }) | undefined {
    if (text === undefined || this.positions === undefined || r.violations === undefined) return undefined;
    // A whole .yaml/.yml file was read as YAML (the YAML reader places JSON text as well).
    const format = r.line === undefined && formatOf(r.file) === 'yaml' ? 'yaml' : 'json';
    const positions = new this.positions(text, format, (r.line ?? 1) - 1);
    return (p) => positions.of(p.at);
  }

  private json(r: Result, text: string | undefined): void {
    const body: Record<string, unknown> = { file: r.file };
    if (r.line !== undefined) body.line = r.line;
    if (r.urn !== undefined) body.urn = r.urn;
    body.status = r.status;
    const place = this.where(r, text);
    body.violations = (r.violations ?? []).map((v) => {
      const pos = place?.(v);
      return { instancePath: v.instancePath, schemaPath: v.schemaPath, keyword: v.keyword, message: v.message, ...(pos ? { line: pos.line, col: pos.col } : {}) };
    });
    body.warnings = r.warnings ?? [];
    if (r.suggestion !== undefined) body.suggestion = r.suggestion;
    if (r.status === 'error') {
      body.error = r.error;
      if (r.errorLine !== undefined) body.line = r.errorLine;
      if (r.col !== undefined) body.col = r.col;
    }
    this.out.line((this.first ? '' : ',') + JSON.stringify(body));
    this.first = false;
  }

  private github(r: Result, text: string | undefined): void {
    if (r.warnings !== undefined) {
      for (const w of r.warnings) this.out.line(githubCommand('warning', { file: r.file, line: r.line, title: 'envelope' }, w));
    }
    if (r.status === 'valid') return;
    if (r.status === 'error') {
      this.out.line(githubCommand('error', { file: r.file, line: r.errorLine ?? r.line, col: r.col, title: 'cannot validate' }, r.error ?? 'error'));
      return;
    }
    if (r.status === 'skipped') {
      const level = this.options.strict ? 'error' : r.suggestion !== undefined ? 'warning' : 'notice';
      this.out.line(githubCommand(level, { file: r.file, line: r.line, title: 'no schema' }, noSchema(r)));
      return;
    }
    const place = this.where(r, text);
    for (const v of r.violations ?? []) {
      const pos = place?.(v);
      this.out.line(githubCommand('error', { file: r.file, line: pos?.line ?? r.line, col: pos?.col, title: `invalid ${r.urn ?? 'message'}` }, `${label(v)} ${v.message}`));
    }
  }

  private text(r: Result): void {
    const c = this.c;
    if (this.options.quiet && r.status === 'valid' && r.warnings === undefined) return;
    const mark = this.marks[r.status];
    let head: string;
    let indent: string;
    const file = clean(r.file);
    if (r.line !== undefined) {
      if (this.currentStreamFile !== r.file) {
        const header = c.bold(file);
        if (this.currentStreamFile === null) this.leadingHeader = { file: r.file, length: header.length + 1 };
        this.out.line(header);
        this.currentStreamFile = r.file;
      }
      head = `  ${mark}  line ${r.line}`;
      indent = '      ';
    } else {
      this.currentStreamFile = undefined;
      head = `${mark}  ${c.bold(file)}`;
      indent = '    ';
    }
    if (r.status === 'error' && r.urn === undefined) {
      const where = r.errorLine === undefined ? '' : r.line !== undefined ? `:${r.col ?? 1}` : `:${r.errorLine}:${r.col ?? 1}`;
      this.out.line(`${head}${where}  ${clean(r.error ?? '')}`);
      return;
    }
    // A skipped URN matched no registered one: quoted, so a space or an invisible character shows.
    const urn = r.urn !== undefined ? `  ${c.dim(r.status === 'skipped' ? quote(r.urn) : clean(r.urn))}` : '';
    const why = r.status === 'skipped' ? c.dim(`  (no schema registered${this.options.strict ? ', --strict' : ''}${clean(hint(r))})`) : '';
    this.out.line(`${head}${urn}${why}`);
    if (r.status === 'error') this.out.line(`${indent}${clean(r.error ?? '')}`);
    if (r.violations !== undefined) for (const v of r.violations) this.out.line(`${indent}${c.red(clean(label(v)))}  ${clean(v.message)}`);
    if (r.warnings !== undefined) for (const w of r.warnings) this.out.line(`${indent}${c.yellow('warning:')} ${clean(w)}`);
  }
}

/** What a worker sends back for one task (see src/cli/workers/validate-worker.ts). */
export interface TaskAnswer {
  text: string;
  counts: [valid: number, invalid: number, skipped: number, error: number, suggested: number];
  /** Schema warnings met in this task, as [urn, line to print]. */
  warnings: Array<[string, string]>;
  leadingHeader: { file: string; length: number } | undefined;
  /** The stream file of the last result printed; `null` when the task printed none. */
  endStreamFile: string | undefined | null;
  /** A usage error (an input over a size limit) after this task's results: the run stops. */
  stop: string | undefined;
}

class Reporter {
  readonly formatter: Formatter;
  readonly counts: Formatter['counts'];
  private readonly warned = new Set<string>();
  private readonly startedAt = performance.now();

  constructor(
    private readonly options: ValidateOptions,
    private readonly c: Colours,
    positions: typeof SourcePositions | undefined,
    /** stdout; a --report collects its text here and is written to its file at the end. */
    readonly out: Out = new Out(),
  ) {
    this.formatter = new Formatter(options, c, positions, this.out);
    this.counts = this.formatter.counts;
    if (options.format === 'json') this.out.line('{"results":[');
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
    if (this.options.format === 'json' && text !== '') {
      if (f.first) text = text.slice(1); // the comma before the first result
      f.first = false;
    }
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
    const n = this.counts;
    const total = n.valid + n.invalid + n.skipped + n.error;
    if (this.options.format === 'json') {
      const summary = { messages: total, valid: n.valid, invalid: n.invalid, skipped: n.skipped, errors: n.error };
      this.out.line(`],"summary":${JSON.stringify(summary)},"ok":${ok}}`);
    } else if (isCiFormat(this.options.format)) {
      const f = this.formatter;
      const input = { tool: tool(VALIDATE_RULES), command: 'validate', results: f.findings, artifacts: [...f.artifacts], units: f.units, timeMs: performance.now() - this.startedAt };
      this.out.line((await renderCi(this.options.format, input)).replace(/\n$/, ''));
    } else {
      const close = n.suggested === 0 ? '' : ` (${n.suggested} close to a registered URN)`;
      const parts = [`${n.valid} valid`, `${n.invalid} invalid`, `${n.skipped} skipped${close}`, `${n.error} error${n.error === 1 ? '' : 's'}`];
      const verdict = ok ? this.c.green('OK') : this.c.red('FAILED');
      this.out.line(`${this.options.format === 'text' ? '\n' : ''}${verdict}: ${total} message${total === 1 ? '' : 's'}: ${parts.join(', ')}`);
    }
    await this.out.flush();
  }
}

/** `; did you mean "urn:a:b"?`, saying what differs when it would not show (whitespace, case). */
function hint(r: Result): string {
  const s = r.suggestion;
  if (s === undefined || r.urn === undefined) return '';
  const u = r.urn;
  let what = '';
  if (u.trim() === s) {
    const lead = u.trimStart() !== u;
    const trail = u.trimEnd() !== u;
    what = ` (without the ${lead && trail ? 'surrounding' : lead ? 'leading' : 'trailing'} whitespace)`;
  } else if (u.toLowerCase() === s.toLowerCase()) {
    what = ' (URNs are case-sensitive)';
  }
  return `; did you mean ${quote(s)}${what}?`;
}

/** The message of a skipped result in annotations and findings. */
const noSchema = (r: Result): string => `no schema registered for ${quote(r.urn ?? '')}${hint(r)}`;

function byteLimit(raw: string | undefined, fallback: number, option: string): number {
  if (raw === undefined) return fallback;
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${option} must be a positive number of bytes, got ${JSON.stringify(raw)}`);
  return n;
}

// Below these, one thread is faster: starting a worker and opening the registry again costs more
// than it saves.
const SMALL_STREAM_BYTES = 4 * 1024 * 1024;
const MAX_DEFAULT_JOBS = 4;
// A task: ~1 MB of NDJSON (about four thousand envelopes) or 128 whole files; two in flight per
// worker. (1M lines, --jobs 2: 1 MB tasks 1,962 ms, 256 KB 2,020 ms, 128 KB 2,065 ms.)
const TASK_BYTES = 1024 * 1024;
const FILES_PER_TASK = 128;
// Answers waiting to be reported in order: what bounds memory while one thread runs ahead of another.
const QUEUED_ANSWERS = 32;

function jobsFor(raw: string | undefined, plan: InputPlan): number {
  if (raw !== undefined) {
    const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > 256) throw new UsageError(`--jobs must be a number of threads from 1 to 256, got ${JSON.stringify(raw)}`);
    return n;
  }
  // Whole files: one thread measured faster than two (bench:cli, 10k files: 294 vs 313 ms wall), since
  // each worker pays for its own registry and the main thread still reads the walk. Streams gain
  // (1M lines: 1.49x with two), so threads are the default only for NDJSON of some size.
  if (plan.streamBytes < SMALL_STREAM_BYTES) return 1;
  return Math.max(1, Math.min(availableParallelism(), MAX_DEFAULT_JOBS));
}

export async function run(paths: string[], options: ValidateOptions): Promise<number> {
  if (paths.length === 0) throw new UsageError('validate needs at least one path (a file, a directory, or - for stdin)');
  checkReportTargets(options.report);
  if (paths.filter((p) => p === '-').length > 1) throw new UsageError('stdin (-) can be given only once');
  const limits: InputLimits = {
    maxFileBytes: byteLimit(options.maxFileBytes, DEFAULT_LIMITS.maxFileBytes, '--max-file-bytes'),
    maxLineBytes: byteLimit(options.maxLineBytes, DEFAULT_LIMITS.maxLineBytes, '--max-line-bytes'),
  };
  // The registry is opened here whatever the thread count: a missing registry or an unknown --urn
  // is a usage error before any input is read.
  const judge = new Judge(options);
  const plan = options.jobs === '1' ? undefined : planInputs(paths, options.ndjson);
  // SARIF and JUnit are assembled from every finding at the end, and --report renders the same
  // results once more per file: one thread keeps them in one place.
  const reports = options.report ?? [];
  const jobs = plan === undefined || isCiFormat(options.format) || reports.length > 0 ? 1 : jobsFor(options.jobs, plan);
  const placed = [options.format, ...reports.map((r) => r.format)].some((f) => f !== 'text');
  const positions = placed ? (await import('../../registry/positions.js')).SourcePositions : undefined;
  const colour = colourWanted();
  const reporter = new Reporter(options, makeChalk(colour), positions);
  // One Reporter per --report, fed the same results, without colour; written atomically at the end.
  const extra = reports.map((r) => ({ file: r.file, reporter: new Reporter({ ...options, format: r.format as ValidateOptions['format'] }, makeChalk(false), positions, new Out(null)) }));
  const finishAll = async (ok: boolean, write: boolean): Promise<void> => {
    for (const e of extra) {
      await e.reporter.finish(ok);
      if (write) writeFileAtomic(e.file, e.reporter.out.take());
    }
    await reporter.finish(ok);
  };
  const failed = (): boolean => {
    const n = reporter.counts;
    return n.invalid > 0 || n.error > 0 || (options.strict === true && n.skipped > 0);
  };
  exitWhenStdoutCloses(() => (failed() ? EXIT_GATE : EXIT_OK));
  try {
    if (jobs === 1 || plan === undefined) {
      const docs = plan === undefined ? documents(paths, { ndjson: options.ndjson, limits }) : documentsOf(plan, { ndjson: options.ndjson, limits });
      for await (const batch of docs) {
        let flush = false;
        for (const doc of batch) {
          const text = doc.kind === 'doc' ? doc.text : undefined;
          const result = judge.document(doc);
          for (const e of extra) e.reporter.add(result, text);
          flush = reporter.add(result, text) || flush;
        }
        if (flush) await reporter.flush();
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
    const what = paths.length === 1 && paths[0] === '-' ? 'no input on stdin' : `no messages found in ${paths.map((p) => clean(p)).join(', ')} (looked for *.json, *.ndjson and *.jsonl files)`;
    throw new UsageError(what);
  }
  await finishAll(!failed(), true);
  return failed() ? EXIT_GATE : EXIT_OK;
}

/**
 * The inputs cut into tasks and judged by `jobs` threads: `jobs - 1` workers, each with its own
 * registry, and this one with `judge`. Answers are reported strictly in input order, so the output
 * is the one a single thread writes.
 */
async function inWorkers(plan: InputPlan, jobs: number, init: WorkerInit, judge: Judge, reporter: Reporter): Promise<void> {
  const [{ Pool }, { TaskRunner }] = await Promise.all([import('../workers/pool.js'), import('../workers/task.js')]);
  const pool = new Pool(jobs - 1, init, new TaskRunner(init, judge));
  const queue: Promise<TaskAnswer>[] = [];
  const report = async (answer: TaskAnswer): Promise<void> => {
    if (reporter.merge(answer)) await reporter.flush();
    if (answer.stop !== undefined) throw new UsageError(answer.stop);
  };
  // A test hook: tiny tasks put task boundaries everywhere in small fixtures ("bytes,files").
  const [taskBytes, filesPerTask] = /^[1-9][0-9]*,[1-9][0-9]*$/.test(process.env.BQSCHEMA_TEST_TASK_SIZE ?? '')
    ? process.env.BQSCHEMA_TEST_TASK_SIZE!.split(',').map(Number) as [number, number]
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
      while (queue.length >= QUEUED_ANSWERS) await report(await queue.shift()!);
    }
    while (queue.length > 0) await report(await queue.shift()!);
    if (inputError !== undefined) throw inputError;
  } finally {
    await input.return(undefined); // closes a stream still open when a task's answer stopped the run
    await pool.close();
  }
}

/** What every worker is started with. */
export interface WorkerInit {
  options: ValidateOptions;
  limits: InputLimits;
  colour: boolean;
}
