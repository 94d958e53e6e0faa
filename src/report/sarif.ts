import {
  placeOf,
  position,
  repositoryPath,
  STDIN,
  type FindingLevel,
  type ReportFinding,
  type ReportInput,
  type ReportRule,
} from './model.js';

/*
 * SARIF 2.1.0 (OASIS) for GitHub code scanning and other SARIF readers: one run, the tool's rules
 * (those cited but not declared are added by id), one result per finding about a file, with a
 * physical location (code scanning rejects a whole log with a result that has none: a finding about
 * no file is a notification of the run instead), and at most MAX_RESULTS results. No clock and no
 * environment: the same input gives the same bytes.
 */

const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/**
 * The most results a run holds: GitHub code scanning rejects a run with more, the whole file
 * (docs: "SARIF support for code scanning", upload limits). Past it, every error is kept before any
 * warning, and every warning before any note, each level in the order found; the rest are counted
 * (SarifCap).
 */
export const MAX_RESULTS = 25_000;

/**
 * The cap a run applies: MAX_RESULTS, or less for a test (BQSCHEMA_TEST_SARIF_CAP, a whole number
 * from 1 to MAX_RESULTS; anything else is ignored), so the end-to-end tests cross it with small inputs.
 */
export function resultsCap(): number {
  const raw = process.env.BQSCHEMA_TEST_SARIF_CAP ?? '';
  return /^[1-9][0-9]{0,4}$/.test(raw) && Number(raw) <= MAX_RESULTS ? Number(raw) : MAX_RESULTS;
}

/** A file path as a URI reference: `/`-separated, each segment percent-encoded; absolute paths as file URIs. */
export function fileUri(file: string): string {
  const path = file.replace(/\\/g, '/');
  const drive = /^[A-Za-z]:\//.exec(path);
  const encode = (p: string): string =>
    p
      .split('/')
      .map((seg) => encodeURIComponent(seg))
      .join('/');
  if (drive) return `file:///${path.slice(0, 2)}${encode(path.slice(2))}`;
  if (path.startsWith('/')) return `file://${encode(path)}`;
  return encode(path);
}

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations?: unknown[];
  properties?: Record<string, unknown>;
}

/** The base every relative URI is resolved against: the repository's root (or, outside one, where bqschema ran). */
const SRCROOT = 'SRCROOT';

/** A region: the line (the first of a finding about a whole file), the column, and where it ends when known. */
function regionOf(f: ReportFinding, at: { line?: number; col?: number }): Record<string, number> {
  const startLine = at.line ?? 1;
  const region: Record<string, number> = { startLine };
  if (at.col !== undefined) region.startColumn = at.col;
  const endLine = at.line === undefined ? undefined : position(f.location?.endLine);
  if (endLine === undefined || endLine < startLine) return region;
  region.endLine = endLine;
  const endCol = at.col === undefined ? undefined : position(f.location?.endCol);
  // An end column only with a start column, and after it on one line (an empty region is an insertion point).
  if (endCol !== undefined && (endLine > startLine || endCol > at.col!)) region.endColumn = endCol;
  return region;
}

function location(f: ReportFinding, base: string | undefined): unknown[] | undefined {
  const at = placeOf(f);
  if (at === undefined) return undefined;
  // A finding about a whole file (a message with no schema) still gets a region: its first line,
  // where code scanning puts it anyway (the Multitool's SARIF2017 asks for one).
  const region = regionOf(f, at);
  let artifactLocation: Record<string, unknown>;
  if (at.file === STDIN) {
    // Standard input is no file of the repository: said so, and not placed under SRCROOT.
    artifactLocation = {
      uri: fileUri(STDIN),
      description: { text: 'standard input: the data was piped to bqschema, not read from a file' },
    };
  } else {
    const uri = fileUri(repositoryPath(at.file, base));
    artifactLocation = uri.startsWith('file:') ? { uri } : { uri, uriBaseId: SRCROOT };
  }
  return [{ physicalLocation: { artifactLocation, region } }];
}

/** What SARIF has no field for, in the result's property bag under the glossary's names: the URN, the pointer, the evidence. */
function propertiesOf(f: ReportFinding): Record<string, unknown> | undefined {
  const bag: Record<string, unknown> = {};
  if (f.urn !== undefined) bag.urn = f.urn;
  if (f.location?.pointer !== undefined) bag.pointer = f.location.pointer;
  if (f.evidence?.witness !== undefined) bag.witness = f.evidence.witness;
  if (f.evidence?.corpus !== undefined) bag.corpus = f.evidence.corpus;
  if (f.evidence?.reach !== undefined) bag.reach = f.evidence.reach;
  return Object.keys(bag).length === 0 ? undefined : bag;
}

interface SarifRule {
  id: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  help: { text: string; markdown: string };
  helpUri: string;
}

function sarifRule(r: ReportRule): SarifRule {
  const full = r.fullDescription ?? r.description;
  return {
    id: r.id,
    shortDescription: { text: r.description },
    fullDescription: { text: full },
    help: { text: `${r.help} See ${r.helpUri}`, markdown: `**${r.id}**: ${full}\n\n${r.help}\n\n[Documentation](${r.helpUri})` },
    helpUri: r.helpUri,
  };
}

// SARIF requires a message text; an empty one says which rule fired.
const messageText = (f: ReportFinding): string => (f.message === '' ? f.rule : f.message);

/** A rule a finding cites but the command did not declare: still described (code scanning requires it). */
const undeclared = (id: string, informationUri: string | undefined): ReportRule => ({
  id,
  description: id,
  help: 'See the documentation.',
  helpUri: informationUri ?? 'https://github.com/babelqueue/bqschema#readme',
});

/** How many results of each level were left out, past MAX_RESULTS. */
export type Omitted = Record<FindingLevel, number>;

const LEVELS: readonly FindingLevel[] = ['error', 'warning', 'note'];

/**
 * Which results a run keeps: at most MAX_RESULTS, every error before any warning, every warning
 * before any note, each level in the order found. Results are offered as they come; those a level
 * can never keep (past the first MAX_RESULTS of it) are only counted, so a writer holds at most
 * MAX_RESULTS of each level until the end says how many of each there were (`quotas`).
 */
export class SarifCap {
  private readonly seen: Record<FindingLevel, number> = { error: 0, warning: 0, note: 0 };

  constructor(private readonly max = resultsCap()) {}

  /** Counts a result; whether it may be kept. */
  offer(level: FindingLevel): boolean {
    return this.seen[level]++ < this.max;
  }

  /** How many of each level are kept: the first ones of each. */
  quotas(): Record<FindingLevel, number> {
    let room = this.max;
    const kept = { error: 0, warning: 0, note: 0 };
    for (const l of LEVELS) {
      kept[l] = Math.min(this.seen[l], room);
      room -= kept[l];
    }
    return kept;
  }

  /** How many of each level are left out (undefined when none). */
  omitted(): Omitted | undefined {
    const kept = this.quotas();
    const out = { error: this.seen.error - kept.error, warning: this.seen.warning - kept.warning, note: this.seen.note - kept.note };
    return out.error + out.warning + out.note === 0 ? undefined : out;
  }

  /** Every result offered. */
  get total(): number {
    return this.seen.error + this.seen.warning + this.seen.note;
  }
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What the run says when results were left out, in words. */
export function omittedText(omitted: Omitted, total: number, max = resultsCap()): string {
  const left = omitted.error + omitted.warning + omitted.note;
  const which = LEVELS.filter((l) => omitted[l] > 0)
    .map((l) => plural(omitted[l], l))
    .join(', ');
  return `${left} of ${total} results left out (${which}): GitHub code scanning accepts at most ${max} per run, so every error is kept before any warning and every warning before any note, each in the order found; the other formats (--format json) list them all`;
}

/** What the tail of a log says of the run as a whole. */
export interface SarifEnd extends Pick<ReportInput, 'command' | 'ok' | 'summary'> {
  /** Results left out past MAX_RESULTS, by level. */
  omitted?: Omitted;
  /** Results offered, kept or not (with `omitted`). */
  total?: number;
  /** Findings about no file: notifications of the run. */
  notes?: readonly ReportFinding[];
}

/** The log's text with its results left empty, as JSON.stringify lays it out (two spaces a level). */
function logText(
  tool: ReportInput['tool'],
  rules: readonly SarifRule[],
  index: ReadonlyMap<string, number>,
  category: string,
  end?: SarifEnd,
): string {
  const { name, version, informationUri } = tool;
  const driver = { name, version, ...(informationUri ? { informationUri } : {}), rules };
  // Notifications: findings about no file (code scanning rejects a result without a location), and what was left out.
  const notifications: unknown[] = (end?.notes ?? []).map((f) => {
    const i = index.get(f.rule);
    const properties = propertiesOf(f);
    return {
      level: f.level,
      message: { text: messageText(f) },
      ...(i === undefined ? {} : { associatedRule: { id: f.rule, index: i } }),
      ...(properties ? { properties } : {}),
    };
  });
  if (end?.omitted !== undefined) notifications.push({ level: 'warning', message: { text: omittedText(end.omitted, end.total ?? 0) } });
  const run = {
    tool: { driver },
    // The category code scanning keeps this run's alerts under: one command's uploads replace only its own.
    automationDetails: { id: category },
    // Columns count code points (src/registry/parse.ts lineCol), not SARIF's default UTF-16 units.
    columnKind: 'unicodeCodePoints',
    originalUriBaseIds: {
      [SRCROOT]: {
        description: {
          text: 'The root of the repository bqschema ran in (outside one, the directory it ran in): every relative artifact URI is relative to it.',
        },
      },
    },
    results: [],
    ...(notifications.length === 0 ? {} : { invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }] }),
    // What the other formats say of the run as a whole, so a script reading the SARIF sees the same verdict and counts.
    ...(end?.summary === undefined && end?.omitted === undefined
      ? {}
      : {
          properties: {
            ...(end.command === undefined ? {} : { command: end.command }),
            ...(end.summary === undefined ? {} : { ok: end.ok === true, summary: { ...end.summary } }),
            ...(end.omitted === undefined
              ? {}
              : { omittedResults: { total: end.omitted.error + end.omitted.warning + end.omitted.note, ...end.omitted } }),
          },
        }),
  };
  return JSON.stringify({ $schema: SARIF_SCHEMA, version: '2.1.0', runs: [run] }, null, 2);
}

// Where the results go in the log's text: the run's `results` key, at the run's depth (6 spaces).
const RESULTS = '\n      "results": []';
// A result's own lines sit 8 spaces deep (log, runs, run, results).
const RESULT_INDENT = '\n        ';

/** `<tool>/<command>/`, or the category asked for, ending in `/` as upload-sarif's `category` input makes it. */
export function automationId(tool: string, command: string | undefined, category?: string): string {
  const id = category ?? `${tool}/${command ?? 'run'}`;
  return id.endsWith('/') ? id : `${id}/`;
}

export interface SarifOptions {
  /** The run's analysis category (automationDetails.id); default `<tool>/<command>/`. */
  category?: string;
  command?: string;
  /** The working directory's path from the repository's root (ReportInput.base). */
  base?: string;
}

/**
 * SARIF written as the findings come, in pieces whose concatenation is the very text `renderSarif`
 * gives for the same findings: the head (tool and rules) first, one piece per result, then the
 * run's notifications, verdict and counts, which are known last. So a run of any size is written
 * in memory that does not grow with it. The rules are fixed by the head: a finding may cite only
 * those. Which results to write (at most MAX_RESULTS: SarifCap) is the caller's choice.
 */
export class SarifStream {
  private readonly rules: SarifRule[] = [];
  private readonly index = new Map<string, number>();
  private results = 0;
  private readonly category: string;

  constructor(
    private readonly tool: ReportInput['tool'],
    rules: readonly ReportRule[] = tool.rules ?? [],
    private readonly options: SarifOptions = {},
  ) {
    for (const r of rules) {
      if (this.index.has(r.id)) continue;
      this.index.set(r.id, this.rules.length);
      this.rules.push(sarifRule(r));
    }
    this.category = automationId(tool.name, options.command, options.category);
  }

  /** The log up to the opening of its results. */
  head(): string {
    const text = logText(this.tool, this.rules, this.index, this.category);
    const at = text.indexOf(RESULTS);
    return text.slice(0, at + RESULTS.length - 1);
  }

  /** A finding's result as it stands in the log (its lines indented), without what separates it from the one before; the finding must be about a file. */
  resultText(f: ReportFinding): string {
    const i = this.index.get(f.rule);
    if (i === undefined) throw new Error(`SARIF: the rule ${JSON.stringify(f.rule)} was not declared before its first result`);
    const locations = location(f, this.options.base);
    if (locations === undefined) throw new Error('SARIF: a finding about no file is a notification, not a result');
    const properties = propertiesOf(f);
    const result: SarifResult = {
      ruleId: f.rule,
      ruleIndex: i,
      level: f.level,
      message: { text: messageText(f) },
      locations,
      ...(properties ? { properties } : {}),
    };
    // JSON.stringify escapes every newline inside a string: each \n here starts a line of its own.
    return JSON.stringify(result, null, 2).replace(/\n/g, RESULT_INDENT);
  }

  /** A result's text (resultText) as written after the ones before it. */
  write(text: string): string {
    return (this.results++ === 0 ? '' : ',') + RESULT_INDENT + text;
  }

  /** One finding's result, with the comma that separates it from the one before. */
  result(f: ReportFinding): string {
    return this.write(this.resultText(f));
  }

  /** The end of the log: its results closed, the run's notifications, verdict and counts, a final newline. */
  tail(end: SarifEnd): string {
    for (const f of end.notes ?? [])
      if (!this.index.has(f.rule)) throw new Error(`SARIF: the rule ${JSON.stringify(f.rule)} was not declared`);
    const text = logText(this.tool, this.rules, this.index, this.category, end);
    const after = text.slice(text.indexOf(RESULTS) + RESULTS.length - 1);
    return (this.results === 0 ? '' : '\n      ') + after + '\n';
  }
}

/** Whether SARIF makes a finding a result (it is about a file) rather than a notification of the run. */
export const isSarifResult = (f: ReportFinding): boolean => placeOf(f) !== undefined;

export function renderSarif(input: ReportInput, max = resultsCap()): string {
  // Every rule cited is in the head: those declared, then those a finding cites first.
  const rules: ReportRule[] = [...(input.tool.rules ?? [])];
  const ids = new Set(rules.map((r) => r.id));
  for (const f of input.findings) {
    if (!ids.has(f.rule)) {
      ids.add(f.rule);
      rules.push(undeclared(f.rule, input.tool.informationUri));
    }
  }
  const stream = new SarifStream(input.tool, rules, { category: input.category, command: input.command, base: input.base });
  const cap = new SarifCap(max);
  const located: ReportFinding[] = [];
  const notes: ReportFinding[] = [];
  for (const f of input.findings) {
    if (!isSarifResult(f)) notes.push(f);
    else {
      cap.offer(f.level);
      located.push(f);
    }
  }
  const quota = cap.quotas();
  let text = stream.head();
  for (const f of located) if (quota[f.level]-- > 0) text += stream.result(f);
  const omitted = cap.omitted();
  return text + stream.tail({ ...input, notes, ...(omitted === undefined ? {} : { omitted, total: cap.total }) });
}
