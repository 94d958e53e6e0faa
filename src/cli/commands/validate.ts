import { readEnvelope, EnvelopeError } from '../../guard/index.js';
import { closest, ParseFailure, parseJsonLine, parseText, RegistryError, type Registry, type SourcePositions } from '../../registry/index.js';
import { warningMessage, type SchemaWarning } from '../../validator/index.js';
import { EXIT_GATE, EXIT_OK, UsageError } from '../errors.js';
import { DEFAULT_LIMITS, documents, type Doc, type InputLimits } from '../inputs.js';
import { clean, DATA_ROOT, ENVELOPE, githubCommand, makeChalk, Out, type Format } from '../output.js';
import { openRegistry, requireUrn, type RegistryCliOptions } from '../registry.js';
import { exitWhenStdoutCloses } from '../stdout.js';

export interface ValidateOptions extends RegistryCliOptions {
  urn?: string;
  ndjson?: boolean;
  strict?: boolean;
  quiet?: boolean;
  format: Format;
  maxFileBytes?: string;
  maxLineBytes?: string;
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
  /** For an unregistered URN: the closest registered one. */
  suggestion: string | undefined;
}

function result(file: string, line: number | undefined, urn: string | undefined, status: Status): Result {
  return { file, line, urn, status, violations: undefined, warnings: undefined, error: undefined, errorLine: undefined, col: undefined, suggestion: undefined };
}

/** Judges messages against the registry; prints each URN's schema warnings once, when first used. */
class Judge {
  private readonly pending: SchemaWarning[] = [];
  readonly registry: Registry;

  constructor(private readonly options: ValidateOptions) {
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
        r.violations = [{ instancePath: ENVELOPE, keyword: 'envelope', message: err.message, at }];
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
      if (this.pending.length > 0) for (const w of this.pending.splice(0)) process.stderr.write(`bqschema: warning: ${clean(warningMessage(w))}\n`);
    }
    if (schema === undefined) {
      const r = result(file, line, urn, 'skipped');
      r.warnings = warnings;
      if (this.options.strict) r.suggestion = closest(urn, this.registry.urns());
      return r;
    }
    if (schema.isValid(data)) {
      const r = result(file, line, urn, 'valid');
      r.warnings = warnings;
      return r;
    }
    const r = result(file, line, urn, 'invalid');
    r.warnings = warnings;
    r.violations = schema.validate(data).map((v) => ({ instancePath: v.instancePath, schemaPath: v.schemaPath, keyword: v.keyword, message: v.message, at: dataAt + v.instancePath }));
    return r;
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
      const r = result(doc.file, doc.line, undefined, 'error');
      r.error = err.problem;
      r.errorLine = err.line;
      r.col = err.col;
      return r;
    }
    return this.judge(value, doc.file, doc.line);
  }
}

const label = (p: Problem): string => (p.instancePath === '' ? DATA_ROOT : p.instancePath);

class Reporter {
  private readonly out = new Out();
  private currentStreamFile: string | undefined;
  private first = true;
  readonly counts = { valid: 0, invalid: 0, skipped: 0, error: 0 };
  // Colour marks are computed once, not per message.
  private readonly c = makeChalk();
  private readonly marks: Record<Status, string>;

  constructor(
    private readonly options: ValidateOptions,
    // Loaded only for --format github and json positions: it is needed only to place a violation.
    private readonly positions: typeof SourcePositions | undefined,
  ) {
    const c = this.c;
    this.marks = { valid: c.green('✓ valid'), invalid: c.red('✗ invalid'), skipped: c.yellow('- skipped'), error: c.red('! error') };
    if (options.format === 'json') this.out.line('{"results":[');
  }

  /** Synchronous so a clean document costs no await; the caller flushes when this says so. */
  add(r: Result, text: string | undefined): boolean {
    this.counts[r.status]++;
    const f = this.options.format;
    if (f === 'json') this.json(r, text);
    else if (f === 'github') this.github(r, text);
    else this.text(r);
    return this.out.wantsFlush();
  }

  flush(): Promise<void> {
    return this.out.flush();
  }

  private where(r: Result, text: string | undefined): ((p: Problem) => { line?: number; col?: number }) | undefined {
    if (text === undefined || this.positions === undefined || r.violations === undefined) return undefined;
    const positions = new this.positions(text, 'json', (r.line ?? 1) - 1);
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
      const level = this.options.strict ? 'error' : 'notice';
      this.out.line(githubCommand(level, { file: r.file, line: r.line, title: 'no schema' }, `no schema registered for ${r.urn}${hint(r)}`));
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
        this.out.line(c.bold(file));
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
    const urn = r.urn !== undefined ? `  ${c.dim(clean(r.urn))}` : '';
    const why = r.status === 'skipped' ? c.dim(`  (no schema registered${this.options.strict ? ', --strict' : ''}${clean(hint(r))})`) : '';
    this.out.line(`${head}${urn}${why}`);
    if (r.status === 'error') this.out.line(`${indent}${clean(r.error ?? '')}`);
    if (r.violations !== undefined) for (const v of r.violations) this.out.line(`${indent}${c.red(clean(label(v)))}  ${clean(v.message)}`);
    if (r.warnings !== undefined) for (const w of r.warnings) this.out.line(`${indent}${c.yellow('warning:')} ${clean(w)}`);
  }

  /** The summary; the JSON document is always completed, whatever stopped the run. */
  async finish(ok: boolean): Promise<void> {
    const n = this.counts;
    const total = n.valid + n.invalid + n.skipped + n.error;
    if (this.options.format === 'json') {
      const summary = { messages: total, valid: n.valid, invalid: n.invalid, skipped: n.skipped, errors: n.error };
      this.out.line(`],"summary":${JSON.stringify(summary)},"ok":${ok}}`);
    } else {
      const parts = [`${n.valid} valid`, `${n.invalid} invalid`, `${n.skipped} skipped`, `${n.error} error${n.error === 1 ? '' : 's'}`];
      const verdict = ok ? this.c.green('OK') : this.c.red('FAILED');
      this.out.line(`${this.options.format === 'text' ? '\n' : ''}${verdict}: ${total} message${total === 1 ? '' : 's'}: ${parts.join(', ')}`);
    }
    await this.out.flush();
  }
}

const hint = (r: Result): string => (r.suggestion === undefined ? '' : `; did you mean ${r.suggestion}?`);

function byteLimit(raw: string | undefined, fallback: number, option: string): number {
  if (raw === undefined) return fallback;
  const n = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${option} must be a positive number of bytes, got ${JSON.stringify(raw)}`);
  return n;
}

export async function run(paths: string[], options: ValidateOptions): Promise<number> {
  if (paths.length === 0) throw new UsageError('validate needs at least one path (a file, a directory, or - for stdin)');
  if (paths.filter((p) => p === '-').length > 1) throw new UsageError('stdin (-) can be given only once');
  const limits: InputLimits = {
    maxFileBytes: byteLimit(options.maxFileBytes, DEFAULT_LIMITS.maxFileBytes, '--max-file-bytes'),
    maxLineBytes: byteLimit(options.maxLineBytes, DEFAULT_LIMITS.maxLineBytes, '--max-line-bytes'),
  };
  const judge = new Judge(options);
  const positions = options.format === 'text' ? undefined : (await import('../../registry/positions.js')).SourcePositions;
  const reporter = new Reporter(options, positions);
  const failed = (): boolean => {
    const n = reporter.counts;
    return n.invalid > 0 || n.error > 0 || (options.strict === true && n.skipped > 0);
  };
  exitWhenStdoutCloses(() => (failed() ? EXIT_GATE : EXIT_OK));
  try {
    for await (const batch of documents(paths, { ndjson: options.ndjson, limits })) {
      let flush = false;
      for (const doc of batch) {
        const text = doc.kind === 'doc' ? doc.text : undefined;
        flush = reporter.add(judge.document(doc), text) || flush;
      }
      if (flush) await reporter.flush();
    }
  } catch (err) {
    // Whatever stops the run, the summary is printed and a JSON document is complete.
    await reporter.finish(false);
    throw err;
  }
  const n = reporter.counts;
  if (n.valid + n.invalid + n.skipped + n.error === 0) {
    await reporter.finish(false);
    const what = paths.length === 1 && paths[0] === '-' ? 'no input on stdin' : `no messages found in ${paths.map((p) => clean(p)).join(', ')} (looked for *.json, *.ndjson and *.jsonl files)`;
    throw new UsageError(what);
  }
  await reporter.finish(!failed());
  return failed() ? EXIT_GATE : EXIT_OK;
}
