import { docsPage } from '../report/docs.js';
import type { Report, ReportFinding, ReportRule, ReportUnit, TextLine, ToolInfo } from '../report/model.js';
import { joinPointer, pointerLabel } from '../validator/index.js';
import type { CheckIssue, CheckVerdict, Unenforced } from './index.js';

/*
 * check's Report (src/report renders it in every format): one unit per URN entry, one finding per
 * issue, errors first, each citing its rule; its JSON has the errors and warnings as they are.
 */

const CHECK_PAGE = docsPage('cli/check.md');
export const CHECK_RULES: readonly ReportRule[] = [
  { id: 'manifest', description: 'The registry manifest is malformed, or two entries clash.', help: 'Fix the manifest entry at the line given: every entry needs a unique URN, a schema path and an owner (registry.schema.json describes the format).', helpUri: CHECK_PAGE },
  { id: 'schema', description: 'A schema file cannot be read or compiled, or its root cannot accept a message.', help: "Fix the schema file (or the manifest entry's \"schema\" path when the file is missing or outside the registry directory); a message's data is always an object, so the root must accept one.", helpUri: CHECK_PAGE },
  { id: 'malformed-keyword', description: 'A keyword has a value of the wrong shape: it would not be enforced.', help: 'Give the keyword a value of the shape the contract requires (docs/contract.md §8): a constraint that cannot be enforced must not pass review.', helpUri: docsPage('contract.md') },
  { id: 'example-fails-schema', description: 'An `examples` entry fails its own (sub-)schema.', help: 'Fix the example, or the schema if the example shows what producers really send.', helpUri: CHECK_PAGE },
  { id: 'unsupported-keyword', description: 'A keyword the validator does not enforce (pattern, format, …).', help: 'Remove the keyword, or, once reviewed as documentation only, list it in the manifest\'s "unenforced" (registry-wide or on the URN\'s entry); --fail-on-unsupported makes the unreviewed ones errors.', helpUri: docsPage('contract.md') },
  { id: 'unknown-keyword', description: 'A keyword no JSON Schema draft defines, most often a typo (requried): it would not be enforced.', help: 'Fix the name (the finding suggests the nearest keyword), or, for a keyword used on purpose, name it x-… or pass --allow-keyword <name>.', helpUri: docsPage('contract.md') },
  { id: 'unreachable-marker', description: 'An x-gdpr-sensitive marker sits where masking cannot reach it (under propertyNames or contentSchema, or in a definition no local $ref uses): the data it marks would be shown in clear.', help: 'Put the marker on the schema of the value itself (a property, items or additionalProperties), or reference the definition with a local "$ref" (docs/cli/gdpr.md).', helpUri: docsPage('cli/gdpr.md') },
];

/** An issue as the JSON output has it: placed at its start (`line`, `col`), as the glossary says. */
const atStart = ({ endLine: _l, endCol: _c, ...i }: CheckIssue): CheckIssue => i;

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

/**
 * check's last line before its summary: how many constraints are not enforced, by keyword, how
 * many of them the manifest acknowledges, and the subtrees not checked at all (`$ref`, `allOf`, …),
 * which a count of keywords would hide; undefined when every keyword is enforced.
 */
export function unenforcedLine(u: Unenforced, max = 5): TextLine | undefined {
  if (u.total === 0) return undefined;
  const kinds = [...u.byKeyword].map(([k, n]) => `${k} ${n}`).join(', ');
  const head = `not enforced: ${u.total} constraint(s) (${kinds})${u.acknowledged === 0 ? '' : `, ${u.acknowledged} acknowledged in the manifest`}`;
  if (u.subtrees.length === 0) return [{ text: head, tone: 'warn' }];
  // Each subtree by its own pointer: `/properties/address/$ref`, `/allOf`.
  const named = u.subtrees.slice(0, max).map((t) => `${t.urn} ${joinPointer(t.pointer, t.keyword)}`).join(', ');
  const more = u.subtrees.length > max ? ` and ${u.subtrees.length - max} more` : '';
  return [{ text: head, tone: 'warn' }, '; ', { text: `not checked at all: ${u.subtrees.length} subtree(s): ${named}${more}`, tone: 'warn' }];
}

export function checkReport(verdict: CheckVerdict, tool: ToolInfo): Report {
  const { ok, errors, warnings, manifestErrors, entries, manifest, counts } = verdict;
  const fileOf = new Map<string, string>();
  for (const r of entries) if (!fileOf.has(r.urn)) fileOf.set(r.urn, r.file);
  const finding = (level: 'error' | 'warning') => (i: CheckIssue): ReportFinding => ({
    rule: i.rule, level, title: level === 'error' ? 'registry error' : 'not enforced',
    ...(i.urn === undefined ? {} : { urn: i.urn }),
    location: { file: i.file, line: i.line, col: i.col, pointer: i.pointer, ...(i.endLine === undefined ? {} : { endLine: i.endLine, endCol: i.endCol }) },
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
    const heading: TextLine = [failed ? { text: '✗', tone: 'fail' } : { text: '✓', tone: 'pass' }, ' ', { text: r.urn, tone: 'bold' }, '  ', { text: r.file, tone: 'dim' }];
    return { id, file: r.errors[0]?.file ?? r.file, outcome: failed ? 'fail' : 'pass', text: { heading } };
  });
  const owner = new Map<CheckIssue, string>();
  entries.forEach((r, i) => {
    for (const issue of [...r.errors, ...r.warnings]) owner.set(issue, units[i]!.id);
  });
  const unitOfIssue = (i: CheckIssue): string | undefined => owner.get(i) ?? (i.urn === undefined ? undefined : unitOf.get(i.urn));
  const withUnit = (level: 'error' | 'warning') => ({ issue: i, places }: { issue: CheckIssue; places: string[] }): ReportFinding => {
    const unit = unitOfIssue(i);
    const f = finding(level)(i);
    if (places.length > 1) {
      // One unsupported keyword at several places of one URN's schema: one finding, at the first.
      const what = `unsupported keyword "${i.keyword ?? ''}" is not enforced at ${places.length} places: ${placesText(places)}`;
      return { ...f, message: `${i.urn ?? ''}: ${what}`, ...(unit === undefined ? {} : { unit }), text: { line: [{ text: level, tone: level === 'error' ? 'fail' : 'warn' }, '  ', what] } };
    }
    const text = { line: issueLine(level, i, unit === undefined || i.urn === undefined ? undefined : fileOf.get(i.urn)) };
    return { ...f, ...(unit === undefined ? {} : { unit }), text };
  };
  // Acknowledged keywords (verdict.acknowledged) are no findings: reviewed, they are in the JSON only.
  const results = [...groupUnsupported(errors).map(withUnit('error')), ...groupUnsupported(warnings).map(withUnit('warning'))];
  const artifacts = [manifest, ...entries.map((r) => r.file)];
  const last = unenforcedLine(verdict.unenforced);
  return {
    tool: { ...tool, rules: CHECK_RULES }, command: 'check', ok, summary: verdict.summary, summaryLine: `${ok ? 'OK' : 'FAILED'}: ${counts}`, findings: results, artifacts, units,
    ...(last === undefined ? {} : { text: { notes: [last] } }),
    json: { fields: { errors: errors.map(atStart), warnings: warnings.map(atStart), acknowledged: verdict.acknowledged.map(atStart) } },
  };
}

/**
 * An issue as text shows it: under its URN, its level, where it is when that is another file than
 * the URN's schema (the manifest entry of a missing schema file), its pointer and message; an issue
 * of the manifest under no URN entry (`schemaFile` undefined: an entry without a URN or a schema
 * path) stands alone, with its file.
 */
function issueLine(level: 'error' | 'warning', i: CheckIssue, schemaFile: string | undefined): TextLine {
  const tone = level === 'error' ? 'fail' : 'warn';
  if (schemaFile === undefined) return [{ text: `✗ ${level}`, tone }, '  ', `${i.file}${i.pointer ? ' ' + i.pointer : ''}: ${i.message}`];
  const other = i.file === schemaFile ? '' : `${i.file}${i.line === undefined ? '' : `:${i.line}`} `;
  const what = level === 'warning' && i.rule !== 'unknown-keyword' ? `unsupported keyword "${i.keyword ?? ''}" is not enforced` : i.message;
  return [{ text: level, tone }, '  ', other, pointerLabel(i.pointer), '  ', what];
}
