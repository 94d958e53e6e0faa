import type { TextLine, TextView } from '../report/text.js';
import { joinPointer, pointerLabel } from '../validator/index.js';
import type { CheckIssue, CheckVerdict, EntryCheck, Unenforced } from './index.js';
import type { CheckReport, IssueSubject } from './report.js';

/*
 * check's text: each URN entry under its mark, URN and schema file, its issues under it, and what
 * is not enforced before the summary line.
 */

/**
 * check's last line before its summary: how many constraints are not enforced, by keyword, how
 * many of them the manifest acknowledges, and the subtrees not checked at all (`$ref`, `allOf`, …),
 * which a count of keywords would hide; undefined when every keyword is enforced.
 */
function unenforcedLine(u: Unenforced, max = 5): TextLine | undefined {
  if (u.total === 0) return undefined;
  const kinds = [...u.byKeyword].map(([k, n]) => `${k} ${n}`).join(', ');
  const head = `not enforced: ${u.total} constraint(s) (${kinds})${u.acknowledged === 0 ? '' : `, ${u.acknowledged} acknowledged in the manifest`}`;
  if (u.subtrees.length === 0) return [{ text: head, tone: 'warn' }];
  // Each subtree by its own pointer: `/properties/address/$ref`, `/allOf`.
  const named = u.subtrees
    .slice(0, max)
    .map((t) => `${t.urn} ${joinPointer(t.pointer, t.keyword)}`)
    .join(', ');
  const more = u.subtrees.length > max ? ` and ${u.subtrees.length - max} more` : '';
  return [
    { text: head, tone: 'warn' },
    '; ',
    { text: `not checked at all: ${u.subtrees.length} subtree(s): ${named}${more}`, tone: 'warn' },
  ];
}

/**
 * An issue as text shows it: under its URN, its level, where it is when that is another file than
 * the URN's schema (the manifest entry of a missing schema file), its pointer and message; an issue
 * of the manifest under no URN entry (`schemaFile` undefined: an entry without a URN or a schema
 * path) stands alone, with its file.
 */
function issueLine(level: 'error' | 'warning', i: CheckIssue, schemaFile: string | undefined): TextLine {
  const tone = level === 'error' ? 'fail' : 'warn';
  if (schemaFile === undefined)
    return [
      { text: `${level === 'error' ? '✗' : '!'} ${level}`, tone },
      '  ',
      `${i.file}${i.pointer ? ' ' + i.pointer : ''}: ${i.message}`,
    ];
  const other = i.file === schemaFile ? '' : `${i.file}${i.line === undefined ? '' : `:${i.line}`} `;
  const what =
    level === 'warning' && i.rule === 'unsupported-keyword' ? `unsupported keyword "${i.keyword ?? ''}" is not enforced` : i.message;
  return [{ text: level, tone }, '  ', other, pointerLabel(i.pointer), '  ', what];
}

export function checkTextView(verdict: CheckVerdict, _report?: CheckReport): TextView<IssueSubject, EntryCheck> {
  const last = unenforcedLine(verdict.unenforced);
  return {
    ...(last === undefined ? {} : { notes: [last] }),
    unit: (u) => {
      const r = u.subject;
      if (r === undefined) return undefined;
      return {
        heading: [
          u.outcome === 'fail' ? { text: '✗', tone: 'fail' } : { text: '✓', tone: 'pass' },
          ' ',
          { text: r.urn, tone: 'bold' },
          '  ',
          { text: r.file, tone: 'dim' },
        ],
      };
    },
    finding: (f) => {
      const s = f.subject;
      if (s === undefined) return undefined;
      if (s.grouped !== undefined) return { line: [{ text: s.level, tone: s.level === 'error' ? 'fail' : 'warn' }, '  ', s.grouped] };
      return { line: issueLine(s.level, s.issue, s.schemaFile) };
    },
  };
}
