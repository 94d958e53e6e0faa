/*
 * The one findings model (issue 23): what every gate (validate, check, compat, gdpr) hands to the
 * renderers of src/report (text, JSON, github annotations, markdown, SARIF, JUnit): the tool and
 * the rules it may cite, the units it judged (what its summary counts), its findings, each with a
 * rule, a level and a position where one is known, and its verdict. One Report feeds all six, so a
 * line of text, an annotation on the pull request, a code-scanning result and a JUnit failure are
 * the same finding.
 * The names follow the glossary in docs/ci-reports.md.
 */

/** How a unit fares, whatever the command calls it: JUnit's four outcomes. */
export type Outcome = 'pass' | 'fail' | 'skip' | 'error';

export type FindingLevel = 'error' | 'warning' | 'note';

export interface ReportRule {
  id: string;
  /** One sentence: SARIF's shortDescription (and fullDescription unless one is given). */
  description: string;
  /** More than the sentence: when it applies, why it matters. */
  fullDescription?: string;
  /** The remedy, plain text: what to do about a finding of this rule. */
  help: string;
  /** The docs page that explains the rule (absolute). */
  helpUri: string;
}

/** Where a finding is: a file, and in it the line, the column and the JSON Pointer of what it is about. */
export interface ReportLocation {
  /** As shown to the user: relative to the working directory, `/` or `\\` separated. */
  file: string;
  /** 1-based; ignored unless a positive integer. */
  line?: number;
  /** 1-based, in code points; ignored unless a positive integer (and a line is given). */
  col?: number;
  /** A JSON Pointer (RFC 6901) into the document `file` holds (for NDJSON, the one at `line`). */
  pointer?: string;
  /** Where what the pointer names ends: 1-based, the line of its last character (ignored unless a positive integer not before `line`). */
  endLine?: number;
  /** The column after its last character (exclusive, in code points), on `endLine`. */
  endCol?: number;
}

/** What proves a finding, beyond its message: compat's witness and corpus. */
export interface ReportEvidence {
  /** A payload one schema accepts and the other rejects: the proof of a breaking change. */
  witness?: { payload: unknown; validUnder: 'old' | 'new' };
  /** The URN's captured messages checked against its new schema. */
  corpus?: { checked: number; rejected: number };
}

export interface ReportFinding {
  /** A stable kebab-case rule id: SARIF's ruleId, JUnit's type. */
  rule: string;
  level: FindingLevel;
  message: string;
  /** The URN the finding is about, where there is one. */
  urn?: string;
  /** Absent for a finding about no file (a notice about the whole run). */
  location?: ReportLocation;
  evidence?: ReportEvidence;
  /** The unit (ReportUnit.id) the finding is about; absent for one about the whole run. */
  unit?: string;
  /** A few words on what kind of finding it is: the annotation's title (SARIF names the rule instead). */
  title?: string;
  /** How the text output shows it; without it, its level, pointer and message (see renderText). */
  text?: FindingText;
}

/*
 * What the text output shows, where the command words it its own way. The words come from the core
 * that computed the Report; renderText (src/report/text.ts) lays them out: their order, nesting
 * and indentation, the blank line and the summary line, colours and escaping.
 */

/**
 * How a span of text output is shown: the text renderer colours it (or not, off a terminal);
 * markdown makes `bold` and `fail` strong and `code` a code span, and writes the others plain.
 * In a markdown layout (ReportMarkdown) a strong span stands between spaces or line ends, as
 * markdown wants it (`a**✗ removed**` is not strong text).
 */
export type Tone = 'bold' | 'dim' | 'fail' | 'warn' | 'pass' | 'code';

/** A piece of a line of text output: plain, or in a tone. Text from input in it is escaped when rendered. */
export type Span = string | { readonly text: string; readonly tone: Tone };

/** One line of text output: its spans, written one after the other. */
export type TextLine = readonly Span[];

export interface FindingText {
  /** The finding's line; `null`: the text says it otherwise, in its unit's heading (compat: a URN added) or the units' notes (gdpr's inventory). */
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

export interface ReportText {
  /** Lines before the units: what the run as a whole says first (compat: the registry is absent at the ref). */
  lead?: readonly TextLine[];
  /** Lines after the units, before the summary line: what the run as a whole adds. */
  notes?: readonly TextLine[];
}

/*
 * What the markdown output shows, where the command lays it out its own way (compat's pull-request
 * comment: a table of changes or URNs with witnesses, remedy and rollout). The words come from the
 * core, as lines of spans; renderMarkdown (src/report/markdown.ts) escapes them and lays out the
 * blocks. Without it, markdown is a table of the Report's findings.
 */

/** A block of a markdown document: a paragraph (its lines joined by `<br>`), a bullet list, or a table (a cell's lines joined by `<br>`). */
export type MarkdownBlock =
  | { readonly lines: readonly TextLine[] }
  | { readonly items: readonly TextLine[] }
  | { readonly columns: readonly string[]; readonly rows: readonly (readonly (readonly TextLine[])[])[] };

export interface ReportMarkdown {
  /** The heading's words after `### bqschema <command>: `. */
  heading: TextLine;
  /** Under the heading, in order, a blank line between each. */
  blocks: readonly MarkdownBlock[];
}

/**
 * What a command judges (a message, a URN): its summary counts these, and JUnit has one test case
 * for each, so the report's tests, failures, errors and skipped are the summary's numbers.
 */
export interface ReportUnit {
  /** Unique in the report, shown as the test case's name (a file, `file:line` for NDJSON, a URN). */
  id: string;
  /** The file it was read from, as shown to the user: its JUnit test suite. */
  file?: string;
  /** Where in `file` it starts, where it is one line of it (a line of NDJSON): JUnit's `line`. */
  line?: number;
  outcome: Outcome;
  /** Milliseconds spent on it, where measured (JUnit `time`). */
  timeMs?: number;
  /** How the text output shows it; without it, its mark and id, and its file. */
  text?: UnitText;
  /** Its entry in the JSON output's list of units (Report.json.units), where the command has one. */
  data?: unknown;
}

/** The tool a report is by: its name, version and home (the rules come with the findings' core). */
export interface ToolInfo {
  name: string;
  version: string;
  informationUri?: string;
}

export interface ReportInput {
  tool: ToolInfo & { rules?: readonly ReportRule[] };
  /** The verdict and its counts (a Report's), which SARIF carries in its run's property bag. */
  ok?: boolean;
  summary?: Readonly<Record<string, number>>;
  findings: readonly ReportFinding[];
  /** Every file checked; without `units`, those without a finding are passing test cases in JUnit. */
  artifacts?: readonly string[];
  /** The command, for JUnit's classname (`bqschema.validate`). */
  command?: string;
  /** The units judged, in order; without them JUnit falls back to a test case per finding. */
  units?: readonly ReportUnit[];
  /** Milliseconds the whole run took (JUnit `time` of the report). */
  timeMs?: number;
  /**
   * The working directory's path from the repository's root (`services/orders`; '' or absent at
   * the root): what a CI reader resolves a file against is the repository, so SARIF's URIs,
   * annotations and JUnit's `file` attributes name `base/file` (see `repositoryPath`).
   */
  base?: string;
  /** SARIF's `automationDetails.id`: the analysis category code scanning keeps apart (default `<tool>/<command>/`). */
  category?: string;
}

/** What a gate computed, whole: text.ts, json.ts, github.ts, markdown.ts, sarif.ts and junit.ts each render any Report. */
export interface Report extends ReportInput {
  command: string;
  /** The gate passed: the exit code is 0. */
  ok: boolean;
  /**
   * The units counted, each count named after what it counts (`messages`, `urns`, `changes`, then
   * their outcomes, `errors`): the very object the command's JSON output has as its `summary`.
   */
  summary: Readonly<Record<string, number>>;
  /** The verdict, `OK: …` or `FAILED: …`, as the text output's last line says it. */
  summaryLine: string;
  units: readonly ReportUnit[];
  /** Findings left out of `findings` and only counted (markdown shows a bounded table): it says how many. */
  omitted?: number;
  /** What the text output adds to the units and findings. */
  text?: ReportText;
  /** The markdown document, where the command lays it out its own way (see ReportMarkdown). */
  markdown?: ReportMarkdown;
  /** The JSON output's fields besides `ok` and `summary` (src/report/json.ts). */
  json?: ReportJson;
}

/**
 * The command's own fields in its JSON output (each command's schema in schemas/output/ names
 * them): written after `ok` and `summary`, which are the Report's.
 */
export interface ReportJson {
  /** The fields, in order. */
  fields?: Readonly<Record<string, unknown>>;
  /** The key of the list of the units' `data` (validate's `results`, gdpr's `urns`), written after the fields. */
  units?: string;
  /** Fields after that list. */
  after?: Readonly<Record<string, unknown>>;
}

/** A positive integer, or undefined. */
export function position(n: number | undefined): number | undefined {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/** Where a finding is, as every format places it: a file that is named, a line only with it, a column only with a line. */
export function placeOf(f: ReportFinding): { file: string; line?: number; col?: number } | undefined {
  const at = f.location;
  if (at === undefined || at.file === '') return undefined;
  const line = position(at.line);
  const col = line === undefined ? undefined : position(at.col);
  return { file: at.file, ...(line === undefined ? {} : { line }), ...(col === undefined ? {} : { col }) };
}

/** `file:line:col`, each part only where known; '' for a finding about no file. */
export function placeText(f: ReportFinding): string {
  const p = placeOf(f);
  return p === undefined ? '' : `${p.file}${p.line === undefined ? '' : `:${p.line}`}${p.col === undefined ? '' : `:${p.col}`}`;
}

/** How the CLI names standard input as a file: it is no file of the repository. */
export const STDIN = '<stdin>';

/**
 * A file as shown (relative to the working directory) as a path from the repository's root, for the
 * readers that resolve paths against it (code scanning, annotations, test reporters): `base/file`,
 * `..` folded. An absolute path, standard input, or a path that leaves the repository is left as it is.
 */
export function repositoryPath(file: string, base: string | undefined): string {
  if (base === undefined || base === '' || file === '' || file === STDIN) return file;
  const path = file.replace(/\\/g, '/');
  if (path.startsWith('/') || /^[A-Za-z]:\//.test(path)) return file;
  const parts: string[] = [];
  for (const seg of `${base}/${path}`.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return file;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}
