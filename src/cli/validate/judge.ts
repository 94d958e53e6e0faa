import { getHeapStatistics } from 'node:v8';
import { formatOf, ParseFailure, parseJsonLine, parseText, type Registry } from '../../registry/index.js';
import { warningMessage, type SchemaWarning } from '../../validator/index.js';
import { parseHint } from '../../validate/diagnose.js';
import { MessageJudge, result, type Result } from '../../validate/judge.js';
import { UsageError } from '../errors.js';
import { DEFAULT_LIMITS, HEAP_PER_BYTE, YAML_SHARE, type Doc, type InputLimits } from '../inputs.js';
import { clean } from '../output.js';
import { openRegistry, requireUrn, type RegistryCliOptions } from '../registry.js';
import type { GateFormat } from '../report/emit.js';
import type { ReportTarget } from '../reports.js';

/*
 * validate's loading around its core (src/validate/judge.ts): a document read from the inputs is
 * held to the heap it needs, parsed (YAML only where JSON failed), and judged; schema warnings are
 * printed once. The command and its worker threads (src/cli/workers) both use it; neither
 * imports the other.
 */

export interface ValidateOptions extends RegistryCliOptions {
  urn?: string;
  ndjson?: boolean;
  strict?: boolean;
  quiet?: boolean;
  format: GateFormat;
  maxFileBytes?: string;
  maxLineBytes?: string;
  jobs?: string;
  /** --report <format>=<file>, repeatable. */
  report?: ReportTarget[];
  /** --category: the SARIF run's analysis category (automationDetails.id). */
  category?: string;
  /** false with --no-deprecation-warnings: no warning on a message of a deprecated URN. */
  deprecationWarnings?: boolean;
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
  private readonly core: MessageJudge;
  /**
   * Per task (`newTask`): the URNs whose warnings went to `warn` in this task, each URN's warnings
   * kept to be handed on again in every task that meets it, and the last URN met (a stream repeats
   * one URN: it is looked up once per change). Undefined: each URN's warnings go out once per run.
   */
  private warnedInTask: Set<string> | undefined;
  private warningsOf: Map<string, SchemaWarning[]> | undefined;
  private lastUrn: string | undefined;

  constructor(
    private readonly options: ValidateOptions,
    /** Where schema warnings go (a task runner collects them to travel with its answer). */
    public warn: (w: SchemaWarning) => void = printWarning,
    private readonly limits: InputLimits = DEFAULT_LIMITS,
  ) {
    this.registry = openRegistry(options, { onWarning: (w) => this.pending.push(w) });
    if (options.urn !== undefined) requireUrn(this.registry, options.urn);
    this.core = new MessageJudge(this.registry, options, (urn) => {
      if (this.pending.length > 0) this.warnNew(urn);
      if (this.warnedInTask !== undefined && urn !== this.lastUrn) this.warnAgain(urn);
    });
  }

  /**
   * From now on every task (this call starts one) hands `warn` the warnings of each URN it meets,
   * whether or not an earlier task met it: a thread that judges tasks out of input order still
   * carries each URN's warnings in the first task, in input order, that meets it.
   */
  newTask(): void {
    this.warnedInTask = new Set();
    this.warningsOf ??= new Map();
    this.lastUrn = undefined;
  }

  private warnNew(urn: string): void {
    const ws = this.pending.splice(0);
    if (this.warningsOf !== undefined) {
      const kept = this.warningsOf.get(urn);
      if (kept === undefined) this.warningsOf.set(urn, ws);
      else kept.push(...ws);
      this.warnedInTask!.add(urn);
    }
    for (const w of ws) this.warn(w);
  }

  private warnAgain(urn: string): void {
    this.lastUrn = urn;
    if (this.warnedInTask!.has(urn)) return;
    this.warnedInTask!.add(urn);
    const ws = this.warningsOf!.get(urn);
    if (ws !== undefined) for (const w of ws) this.warn(w);
  }

  /** One parsed document: an envelope, or bare data when `--urn` is given. */
  judge(value: unknown, file: string, line: number | undefined): Result {
    return this.core.judge(value, file, line);
  }

  document(doc: Doc): Result {
    if (doc.kind === 'error') {
      const r = result(doc.file, doc.line, undefined, 'error');
      r.error = doc.message;
      r.errorLine = doc.line;
      r.col = doc.col;
      return r;
    }
    roomFor(doc.text, 1, doc.file, doc.line);
    let value: unknown;
    try {
      value = doc.line === undefined ? parseText(doc.text, doc.file, 'json') : parseJsonLine(doc.text, doc.file, doc.line);
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err;
      return this.unparsed(doc.text, doc.file, doc.line, err);
    }
    return this.core.judge(value, doc.file, doc.line);
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
      const most = Math.floor(this.limits.maxFileBytes / YAML_SHARE);
      // UTF-8 takes at most three bytes per UTF-16 unit: only a text that may be over is measured.
      if (text.length * 3 > most && Buffer.byteLength(text) > most) {
        throw new UsageError(
          `${clean(file)}: the YAML document is ${Buffer.byteLength(text)} bytes, larger than ${most} (YAML is read up to 1/${YAML_SHARE} of --max-file-bytes: it takes ${YAML_SHARE} times the memory of JSON); raise the limit with --max-file-bytes <bytes>, or give the message as JSON`,
        );
      }
      roomFor(text, YAML_SHARE, file, undefined);
      try {
        return this.judge(parseText(text, file, 'yaml', { maxYamlExpansion: this.registry.parseOptions.maxYamlExpansion }), file, line);
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

// Heap the process needs besides the message (the runtime, the registry, the output), in bytes.
const HEAP_BESIDES = 64 * 1024 * 1024;
// A message that needs less than this is judged without asking V8.
const HEAP_SURELY_THERE = 256 * 1024 * 1024;

/**
 * Refuses a message node's heap cannot hold while it is parsed and judged (HEAP_PER_BYTE times its
 * text, `share` times more for YAML): a one-line error saying what heap to give, where parsing it
 * would end the process in a V8 abort. The default limits fit a default heap; this catches a
 * raised limit or a small heap (a container). It depends on the heap's limit only, not on how
 * full the heap happens to be, so a run refuses the same messages every time.
 */
function roomFor(text: string, share: number, file: string, line: number | undefined): void {
  const need = text.length * HEAP_PER_BYTE * share;
  // The place is named only when it is refused: this runs once per message.
  if (need >= HEAP_SURELY_THERE) askHeap(text, need, line === undefined ? file : `${file}:${line}`);
}

function askHeap(text: string, need: number, where: string): void {
  const heap = getHeapStatistics().heap_size_limit;
  if (need + HEAP_BESIDES <= heap) return;
  const mib = (n: number): number => Math.ceil(n / (1024 * 1024));
  throw new UsageError(
    `${clean(where)}: this message of ${Buffer.byteLength(text)} bytes may need ${mib(need)} MiB of heap to judge, more than node's heap of ${mib(heap)} MiB holds; run with NODE_OPTIONS=--max-old-space-size=${mib(need + HEAP_BESIDES)}`,
  );
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

/** What every worker is started with. */
export interface WorkerInit {
  options: ValidateOptions;
  limits: InputLimits;
  colour: boolean;
}
