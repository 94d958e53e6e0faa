import { placeText, type FindingLevel, type Report, type ReportFinding } from './model.js';
import { clean } from './text.js';

/*
 * GitHub-flavoured markdown for a job summary ($GITHUB_STEP_SUMMARY) or a comment: a heading with
 * the verdict, then one table row per finding of a Report (the same findings, in the same order, as
 * its annotations and SARIF results). Text from input is escaped so that it stays inside its cell.
 */

/** Backslash-escapes what markdown would read as markup; a table cell holds one line. */
export function md(s: string): string {
  // `#` too: a heading drops a trailing run of them ("FAILED: #" would lose its "#").
  return clean(s.replace(/\r?\n/g, ' ')).replace(/[\\`*_[\]<>|~&#]/g, (ch) => '\\' + ch);
}

/** A code span that survives a table cell: `|` escaped, backticks fenced by longer runs. */
export function mdCode(s: string): string {
  const body = clean(s.replace(/\r?\n/g, ' ')).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  // A space inside each fence, which the reader strips, keeps a backtick or an edge space the body's
  // own; a body of spaces only is never stripped, so it gets none.
  const pad = (longest > 0 || body.startsWith(' ')) && body.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * At most this many rows: GitHub caps a step's summary at 1 MiB, and a table of a million messages
 * helps nobody. The rest are counted below the table; SARIF and JUnit hold them all.
 */
export const MAX_ROWS = 1000;

const LEVEL: Record<FindingLevel, string> = { error: '**error**', warning: 'warning', note: 'note' };

/** Where a finding is, `file:line:col`, as the other formats place it. */
function where(f: ReportFinding): string {
  const at = placeText(f);
  // clean first: a newline in a file name shows as `\n`, as in every other format.
  return at === '' ? '' : mdCode(clean(at));
}

/** A message's lines in one cell. */
const cell = (s: string): string => s.split(/\r?\n/).map(md).join('<br>');

export function renderMarkdown(report: Pick<Report, 'command' | 'findings' | 'summaryLine' | 'omitted'>, maxRows = MAX_ROWS): string {
  const lines = [`### bqschema ${md(report.command)}: ${md(report.summaryLine)}`, ''];
  const shown = report.findings.slice(0, maxRows);
  if (shown.length === 0) {
    lines.push('No findings.');
  } else {
    lines.push('| level | where | rule | finding |', '| --- | --- | --- | --- |');
    for (const f of shown) lines.push(`| ${LEVEL[f.level]} | ${where(f)} | ${mdCode(f.rule)} | ${cell(f.message)} |`);
    const more = report.findings.length - shown.length + (report.omitted ?? 0);
    if (more > 0) lines.push('', `… and ${more} more finding(s), not shown: the SARIF and JUnit reports hold them all.`);
  }
  return lines.join('\n') + '\n';
}
