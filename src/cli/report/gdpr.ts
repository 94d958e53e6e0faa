import { schemaPointer, summaryNotice, type SensitivePath, type UnmarkedField } from '../../gdpr/index.js';
import { SourcePositions } from '../../registry/index.js';
import { pointerLabel } from '../../validator/index.js';
import { UsageError } from '../errors.js';
import { clean, type Colours, type Out } from '../output.js';
import { docsPage, reportFormats, tool, type CiFormat, type GateFormat, type ViewFormatter } from './emit.js';
import type { Report, ReportFinding, ReportRule } from '../../report/model.js';

/*
 * gdpr's formats: the inventory (InventoryView) and the --require gate (RequireView), each rendered
 * with the formatter of the format asked for (INVENTORY_FORMATS, REQUIRE_FORMATS).
 */

export interface Loaded {
  urn: string;
  /** The schema file, as shown. */
  file: string;
  text: string;
  schema: unknown;
}

/** Where a gdpr path's schema node stands in its file, for annotations. */
class SchemaPositions {
  private readonly cache = new Map<string, SourcePositions>();

  of(loaded: Loaded, path: string): { line?: number; col?: number } {
    let positions = this.cache.get(loaded.urn);
    if (positions === undefined) {
      positions = SourcePositions.forFile(loaded.text, loaded.file);
      this.cache.set(loaded.urn, positions);
    }
    return positions.of(schemaPointer(path));
  }
}

const label = pointerLabel;

const UNMARKED_RULE: ReportRule = {
  id: 'gdpr-unmarked-pii', description: 'A field whose name looks like personal data is not marked x-gdpr-sensitive.',
  fullDescription: 'The field name matches the personal-data pattern (email, phone, name, address, ip, …, or --pattern), but neither it nor a container above it carries x-gdpr-sensitive: bqschema gdpr --mask and the inventory would not treat it as personal data.',
  help: 'Mark the field with "x-gdpr-sensitive": "<category>" (or true), or mark the object that holds it; if it is not personal data, narrow --pattern.',
  helpUri: docsPage('cli/gdpr.md'),
};

const INVENTORY_RULE: ReportRule = {
  id: 'gdpr-inventory', description: 'The personal data the registry declares: the fields marked x-gdpr-sensitive, per URN.',
  help: 'Nothing to do: review the list; bqschema gdpr --require fails on fields that look personal but are not marked.',
  helpUri: docsPage('cli/gdpr.md'),
};

export interface InventoryView {
  urns: ReadonlyArray<{ urn: string; file: string; fields: SensitivePath[] }>;
  summary: { urns: number; fields: number };
  summaryLine: string;
}

export interface RequireView {
  schemas: readonly Loaded[];
  findings: readonly UnmarkedField[];
  ok: boolean;
  verdict: string;
}

async function inventoryJson(view: InventoryView, out: Out, c: Colours): Promise<void> {
  const { urns, summary } = view;
  // The envelope every command's JSON shares: ok, and a summary that counts errors.
  out.line(JSON.stringify({ ok: true, summary: { ...summary, errors: 0 }, urns: urns.map(({ urn, fields }) => ({ urn, fields })) }, null, 2));
}

/**
 * The inventory's Report, for its annotations: one summary notice (a notice per field would bury a
 * pull request's real annotations). SARIF and JUnit report the --require gate only.
 */
function inventoryReport(view: InventoryView): Report {
  const notice = summaryNotice(view.urns);
  const results: ReportFinding[] = [{ ruleId: INVENTORY_RULE.id, level: 'note', title: notice.title, message: notice.message }];
  return { tool: tool([INVENTORY_RULE]), command: 'gdpr', ok: true, summaryLine: view.summaryLine, results, units: [] };
}

async function inventoryText(view: InventoryView, out: Out, c: Colours): Promise<void> {
  const { urns, summaryLine } = view;
  for (const { urn, file, fields } of urns) {
    out.line(`${c.bold(clean(urn))}  ${c.dim(clean(file))}`);
    if (fields.length === 0) out.line(`    ${c.dim('no sensitive fields')}`);
    // Field names and categories come from the schema: escaped like every other input.
    const width = Math.max(0, ...fields.map((f) => clean(label(f.path)).length));
    for (const { path, category } of fields) out.line(`    ${clean(label(path)).padEnd(width)}  ${category === '' ? c.dim('(no category)') : clean(category)}`);
  }
  out.line(`\n${summaryLine}`);
}

async function requireJson(view: RequireView, out: Out, c: Colours): Promise<void> {
  const { schemas, findings, ok } = view;
  // failed: the URNs with an unmarked field (JUnit's failures); errors counts the fields.
  const failed = new Set(findings.map((f) => f.urn)).size;
  out.line(JSON.stringify({ ok, summary: { urns: schemas.length, failed, errors: findings.length }, findings }, null, 2));
}

/** The --require gate's Report: one unit per URN checked, failing when one of its fields is unmarked. */
export function requireReport(view: RequireView): Report {
  const { schemas, findings, ok, verdict } = view;
  const loaded = new Map(schemas.map((sc) => [sc.urn, sc]));
  const positions = new SchemaPositions();
  const results = findings.map(({ urn, path }): ReportFinding => {
    const schema = loaded.get(urn)!;
    return {
      ruleId: UNMARKED_RULE.id, level: 'error', title: 'unmarked PII', file: schema.file, ...positions.of(schema, path),
      message: `${urn}: ${path} looks like personal data but is not marked x-gdpr-sensitive`, unit: urn,
    };
  });
  const unmarked = new Set(findings.map((f) => f.urn));
  const units = schemas.map((sc) => ({ id: sc.urn, file: sc.file, outcome: unmarked.has(sc.urn) ? ('fail' as const) : ('pass' as const) }));
  return { tool: tool([UNMARKED_RULE]), command: 'gdpr', ok, summaryLine: verdict, results, artifacts: schemas.map((sc) => sc.file), units };
}

async function requireText(view: RequireView, out: Out, c: Colours): Promise<void> {
  const { findings, ok, verdict } = view;
  for (const { urn, path } of findings) out.line(`${clean(urn)}: ${c.red(clean(path))}`);
  out.line(`${ok ? '' : '\n'}${ok ? c.green(verdict) : c.red(verdict)}`);
}

/** SARIF and JUnit report the --require gate; the inventory has none (refused before any work is done). */
const gateOnly = (format: CiFormat): ViewFormatter<InventoryView> => () => {
  throw new UsageError(`--format ${format} reports the --require gate: add --require`);
};

export const INVENTORY_FORMATS: Record<GateFormat, ViewFormatter<InventoryView>> = {
  ...reportFormats(inventoryReport), text: inventoryText, json: inventoryJson, sarif: gateOnly('sarif'), junit: gateOnly('junit'),
};

export const REQUIRE_FORMATS: Record<GateFormat, ViewFormatter<RequireView>> = { text: requireText, json: requireJson, ...reportFormats(requireReport) };
