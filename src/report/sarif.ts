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

export function renderSarif(input: ReportInput): string {
  const rules: SarifRule[] = [];
  const index = new Map<string, number>();
  const { name, version, informationUri } = input.tool;
  const addRule = (r: ReportRule): number => {
    let i = index.get(r.id);
    if (i === undefined) {
      i = rules.length;
      index.set(r.id, i);
      rules.push(sarifRule(r));
    }
    return i;
  };
  for (const r of input.tool.rules ?? []) addRule(r);
  const results = input.findings.map((f): SarifResult => {
    const locations = location(f);
    const properties = propertiesOf(f);
    return {
      ruleId: f.rule,
      // A rule the command forgot to declare is still described (code scanning requires it).
      ruleIndex: addRule({ id: f.rule, description: f.rule, help: 'See the documentation.', helpUri: informationUri ?? 'https://github.com/babelqueue/bqschema#readme' }),
      level: f.level,
      // SARIF requires a message text; an empty one says which rule fired.
      message: { text: f.message === '' ? f.rule : f.message },
      ...(locations ? { locations } : {}),
      ...(properties ? { properties } : {}),
    };
  });
  const driver = { name, version, ...(informationUri ? { informationUri } : {}), rules };
  const run = {
    tool: { driver },
    // Columns count code points (src/registry/parse.ts lineCol), not SARIF's default UTF-16 units.
    columnKind: 'unicodeCodePoints',
    originalUriBaseIds: { [SRCROOT]: { description: { text: 'The directory bqschema ran in (in CI, the root of the checkout): every relative artifact URI is relative to it.' } } },
    results,
    // What the other formats say of the run as a whole, so a script reading the SARIF sees the same verdict and counts.
    ...(input.summary === undefined ? {} : { properties: { ...(input.command === undefined ? {} : { command: input.command }), ok: input.ok === true, summary: { ...input.summary } } }),
  };
  const log = { $schema: SARIF_SCHEMA, version: '2.1.0', runs: [run] };
  return JSON.stringify(log, null, 2) + '\n';
}
