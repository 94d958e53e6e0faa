import type { FindingText, TextLine, TextView, Tone, UnitText } from '../report/text.js';
import { quote } from '../report/text.js';
import type { ReportFinding, ReportUnit } from '../report/model.js';
import { hint, MORE_VIOLATIONS, problemLabel, type MessageStatus, type MessageSubject, type MessageVerdict } from './report.js';

/*
 * validate's text, message by message as the run streams: a message's status, file (or its line
 * under the NDJSON file's name), URN and why it was skipped or could not be read; under it each
 * violation at its place in the data, and the envelope's warnings.
 */

const STATUS_MARK: Record<MessageStatus, { text: string; tone: Tone }> = {
  valid: { text: '✓ valid', tone: 'pass' },
  invalid: { text: '✗ invalid', tone: 'fail' },
  skipped: { text: '- skipped', tone: 'warn' },
  error: { text: '! error', tone: 'fail' },
};

/** A message's heading, and for a line of NDJSON the file it sits under. */
function messageText(r: MessageVerdict): UnitText {
  const mark = STATUS_MARK[r.status];
  const stream = r.line !== undefined;
  const head: TextLine = stream ? [mark, `  line ${r.line}`] : [mark, '  ', { text: r.file, tone: 'bold' }];
  let heading: TextLine;
  if (r.status === 'error' && r.unregistered === true) {
    heading = [
      ...head,
      '  ',
      { text: quote(r.urn ?? ''), tone: 'dim' },
      { text: `  (no schema registered, --strict${hint(r)})`, tone: 'dim' },
    ];
  } else if (r.status === 'error' && r.urn === undefined) {
    const where = r.errorLine === undefined ? '' : stream ? `:${r.col ?? 1}` : `:${r.errorLine}:${r.col ?? 1}`;
    heading = [...head, where, '  ', r.error ?? ''];
  } else {
    // A skipped URN matched no registered one: quoted, so a space or an invisible character shows.
    const urn: TextLine = r.urn === undefined ? [] : ['  ', { text: r.status === 'skipped' ? quote(r.urn) : r.urn, tone: 'dim' }];
    const why: TextLine = r.status === 'skipped' ? [{ text: `  (no schema registered${hint(r)})`, tone: 'dim' }] : [];
    heading = [...head, ...urn, ...why];
  }
  return { heading, ...(stream ? { group: r.file } : {}) };
}

function findingText(f: ReportFinding<MessageSubject>): FindingText | undefined {
  const s = f.subject;
  if (s === undefined) return undefined;
  const r = s.verdict;
  if (s.problem !== undefined) return { line: [{ text: problemLabel(s.problem), tone: 'fail' }, '  ', s.problem.message] };
  switch (f.rule) {
    // No schema: the heading says it.
    case 'no-schema':
      return { line: null };
    // An input that is not a message is said by its heading; a message's schema problem under it.
    case 'unreadable-input':
      return { line: r.urn === undefined ? null : [r.error ?? ''] };
    case 'invalid-data':
      return { line: [{ text: `… ${MORE_VIOLATIONS}`, tone: 'dim' }] };
    case 'envelope-identity':
    case 'deprecated-urn':
      return { line: [{ text: 'warning:', tone: 'warn' }, ' ', f.message] };
    default:
      return undefined;
  }
}

export const validateTextView: TextView<MessageSubject, MessageVerdict> = {
  unit: (u: ReportUnit<MessageVerdict>) => (u.subject === undefined ? undefined : messageText(u.subject)),
  finding: findingText,
};
