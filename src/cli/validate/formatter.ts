import { formatOf, type SourcePositions } from '../../registry/index.js';
import { pointerLabel } from '../../validator/index.js';
import { clean, Out, quote, type Colours } from '../output.js';
import { docsPage, isWholeDocument, renderReport, tool } from '../report/emit.js';
import { githubAnnotation } from '../../report/github.js';
import { MAX_ROWS } from '../../report/markdown.js';
import type { Outcome, ReportFinding, ReportRule, ReportUnit } from '../../report/model.js';
import type { Problem, Result, Status, ValidateOptions } from './judge.js';

/** The rules validate's SARIF and JUnit findings cite. */
const VALIDATE_PAGE = docsPage('cli/validate.md');
export const VALIDATE_RULES: ReportRule[] = [
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
  {
    id: 'envelope-identity', description: "The envelope's identity is ambiguous: both job and urn are set, or job is not a string.",
    fullDescription: 'The message was judged by the URN the envelope rules pick (job wins over the urn alias; a job that is not a string is ignored), which may not be the one its producer meant; the SDKs apply the same rule.',
    help: 'Send the URN in job only, as a string; drop the urn alias.', helpUri: VALIDATE_PAGE,
  },
];

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
  /** How a result is written in the format asked for, chosen once. */
  private readonly emit: (r: Result, text: string | undefined) => void;

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
    const emitters = { json: this.json, github: this.github, markdown: this.row, sarif: this.finding, junit: this.finding, text: this.text } as const;
    this.emit = emitters[options.format].bind(this);
    this.marks = { valid: c.green('✓ valid'), invalid: c.red('✗ invalid'), skipped: c.yellow('- skipped'), error: c.red('! error') };
  }

  /** Synchronous so a clean document costs no await; the caller flushes when this says so. */
  add(r: Result, text: string | undefined): boolean {
    this.counts[r.status]++;
    if (r.suggestion !== undefined) this.counts.suggested++;
    this.emit(r, text);
    return this.out.wantsFlush();
  }


  /** What comes before the first result: JSON opens its document (its summary comes last, see finish). */
  begin(): void {
    if (this.options.format === 'json') this.out.line('{"results":[');
  }

  /** A worker's formatted task joined to what came before (JSON: no comma before the first result). */
  joinTask(text: string): string {
    if (this.options.format !== 'json' || text === '') return text;
    const joined = this.first ? text.slice(1) : text;
    this.first = false;
    return joined;
  }

  /** The summary: JSON's closing part, the whole SARIF or JUnit document, or the summary line. */
  async finish(ok: boolean, timeMs: number): Promise<void> {
    const n = this.counts;
    const total = n.valid + n.invalid + n.skipped + n.error;
    const format = this.options.format;
    if (format === 'json') {
      const summary = { messages: total, valid: n.valid, invalid: n.invalid, skipped: n.skipped, errors: n.error };
      this.out.line(`],"summary":${JSON.stringify(summary)},"ok":${ok}}`);
      return;
    }
    const close = n.suggested === 0 ? '' : ` (${n.suggested} close to a registered URN)`;
    const parts = [`${n.valid} valid`, `${n.invalid} invalid`, `${n.skipped} skipped${close}`, `${n.error} error${n.error === 1 ? '' : 's'}`];
    const counted = `${total} message${total === 1 ? '' : 's'}: ${parts.join(', ')}`;
    if (isWholeDocument(format)) {
      const report = { tool: tool(VALIDATE_RULES), command: 'validate', ok, summaryLine: `${ok ? 'OK' : 'FAILED'}: ${counted}`, results: this.findings, artifacts: [...this.artifacts], units: this.units, timeMs, omitted: this.omitted };
      this.out.line(await renderReport(format, report));
    } else {
      // github: the annotations went out as the messages came (githubAnnotation); the summary line ends them.
      const verdict = ok ? this.c.green('OK') : this.c.red('FAILED');
      this.out.line(`${format === 'text' ? '\n' : ''}${verdict}: ${counted}`);
    }
  }

  /**
   * SARIF, JUnit and markdown are whole documents: the units (one per message, what the summary counts) and
   * their findings are kept and rendered at the end, as one Report.
   */
  readonly findings: ReportFinding[] = [];
  readonly artifacts = new Set<string>();
  readonly units: ReportUnit[] = [];
  private omitted = 0;
  private lastAt = performance.now();

  private finding(r: Result, text: string | undefined): void {
    this.artifacts.add(r.file);
    const now = performance.now();
    this.units.push({ id: unitOf(r), file: r.file, outcome: this.outcome(r), timeMs: now - this.lastAt });
    this.lastAt = now;
    this.findings.push(...this.findingsOf(r, text));
  }

  /** Markdown shows at most MAX_ROWS findings: only those are kept, the rest counted, so memory stays bounded. */
  private row(r: Result, text: string | undefined): void {
    if (r.status === 'valid' && r.warnings === undefined) return;
    for (const f of this.findingsOf(r, text)) {
      if (this.findings.length < MAX_ROWS) this.findings.push(f);
      else this.omitted++;
    }
  }

  /** How a message fares as a JUnit test case. Under --strict a skipped message fails the run, so it is a failure. */
  private outcome(r: Result): Outcome {
    return r.status === 'valid' ? 'pass' : r.status === 'invalid' ? 'fail' : r.status === 'error' ? 'error' : this.options.strict ? 'fail' : 'skip';
  }

  /**
   * A message's findings: what its annotations, SARIF results and JUnit test case say, each placed
   * at its file, line and column. The github format prints them as they come; the others keep them.
   */
  private findingsOf(r: Result, text: string | undefined): ReportFinding[] {
    const unit = unitOf(r);
    const found: ReportFinding[] = [];
    // What the envelope's identity leaves in doubt, whatever the verdict.
    const urn = r.urn === undefined ? {} : { urn: r.urn };
    for (const w of r.warnings ?? []) found.push({ rule: 'envelope-identity', level: 'warning', title: 'envelope', message: w, ...urn, location: { file: r.file, line: r.line }, unit });
    if (r.status === 'error') {
      found.push({ rule: 'unreadable-input', level: 'error', title: 'cannot validate', message: r.error ?? 'error', ...urn, location: { file: r.file, line: r.errorLine ?? r.line, col: r.col }, unit });
    } else if (r.status === 'skipped') {
      const level = this.options.strict ? 'error' : r.suggestion !== undefined ? 'warning' : 'note';
      found.push({ rule: 'no-schema', level, title: 'no schema', message: noSchema(r), ...urn, location: { file: r.file, line: r.line }, unit });
    } else if (r.status === 'invalid') {
      const place = this.where(r, text);
      for (const v of r.violations ?? []) {
        const pos = place?.(v);
        const location = { file: r.file, line: pos?.line ?? r.line, col: pos?.col, pointer: v.at };
        found.push({ rule: 'invalid-data', level: 'error', title: 'invalid data', message: `${r.urn ?? 'message'}: ${label(v)} ${v.message}`, ...urn, location, unit });
      }
    }
    return found;
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
    if (r.status === 'valid' && r.warnings === undefined) return;
    for (const f of this.findingsOf(r, text)) this.out.line(githubAnnotation(f));
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

/** A message's unit: its file, or `file:line` for a line of NDJSON. */
const unitOf = (r: Result): string => (r.line === undefined ? r.file : `${r.file}:${r.line}`);

/** The message of a skipped result in annotations and findings. */
const noSchema = (r: Result): string => `no schema registered for ${quote(r.urn ?? '')}${hint(r)}`;
