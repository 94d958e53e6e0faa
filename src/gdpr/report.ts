import { SourcePositions } from '../registry/positions.js';
import { docsPage } from '../report/docs.js';
import type { Report, ReportFinding, ReportRule, ReportUnit, ToolInfo } from '../report/model.js';
import type { UnmarkedField } from './audit.js';
import { schemaPointer, sensitivePaths, type SensitivePath } from '../validator/sensitive-paths.js';
import { summaryNotice } from './inventory.js';

/*
 * What `bqschema gdpr` concludes, and its Reports (src/report renders them): the inventory, one
 * notice in annotations and job summaries; the --require gate, a unit per URN and a finding per
 * unmarked PII-named field, at the field's place in its schema file. Their text and JSON layouts
 * are gdpr's views (view-text.ts, view-json.ts).
 */

/** A registered schema as gdpr reads it: its URN, its file as shown, its text (for positions) and value. */
export interface LoadedSchema {
  urn: string;
  file: string;
  text: string;
  schema: unknown;
}

export interface Inventory {
  urns: ReadonlyArray<{ urn: string; file: string; fields: SensitivePath[] }>;
  /** Its JSON summary: the inventory judges nothing, so it has no errors. */
  summary: { urns: number; fields: number; errors: 0 };
  summaryLine: string;
}

/**
 * A service that handles personal data (produces or consumes a URN with a marked field) without a
 * team or a contact in the manifest: nobody to ask about the data. Only once the manifest declares
 * `services` (src/services/index.ts finds them).
 */
export interface OwnerlessService {
  service: string;
  missing: ReadonlyArray<'team' | 'contact'>;
  /** The URNs with personal fields it produces or consumes. */
  urns: readonly string[];
  /** Where its entry is: the manifest as shown, and the position of its name (`/services/<index>/name`). */
  file: string;
  pointer: string;
  line?: number;
  col?: number;
}

export interface RequireVerdict {
  schemas: readonly LoadedSchema[];
  findings: readonly UnmarkedField[];
  /** Services handling personal data without a team or contact (empty when the manifest declares no services). */
  ownerless: readonly OwnerlessService[];
  ok: boolean;
  /** The URNs checked, those with an unmarked field (JUnit's failures), and the fields (errors). */
  summary: { urns: number; failed: number; errors: number };
  /** The summary line, `OK: …` or `FAILED: …`. */
  summaryLine: string;
}

const GDPR_PAGE = docsPage('cli/gdpr.md');

const UNMARKED_RULE: ReportRule = {
  id: 'gdpr-unmarked-pii',
  description: 'A field whose name looks like personal data is not marked x-gdpr-sensitive.',
  fullDescription:
    'The field name matches the personal-data pattern (email, phone, name, address, ip, …, or --pattern), but neither it nor a container above it carries x-gdpr-sensitive: bqschema gdpr --mask and the inventory would not treat it as personal data.',
  help: 'Mark the field with "x-gdpr-sensitive": "<category>" (or true), or mark the object that holds it; if it is not personal data, narrow --pattern.',
  helpUri: GDPR_PAGE,
};

export const OWNERLESS_RULE: ReportRule = {
  id: 'gdpr-service-without-owner',
  description: 'A service that produces or consumes personal data has no team or no contact in the manifest.',
  help: 'Give the service a "team" (who owns it) and a "contact" (whom to ask) in the manifest\'s "services" (docs/registry.md).',
  helpUri: GDPR_PAGE,
};

const INVENTORY_RULE: ReportRule = {
  id: 'gdpr-inventory',
  description: 'The personal data the registry declares: the fields marked x-gdpr-sensitive, per URN.',
  help: 'Nothing to do: review the list; bqschema gdpr --require fails on fields that look personal but are not marked.',
  helpUri: GDPR_PAGE,
};

export function inventoryOf(schemas: readonly LoadedSchema[]): Inventory {
  const urns = schemas.map(({ urn, file, schema }) => ({ urn, file, fields: sensitivePaths(schema) }));
  const summary = { urns: urns.length, fields: urns.reduce((n, u) => n + u.fields.length, 0), errors: 0 as const };
  return { urns, summary, summaryLine: `${summary.urns} URN(s), ${summary.fields} sensitive field(s)` };
}

export function requireVerdict(
  schemas: readonly LoadedSchema[],
  findings: readonly UnmarkedField[],
  ownerless: readonly OwnerlessService[] = [],
): RequireVerdict {
  const ok = findings.length === 0 && ownerless.length === 0;
  const checked = `${schemas.length} URN(s) checked`;
  const owners = ownerless.length === 0 ? '' : `${ownerless.length} service(s) handling personal data without a team or contact`;
  const what = [findings.length === 0 ? '' : `${findings.length} PII-named field(s) not marked x-gdpr-sensitive`, owners]
    .filter((x) => x !== '')
    .join(', ');
  const verdict = ok ? `OK: no unmarked PII-named field; ${checked}` : `FAILED: ${what}; ${checked}`;
  const summary = { urns: schemas.length, failed: new Set(findings.map((f) => f.urn)).size, errors: findings.length + ownerless.length };
  return { schemas, findings, ownerless, ok, summary, summaryLine: verdict };
}

/**
 * One summary notice (a notice per field would bury a pull request's real annotations), and a unit
 * per URN, which the text lists with its fields and the JSON has in its `urns`. The inventory
 * judges nothing: every unit passes.
 */
/** A URN of the inventory: its sensitive fields. */
export type InventoryUrn = Inventory['urns'][number];

export function inventoryReport(inventory: Inventory, tool: ToolInfo): Report<never, InventoryUrn> {
  const notice = summaryNotice(inventory.urns);
  const results: ReportFinding<never>[] = [{ rule: INVENTORY_RULE.id, level: 'note', title: notice.title, message: notice.message }];
  const units = inventory.urns.map((u): ReportUnit<InventoryUrn> => ({ id: u.urn, file: u.file, outcome: 'pass', subject: u }));
  return {
    tool: { ...tool, rules: [INVENTORY_RULE] },
    command: 'gdpr',
    ok: true,
    summary: inventory.summary,
    summaryLine: inventory.summaryLine,
    findings: results,
    units,
  };
}

/** The --require gate: one unit per URN checked, failing when one of its fields is unmarked. */
export function requireReport(verdict: RequireVerdict, tool: ToolInfo): Report<UnmarkedField> {
  const { schemas, findings, ok } = verdict;
  const loaded = new Map(schemas.map((sc) => [sc.urn, sc]));
  // Each schema's positions are read once, on its first finding.
  const positions = new Map<string, SourcePositions>();
  const at = (sc: LoadedSchema, pointer: string): { line?: number; col?: number } => {
    let p = positions.get(sc.urn);
    if (p === undefined) positions.set(sc.urn, (p = SourcePositions.forFile(sc.text, sc.file)));
    return p.of(pointer);
  };
  const results = findings.map((field): ReportFinding<UnmarkedField> => {
    const { urn, path } = field;
    const schema = loaded.get(urn)!;
    const pointer = schemaPointer(path);
    return {
      rule: UNMARKED_RULE.id,
      level: 'error',
      title: 'unmarked PII',
      urn,
      location: { file: schema.file, ...at(schema, pointer), pointer },
      message: `${urn}: ${path} looks like personal data but is not marked x-gdpr-sensitive`,
      unit: urn,
      subject: field,
    };
  });
  for (const o of verdict.ownerless) {
    // A name from the manifest: JSON-quoted, so markup and control characters stay inert in every format.
    const what = `service ${JSON.stringify(o.service)} handles personal data (${o.urns.join(', ')}) but has no ${o.missing.join(' and no ')} in the manifest`;
    results.push({
      rule: OWNERLESS_RULE.id,
      level: 'error',
      title: 'service without owner',
      message: what,
      location: { file: o.file, pointer: o.pointer, ...(o.line === undefined ? {} : { line: o.line, col: o.col }) },
    });
  }
  const unmarked = new Set(findings.map((f) => f.urn));
  const units = schemas.map((sc) => ({ id: sc.urn, file: sc.file, outcome: unmarked.has(sc.urn) ? ('fail' as const) : ('pass' as const) }));
  const rules = verdict.ownerless.length === 0 ? [UNMARKED_RULE] : [UNMARKED_RULE, OWNERLESS_RULE];
  return {
    tool: { ...tool, rules },
    command: 'gdpr',
    ok,
    summary: verdict.summary,
    summaryLine: verdict.summaryLine,
    findings: results,
    artifacts: schemas.map((sc) => sc.file),
    units,
  };
}
