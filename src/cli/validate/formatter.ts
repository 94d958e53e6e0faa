import { formatOf, type SourcePositions } from '../../registry/index.js';
import { clean, Out, quote, type Colours } from '../output.js';
import { isWholeDocument, renderReport, tool } from '../report/emit.js';
import { githubAnnotation } from '../../report/github.js';
import { MAX_ROWS } from '../../report/markdown.js';
import type { ReportFinding, ReportUnit } from '../../report/model.js';
import { hint, messageFindings, runSummary, outcomeOf, problemLabel, unitOf, VALIDATE_RULES, type Place } from '../../validate/report.js';
import type { Result, Status, ValidateOptions } from './judge.js';

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
    const { summary, counted } = runSummary(this.counts);
    const format = this.options.format;
    if (format === 'json') {
      this.out.line(`],"summary":${JSON.stringify(summary)},"ok":${ok}}`);
      return;
    }
    if (isWholeDocument(format)) {
      const report = { tool: tool(VALIDATE_RULES), command: 'validate', ok, summary, summaryLine: `${ok ? 'OK' : 'FAILED'}: ${counted}`, findings: this.findings, artifacts: [...this.artifacts], units: this.units, timeMs, omitted: this.omitted };
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
    this.units.push({ id: unitOf(r), file: r.file, outcome: outcomeOf(r, this.options.strict === true), timeMs: now - this.lastAt });
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

  /**
   * A message's findings (src/validate/report.ts), each violation placed in its file. The github
   * format prints them as they come; the others keep them.
   */
  private findingsOf(r: Result, text: string | undefined): ReportFinding[] {
    return messageFindings(r, this.options.strict === true, this.where(r, text));
  }

  private where(r: Result, text: string | undefined): Place | undefined {
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
    if (r.violations !== undefined) for (const v of r.violations) this.out.line(`${indent}${c.red(clean(problemLabel(v)))}  ${clean(v.message)}`);
    if (r.warnings !== undefined) for (const w of r.warnings) this.out.line(`${indent}${c.yellow('warning:')} ${clean(w)}`);
  }
}
