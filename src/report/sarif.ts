import { placeOf, type ReportFinding, type ReportInput, type ReportRule } from './model.js';

/*
 * SARIF 2.1.0 (OASIS) for GitHub code scanning and other SARIF readers: one run, the tool's rules
 * (those cited but not declared are added by id), one result per finding with a physical location
 * where a file is known. No clock and no environment: the same input gives the same bytes.
 */

const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** A file path as a URI reference: `/`-separated, each segment percent-encoded; absolute paths as file URIs. */
export function fileUri(file: string): string {
  const path = file.replace(/\\/g, '/');
  const drive = /^[A-Za-z]:\//.exec(path);
  const encode = (p: string): string => p.split('/').map((seg) => encodeURIComponent(seg)).join('/');
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

/** The base every relative URI is resolved against: where bqschema ran (in CI, the checkout's root). */
const SRCROOT = 'SRCROOT';

function location(f: ReportFinding): unknown[] | undefined {
  const at = placeOf(f);
  if (at === undefined) return undefined;
  // A finding about a whole file (a message with no schema) still gets a region: its first line,
  // where code scanning puts it anyway (the Multitool's SARIF2017 asks for one).
  const region = { startLine: at.line ?? 1, ...(at.col === undefined ? {} : { startColumn: at.col }) };
  const uri = fileUri(at.file);
  const artifactLocation = uri.startsWith('file:') ? { uri } : { uri, uriBaseId: SRCROOT };
  return [{ physicalLocation: { artifactLocation, region } }];
}

/** What SARIF has no field for, in the result's property bag under the glossary's names: the URN, the pointer, the evidence. */
function propertiesOf(f: ReportFinding): Record<string, unknown> | undefined {
  const bag: Record<string, unknown> = {};
  if (f.urn !== undefined) bag.urn = f.urn;
  if (f.location?.pointer !== undefined) bag.pointer = f.location.pointer;
  if (f.evidence?.witness !== undefined) bag.witness = f.evidence.witness;
  if (f.evidence?.corpus !== undefined) bag.corpus = f.evidence.corpus;
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

/** What a result's rule is in the run: its id and its index in the driver's rules. */
function resultOf(f: ReportFinding, ruleIndex: number): SarifResult {
  const locations = location(f);
  const properties = propertiesOf(f);
  return {
    ruleId: f.rule,
    ruleIndex,
    level: f.level,
    // SARIF requires a message text; an empty one says which rule fired.
    message: { text: f.message === '' ? f.rule : f.message },
    ...(locations ? { locations } : {}),
    ...(properties ? { properties } : {}),
  };
}

/** A rule a finding cites but the command did not declare: still described (code scanning requires it). */
const undeclared = (id: string, informationUri: string | undefined): ReportRule => ({ id, description: id, help: 'See the documentation.', helpUri: informationUri ?? 'https://github.com/babelqueue/bqschema#readme' });

/** The log's text with its results left empty, as JSON.stringify lays it out (two spaces a level). */
function logText(tool: ReportInput['tool'], rules: readonly SarifRule[], end?: Pick<ReportInput, 'command' | 'ok' | 'summary'>): string {
  const { name, version, informationUri } = tool;
  const driver = { name, version, ...(informationUri ? { informationUri } : {}), rules };
  const run = {
    tool: { driver },
    // Columns count code points (src/registry/parse.ts lineCol), not SARIF's default UTF-16 units.
    columnKind: 'unicodeCodePoints',
    originalUriBaseIds: { [SRCROOT]: { description: { text: 'The directory bqschema ran in (in CI, the root of the checkout): every relative artifact URI is relative to it.' } } },
    results: [],
    // What the other formats say of the run as a whole, so a script reading the SARIF sees the same verdict and counts.
    ...(end?.summary === undefined ? {} : { properties: { ...(end.command === undefined ? {} : { command: end.command }), ok: end.ok === true, summary: { ...end.summary } } }),
  };
  return JSON.stringify({ $schema: SARIF_SCHEMA, version: '2.1.0', runs: [run] }, null, 2);
}

// Where the results go in the log's text: the run's `results` key, at the run's depth (6 spaces).
const RESULTS = '\n      "results": []';
// A result's own lines sit 8 spaces deep (log, runs, run, results).
const RESULT_INDENT = '\n        ';

/**
 * SARIF written as the findings come, in pieces whose concatenation is the very text `renderSarif`
 * gives for the same findings: the head (tool and rules) first, one piece per result, then the
 * run's verdict and counts, which are known last. So a run of any size is written in memory that
 * does not grow with it. The rules are fixed by the head: a finding may cite only those.
 */
export class SarifStream {
  private readonly rules: SarifRule[] = [];
  private readonly index = new Map<string, number>();
  private results = 0;

  constructor(private readonly tool: ReportInput['tool'], rules: readonly ReportRule[] = tool.rules ?? []) {
    for (const r of rules) {
      if (this.index.has(r.id)) continue;
      this.index.set(r.id, this.rules.length);
      this.rules.push(sarifRule(r));
    }
  }

  /** The log up to the opening of its results. */
  head(): string {
    const text = logText(this.tool, this.rules);
    const at = text.indexOf(RESULTS);
    return text.slice(0, at + RESULTS.length - 1);
  }

  /** One finding's result, with the comma that separates it from the one before. */
  result(f: ReportFinding): string {
    const i = this.index.get(f.rule);
    if (i === undefined) throw new Error(`SARIF: the rule ${JSON.stringify(f.rule)} was not declared before its first result`);
    const text = JSON.stringify(resultOf(f, i), null, 2);
    // JSON.stringify escapes every newline inside a string: each \n here starts a line of its own.
    return (this.results++ === 0 ? '' : ',') + RESULT_INDENT + text.replace(/\n/g, RESULT_INDENT);
  }

  /** The end of the log: its results closed, the run's verdict and counts, a final newline. */
  tail(end: Pick<ReportInput, 'command' | 'ok' | 'summary'>): string {
    const text = logText(this.tool, this.rules, end);
    const after = text.slice(text.indexOf(RESULTS) + RESULTS.length - 1);
    return (this.results === 0 ? '' : '\n      ') + after + '\n';
  }
}

export function renderSarif(input: ReportInput): string {
  // Every rule cited is in the head: those declared, then those a finding cites first.
  const rules: ReportRule[] = [...(input.tool.rules ?? [])];
  const ids = new Set(rules.map((r) => r.id));
  for (const f of input.findings) {
    if (!ids.has(f.rule)) {
      ids.add(f.rule);
      rules.push(undeclared(f.rule, input.tool.informationUri));
    }
  }
  const stream = new SarifStream(input.tool, rules);
  let text = stream.head();
  for (const f of input.findings) text += stream.result(f);
  return text + stream.tail(input);
}
