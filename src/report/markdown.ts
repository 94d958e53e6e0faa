import { placeText, type FindingLevel, type Report, type ReportFinding } from './model.js';
import { clean, type TextLine } from './text.js';

/*
 * GitHub-flavoured markdown for a job summary ($GITHUB_STEP_SUMMARY) or a comment: a heading with
 * the verdict, then one table row per finding of a Report (the same findings, in the same order, as
 * its annotations and SARIF results), or the document the Report lays out itself (compat's
 * pull-request comment: a MarkdownDocument its view lays out). Text from input is escaped so that it
 * stays inside its cell.
 */

/*
 * A document a command lays out its own way (compat's pull-request comment: a table of changes or
 * URNs with witnesses, remedy and rollout): the words come from its view (src/<command>/view-markdown.ts),
 * as lines of spans; this renderer escapes them and lays out the blocks.
 */

/** A block of a markdown document: a paragraph (its lines joined by `<br>`), a bullet list, or a table (a cell's lines joined by `<br>`). */
export type MarkdownBlock =
  | { readonly lines: readonly TextLine[] }
  | { readonly items: readonly TextLine[] }
  | { readonly columns: readonly string[]; readonly rows: readonly (readonly (readonly TextLine[])[])[] };

export interface MarkdownDocument {
  /** The heading's words after `### bqschema <command>: `. */
  heading: TextLine;
  /** Under the heading, in order, a blank line between each. */
  blocks: readonly MarkdownBlock[];
}

/** Backslash-escapes what markdown would read as markup; a table cell holds one line. */
export function md(s: string): string {
  // `#` too: a heading drops a trailing run of them ("FAILED: #" would lose its "#").
  return clean(s.replace(/\r?\n/g, ' ')).replace(/[\\`*_[\]<>|~&#]/g, (ch) => '\\' + ch);
}

/**
 * A code span: backticks fenced by longer runs; in a table cell (the default) `|` escaped, which
 * the table reads before the span (elsewhere the backslash would show).
 */
export function mdCode(s: string, inTable = true): string {
  const cleaned = clean(s.replace(/\r?\n/g, ' '));
  const body = inTable ? cleaned.replace(/\|/g, '\\|') : cleaned;
  let longest = 0;
  for (const run of body.match(/`+/g) ?? []) if (run.length > longest) longest = run.length;
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

/**
 * A line of spans as inline markdown: each span escaped, `bold` and `fail` strong (words of the
 * command's own: markdown does not read `**` next to some punctuation as strong), `code` a code span.
 */
function mdLine(line: TextLine, inTable = true): string {
  let s = '';
  for (let i = 0; i < line.length; i++) {
    const span = line[i]!;
    if (typeof span === 'string') {
      s += md(span);
    } else if (span.tone === 'code') {
      // Code spans side by side are one (two would read as one span with backticks inside).
      let text = span.text;
      for (let next = line[i + 1]; typeof next === 'object' && next.tone === 'code'; next = line[++i + 1]) text += next.text;
      s += mdCode(text, inTable);
    } else if ((span.tone === 'bold' || span.tone === 'fail') && span.text !== '') {
      s += `**${md(span.text)}**`;
    } else {
      s += md(span.text);
    }
  }
  return s;
}

/**
 * Lines joined by `<br>`. Outside a table, text at the start of a paragraph or list item must not
 * open a block of its own (a list, a thematic break, an indented code block): md escapes `#`, `>`,
 * `*`; this escapes `-`, `+`, `=` and `1.` there, and drops the leading spaces.
 */
function joined(lines: readonly TextLine[], inTable: boolean): string {
  const s = lines.map((l) => mdLine(l, inTable)).join('<br>');
  return inTable
    ? s
    : s
        .replace(/^\s+/, '')
        .replace(/^[-+=]/, '\\$&')
        .replace(/^(\d+)([.)])/, '$1\\$2');
}

function block(b: MarkdownBlock): string[] {
  if ('items' in b) return b.items.map((l) => `- ${joined([l], false)}`);
  if ('lines' in b) return [joined(b.lines, false)];
  const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [row(b.columns.map(md)), row(b.columns.map(() => '---')), ...b.rows.map((r) => row(r.map((cell) => joined(cell, true))))];
}

/** The document a Report lays out itself: its heading, then its blocks, a blank line between each. */
function renderDocument(command: string, doc: MarkdownDocument): string {
  const parts = [`### bqschema ${md(command)}: ${mdLine(doc.heading, false)}`];
  doc.blocks.forEach((b, i) => {
    // Two lists in a row would read as one: an HTML comment, which shows nothing, ends the first.
    if (i > 0 && 'items' in b && 'items' in doc.blocks[i - 1]!) parts.push('<!-- -->');
    parts.push(block(b).join('\n'));
  });
  return parts.join('\n\n') + '\n';
}

/** A Report as a job summary's table of findings, or, given one, the document its command's view laid out. */
export function renderMarkdown(
  report: Pick<Report, 'command' | 'findings' | 'summaryLine' | 'omitted'>,
  doc?: MarkdownDocument,
  maxRows = MAX_ROWS,
): string {
  if (doc !== undefined) return renderDocument(report.command, doc);
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
