import { docsPage } from '../report/docs.js';
import type { Report, ReportFinding, ReportRule, ReportUnit, ToolInfo } from '../report/model.js';
import type { CheckIssue, CheckVerdict } from './index.js';

/*
 * check's Report (src/report renders it as annotations, a job summary, SARIF and JUnit): one unit
 * per URN entry, one finding per issue, errors first, each citing its rule.
 */

const CHECK_PAGE = docsPage('cli/check.md');
export const CHECK_RULES: readonly ReportRule[] = [
  { id: 'manifest', description: 'The registry manifest is malformed, or two entries clash.', help: 'Fix the manifest entry at the line given: every entry needs a unique URN, a schema path and an owner (registry.schema.json describes the format).', helpUri: CHECK_PAGE },
  { id: 'schema', description: 'A schema file cannot be read or compiled, or its root cannot accept a message.', help: "Fix the schema file (or the manifest entry's \"schema\" path when the file is missing or outside the registry directory); a message's data is always an object, so the root must accept one.", helpUri: CHECK_PAGE },
  { id: 'malformed-keyword', description: 'A keyword has a value of the wrong shape: it would not be enforced.', help: 'Give the keyword a value of the shape the contract requires (docs/contract.md §8): a constraint that cannot be enforced must not pass review.', helpUri: docsPage('contract.md') },
  { id: 'example-fails-schema', description: 'An `examples` entry fails its own (sub-)schema.', help: 'Fix the example, or the schema if the example shows what producers really send.', helpUri: CHECK_PAGE },
  { id: 'unsupported-keyword', description: 'A keyword the validator does not enforce (pattern, format, …).', help: 'Remove the keyword or accept that it is documentation only; --fail-on-unsupported makes it an error.', helpUri: docsPage('contract.md') },
  { id: 'unknown-keyword', description: 'A keyword no JSON Schema draft defines, most often a typo (requried): it would not be enforced.', help: 'Fix the name (the finding suggests the nearest keyword), or, for a keyword used on purpose, name it x-… or pass --allow-keyword <name>.', helpUri: docsPage('contract.md') },
];

export function checkReport(verdict: CheckVerdict, tool: ToolInfo): Report {
  const { ok, errors, warnings, manifestErrors, entries, manifest, counts } = verdict;
  const finding = (level: 'error' | 'warning') => (i: CheckIssue): ReportFinding => ({
    rule: i.rule, level, title: level === 'error' ? 'registry error' : 'not enforced',
    ...(i.urn === undefined ? {} : { urn: i.urn }),
    location: { file: i.file, line: i.line, col: i.col, pointer: i.pointer },
    message: `${i.urn ? i.urn + ': ' : ''}${i.pointer ? i.pointer + ': ' : ''}${i.message}`,
  });
  // One unit per URN entry (what the summary counts): it fails when it has an error, its own or
  // its manifest entry's. A manifest problem without a URN belongs to the whole run.
  const unitOf = new Map<string, string>();
  const units: ReportUnit[] = entries.map((r, i) => {
    const id = unitOf.has(r.urn) ? `${r.urn} (entry ${i + 1})` : r.urn;
    if (!unitOf.has(r.urn)) unitOf.set(r.urn, id);
    const failed = r.errors.length > 0 || manifestErrors.some((e) => e.urn === r.urn);
    // A missing schema file's unit sits in the manifest's suite, where its error is.
    return { id, file: r.errors[0]?.file ?? r.file, outcome: failed ? 'fail' : 'pass' };
  });
  const owner = new Map<CheckIssue, string>();
  entries.forEach((r, i) => {
    for (const issue of [...r.errors, ...r.warnings]) owner.set(issue, units[i]!.id);
  });
  const unitOfIssue = (i: CheckIssue): string | undefined => owner.get(i) ?? (i.urn === undefined ? undefined : unitOf.get(i.urn));
  const results = [
    ...errors.map((i) => ({ ...finding('error')(i), unit: unitOfIssue(i) })),
    ...warnings.map((i) => ({ ...finding('warning')(i), unit: unitOfIssue(i) })),
  ];
  const artifacts = [manifest, ...entries.map((r) => r.file)];
  return { tool: { ...tool, rules: CHECK_RULES }, command: 'check', ok, summary: verdict.summary, summaryLine: `${ok ? 'OK' : 'FAILED'}: ${counts}`, findings: results, artifacts, units };
}
