import { formatOf, type SourcePositions } from '../../registry/index.js';
import { Out, type Colours } from '../output.js';
import { isWholeDocument, renderReport, tool } from '../report/emit.js';
import { githubAnnotation } from '../../report/github.js';
import { jsonClose, jsonItem, jsonOpen } from '../../report/json.js';
import { MAX_ROWS } from '../../report/markdown.js';
import type { ReportFinding, ReportUnit } from '../../report/model.js';
import { TextStream } from '../../report/text.js';
import { messageData, messageFindings, messageUnit, runSummary, outcomeOf, unitOf, VALIDATE_RULES, type Place } from '../../validate/report.js';
import type { Result, ValidateOptions } from './judge.js';

/**
 * Formats results into an `Out`. In the main thread it is the whole report; in a worker it formats
 * one task, not knowing what came before: `currentStreamFile` starts unknown (`null`), and the
 * header it then prints first is named in `leadingHeader` so the main thread can drop it when it
 * has printed that header already. JSON lines all start with a comma there, and the main thread
 * drops the first one.
 */
export class Formatter {
  first: boolean;
  /** The text format's stream: it knows the NDJSON file the last message came from (null: not known yet). */
  private readonly textStream: TextStream;
  /** `suggested`: skipped messages whose URN is close to a registered one (a warning). */
  readonly counts = { valid: 0, invalid: 0, skipped: 0, error: 0, suggested: 0 };
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
    this.textStream = new TextStream(c, options.quiet === true);
    if (partial) this.textStream.group = null;
    this.first = !partial;
    const emitters = { json: this.json, github: this.github, markdown: this.row, sarif: this.finding, junit: this.finding, text: this.text } as const;
    this.emit = emitters[options.format].bind(this);
  }

  /** The NDJSON file a worker's task began in, when its text starts with that file's header (the main thread may have printed it already). */
  get leadingHeader(): { file: string; length: number } | undefined {
    const h = this.textStream.leadingHeader;
    return h === undefined ? undefined : { file: h.group, length: h.length };
  }

  /** The NDJSON file the last message printed came from (undefined: none; null: not known). */
  get currentStreamFile(): string | undefined | null {
    return this.textStream.group;
  }

  set currentStreamFile(file: string | undefined | null) {
    this.textStream.group = file;
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
    if (this.options.format === 'json') this.out.line(jsonOpen('results'));
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
    const summaryLine = `${ok ? 'OK' : 'FAILED'}: ${counted}`;
    if (format === 'json') {
      this.out.line(jsonClose({ ok, summary }));
    } else if (format === 'text') {
      // validate's text always ends with a blank line and the summary line, as it did.
      this.textStream.wrote = true;
      for (const l of this.textStream.end({ ok, summaryLine })) this.out.line(l);
    } else if (isWholeDocument(format)) {
      const report = { tool: tool(VALIDATE_RULES), command: 'validate', ok, summary, summaryLine, findings: this.findings, artifacts: [...this.artifacts], units: this.units, timeMs, omitted: this.omitted };
      this.out.line(await renderReport(format, report));
    } else {
      // github: the annotations went out as the messages came (githubAnnotation); the summary line ends them.
      const verdict = ok ? this.c.green('OK') : this.c.red('FAILED');
      this.out.line(`${verdict}: ${counted}`);
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
    for (const f of this.findingsOf(r, text)) this.findings.push(f);
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
    this.out.line(jsonItem(messageData(r, this.where(r, text)), this.first));
    this.first = false;
  }

  private github(r: Result, text: string | undefined): void {
    if (r.status === 'valid' && r.warnings === undefined) return;
    for (const f of this.findingsOf(r, text)) this.out.line(githubAnnotation(f));
  }

  private text(r: Result): void {
    // --quiet: a valid message with nothing said about it costs no more than this test.
    if (this.options.quiet && r.status === 'valid' && r.warnings === undefined) return;
    const strict = this.options.strict === true;
    for (const l of this.textStream.unit(messageUnit(r, strict), messageFindings(r, strict, undefined, true))) this.out.line(l);
  }
}
