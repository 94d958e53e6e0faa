import type { Change } from './compare.js';
import { corpusSentence, corpusWhere, exceptedText, type CorpusUrn } from './evidence.js';
import { remedyText, type Remedy, type SchemaProblem } from './registry.js';
import type { CompatReport, CompatSubject, CompatUnitSubject } from './report.js';
import type { Rollout } from './rollout.js';
import { changeLabel, excusedBy, rowFails, type PairVerdict, type RegistryVerdict, type Row, type Verdicts } from './verdict.js';
import { problemLine, removedReach, rowMark, rowStatus, where, witnessLine } from './words.js';
import { reachWords } from './reach.js';
import type { ReportFinding } from '../report/model.js';
import type { FindingText, TextLine, TextView, Tone, UnitText } from '../report/text.js';

/*
 * compat's text: a change as `breaking  /pointer  message  [rule]` with the exception that excuses
 * it and its witness under it; with --against each changed URN under its mark, status and schema
 * file, with its remedy, rollout and corpus counts; the evidence's notices; the level's note.
 */

const LABEL_TONE = { breaking: 'fail', excepted: 'warn', compatible: 'dim' } as const;
/** Under a change's line, as deep as its message. */
const DETAIL = ' '.repeat(12);

/** A change as text: its label, where, what and rule, then the exception that excuses it and its witness. */
function changeText(v: Verdicts, c: Change): FindingText {
  const label = changeLabel(v, c);
  const details: TextLine[] = [];
  const e = excusedBy(v, c);
  if (e) details.push([DETAIL, { text: exceptedText(e), tone: 'warn' }]);
  const w = witnessLine(c);
  if (w !== undefined) details.push([DETAIL, { text: w, tone: 'dim' }]);
  if (c.breaking && c.reach) details.push([DETAIL, { text: reachWords(c.reach), tone: label === 'breaking' ? 'fail' : 'warn' }]);
  return {
    line: [
      { text: label.padEnd(10), tone: LABEL_TONE[label] },
      '  ',
      where(c.path),
      '  ',
      c.message,
      '  ',
      { text: `[${c.rule}]`, tone: 'dim' },
    ],
    details,
  };
}

const problemText = (p: SchemaProblem): FindingText => ({ line: [{ text: 'error     ', tone: 'fail' }, '  ', problemLine(p)] });
/** A URN's corpus counts in text, and under them the first rejected messages with their file:line. */
const corpusLines = (u: CorpusUrn | undefined): TextLine[] =>
  u === undefined
    ? []
    : [
        [u.rejected > 0 ? { text: `corpus: ${corpusSentence(u)}`, tone: 'fail' } : `corpus: ${corpusSentence(u)}`],
        ...u.examples.map((e): TextLine => ['    ', corpusWhere(e), '  ', e.message]),
      ];
const remedyLine = (r: Remedy): TextLine => [{ text: '→', tone: 'warn' }, ' ', remedyText(r)];
/** The rollout order, in text only where something changed (identical schemas need no order). */
const rolloutLines = (r: Rollout | undefined, changes: number): TextLine[] =>
  r === undefined || changes === 0 ? [] : [[`rollout: ${r.sentence}`]];

const EXCEPTION_LABEL = {
  expired: ['expired exception', 'fail'],
  stale: ['stale exception', 'warn'],
  unused: ['unused exception', 'dim'],
} as const;

/** An evidence notice's line: an exception's, or an unreadable corpus document's; undefined for any other finding. */
function noticeLine(f: ReportFinding<CompatSubject>): TextLine | undefined {
  const s = f.subject;
  if (s?.kind === 'exception') {
    const [label, tone] = EXCEPTION_LABEL[s.state];
    return [{ text: label, tone }, '  ', f.message];
  }
  if (s?.kind === 'corpus-error') return [{ text: 'corpus error', tone: 'fail' }, '  ', `${corpusWhere(s.error)}: ${s.error.message}`];
  return undefined;
}

/** The unreadable corpus documents not listed one by one. */
const moreUnreadable = (v: Verdicts): TextLine[] => {
  const more = v.corpus === undefined ? 0 : v.corpus.unreadable - v.corpus.errors.length;
  return more > 0 ? [[{ text: 'corpus error', tone: 'fail' }, '  ', `${more} more unreadable document(s)`]] : [];
};

const levelNotes = (note: string): TextLine[] => (note ? [[{ text: note, tone: 'dim' }]] : []);

/** A change's or a schema problem's line; the others are said elsewhere (a URN's heading, its notes, the run's notes). */
function findingText(v: Verdicts, f: ReportFinding<CompatSubject>, notices: boolean): FindingText {
  const s = f.subject;
  if (s?.kind === 'change') return changeText(v, s.change);
  if (s?.kind === 'problem') return problemText(s.problem);
  if (notices) {
    const line = noticeLine(f);
    if (line !== undefined) return { line };
  }
  return { line: null };
}

/**
 * Two files: the changes and problems one per line, then, as one block, the remedy, the rollout,
 * the corpus counts, the evidence's notices and the level's note.
 */
export function pairTextView(view: PairVerdict, report: CompatReport): TextView<CompatSubject, CompatUnitSubject> {
  const { v, changes, rollout, remedy, note } = view;
  const notes: TextLine[] = [
    ...(remedy ? [remedyLine(remedy)] : []),
    ...rolloutLines(rollout, changes.length),
    ...corpusLines(v.corpus?.urns[0]),
  ];
  for (const f of report.findings) {
    const line = noticeLine(f);
    if (line !== undefined) notes.push(line);
  }
  notes.push(...moreUnreadable(v), ...levelNotes(note));
  return { notes, unit: () => ({ heading: null }), finding: (f) => findingText(v, f, false) };
}

/** A URN's heading in text: its mark, URN, status and schema file; an unchanged URN is not shown. */
function rowHeading(r: Row, file: string | undefined): TextLine | null {
  if (r.status === 'unchanged') return null;
  const mark = rowMark(r, rowFails(r));
  const tone: Tone | undefined = rowFails(r) ? 'fail' : r.excepted ? 'warn' : r.status === 'compatible' ? 'pass' : undefined;
  return [
    tone === undefined ? mark : { text: mark, tone },
    ' ',
    { text: r.urn, tone: 'bold' },
    '  ',
    rowStatus(r),
    ...(file === undefined ? [] : ['  ', { text: file, tone: 'dim' as const }]),
  ];
}

/** What text says of a URN after its findings: that only annotations changed, the remedy, the rollout, the corpus counts. */
function rowNotes(r: Row): TextLine[] {
  if (r.status === 'unchanged') return [];
  const notes: TextLine[] = [];
  if (r.status === 'compatible' && r.changes.length === 0)
    notes.push([{ text: 'annotations only: no change that affects validation', tone: 'dim' }]);
  const gone = removedReach(r);
  if (gone) notes.push([{ text: gone, tone: 'fail' }]);
  if (r.remedy) notes.push(remedyLine(r.remedy));
  notes.push(...rolloutLines(r.rollout, r.changes.length), ...corpusLines(r.corpus));
  return notes;
}

function registryUnit(v: Verdicts, s: CompatUnitSubject | undefined): UnitText {
  if (s?.kind === 'urn') return { heading: rowHeading(s.row, s.row.file?.shown), notes: rowNotes(s.row) };
  if (s?.kind === 'corpus') return { heading: null, notes: moreUnreadable(v) };
  return { heading: null };
}

/** The registry: why the ref has no registry or another one first, each changed URN, the evidence's notices, the level's note. */
export function registryTextView(view: RegistryVerdict): TextView<CompatSubject, CompatUnitSubject> {
  const { v, absent, moved, note } = view;
  return {
    lead: [...(absent ? [[{ text: absent, tone: 'warn' as const }]] : []), ...(moved ? [[{ text: moved, tone: 'dim' as const }]] : [])],
    notes: levelNotes(note),
    unit: (u) => registryUnit(v, u.subject),
    finding: (f) => findingText(v, f, true),
  };
}
