import { placeText, type FindingLevel, type Outcome, type Report, type ReportFinding, type ReportUnit } from './model.js';

/*
 * Text from input made safe to print: shared by every renderer (src/report) and the CLI's own
 * text output (src/cli/output.ts re-exports it).
 */

// C0 controls, DEL and C1 controls (ESC among them), plus the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const CONTROL_TEST = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Text from input (a URN, a file name, a message) made safe for a terminal or a log: every control
 * character is written as an escape (`\n`, `\x1b`, `\u2028`), so input can neither move the cursor,
 * recolour the screen nor forge a line of output.
 */
export function clean(s: string): string {
  if (!CONTROL_TEST.test(s)) return s;
  return s.replace(CONTROL, (ch) => {
    switch (ch) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default: {
        const code = ch.charCodeAt(0);
        return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
      }
    }
  });
}

// What JSON.stringify leaves as it is but a reader cannot see: other controls, format characters
// (zero-width, bidi), separators and spaces other than U+0020, unassigned and private-use code
// points, lone surrogates.
const INVISIBLE = /(?! )[\p{C}\p{Z}]/gu;

/**
 * Input (a URN) in JSON string syntax with every character a reader could not see escaped, so
 * `"urn:a:b "` and `"urn:a:b\u200b"` do not look like `"urn:a:b"`. Safe for a terminal as it is.
 */
export function quote(s: string): string {
  return JSON.stringify(s).replace(INVISIBLE, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

// ---- the text format: any Report, as a terminal or a CI log shows it ------------------------------

/*
 * Where a command words its text its own way (check's `✗ URN  file`, compat's
 * `breaking  /pointer  message  [rule]` with its witness), its view (a TextView, in
 * src/<command>/view-text.ts) gives the words as lines of spans, each in a tone, from the Report's
 * data and its verdict; this renderer lays them out: their order, nesting and indentation, the blank
 * line and the summary line, colours and escaping.
 */

/**
 * How a span of text output is shown: the text renderer colours it (or not, off a terminal);
 * markdown makes `bold` and `fail` strong and `code` a code span, and writes the others plain.
 * In a markdown layout (MarkdownDocument) a strong span stands between spaces or line ends, as
 * markdown wants it (`a**✗ removed**` is not strong text).
 */
export type Tone = 'bold' | 'dim' | 'fail' | 'warn' | 'pass' | 'code';

/** A piece of a line of text output: plain, or in a tone. Text from input in it is escaped when rendered. */
export type Span = string | { readonly text: string; readonly tone: Tone };

/** One line of text output: its spans, written one after the other. */
export type TextLine = readonly Span[];

/** The words of spans, without their tones. */
export const plainOf = (line: readonly Span[]): string => line.map((x) => (typeof x === 'string' ? x : x.text)).join('');

export interface FindingText {
  /** The finding's line; `null`: the text says it otherwise, in its unit's heading (compat: a URN added) or the notes (gdpr's inventory). */
  line: TextLine | null;
  /** Lines under it, as deep as it (they bring their own extra indentation): a witness, an excuse. */
  details?: readonly TextLine[];
}

export interface UnitText {
  /** The unit's heading; `null`: none, its findings are not indented (a run of one thing: compat on two files). */
  heading: TextLine | null;
  /** A heading the unit sits under (an NDJSON file): shown once over consecutive units, which are indented under it. */
  group?: string;
  /** What is said of the unit after its findings: a remedy, a rollout, corpus counts. */
  notes?: readonly TextLine[];
}

/** A command's text layout of its Report: each part it words itself; what it leaves out, the defaults say. */
export interface TextView<FS = unknown, US = unknown> {
  /** Lines before the units: what the run as a whole says first (compat: the registry is absent at the ref). */
  lead?: readonly TextLine[];
  /** Lines after the units, before the summary line: what the run as a whole adds. */
  notes?: readonly TextLine[];
  /** A unit's heading, group and notes; undefined: its mark and id, and its file. */
  unit?(u: ReportUnit<US>): UnitText | undefined;
  /** A finding's line and details; undefined: its level, pointer and message. */
  finding?(f: ReportFinding<FS>): FindingText | undefined;
}

/** The styles a terminal gives the tones (identity functions off a terminal). */
export interface Tones {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

// Code is plain in a terminal: markdown is where it gets its own look.
const TONE: Record<Tone, keyof Tones | undefined> = {
  bold: 'bold',
  dim: 'dim',
  fail: 'red',
  warn: 'yellow',
  pass: 'green',
  code: undefined,
};

/** A line's spans, each escaped (clean) and in its tone. */
function renderLine(line: TextLine, c: Tones): string {
  let s = '';
  for (const span of line) {
    if (typeof span === 'string') {
      s += clean(span);
    } else {
      const tone = TONE[span.tone];
      s += tone === undefined ? clean(span.text) : c[tone](clean(span.text));
    }
  }
  return s;
}

const MARK: Record<Outcome, { text: string; tone: Tone }> = {
  pass: { text: '✓', tone: 'pass' },
  fail: { text: '✗', tone: 'fail' },
  skip: { text: '-', tone: 'warn' },
  error: { text: '!', tone: 'fail' },
};
const LEVEL_TONE: Record<FindingLevel, Tone> = { error: 'fail', warning: 'warn', note: 'dim' };

/** A unit's heading when its command gives none: its mark, its id, its file. */
const defaultHeading = (u: ReportUnit): TextLine => [
  MARK[u.outcome],
  ' ',
  { text: u.id, tone: 'bold' },
  ...(u.file === undefined ? [] : ['  ', { text: u.file, tone: 'dim' as const }]),
];

/** A finding's line when its command gives none: its level, where it is (when not its unit's file), its pointer and message. */
function defaultLine(f: ReportFinding, unitFile: string | undefined): TextLine {
  const place = f.location?.file === unitFile ? '' : placeText(f);
  const pointer = f.location?.pointer ?? '';
  return [
    { text: f.level, tone: LEVEL_TONE[f.level] },
    '  ',
    place === '' ? '' : `${place} `,
    pointer === '' ? '' : `${pointer}  `,
    f.message,
  ];
}

/**
 * The text format, written as it goes: a validate run streams its units as their messages are
 * judged (in a worker too, which starts not knowing the group it is in: `group` null).
 * The run's lead lines come first (renderText), then each unit with its heading, findings, their
 * details and its notes, then the findings about the run as a whole, the run's notes, a blank line
 * (when anything came before) and the summary line.
 */
export class TextStream<FS = unknown, US = unknown> {
  /** The group the last unit sat under: undefined for none, null when not known (a worker's first task). */
  group: string | undefined | null = undefined;
  /** Whether any line was written: the blank line before the summary line then separates it. */
  wrote = false;
  /** The header a stream that started in an unknown group wrote first (its line, with the newline). */
  leadingHeader: { group: string; length: number } | undefined;

  constructor(
    private readonly c: Tones,
    private readonly quiet = false,
    private readonly view: TextView<FS, US> = {},
  ) {}

  /** A finding about the whole run (no unit), or a unit's when its unit is not in the report. */
  finding(f: ReportFinding<FS>, indent = '', unitFile?: string): string[] {
    const t = this.view.finding?.(f);
    const line = t === undefined ? defaultLine(f, unitFile) : t.line;
    const lines = line === null ? [] : [indent + renderLine(line, this.c)];
    for (const d of t?.details ?? []) lines.push(indent + renderLine(d, this.c));
    if (lines.length > 0) this.wrote = true;
    return lines;
  }

  /** A unit and its findings; nothing for a passing unit with nothing said under --quiet. */
  unit(u: ReportUnit<US>, findings: readonly ReportFinding<FS>[]): string[] {
    const t = this.view.unit?.(u);
    if (this.quiet && u.outcome === 'pass' && findings.length === 0 && (t?.notes?.length ?? 0) === 0) return [];
    const lines: string[] = [];
    let indent = '';
    const heading = t === undefined ? defaultHeading(u) : t.heading;
    if (heading === null) {
      this.group = undefined;
    } else if (t?.group !== undefined) {
      if (this.group !== t.group) {
        const header = this.c.bold(clean(t.group));
        if (this.group === null) this.leadingHeader = { group: t.group, length: header.length + 1 };
        lines.push(header);
        this.group = t.group;
      }
      lines.push('  ' + renderLine(heading, this.c));
      indent = '      ';
    } else {
      this.group = undefined;
      lines.push(renderLine(heading, this.c));
      indent = '    ';
    }
    for (const f of findings) pushAll(lines, this.finding(f, indent, u.file));
    for (const n of t?.notes ?? []) lines.push(indent + renderLine(n, this.c));
    if (lines.length > 0) this.wrote = true;
    return lines;
  }

  /** The run's notes, the blank line and the summary line: its verdict word (`OK`, `FAILED`) in its tone. */
  end(report: Pick<Report, 'ok' | 'summaryLine'>): string[] {
    const lines = (this.view.notes ?? []).map((n) => renderLine(n, this.c));
    if (this.wrote || lines.length > 0) lines.push('');
    const m = /^(OK|FAILED)(:.*)$/s.exec(report.summaryLine);
    const paint = report.ok ? this.c.green : this.c.red;
    lines.push(m ? paint(m[1]!) + clean(m[2]!) : clean(report.summaryLine));
    return lines;
  }
}

/** Appends one by one, never push(...more): a unit may have more findings than a call takes arguments. */
function pushAll(to: string[], more: readonly string[]): void {
  for (const x of more) to.push(x);
}

/** Any Report as text: every finding, under its unit where it has one (see TextStream). */
export function renderText<FS, US>(
  report: Report<FS, US>,
  c: Tones,
  options: { quiet?: boolean } = {},
  view: TextView<FS, US> = {},
): string {
  const stream = new TextStream(c, options.quiet, view);
  const byUnit = new Map<string, ReportFinding<FS>[]>();
  const ids = new Set(report.units.map((u) => u.id));
  const run: ReportFinding<FS>[] = [];
  for (const f of report.findings) {
    if (f.unit !== undefined && ids.has(f.unit)) {
      const list = byUnit.get(f.unit);
      if (list === undefined) byUnit.set(f.unit, [f]);
      else list.push(f);
    } else {
      run.push(f);
    }
  }
  const lines = (view.lead ?? []).map((l) => renderLine(l, c));
  if (lines.length > 0) stream.wrote = true;
  for (const u of report.units) pushAll(lines, stream.unit(u, byUnit.get(u.id) ?? []));
  for (const f of run) pushAll(lines, stream.finding(f));
  pushAll(lines, stream.end(report));
  return lines.join('\n') + '\n';
}
