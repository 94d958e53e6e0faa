/*
 * The one findings model: what every gate (validate, check, compat, gdpr) hands to the
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
interface ReportLocation {
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
  /** The services a breaking change reaches: the consumers it breaks, the producers whose data old consumers reject. */
  reach?: { consumers?: readonly string[]; producers?: readonly string[] };
}

/**
 * One thing said about a run: data only. How a format lays it out (a line of text, a table row, a
 * JSON entry) is the renderer's, or the command's view's (src/<command>/view-*.ts), never the model's.
 * `S` is the domain object the finding is about (compat's change, check's issue), which a command's
 * view reads to word it its own way; no renderer shows it and no format writes it.
 */
export interface ReportFinding<S = unknown> {
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
  /** What the finding is about, for the command's own views (see above). */
  subject?: S;
}

/**
 * What a command judges (a message, a URN): its summary counts these, and JUnit has one test case
 * for each, so the report's tests, failures, errors and skipped are the summary's numbers.
 */
export interface ReportUnit<S = unknown> {
  /** Unique in the report, shown as the test case's name (a file, `file:line` for NDJSON, a URN). */
  id: string;
  /** The file it was read from, as shown to the user: its JUnit test suite. */
  file?: string;
  /** Where in `file` it starts, where it is one line of it (a line of NDJSON): JUnit's `line`. */
  line?: number;
  outcome: Outcome;
  /** Milliseconds spent on it, where measured (JUnit `time`). */
  timeMs?: number;
  /** What the unit is (compat's URN row, validate's message), for the command's own views; no format writes it. */
  subject?: S;
}

/** The tool a report is by: its name, version and home (the rules come with the findings' core). */
export interface ToolInfo {
  name: string;
  version: string;
  informationUri?: string;
}

export interface ReportInput<FS = unknown, US = unknown> {
  tool: ToolInfo & { rules?: readonly ReportRule[] };
  /** The verdict and its counts (a Report's), which SARIF carries in its run's property bag. */
  ok?: boolean;
  summary?: Readonly<Record<string, number>>;
  findings: readonly ReportFinding<FS>[];
  /** Every file checked; without `units`, those without a finding are passing test cases in JUnit. */
  artifacts?: readonly string[];
  /** The command, for JUnit's classname (`bqschema.validate`). */
  command?: string;
  /** The units judged, in order; without them JUnit falls back to a test case per finding. */
  units?: readonly ReportUnit<US>[];
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

/**
 * What a gate computed, whole, as data: text.ts, json.ts, github.ts, markdown.ts, sarif.ts and
 * junit.ts each render any Report (the formats table: src/report/formats.ts). Where a command lays
 * a format out its own way (compat's pull-request comment, check's lines), its view does, from this
 * data and its verdict.
 */
export interface Report<FS = unknown, US = unknown> extends ReportInput<FS, US> {
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
  units: readonly ReportUnit<US>[];
  /** Findings left out of `findings` and only counted (markdown shows a bounded table): it says how many. */
  omitted?: number;
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
