import { readEnvelope, EnvelopeError, type Violation } from '../../internal.js';
import { CliError, EXIT_GATE, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { documents, type Doc } from '../inputs.js';
import { makeChalk, githubCommand, Out, type Format } from '../output.js';
import { ParseFailure, parseJsonLine, parseText } from '../parse.js';
import type { SourcePositions } from '../positions.js';
import { CliRegistry, type RegistryOptions } from '../registry.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { warningMessage } from '../../validator/index.js';

export interface ValidateOptions extends RegistryOptions {
  urn?: string;
  ndjson?: boolean;
  strict?: boolean;
  quiet?: boolean;
  format: Format;
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

export interface Result {
  file: string;
  line?: number;
  urn?: string;
  status: Status;
  violations: Problem[];
  warnings: string[];
  /** For errors: where in the file, when known. */
  col?: number;
  errorLine?: number;
}

/** Validates one parsed document: an envelope, or bare data when `--urn` is given. */
function judge(value: unknown, registry: CliRegistry, options: ValidateOptions, base: Omit<Result, 'status' | 'violations' | 'warnings'>): Result {
  let urn: string;
  let data: unknown;
  let warnings: string[] = [];
  let dataAt = '';
  if (options.urn !== undefined) {
    urn = options.urn;
    data = value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      const problem: Problem = { instancePath: '', keyword: 'data', message: 'data must be a JSON object', at: '' };
      return { ...base, urn, status: 'invalid', violations: [problem], warnings };
    }
  } else {
    try {
      ({ urn, data, warnings } = readEnvelope(value));
      dataAt = '/data';
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      const at = err.reason === 'data is not an object' ? '/data' : err.reason === 'unknown schema_version' ? '/meta/schema_version' : '';
      const problem: Problem = { instancePath: '', keyword: 'envelope', message: err.message, at };
      return { ...base, urn: err.urn, status: 'invalid', violations: [problem], warnings: [...err.warnings] };
    }
  }
  const schema = registry.schemaFor(urn);
  for (const w of registry.takeWarnings()) process.stderr.write(`bqschema: warning: ${warningMessage(w)}\n`);
  if (schema === undefined) return { ...base, urn, status: 'skipped', violations: [], warnings };
  if (schema.isValid(data)) return { ...base, urn, status: 'valid', violations: [], warnings };
  const violations = schema.validate(data).map((v: Violation) => ({ ...v, at: dataAt + v.instancePath }));
  return { ...base, urn, status: 'invalid', violations, warnings };
}

function process1(doc: Doc, registry: CliRegistry, options: ValidateOptions): { result: Result; text?: string; parsed: boolean } {
  if (doc.kind === 'error') {
    return {
      result: { file: doc.file, line: doc.line, status: 'error', violations: [], warnings: [doc.message], errorLine: doc.line, col: doc.col },
      parsed: false,
    };
  }
  let value: unknown;
  try {
    value = doc.line === undefined ? parseText(doc.text, doc.file, 'json') : parseJsonLine(doc.text, doc.file, doc.line);
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    return {
      result: { file: doc.file, line: doc.line, status: 'error', violations: [], warnings: [err.problem], errorLine: err.line, col: err.col },
      parsed: false,
    };
  }
  return { result: judge(value, registry, options, { file: doc.file, line: doc.line }), text: doc.text, parsed: true };
}


const MARK: Record<Status, string> = { valid: '✓', invalid: '✗', skipped: '-', error: '!' };

class Reporter {
  private readonly out = new Out();
  private readonly chalk = makeChalk();
  private currentStreamFile: string | undefined;
  private first = true;
  readonly counts: Record<Status, number> = { valid: 0, invalid: 0, skipped: 0, error: 0 };

  constructor(
    private readonly options: ValidateOptions,
    // Loaded only for --format github: it pulls in the YAML and JSONC parsers.
    private readonly positions?: typeof SourcePositions,
  ) {
    if (options.format === 'json') this.out.line('{"results":[');
  }

  /** Synchronous so a clean document costs no await; the caller flushes when this says so. */
  add(result: Result, text: string | undefined): boolean {
    this.counts[result.status]++;
    const f = this.options.format;
    if (f === 'json') this.json(result);
    else if (f === 'github') this.github(result, text);
    else this.text(result);
    return this.out.wantsFlush();
  }

  flush(): Promise<void> {
    return this.out.flush();
  }

  private json(r: Result): void {
    const body: Record<string, unknown> = { file: r.file };
    if (r.line !== undefined) body.line = r.line;
    if (r.urn !== undefined) body.urn = r.urn;
    body.status = r.status;
    body.violations = r.violations.map(({ instancePath, schemaPath, keyword, message }) => ({ instancePath, schemaPath, keyword, message }));
    body.warnings = r.warnings;
    if (r.status === 'error') {
      body.error = r.warnings[0];
      body.warnings = [];
      if (r.errorLine !== undefined) body.line = r.errorLine;
      if (r.col !== undefined) body.col = r.col;
    }
    this.out.line((this.first ? '' : ',') + JSON.stringify(body));
    this.first = false;
  }

  private github(r: Result, text: string | undefined): void {
    if (r.status === 'valid') return;
    if (r.status === 'error') {
      this.out.line(githubCommand('error', { file: r.file, line: r.errorLine, col: r.col }, r.warnings[0] ?? 'error'));
      return;
    }
    if (r.status === 'skipped') {
      const level = this.options.strict ? 'error' : 'notice';
      this.out.line(githubCommand(level, { file: r.file, line: r.line }, `no schema registered for ${r.urn}`));
      return;
    }
    const positions = text === undefined || this.positions === undefined ? undefined : new this.positions(text, 'json', (r.line ?? 1) - 1);
    for (const v of r.violations) {
      const pos = positions?.of(v.at);
      const label = v.instancePath === '' ? '(root)' : v.instancePath;
      this.out.line(githubCommand('error', { file: r.file, line: pos?.line ?? r.line, col: pos?.col }, `${label} ${v.message}`));
    }
  }

  private text(r: Result): void {
    const c = this.chalk;
    if (this.options.quiet && r.status === 'valid' && r.warnings.length === 0) return;
    const colour = { valid: c.green, invalid: c.red, skipped: c.yellow, error: c.red }[r.status];
    const mark = colour(`${MARK[r.status]} ${r.status}`);
    let head: string;
    let indent: string;
    if (r.line !== undefined) {
      if (this.currentStreamFile !== r.file) {
        this.out.line(c.bold(r.file));
        this.currentStreamFile = r.file;
      }
      head = `  ${mark}  line ${r.line}`;
      indent = '      ';
    } else {
      this.currentStreamFile = undefined;
      head = `${mark}  ${c.bold(r.file)}`;
      indent = '    ';
    }
    if (r.status === 'error') {
      const where = r.errorLine === undefined ? '' : r.line !== undefined ? `:${r.col ?? 1}` : `:${r.errorLine}:${r.col ?? 1}`;
      this.out.line(`${head}${where}  ${r.warnings[0]}`);
      return;
    }
    const urn = r.urn !== undefined ? `  ${c.dim(r.urn)}` : '';
    const why = r.status === 'skipped' ? c.dim(`  (no schema registered${this.options.strict ? ', --strict' : ''})`) : '';
    this.out.line(`${head}${urn}${why}`);
    for (const v of r.violations) this.out.line(`${indent}${c.red(v.instancePath === '' ? '(root)' : v.instancePath)}  ${v.message}`);
    for (const w of r.warnings) this.out.line(`${indent}${c.yellow('warning:')} ${w}`);
  }

  async finish(ok: boolean): Promise<void> {
    const n = this.counts;
    const total = n.valid + n.invalid + n.skipped + n.error;
    if (this.options.format === 'json') {
      this.out.line(`],"summary":${JSON.stringify(n)},"ok":${ok}}`);
    } else {
      const parts = [`${n.valid} valid`, `${n.invalid} invalid`, `${n.skipped} skipped`, `${n.error} error${n.error === 1 ? '' : 's'}`];
      const verdict = ok ? this.chalk.green('OK') : this.chalk.red('FAILED');
      this.out.line(`${this.options.format === 'text' ? '\n' : ''}${verdict}: ${total} message${total === 1 ? '' : 's'}: ${parts.join(', ')}`);
    }
    await this.out.flush();
  }
}

export async function run(paths: string[], options: ValidateOptions): Promise<number> {
  if (paths.length === 0) throw new CliError('validate needs at least one path (a file, a directory, or - for stdin)', EXIT_USAGE);
  if (paths.filter((p) => p === '-').length > 1) throw new CliError('stdin (-) can be given only once', EXIT_USAGE);
  const registry = new CliRegistry(options);
  const positions = options.format === 'github' ? (await import('../positions.js')).SourcePositions : undefined;
  const reporter = new Reporter(options, positions);
  exitWhenStdoutCloses(() => (reporter.counts.invalid + reporter.counts.error > 0 ? EXIT_GATE : EXIT_OK));
  let parsedAny = false;
  for await (const doc of documents(paths, { ndjson: options.ndjson })) {
    const { result, text, parsed } = process1(doc, registry, options);
    parsedAny ||= parsed;
    if (reporter.add(result, text)) await reporter.flush();
  }
  const n = reporter.counts;
  const failed = n.invalid > 0 || n.error > 0 || (options.strict === true && n.skipped > 0);
  await reporter.finish(!failed);
  if (!parsedAny) return EXIT_USAGE;
  return failed ? EXIT_GATE : EXIT_OK;
}
