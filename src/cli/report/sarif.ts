import { position, type ReportFinding, type ReportInput } from './findings.js';

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
}

function location(f: ReportFinding): unknown[] | undefined {
  if (f.file === undefined || f.file === '') return undefined;
  const startLine = position(f.line);
  const startColumn = startLine === undefined ? undefined : position(f.col);
  const region = startLine === undefined ? undefined : { startLine, ...(startColumn === undefined ? {} : { startColumn }) };
  return [{ physicalLocation: { artifactLocation: { uri: fileUri(f.file) }, ...(region ? { region } : {}) } }];
}

export function renderSarif(input: ReportInput): string {
  const rules: Array<{ id: string; shortDescription?: { text: string } }> = [];
  const index = new Map<string, number>();
  const addRule = (id: string, description: string): number => {
    let i = index.get(id);
    if (i === undefined) {
      i = rules.length;
      index.set(id, i);
      rules.push(description === '' ? { id } : { id, shortDescription: { text: description } });
    }
    return i;
  };
  for (const r of input.tool.rules ?? []) addRule(r.id, r.description);
  const results = input.results.map((f): SarifResult => {
    const locations = location(f);
    return {
      ruleId: f.ruleId,
      ruleIndex: addRule(f.ruleId, ''),
      level: f.level,
      // SARIF requires a message text; an empty one says which rule fired.
      message: { text: f.message === '' ? f.ruleId : f.message },
      ...(locations ? { locations } : {}),
    };
  });
  const { name, version, informationUri } = input.tool;
  const driver = { name, version, ...(informationUri ? { informationUri } : {}), rules };
  const log = { $schema: SARIF_SCHEMA, version: '2.1.0', runs: [{ tool: { driver }, results }] };
  return JSON.stringify(log, null, 2) + '\n';
}
