import { getHeapStatistics } from 'node:v8';
import { readEnvelope, EnvelopeError } from '../../guard/index.js';
import { closest, formatOf, ParseFailure, parseJsonLine, parseText, RegistryError, type Registry } from '../../registry/index.js';
import { warningMessage, type SchemaWarning } from '../../validator/index.js';
import { envelopeAsData, envelopeMessage, parseHint } from '../diagnose.js';
import { UsageError } from '../errors.js';
import { DEFAULT_LIMITS, HEAP_PER_BYTE, YAML_SHARE, type Doc, type InputLimits } from '../inputs.js';
import { clean, ENVELOPE } from '../output.js';
import { openRegistry, requireUrn, type RegistryCliOptions } from '../registry.js';
import type { GateFormat } from '../report/emit.js';
import type { ReportTarget } from '../reports.js';
import { MAX_VIOLATIONS, noSchemaMessage, type MessageProblem, type MessageStatus, type MessageVerdict } from '../../validate/report.js';

/*
 * validate's judging: one parsed document in, one Result out. The command and its worker threads
 * (src/cli/workers) both use it; neither imports the other.
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
}

/** A message's status, and its verdict below: the shapes src/validate/report.ts builds findings from. */
export type Status = MessageStatus;

export interface Problem extends MessageProblem {
  schemaPath?: string;
  keyword: string;
}

/** One message's verdict. Built field by field (no spreads): this runs once per message. The lists are the judge's to fill. */
export interface Result extends MessageVerdict {
  violations: Problem[] | undefined;
  warnings: string[] | undefined;
}

function result(file: string, line: number | undefined, urn: string | undefined, status: Status): Result {
  return { file, line, urn, status, violations: undefined, warnings: undefined, error: undefined, errorLine: undefined, col: undefined, suggestion: undefined, moreViolations: undefined };
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
    private readonly limits: InputLimits = DEFAULT_LIMITS,
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
      r.errorLocation = this.registry.problemSite(urn, err);
      r.warnings = warnings;
      return r;
    } finally {
      if (this.pending.length > 0) for (const w of this.pending.splice(0)) this.warn(w);
    }
    if (schema === undefined) {
      // Under --strict a URN with no schema is an error: the message cannot be judged, and fails the run.
      const strict = this.options.strict === true;
      const r = result(file, line, urn, strict ? 'error' : 'skipped');
      r.warnings = warnings;
      r.suggestion = this.suggestion(urn);
      if (strict) {
        r.unregistered = true;
        r.error = noSchemaMessage(r);
      }
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
    // One more than is listed tells whether there are more; the walk stops there.
    const found = schema.validate(data, MAX_VIOLATIONS + 1);
    if (found.length > MAX_VIOLATIONS) {
      found.length = MAX_VIOLATIONS;
      r.moreViolations = true;
    }
    r.violations = found.map((v) => ({ instancePath: v.instancePath, schemaPath: v.schemaPath, keyword: v.keyword, message: v.message, at: dataAt + v.instancePath }));
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
    roomFor(doc.text, 1, doc.line === undefined ? doc.file : `${doc.file}:${doc.line}`);
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
      const most = Math.floor(this.limits.maxFileBytes / YAML_SHARE);
      // UTF-8 takes at most three bytes per UTF-16 unit: only a text that may be over is measured.
      if (text.length * 3 > most && Buffer.byteLength(text) > most) {
        throw new UsageError(`${clean(file)}: the YAML document is ${Buffer.byteLength(text)} bytes, larger than ${most} (YAML is read up to 1/${YAML_SHARE} of --max-file-bytes: it takes ${YAML_SHARE} times the memory of JSON); raise the limit with --max-file-bytes <bytes>, or give the message as JSON`);
      }
      roomFor(text, YAML_SHARE, file);
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

const fold = (urn: string): string => urn.trim().toLowerCase();

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
function roomFor(text: string, share: number, where: string): void {
  const need = text.length * HEAP_PER_BYTE * share;
  if (need >= HEAP_SURELY_THERE) askHeap(text, need, where);
}

function askHeap(text: string, need: number, where: string): void {
  const heap = getHeapStatistics().heap_size_limit;
  if (need + HEAP_BESIDES <= heap) return;
  const mib = (n: number): number => Math.ceil(n / (1024 * 1024));
  throw new UsageError(`${clean(where)}: this message of ${Buffer.byteLength(text)} bytes may need ${mib(need)} MiB of heap to judge, more than node's heap of ${mib(heap)} MiB holds; run with NODE_OPTIONS=--max-old-space-size=${mib(need + HEAP_BESIDES)}`);
}

// Suggestions: URNs longer than this get none; at most this many remembered.
const MAX_SUGGESTED_URN = 512;
const MAX_SUGGESTIONS = 10_000;

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
