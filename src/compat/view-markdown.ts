import type { Change } from './compare.js';
import { corpusSentence, corpusWhere, exceptedText, type CorpusUrn } from './evidence.js';
import { remedySpans, type Remedy } from './registry.js';
import type { Rollout } from './rollout.js';
import { changeLabel, excusedBy, rowFails, type PairVerdict, type RegistryVerdict, type Row, type Verdicts } from './verdict.js';
import { code, FOUND_BY, levelWords, problemLine, removedReach, rowMark, rowStatus, strong, where, witnessSpans } from './words.js';
import { reachWords } from './reach.js';
import type { MarkdownBlock, MarkdownDocument } from '../report/markdown.js';
import type { Span, TextLine } from '../report/text.js';

/*
 * compat's pull-request comment (markdown): the verdict as its heading, a table of changes (two
 * files) or of changed URNs (--against) with witnesses, remedy, rollout and corpus, the evidence's
 * notices, the counts and the mode. The words are these; escaping and layout are the renderer's.
 */

/** The evidence's notices: expired, stale and unused exceptions, unreadable corpus documents. */
function mdNotices(v: Verdicts): MarkdownBlock[] {
  const o = v.exceptions?.outcome;
  const items: TextLine[] = [
    ...(o?.expired ?? []).map((n): TextLine => [strong('expired exception:'), ' ', n.message]),
    ...(o?.stale ?? []).map((n): TextLine => [`stale exception: ${n.message}`]),
    ...(o?.unused ?? []).map((n): TextLine => [`unused exception: ${n.message}`]),
    ...(v.corpus?.errors ?? []).map((e): TextLine => [strong('corpus error:'), ' ', code(corpusWhere(e)), `: ${e.message}`]),
  ];
  if (v.corpus && v.corpus.unreadable > v.corpus.errors.length)
    items.push([strong('corpus error:'), ` ${v.corpus.unreadable - v.corpus.errors.length} more unreadable document(s)`]);
  return items.length > 0 ? [{ items }] : [];
}

/** A change's lines in a cell: what changed and its rule, the exception that excuses it, its witness. */
function mdChange(v: Verdicts, ch: Change): TextLine[] {
  const lines: TextLine[] = [[ch.message, ' (', code(ch.rule), ')']];
  const e = excusedBy(v, ch);
  if (e) lines.push([exceptedText(e)]);
  const w = witnessSpans(ch);
  if (w !== undefined) lines.push(w);
  if (ch.breaking && ch.reach) lines.push([strong('Reach:'), ` ${reachWords(ch.reach)}`]);
  return lines;
}

const mdLabel = (v: Verdicts, ch: Change): Span => {
  const label = changeLabel(v, ch);
  return label === 'breaking' ? strong(label) : label;
};

const mdCorpus = (u: CorpusUrn): TextLine[] => [
  [u.rejected > 0 ? strong('Corpus:') : 'Corpus:', ' ', corpusSentence(u)],
  ...u.examples.map((e): TextLine => [code(corpusWhere(e)), ` ${e.message}`]),
];
const mdRemedy = (r: Remedy): TextLine => [strong('Remedy:'), ' ', ...remedySpans(r)];
const mdRollout = (r: Rollout): TextLine => [strong('Rollout:'), ` ${r.sentence}`];
/** The level's note as a sentence. */
const mdNote = (note: string): MarkdownBlock[] => (note === '' ? [] : [{ lines: [[`${note[0]!.toUpperCase()}${note.slice(1)}.`]] }]);

/** Two files' pull-request comment: the verdict, a row per change, the remedy, rollout, corpus and notices, the level. */
export function pairMarkdown(view: PairVerdict): MarkdownDocument {
  const { oldFile, newFile, v, changes, problems, rollout, remedy, compatible, summary, level, policy, note } = view;
  const files: TextLine = ['from ', code(oldFile), ' to ', code(newFile)];
  const problemNote = problems.length > 0 ? `, ${problems.length} schema problem(s)` : '';
  const exceptedNote = (summary.excepted ?? 0) > 0 ? `, ${summary.excepted} excepted` : '';
  const blocks: MarkdownBlock[] = [];
  if (problems.length > 0) blocks.push({ items: problems.map((p): TextLine => [strong('error:'), ' ', problemLine(p)]) });
  if (changes.length > 0) {
    blocks.push({
      columns: ['status', 'path', 'change'],
      rows: changes.map((ch) => [[[mdLabel(v, ch)]], [[code(where(ch.path))]], mdChange(v, ch)]),
    });
  } else if (problems.length === 0) {
    blocks.push({ lines: [['No change that affects validation.']] });
  }
  if (remedy) blocks.push({ lines: [mdRemedy(remedy)] });
  if (rollout) blocks.push({ lines: [mdRollout(rollout)] });
  const corpusUrn = v.corpus?.urns[0];
  if (corpusUrn) blocks.push({ lines: mdCorpus(corpusUrn) });
  blocks.push(...mdNotices(v), ...mdNote(note));
  blocks.push({
    lines: [
      [
        `Compatibility: ${levelWords(level, policy)}. ${summary.breaking} breaking, ${summary.compatible} compatible change(s)${exceptedNote}.`,
      ],
    ],
  });
  const heading: TextLine = compatible
    ? ['no breaking change ', ...files]
    : [`${summary.breaking} breaking change(s)${problemNote} `, ...files];
  return { heading, blocks };
}

/** A URN's row in the pull-request comment: the URN, its status, and its problems, changes, remedy, rollout and corpus. */
function mdRow(v: Verdicts, r: Row): (readonly TextLine[])[] {
  const mark = rowMark(r, rowFails(r));
  const status: TextLine = rowFails(r) ? [strong(`${mark} ${r.status}`)] : [`${mark} ${rowStatus(r)}`];
  const lines: TextLine[] = [
    ...r.problems.map((p): TextLine => [strong('error:'), ' ', problemLine(p)]),
    ...r.changes.flatMap((ch) => {
      const [first, ...more] = mdChange(v, ch);
      return [[mdLabel(v, ch), ' ', code(where(ch.path)), ' ', ...first!], ...more];
    }),
  ];
  if (r.status === 'compatible' && r.changes.length === 0) lines.push(['annotations only: no change that affects validation']);
  const gone = removedReach(r);
  if (gone) lines.push([strong('Reach:'), ` ${gone}`]);
  if (r.remedy) lines.push(mdRemedy(r.remedy));
  if (r.rollout) lines.push(mdRollout(r.rollout));
  if (r.corpus) lines.push(...mdCorpus(r.corpus));
  return [[[code(r.urn)]], [status], lines];
}

/** The registry's pull-request comment: the verdict, a row per changed URN, the notices, the counts and the ref. */
export function registryMarkdown(view: RegistryVerdict): MarkdownDocument {
  const { listed, v, compatible, absent, moved, level, policy, against, why, counted, note } = view;
  const ref = code(against.ref);
  const blocks: MarkdownBlock[] = [];
  if (absent)
    blocks.push({
      lines: [
        ['No registry at ', ref, ' for ', code(view.working), ': a new registry, every URN is added (', code('--allow-new-registry'), ').'],
      ],
    });
  if (moved && against.foundBy !== undefined && against.foundBy !== 'path') {
    blocks.push({ lines: [['Compared with ', code(against.registry), ' at ', ref, ` (${FOUND_BY[against.foundBy]}), URN by URN.`]] });
  }
  if (listed.length > 0) blocks.push({ columns: ['URN', 'status', 'changes'], rows: listed.map((r) => mdRow(v, r)) });
  else blocks.push({ lines: [['No URN changed.']] });
  blocks.push(...mdNotices(v), ...mdNote(note));
  if (view.mention !== undefined && view.mention.length > 0)
    blocks.push({ lines: [['Teams of the services reached: ', view.mention.join(' ')]] });
  blocks.push({
    lines: [[`${counted}; compatibility ${levelWords(level, policy)}; against `, ref, ' at ', code(against.commit.slice(0, 12)), '.']],
  });
  return { heading: [compatible ? 'no breaking change' : why, ' against ', ref], blocks };
}
