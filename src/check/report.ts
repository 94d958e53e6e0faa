import { docsPage } from '../report/docs.js';
import type { Report, ReportFinding, ReportRule, ReportUnit, ToolInfo } from '../report/model.js';
import { pointerLabel } from '../validator/index.js';
import type { CheckIssue, CheckVerdict, EntryCheck } from './index.js';

/*
 * check's Report (src/report renders it in every format): one unit per URN entry, one finding per
 * issue, errors first, each citing its rule. Its text and JSON layouts are its views
 * (view-text.ts, view-json.ts).
 */

const CHECK_PAGE = docsPage('cli/check.md');
const REGISTRY_PAGE = docsPage('registry.md');
export const CHECK_RULES: readonly ReportRule[] = [
  {
    id: 'manifest',
    description: 'The registry manifest is malformed, or two entries clash.',
    help: 'Fix the manifest entry at the line given: every entry needs a unique URN, a schema path and an owner (registry.schema.json describes the format).',
    helpUri: CHECK_PAGE,
  },
  {
    id: 'schema',
    description: 'A schema file cannot be read or compiled, or its root cannot accept a message.',
    help: 'Fix the schema file (or the manifest entry\'s "schema" path when the file is missing or outside the registry directory); a message\'s data is always an object, so the root must accept one.',
    helpUri: CHECK_PAGE,
  },
  {
    id: 'malformed-keyword',
    description: 'A keyword has a value of the wrong shape: it would not be enforced.',
    help: 'Give the keyword a value of the shape the contract requires (docs/contract.md §8): a constraint that cannot be enforced must not pass review.',
    helpUri: docsPage('contract.md'),
  },
  {
    id: 'example-fails-schema',
    description: 'An `examples` entry fails its own (sub-)schema.',
    help: 'Fix the example, or the schema if the example shows what producers really send.',
    helpUri: CHECK_PAGE,
  },
  {
    id: 'unsupported-keyword',
    description: 'A keyword the validator does not enforce (pattern, format, …).',
    help: 'Remove the keyword, or, once reviewed as documentation only, list it in the manifest\'s "unenforced" (registry-wide or on the URN\'s entry); --fail-on-unsupported makes the unreviewed ones errors.',
    helpUri: docsPage('contract.md'),
  },
  {
    id: 'unknown-keyword',
    description: 'A keyword no JSON Schema draft defines, most often a typo (requried): it would not be enforced.',
    help: 'Fix the name (the finding suggests the nearest keyword), or, for a keyword used on purpose, name it x-… or pass --allow-keyword <name>.',
    helpUri: docsPage('contract.md'),
  },
  {
    id: 'unreachable-marker',
    description:
      'An x-gdpr-sensitive marker sits where masking cannot reach it (under propertyNames or contentSchema, or in a definition no local $ref uses): the data it marks would be shown in clear.',
    help: 'Put the marker on the schema of the value itself (a property, items or additionalProperties), or reference the definition with a local "$ref" (docs/cli/gdpr.md).',
    helpUri: docsPage('cli/gdpr.md'),
  },
  {
    id: 'unknown-service',
    description:
      'A URN\'s "producers" or "consumers" names a service the manifest\'s "services" does not declare: compat would leave it out of the reach of a change.',
    help: 'Fix the name (the finding suggests the declared service it most likely means), or declare the service in "services" with its team and contact (docs/registry.md).',
    helpUri: REGISTRY_PAGE,
  },
  {
    id: 'unused-service',
    description: 'A declared service produces and consumes no URN.',
    help: 'Name the service in the "producers" or "consumers" of the URNs it sends or reads, or remove it from "services".',
    helpUri: REGISTRY_PAGE,
  },
  {
    id: 'consumers-without-producer',
    description: 'A URN has consumers and no producer: its readers wait for messages no declared service sends.',
    help: 'Name the service that produces it in "producers"; if none does any more, move its consumers off it and deprecate it.',
    helpUri: REGISTRY_PAGE,
  },
  {
    id: 'no-producer',
    description: 'A URN that is not deprecated has no producer and no consumer, once the manifest declares its services.',
    help: 'Name its producers and consumers, or mark it "status": "deprecated" on its way out.',
    helpUri: REGISTRY_PAGE,
  },
];

/** The annotation's title: an error, a keyword not enforced, or what a warning about the services is. */
function titleOf(i: CheckIssue, level: 'error' | 'warning'): string {
  if (level === 'error') return 'registry error';
  if (i.rule === 'unsupported-keyword' || i.rule === 'unknown-keyword') return 'not enforced';
  return i.rule === 'unused-service' ? 'unused service' : 'no producer';
}

/** The most places one grouped finding lists; the rest are counted. */
const MAX_PLACES = 10;

/**
 * A URN's unsupported keyword said once, however often the schema uses it: one finding (one
 * annotation, one SARIF result) per URN, keyword and level, at its first place, naming every place.
 */
function groupUnsupported(issues: readonly CheckIssue[]): Array<{ issue: CheckIssue; places: string[] }> {
  const groups = new Map<string, { issue: CheckIssue; places: string[] }>();
  const out: Array<{ issue: CheckIssue; places: string[] }> = [];
  for (const i of issues) {
    if (i.rule !== 'unsupported-keyword') {
      out.push({ issue: i, places: [i.pointer] });
      continue;
    }
    const key = JSON.stringify([i.urn, i.keyword]);
    const g = groups.get(key);
    if (g !== undefined) g.places.push(i.pointer);
    else {
      const fresh = { issue: i, places: [i.pointer] };
      groups.set(key, fresh);
      out.push(fresh);
    }
  }
  return out;
}

/** `/a, /b and /c`, or the first MAX_PLACES and how many more. */
function placesText(places: readonly string[]): string {
  const shown = places.slice(0, MAX_PLACES).map(pointerLabel);
  if (places.length > MAX_PLACES) return `${shown.join(', ')} and ${places.length - MAX_PLACES} more`;
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

/** An issue as a finding says it: its level, the places it stands for, and the schema file of its URN entry (for text). */
export interface IssueSubject {
  issue: CheckIssue;
  level: 'error' | 'warning';
  /** Its pointers: one, or an unsupported keyword's every place in one URN's schema. */
  places: readonly string[];
  /** Where the wording of a grouped keyword is: `unsupported keyword "x" is not enforced at 3 places: …`. */
  grouped?: string;
  /** The schema file of the URN entry it sits under; undefined for an issue under no entry. */
  schemaFile?: string;
}

export type CheckReport = Report<IssueSubject, EntryCheck>;

export function checkReport(verdict: CheckVerdict, tool: ToolInfo): CheckReport {
  const { ok, errors, warnings, manifestErrors, entries, manifest, counts } = verdict;
  const fileOf = new Map<string, string>();
  for (const r of entries) if (!fileOf.has(r.urn)) fileOf.set(r.urn, r.file);
  const finding =
    (level: 'error' | 'warning') =>
    (i: CheckIssue): ReportFinding<IssueSubject> => ({
      rule: i.rule,
      level,
      title: titleOf(i, level),
      ...(i.urn === undefined ? {} : { urn: i.urn }),
      location: {
        file: i.file,
        line: i.line,
        col: i.col,
        pointer: i.pointer,
        ...(i.endLine === undefined ? {} : { endLine: i.endLine, endCol: i.endCol }),
      },
      message: `${i.urn ? i.urn + ': ' : ''}${i.pointer ? i.pointer + ': ' : ''}${i.message}`,
    });
  // One unit per URN entry (what the summary counts): it fails when it has an error, its own or
  // its manifest entry's. A manifest problem without a URN belongs to the whole run.
  const unitOf = new Map<string, string>();
  const units: ReportUnit<EntryCheck>[] = entries.map((r, i) => {
    const id = unitOf.has(r.urn) ? `${r.urn} (entry ${i + 1})` : r.urn;
    if (!unitOf.has(r.urn)) unitOf.set(r.urn, id);
    const failed = r.errors.length > 0 || manifestErrors.some((e) => e.urn === r.urn);
    // A missing schema file's unit sits in the manifest's suite, where its error is.
    return { id, file: r.errors[0]?.file ?? r.file, outcome: failed ? 'fail' : 'pass', subject: r };
  });
  const owner = new Map<CheckIssue, string>();
  entries.forEach((r, i) => {
    for (const issue of [...r.errors, ...r.warnings]) owner.set(issue, units[i]!.id);
  });
  const unitOfIssue = (i: CheckIssue): string | undefined => owner.get(i) ?? (i.urn === undefined ? undefined : unitOf.get(i.urn));
  const withUnit =
    (level: 'error' | 'warning') =>
    ({ issue: i, places }: { issue: CheckIssue; places: string[] }): ReportFinding<IssueSubject> => {
      const unit = unitOfIssue(i);
      const f = finding(level)(i);
      const schemaFile = unit === undefined || i.urn === undefined ? undefined : fileOf.get(i.urn);
      if (places.length > 1) {
        // One unsupported keyword at several places of one URN's schema: one finding, at the first.
        const what = `unsupported keyword "${i.keyword ?? ''}" is not enforced at ${places.length} places: ${placesText(places)}`;
        return {
          ...f,
          message: `${i.urn ?? ''}: ${what}`,
          ...(unit === undefined ? {} : { unit }),
          subject: { issue: i, level, places, grouped: what, ...(schemaFile === undefined ? {} : { schemaFile }) },
        };
      }
      return {
        ...f,
        ...(unit === undefined ? {} : { unit }),
        subject: { issue: i, level, places, ...(schemaFile === undefined ? {} : { schemaFile }) },
      };
    };
  // Acknowledged keywords (verdict.acknowledged) are no findings: reviewed, they are in the JSON only.
  const results = [...groupUnsupported(errors).map(withUnit('error')), ...groupUnsupported(warnings).map(withUnit('warning'))];
  const artifacts = [manifest, ...entries.map((r) => r.file)];
  return {
    tool: { ...tool, rules: CHECK_RULES },
    command: 'check',
    ok,
    summary: verdict.summary,
    summaryLine: `${ok ? 'OK' : 'FAILED'}: ${counts}`,
    findings: results,
    artifacts,
    units,
  };
}
