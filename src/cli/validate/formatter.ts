import { formatOf, type SourcePositions } from '../../registry/index.js';
import { Out, type Colours } from '../output.js';
import { ciContext, isWholeDocument, renderReport, tool, type GateFormat } from '../report/emit.js';
import { githubAnnotation } from '../../report/github.js';
import { jsonClose, jsonItem, jsonOpen } from '../../report/json.js';
import { MAX_ROWS } from '../../report/markdown.js';
import type { ReportFinding, ReportUnit } from '../../report/model.js';
import type { JunitStream } from '../../report/junit.js';
import type { SarifCap, SarifStream } from '../../report/sarif.js';
import { TextStream } from '../../report/text.js';
import { validateTextView } from '../../validate/view-text.js';
import type { Spool } from '../spool.js';
import {
  messageData,
  messageFindings,
  messageUnit,
  runSummary,
  outcomeOf,
  unitOf,
  VALIDATE_RULES,
  type MessageSubject,
  type MessageVerdict,
  type Place,
} from '../../validate/report.js';
import type { Result } from '../../validate/judge.js';
import type { ValidateOptions } from './judge.js';

const SARIF_KEY = 'results';
const PIECE_END = '\u0000';
const LEVEL_OF: readonly ReportFinding['level'][] = ['error', 'warning', 'note'];

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
  private readonly textStream: TextStream<MessageSubject, MessageVerdict>;
  /** `suggested`: skipped messages whose URN is close to a registered one (a warning). */
  readonly counts = { valid: 0, invalid: 0, skipped: 0, error: 0, suggested: 0 };
  /** How a result is written in the format asked for, chosen once. */
  private readonly emit: (r: Result, text: string | undefined) => void;
  /** The working directory's path from the repository's root, for the formats CI reads paths of (github). */
  private get base(): string {
    return ciContext().base;
  }

  constructor(
    private readonly options: ValidateOptions,
    private readonly c: Colours,
    // Loaded only for --format github and json positions: it is needed only to place a violation.
    private readonly positions: typeof SourcePositions | undefined,
    readonly out: Out,
    partial = false,
  ) {
    this.textStream = new TextStream(c, options.quiet === true, validateTextView);
    if (partial) this.textStream.group = null;
    this.first = !partial;
    // The formats validate writes as it goes; any other (a whole document: markdown) keeps its findings for the end.
    const streams: Partial<Record<GateFormat, (r: Result, text: string | undefined) => void>> = {
      json: this.json,
      github: this.github,
      sarif: this.sarifResults,
      junit: this.junitCase,
      text: this.text,
    };
    this.emit = ((Object.hasOwn(streams, options.format) ? streams[options.format] : undefined) ?? this.row).bind(this);
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

  /**
   * What comes before the first result: JSON opens its document (its summary comes last, see
   * finish), SARIF writes its head (the tool and its rules); JUnit's test cases are kept in a spool
   * until the end, when the counts of their suites are known.
   */
  begin(): Promise<void> | undefined {
    const format = this.options.format;
    if (format === 'json') this.out.line(jsonOpen('results'));
    return format === 'sarif' || format === 'junit' ? this.beginStream(format) : undefined;
  }

  private async beginStream(format: 'sarif' | 'junit'): Promise<void> {
    const ci = ciContext();
    if (format === 'sarif') {
      const [{ SarifStream, SarifCap }, { Spool }] = await Promise.all([import('../../report/sarif.js'), import('../spool.js')]);
      this.sarif = new SarifStream(tool(VALIDATE_RULES), undefined, {
        command: 'validate',
        category: ci.categoryFor('validate'),
        base: ci.base,
      });
      this.sarifCap = new SarifCap();
      this.spool = new Spool();
      this.out.raw(this.sarif.head());
    } else {
      const [{ JunitStream }, { Spool }] = await Promise.all([import('../../report/junit.js'), import('../spool.js')]);
      this.junit = new JunitStream(tool(VALIDATE_RULES), 'validate', true, ci.base);
      this.spool = new Spool();
    }
  }

  /** A worker's formatted task joined to what came before (JSON: no comma before the first result). */
  joinTask(text: string): string {
    if (this.options.format !== 'json' || text === '') return text;
    const joined = this.first ? text.slice(1) : text;
    this.first = false;
    return joined;
  }

  /**
   * The summary: JSON's closing part, SARIF's end (the verdict and counts), the JUnit document (its
   * test cases read back from the spool, a bounded piece at a time), the markdown table, or the
   * summary line.
   */
  async finish(ok: boolean, timeMs: number): Promise<void> {
    const { summary, counted } = runSummary(this.counts, this.options.strict === true);
    const format = this.options.format;
    const summaryLine = `${ok ? 'OK' : 'FAILED'}: ${counted}`;
    if (format === 'json') {
      this.out.line(jsonClose({ ok, summary }));
    } else if (format === 'text') {
      // validate's text always ends with a blank line and the summary line, as it did.
      this.textStream.wrote = true;
      for (const l of this.textStream.end({ ok, summaryLine })) this.out.line(l);
    } else if (format === 'sarif' || format === 'junit') {
      await this.endStream(ok, summary, timeMs);
    } else if (isWholeDocument(format)) {
      const report = {
        tool: tool(VALIDATE_RULES),
        command: 'validate',
        ok,
        summary,
        summaryLine,
        findings: this.findings,
        artifacts: [],
        units: [],
        timeMs,
        omitted: this.omitted,
      };
      this.out.line(await renderReport(format, report));
    } else {
      // github: the annotations went out as the messages came (githubAnnotation); the summary line ends them.
      const verdict = ok ? this.c.green('OK') : this.c.red('FAILED');
      this.out.line(`${verdict}: ${counted}`);
    }
  }

  /**
   * SARIF and JUnit are written in memory that does not grow with the run: SARIF's results wait in
   * a spool (memory, then a temporary file), at most MAX_RESULTS of each level (SarifCap), until
   * the end tells which of them the run keeps; a JUnit test case per message (one unit, what the
   * summary counts) waits in a spool for its suite's counts. Markdown keeps at most MAX_ROWS
   * findings and renders them at the end.
   */
  private sarif: SarifStream | undefined;
  private sarifCap: SarifCap | undefined;
  /** What the SARIF log left out, once it is written (the command says it on stderr once the run has ended). */
  omittedNote: string | undefined;
  private junit: JunitStream | undefined;
  private spool: Spool | undefined;
  private readonly findings: ReportFinding[] = [];
  private omitted = 0;
  private lastAt = performance.now();

  private async endStream(ok: boolean, summary: Record<string, number>, timeMs: number): Promise<void> {
    const spool = this.spool!;
    if (this.sarif !== undefined) {
      try {
        await this.sarifEnd(spool, ok, summary);
      } finally {
        spool.close();
      }
      return;
    }
    try {
      for (const piece of this.junit!.document((suite) => spool.read(suite), [], timeMs)) {
        this.out.raw(piece);
        if (this.out.wantsFlush()) {
          await this.out.flush();
          await new Promise(setImmediate); // a turn of the event loop: a signal is not kept waiting
        }
      }
    } finally {
      spool.close();
    }
  }

  /** The results kept (SarifCap's quotas of each level, in the order found) read back from the spool, then the log's end. */
  private async sarifEnd(spool: Spool, ok: boolean, summary: Record<string, number>): Promise<void> {
    const sarif = this.sarif!;
    const cap = this.sarifCap!;
    const quota = cap.quotas();
    let rest = '';
    for (const chunk of spool.read(SARIF_KEY)) {
      const pieces = (rest + chunk).split(PIECE_END);
      rest = pieces.pop()!;
      for (const p of pieces) {
        const level = LEVEL_OF[p.charCodeAt(0) - 48]!;
        if (quota[level]-- > 0) this.out.raw(sarif.write(p.slice(1)));
        if (this.out.wantsFlush()) {
          await this.out.flush();
          await new Promise(setImmediate); // a turn of the event loop: a signal is not kept waiting
        }
      }
    }
    const omitted = cap.omitted();
    if (omitted !== undefined) this.omittedNote = `SARIF: ${(await import('../../report/sarif.js')).omittedText(omitted, cap.total)}`;
    this.out.raw(sarif.tail({ command: 'validate', ok, summary, ...(omitted === undefined ? {} : { omitted, total: cap.total }) }));
  }

  private sarifResults(r: Result, text: string | undefined): void {
    if (saysNothing(r)) return;
    for (const f of this.findingsOf(r, text)) {
      // Each result is held with its level (a digit) and ended by a NUL, which JSON text never holds raw.
      if (this.sarifCap!.offer(f.level)) this.spool!.add(SARIF_KEY, `${LEVEL_OF.indexOf(f.level)}${this.sarif!.resultText(f)}${PIECE_END}`);
    }
  }

  private junitCase(r: Result, text: string | undefined): void {
    const now = performance.now();
    const unit: ReportUnit = {
      id: unitOf(r),
      file: r.file,
      ...(r.line === undefined ? {} : { line: r.line }),
      outcome: outcomeOf(r),
      timeMs: now - this.lastAt,
    };
    this.lastAt = now;
    const own = saysNothing(r) ? [] : this.findingsOf(r, text);
    const { suite, xml } = this.junit!.add(unit, own);
    this.spool!.add(suite, xml);
  }

  /** Markdown shows at most MAX_ROWS findings: only those are kept, the rest counted, so memory stays bounded. */
  private row(r: Result, text: string | undefined): void {
    if (saysNothing(r)) return;
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
    return (p) => positions.span(p.at);
  }

  private json(r: Result, text: string | undefined): void {
    this.out.line(jsonItem(messageData(r, this.where(r, text)), this.first));
    this.first = false;
  }

  private github(r: Result, text: string | undefined): void {
    if (saysNothing(r)) return;
    for (const f of this.findingsOf(r, text)) this.out.line(githubAnnotation(f, this.base));
  }

  private text(r: Result): void {
    // --quiet: a valid message with nothing said about it costs no more than this test.
    if (this.options.quiet && saysNothing(r)) return;
    const strict = this.options.strict === true;
    for (const l of this.textStream.unit(messageUnit(r), messageFindings(r, strict, undefined))) this.out.line(l);
  }
}

/** A valid message with no warning: the formats that list findings have nothing to say of it. */
const saysNothing = (r: Result): boolean => r.status === 'valid' && r.warnings === undefined && r.deprecation === undefined;
