import { listRules, type CompatRule } from './rules.js';
import type { Change } from './compare.js';
import type { Rollout } from './rollout.js';
import { previewWitness, type Witness } from './witness.js';
import { nextUrn, remedySpans, remedyText, type Remedy, type SchemaProblem, type UrnReport } from './registry.js';
import { corpusSentence, corpusWhere, exceptedText, type CorpusReport, type CorpusUrn, type ExceptionsState } from './evidence.js';
import type { CompatLevel } from './levels.js';
import type { CompatPolicy } from './rules.js';
import type { Position } from '../registry/positions.js';
import type { FoundBy } from '../registry/manifest.js';
import { docsPage } from '../report/docs.js';
import { clean } from '../report/text.js';
import type {
  FindingText, MarkdownBlock, Report, ReportEvidence, ReportFinding, ReportMarkdown, ReportRule, ReportUnit, Span, TextLine, ToolInfo, Tone,
} from '../report/model.js';
import { pointerLabel } from '../validator/index.js';

/*
 * compat's verdict as its outputs need it, and its Report (src/report renders it in every format):
 * for two schema files a unit per change and per schema problem, for the registry against a git ref
 * a unit per URN; the evidence (corpus, exceptions) adds its own. Each finding says how text shows
 * it, and the Report carries the JSON document's fields and the pull-request comment's layout
 * (its markdown: a table of changes or URNs with witnesses, remedy and rollout).
 */

const where = pointerLabel;

/** One schema document as the renderers need it: its name as shown, and its text for positions. */
export interface Doc {
  name: string;
  text: string;
}

const noPositions = (): Position | undefined => undefined;

/** Loads the positions module (and with it the YAML and JSONC parsers) only when a position is wanted. */
async function positionsFor(text: string, name: string): Promise<{ of(pointer: string): Position }> {
  const { SourcePositions } = await import('../registry/positions.js');
  return SourcePositions.forFile(text, name);
}

export const problemLine = (p: SchemaProblem): string => p.message;

const changeMessage = (c: Change): string => `${where(c.path)}: ${c.message}`;

const other = (w: Witness): 'old' | 'new' => (w.validUnder === 'old' ? 'new' : 'old');
const code = (text: string): Span => ({ text, tone: 'code' });
const strong = (text: string): Span => ({ text, tone: 'bold' });
const plainOf = (line: readonly Span[]): string => line.map((x) => (typeof x === 'string' ? x : x.text)).join('');

/**
 * The proof of a breaking change on one line: its witness (a payload valid under one schema and
 * rejected by the other, previewed, as code), or why there is none and the other direction's witness.
 */
function witnessSpans(c: Change): Span[] | undefined {
  // Previewed around the place that breaks: a long payload is never cut before it.
  const shown = (w: Witness): Span[] => [`valid under ${w.validUnder}, rejected by ${other(w)}): `, code(previewWitness(w.payload, c.path, c.subject))];
  // A compatible change by a policy choice: the data it lets fail.
  if (!c.breaking && c.affected !== undefined) return ['affected by this policy choice (', ...shown(c.affected)];
  if (c.witness === undefined) return undefined;
  if (c.witness !== null) return ['witness (', ...shown(c.witness)];
  const why = c.witnessReason === 'policy'
    ? 'no payload shows it: policy (a break by the registry\'s rules, not by data)'
    : c.witnessReason === 'budget' ? 'no witness: the search budget was spent on earlier changes (see docs/cli/compat.md)'
    : 'no witness found';
  if (c.otherWitness === undefined) return [why];
  return [`${why}; the other way (`, ...shown(c.otherWitness)];
}

/** The witness line in plain words (text, annotations, SARIF). */
function witnessLine(c: Change): string | undefined {
  const spans = witnessSpans(c);
  return spans === undefined ? undefined : plainOf(spans);
}

/** The level and policy as every summary line says them: `backward`, `full, policy confluent`. */
const modeWords = (level: CompatLevel, policy: CompatPolicy): string => (policy === 'bqschema' ? level : `${level}, policy ${policy}`);

/** What the level leaves out: level none gates nothing on the rules. */
const levelNote = (level: CompatLevel): string => (level === 'none' ? 'level none: no change breaks, nothing is gated on the rules' : '');

/** The summary line's corpus counts: `; corpus: 6 message(s) checked, 4 rejected`, or ''. */
function corpusSummary(corpus: CorpusReport | undefined): string {
  if (corpus === undefined) return '';
  const rejected = corpus.urns.reduce((n, u) => n + u.rejected, 0);
  const checked = corpus.urns.reduce((n, u) => n + u.checked, 0);
  const unreadable = corpus.unreadable > 0 ? `, ${corpus.unreadable} unreadable` : '';
  return `; corpus: ${checked} message(s) checked, ${rejected} rejected${unreadable}`;
}

/** The summary line's exceptions counts, or ''. */
function exceptionsSummary(e: ExceptionsState | undefined): string {
  if (e === undefined) return '';
  const o = e.outcome;
  return `; exceptions: ${o.suppressed.length} excepted, ${o.expired.length} expired, ${o.stale.length} stale, ${o.unused.length} unused`;
}

/** Where a change is in the NEW schema's source: the keyword, or its nearest ancestor there. */
type Locate = (pointer: string) => Position | undefined;

async function locator(doc: Doc | undefined, wanted: boolean): Promise<Locate> {
  if (!wanted || doc === undefined) return noPositions;
  const positions = await positionsFor(doc.text, doc.name);
  return (pointer) => positions.of(pointer);
}

/** Everything that bears on one changed URN (or the one pair of files). */
export interface Verdicts {
  exceptions?: ExceptionsState;
  corpus?: CorpusReport;
}

export const excusedBy = (v: Verdicts, c: Change) => v.exceptions?.excused.get(c);
/** A breaking change no exception excuses: it fails the gate. */
export const fails = (v: Verdicts, c: Change): boolean => c.breaking && excusedBy(v, c) === undefined;

export function changeLabel(v: Verdicts, c: Change): 'breaking' | 'excepted' | 'compatible' {
  return !c.breaking ? 'compatible' : excusedBy(v, c) ? 'excepted' : 'breaking';
}

/** A URN's report with what the exceptions and the corpus made of it. */
export interface Row extends UrnReport {
  /** Every breaking change is excused by an exception. */
  excepted?: boolean;
  corpus?: CorpusUrn;
}

/** A URN fails the gate: an unexcused break, a problem, or corpus messages its new schema rejects. */
export const rowFails = (r: Row): boolean => r.breaking || (r.corpus?.rejected ?? 0) > 0;

/** Two schema files compared: what their Report is made of. */
export interface PairVerdict {
  oldFile: string;
  newFile: string;
  v: Verdicts;
  changes: readonly Change[];
  problems: readonly SchemaProblem[];
  rollout: Rollout | undefined;
  remedy: Remedy | undefined;
  compatible: boolean;
  /** The changes counted (its JSON summary): `errors` counts the schema problems. */
  summary: { changes: number; breaking: number; compatible: number; excepted?: number; errors: number };
  /** The summary line. */
  summaryLine: string;
  /** The new schema's source, for positions. */
  newDoc: Doc | undefined;
  mode: CompatLevel;
  policy: CompatPolicy;
  /** --urn: the URN the two files are versions of. */
  urn: string | undefined;
  /** What the mode leaves out (level none), or ''. */
  note: string;
}

/** The registry compared with a git ref: what its Report is made of. */
export interface RegistryVerdict {
  rows: readonly Row[];
  /** The rows that changed. */
  listed: readonly Row[];
  v: Verdicts;
  compatible: boolean;
  /** The URNs counted by status (its JSON summary): `errors` counts the invalid ones. */
  summary: Readonly<Record<string, number>>;
  /** The summary line. */
  summaryLine: string;
  /** Why every URN is added: no manifest was found at the ref, and the user allowed a new registry. */
  absent: string | undefined;
  /** Where the manifest was at the ref when it moved: compared URN by URN all the same. */
  moved: string | undefined;
  manifestName: string;
  manifestText: string;
  docOf: (r: UrnReport) => Doc | undefined;
  mode: CompatLevel;
  policy: CompatPolicy;
  /** The git ref compared with, its commit, the manifest's path there, whether it was found and how. */
  against: { ref: string; commit: string; registry: string; found: boolean; foundBy?: FoundBy };
  /** The working manifest's path in the repository. */
  working: string;
  /** When no manifest was found at the ref: where it was looked for. */
  looked?: string;
  /** Why it fails, in words (`3 URN(s) fail`), and the URNs counted by status with the evidence's counts. */
  why: string;
  counted: string;
  /** What the mode leaves out (level none), or ''. */
  note: string;
}

const COMPAT_PAGE = docsPage('cli/compat.md');
const EXTRA_RULES: readonly ReportRule[] = [
  { id: 'schema-problem', description: 'A schema cannot be read, or has a malformed keyword, or the new one an unknown keyword (a typo), that would not be enforced.', help: 'Fix the schema (bqschema check names the keyword and the nearest valid one); an unknown keyword used on purpose is named x-… or allowed with --allow-keyword.', helpUri: COMPAT_PAGE },
  { id: 'urn-removed', description: 'A URN was removed from the registry without being deprecated first.', help: 'Keep the URN registered with "status": "deprecated" until its consumers have moved off it, then remove it.', helpUri: COMPAT_PAGE },
  { id: 'urn-added', description: 'A URN was added to the registry.', help: 'Nothing to do: a new URN breaks no consumer.', helpUri: COMPAT_PAGE },
  { id: 'corpus-rejected', description: 'A captured message of a changed URN is rejected by its new schema.', help: 'The new schema rejects traffic that exists: mint a new URN for it, or change it so that the captured messages stay valid.', helpUri: COMPAT_PAGE },
  { id: 'corpus-unreadable', description: 'A corpus document does not parse or is not a message envelope.', help: 'Fix or remove the corpus file at the position given (NDJSON: one envelope per line).', helpUri: COMPAT_PAGE },
  { id: 'exception-expired', description: 'A compat exception is past its date: the break it excused fails again.', help: 'Ship the migration the exception was for, or review the exception again and move its expires date.', helpUri: COMPAT_PAGE },
  { id: 'exception-stale', description: 'The old schema changed since a compat exception was reviewed.', help: 'Review the exception against the schema as it is now and update its fingerprint.', helpUri: COMPAT_PAGE },
  { id: 'exception-unused', description: 'A compat exception matches no breaking change.', help: 'Remove the exception: nothing needs excusing any more.', helpUri: COMPAT_PAGE },
  { id: 'rollout-order', description: 'In which order to deploy producers and consumers for the changes of a URN.', help: 'Deploy in the order given; when no order is safe, mint a new URN instead.', helpUri: COMPAT_PAGE },
  { id: 'registry-absent', description: 'No registry manifest was found at the git ref compared with, and --allow-new-registry counts every URN as added.', help: 'Nothing to do if this change creates the registry; otherwise name the manifest it had at the ref with --against-registry <path>.', helpUri: COMPAT_PAGE },
  { id: 'registry-moved', description: 'The registry manifest was elsewhere at the git ref compared with (renamed, moved, or in another format): URNs are compared all the same.', help: 'Nothing to do; --against-registry <path> names another manifest at the ref if this is not the one.', helpUri: COMPAT_PAGE },
];

/** A compat rule as a CI rule: when it breaks, and what to do about a breaking change. */
function compatRule(r: CompatRule): ReportRule {
  const breaks = r.breaks === 'never' ? 'It never breaks (a notice).' : `It breaks ${r.breaks === 'both' ? 'backward and forward' : r.breaks} compatibility under the default policy.`;
  return {
    id: r.id, description: r.description, fullDescription: `${r.description} ${breaks}`,
    help: r.breaks === 'never' ? 'Nothing to do: the change is listed for review.' : 'Where the change breaks the level you gate on, mint a new URN for the new schema (the URN with .v2, or the next .vN) instead of changing the registered one; the witness shows data one side accepts and the other rejects.',
    helpUri: docsPage('compat-rules.md'),
  };
}

/** Every rule compat's findings cite: the compat rules, then the evidence's and the registry's. */
const compatReportRules = (): ReportRule[] => [...listRules().map(compatRule), ...EXTRA_RULES];

/** Where a change is found: the file shown, and whether that file is the new schema's own (so the change's path points into it). */
interface ChangeSite {
  file: string;
  inSchema: boolean;
  locate: Locate;
  urn?: string;
  corpus?: CorpusUrn;
}

/** A change's proof: its witness (or the other way's), and the URN's corpus counts. */
function changeEvidence(c: Change, corpus: CorpusUrn | undefined): ReportEvidence | undefined {
  const witness = c.breaking ? (c.witness ?? c.otherWitness ?? undefined) : undefined;
  const e: ReportEvidence = {
    ...(witness ? { witness: { payload: witness.payload, validUnder: witness.validUnder } } : {}),
    ...(corpus ? { corpus: { checked: corpus.checked, rejected: corpus.rejected } } : {}),
  };
  return Object.keys(e).length === 0 ? undefined : e;
}

/** A change as a finding: where it is in the new schema, what changed, and its proof, excuse and remedy. */
function changeFinding(v: Verdicts, c: Change, site: ChangeSite, prefix: string, remedy: Remedy | undefined): ReportFinding {
  const label = changeLabel(v, c);
  const e = excusedBy(v, c);
  const w = witnessLine(c);
  const tail = (e ? `. ${exceptedText(e)}` : '') + (w ? `. ${w}` : '') + (label === 'breaking' && remedy ? `. Remedy: ${remedyText(remedy)}` : '');
  const evidence = changeEvidence(c, site.corpus);
  return {
    rule: c.rule, level: label === 'breaking' ? 'error' : 'note', title: `${label} change (${c.rule})`, message: `${prefix}${changeMessage(c)}${tail}`,
    ...(site.urn === undefined ? {} : { urn: site.urn }),
    location: { file: site.file, ...site.locate(c.path), ...(site.inSchema ? { pointer: c.path } : {}) },
    ...(evidence ? { evidence } : {}),
    text: changeText(v, c),
  };
}

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
  return { line: [{ text: label.padEnd(10), tone: LABEL_TONE[label] }, '  ', where(c.path), '  ', c.message, '  ', { text: `[${c.rule}]`, tone: 'dim' }], details };
}

const problemText = (p: SchemaProblem): FindingText => ({ line: [{ text: 'error     ', tone: 'fail' }, '  ', problemLine(p)] });
/** A URN's corpus counts in text, and under them the first rejected messages with their file:line. */
const corpusLines = (u: CorpusUrn | undefined): TextLine[] => u === undefined ? [] : [
  [u.rejected > 0 ? { text: `corpus: ${corpusSentence(u)}`, tone: 'fail' } : `corpus: ${corpusSentence(u)}`],
  ...u.examples.map((e): TextLine => ['    ', corpusWhere(e), '  ', e.message]),
];
const remedyLine = (r: Remedy): TextLine => [{ text: '→', tone: 'warn' }, ' ', remedyText(r)];
/** The rollout order, in text only where something changed (identical schemas need no order). */
const rolloutLines = (r: Rollout | undefined, changes: number): TextLine[] => (r === undefined || changes === 0 ? [] : [[`rollout: ${r.sentence}`]]);

/** A change for JSON: the engine's fields (witness in full) and the exception that excuses it; its pointer into the schemas is `schemaPath`. */
function jsonChange(v: Verdicts, c: Change): object {
  const { rule, breaking, path, ...rest } = c;
  const e = excusedBy(v, c);
  return { rule, breaking, schemaPath: path, ...rest, ...(e === undefined ? {} : { excepted: { reason: e.reason, owner: e.owner, expires: e.expires, source: e.source } }) };
}

const jsonProblems = (problems: readonly SchemaProblem[]): object[] => problems.map(({ side, message, pointer, keyword, suggestion }) => ({ side, message, pointer, keyword, suggestion }));
const jsonRollout = (r: Rollout | undefined): object => (r === undefined ? {} : { rollout: { order: r.order, sentence: r.sentence } });

function jsonExceptions(v: Verdicts): object {
  const s = v.exceptions;
  if (s === undefined) return {};
  const notices = (list: Array<{ message: string }>): string[] => list.map((n) => n.message);
  return {
    exceptions: {
      file: s.file, excepted: s.outcome.suppressed.length,
      expired: notices(s.outcome.expired), stale: notices(s.outcome.stale), unused: notices(s.outcome.unused),
    },
  };
}

const rolloutFinding = (r: Rollout, file: string, prefix: string, urn?: string): ReportFinding => ({
  rule: 'rollout-order', level: 'note', title: 'rollout order', message: `${prefix}${r.sentence}`, location: { file }, ...(urn === undefined ? {} : { urn, unit: urn }),
  // Text: in the notes, after the remedy (rolloutLines).
  text: { line: null },
});

/**
 * The evidence's findings, and its test cases: one for the exceptions file (failing on an expired
 * exception) and one for the corpus (an error when a file cannot be read, failing on a rejection
 * that no unit of the command owns). `unitOf` names the unit a corpus URN's rejections belong to
 * (its URN, with --against); without it they are the corpus unit's. Given `notes` (two files),
 * text says the notices there, after the remedy, rollout and corpus counts, as one block.
 */
function evidenceFindings(v: Verdicts, results: ReportFinding[], units: ReportUnit[], unitOf?: (urn: string) => string | undefined, notes?: TextLine[]): void {
  const labelled = (label: string, tone: Tone, message: string): FindingText => {
    const line: TextLine = [{ text: label, tone }, '  ', message];
    if (notes === undefined) return { line };
    notes.push(line);
    return { line: null };
  };
  const o = v.exceptions?.outcome;
  if (v.exceptions !== undefined && o !== undefined) {
    const file = v.exceptions.file;
    const unit = `exceptions (${file})`;
    units.push({ id: unit, file, outcome: o.expired.length > 0 ? 'fail' : 'pass', text: { heading: null } });
    const location = { file };
    for (const n of o.expired) results.push({ rule: 'exception-expired', level: 'error', title: 'expired compat exception', message: n.message, location, unit, text: labelled('expired exception', 'fail', n.message) });
    for (const n of o.stale) results.push({ rule: 'exception-stale', level: 'warning', title: 'stale compat exception', message: n.message, location, unit, text: labelled('stale exception', 'warn', n.message) });
    for (const n of o.unused) results.push({ rule: 'exception-unused', level: 'note', title: 'unused compat exception', message: n.message, location, unit, text: labelled('unused exception', 'dim', n.message) });
  }
  const corpus = v.corpus;
  if (corpus === undefined) return;
  const unit = 'corpus';
  let rejected = false;
  for (const e of corpus.errors) {
    results.push({
      rule: 'corpus-unreadable', level: 'error', title: 'corpus document unreadable', message: e.message, location: { file: e.file, line: e.line, col: e.col }, unit,
      text: labelled('corpus error', 'fail', `${corpusWhere(e)}: ${e.message}`),
    });
  }
  for (const u of corpus.urns) {
    const owner = unitOf?.(u.urn);
    if (owner === undefined && u.rejected > 0) rejected = true;
    for (const e of u.examples) {
      results.push({
        rule: 'corpus-rejected', level: 'error', title: 'rejected by the new schema', message: `${u.urn}: ${e.message} (${corpusSentence(u)})`, urn: u.urn,
        location: { file: e.file, line: e.line }, evidence: { corpus: { checked: u.checked, rejected: u.rejected } }, unit: owner ?? unit,
        // Text: under the URN's corpus counts (corpusLines).
        text: { line: null },
      });
    }
  }
  // Text: the unreadable documents not listed one by one.
  const more = corpus.unreadable - corpus.errors.length;
  const moreLines: TextLine[] = more > 0 ? [[{ text: 'corpus error', tone: 'fail' }, '  ', `${more} more unreadable document(s)`]] : [];
  if (notes !== undefined) notes.push(...moreLines);
  units.push({ id: unit, outcome: corpus.unreadable > 0 ? 'error' : rejected ? 'fail' : 'pass', text: { heading: null, notes: notes === undefined ? moreLines : [] } });
}

function jsonCorpus(c: CorpusReport | undefined): object {
  if (c === undefined) return {};
  return { corpus: { documents: c.documents, ignored: c.ignored, unreadable: c.unreadable, errors: c.errors, urns: c.urns } };
}

// ---- the pull-request comment (markdown) ----------------------------------------------------------

/** The evidence's notices: expired, stale and unused exceptions, unreadable corpus documents. */
function mdNotices(v: Verdicts): MarkdownBlock[] {
  const o = v.exceptions?.outcome;
  const items: TextLine[] = [
    ...(o?.expired ?? []).map((n): TextLine => [strong('expired exception:'), ' ', n.message]),
    ...(o?.stale ?? []).map((n): TextLine => [`stale exception: ${n.message}`]),
    ...(o?.unused ?? []).map((n): TextLine => [`unused exception: ${n.message}`]),
    ...(v.corpus?.errors ?? []).map((e): TextLine => [strong('corpus error:'), ' ', code(corpusWhere(e)), `: ${e.message}`]),
  ];
  if (v.corpus && v.corpus.unreadable > v.corpus.errors.length) items.push([strong('corpus error:'), ` ${v.corpus.unreadable - v.corpus.errors.length} more unreadable document(s)`]);
  return items.length > 0 ? [{ items }] : [];
}

/** A change's lines in a cell: what changed and its rule, the exception that excuses it, its witness. */
function mdChange(v: Verdicts, ch: Change): TextLine[] {
  const lines: TextLine[] = [[ch.message, ' (', code(ch.rule), ')']];
  const e = excusedBy(v, ch);
  if (e) lines.push([exceptedText(e)]);
  const w = witnessSpans(ch);
  if (w !== undefined) lines.push(w);
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

/** Two files' pull-request comment: the verdict, a row per change, the remedy, rollout, corpus and notices, the mode. */
function pairMarkdown(view: PairVerdict): ReportMarkdown {
  const { oldFile, newFile, v, changes, problems, rollout, remedy, compatible, summary, mode, policy, note } = view;
  const files: TextLine = ['from ', code(oldFile), ' to ', code(newFile)];
  const problemNote = problems.length > 0 ? `, ${problems.length} schema problem(s)` : '';
  const exceptedNote = (summary.excepted ?? 0) > 0 ? `, ${summary.excepted} excepted` : '';
  const blocks: MarkdownBlock[] = [];
  if (problems.length > 0) blocks.push({ items: problems.map((p): TextLine => [strong('error:'), ' ', problemLine(p)]) });
  if (changes.length > 0) {
    blocks.push({ columns: ['status', 'path', 'change'], rows: changes.map((ch) => [[[mdLabel(v, ch)]], [[code(where(ch.path))]], mdChange(v, ch)]) });
  } else if (problems.length === 0) {
    blocks.push({ lines: [['No change that affects validation.']] });
  }
  if (remedy) blocks.push({ lines: [mdRemedy(remedy)] });
  if (rollout) blocks.push({ lines: [mdRollout(rollout)] });
  const corpusUrn = v.corpus?.urns[0];
  if (corpusUrn) blocks.push({ lines: mdCorpus(corpusUrn) });
  blocks.push(...mdNotices(v), ...mdNote(note));
  blocks.push({ lines: [[`Mode: ${modeWords(mode, policy)}. ${summary.breaking} breaking, ${summary.compatible} compatible change(s)${exceptedNote}.`]] });
  const heading: TextLine = compatible ? ['no breaking change ', ...files] : [`${summary.breaking} breaking change(s)${problemNote} `, ...files];
  return { heading, blocks };
}

// ---- verdicts ---------------------------------------------------------------------------------------

/** What two files' comparison found, before it is weighed: the PairVerdict's inputs. */
export type PairFindings = Pick<PairVerdict, 'oldFile' | 'newFile' | 'urn' | 'v' | 'changes' | 'problems' | 'rollout' | 'newDoc' | 'mode' | 'policy'>;

/**
 * Two files' verdict: compatible unless a change breaks unexcused, a schema cannot be compared, an
 * exception expired or the corpus fails; its counts, its summary line, and the remedy (a new URN).
 */
export function pairVerdict(found: PairFindings): PairVerdict {
  const { oldFile, newFile, urn, v, changes, problems, mode, policy } = found;
  const breaking = changes.filter((ch) => fails(v, ch)).length;
  const excepted = changes.filter((ch) => ch.breaking && !fails(v, ch)).length;
  const compatible = breaking === 0 && problems.length === 0 && !(v.exceptions?.outcome.expired.length) && !v.corpus?.failed;
  const remedy: Remedy | undefined = breaking === 0 ? undefined
    : urn === undefined ? { kind: 'new-urn' } : { kind: 'new-urn', urn, next: nextUrn(urn, new Set([urn])) };
  const others = changes.length - breaking - excepted;
  // File names come from the command line: escaped, so a name cannot forge the summary line.
  const span = `from ${clean(oldFile)} to ${clean(newFile)}`;
  const problemNote = problems.length > 0 ? `, ${problems.length} schema problem(s)` : '';
  const exceptedNote = excepted > 0 ? `, ${excepted} excepted` : '';
  const tail = `${corpusSummary(v.corpus)}${exceptionsSummary(v.exceptions)}`;
  const summary = { changes: changes.length, breaking, compatible: others, ...(v.exceptions ? { excepted } : {}), errors: problems.length };
  const words = modeWords(mode, policy);
  const summaryLine = compatible
    ? `OK: no breaking change ${span}: ${others} compatible change(s)${exceptedNote} (${words})${tail}`
    : `FAILED: ${breaking} breaking change(s)${problemNote} ${span}, ${others} compatible${exceptedNote} (${words})${tail}`;
  return { ...found, remedy, compatible, summary, summaryLine, note: levelNote(mode) };
}

/** A breaking URN whose every break an exception excuses passes, marked excepted (and needs no remedy). */
export function exceptRows(rows: Row[], v: Verdicts): void {
  for (const r of rows) {
    if (r.status !== 'breaking' || r.problems.length > 0) continue;
    if (r.changes.some((ch) => fails(v, ch))) continue;
    r.breaking = false;
    r.excepted = true;
    delete r.remedy;
  }
}

/** What the registry's comparison found, before it is weighed: the RegistryVerdict's inputs. */
export type RegistryFindings = Pick<RegistryVerdict, 'rows' | 'v' | 'manifestName' | 'manifestText' | 'docOf' | 'mode' | 'policy' | 'against' | 'working' | 'looked'>;

/** How a moved manifest was found at the ref, in words. */
const FOUND_BY: Record<Exclude<FoundBy, 'path'>, string> = {
  named: 'named with --against-registry',
  rename: 'git reports the rename',
  discovery: 'found as the working tree finds a manifest',
  urns: 'it registers the same URNs',
};

/**
 * The registry's verdict against a git ref: compatible unless a URN fails, an exception expired or
 * a corpus document is unreadable; the URNs counted by status, the summary line, why it fails.
 */
export function registryVerdict(found: RegistryFindings): RegistryVerdict {
  const { rows, v, mode, policy, against: at } = found;
  const expired = v.exceptions?.outcome.expired.length ?? 0;
  const compatible = rows.every((r) => !rowFails(r)) && expired === 0 && !(v.corpus && v.corpus.unreadable > 0);
  const count = (st: UrnReport['status']): number => rows.filter((r) => r.status === st && !r.excepted).length;
  const summary = {
    urns: rows.length, breaking: count('breaking'), compatible: count('compatible'), added: count('added'), removed: count('removed'),
    unchanged: count('unchanged'), errors: count('invalid'),
    ...(v.exceptions ? { excepted: rows.filter((r) => r.excepted).length } : {}),
    ...(v.corpus ? { corpusRejected: v.corpus.urns.reduce((n, u) => n + u.rejected, 0) } : {}),
  };
  const failing = rows.filter(rowFails).length;
  const against = `${at.ref} (${at.commit.slice(0, 12)})`;
  const invalidNote = summary.errors > 0 ? `, ${summary.errors} invalid` : '';
  const exceptedNote = summary.excepted ? `, ${summary.excepted} excepted` : '';
  const counts = `${summary.breaking} breaking, ${summary.compatible} compatible, ${summary.added} added, ${summary.removed} removed, ${summary.unchanged} unchanged${invalidNote}${exceptedNote}`;
  const tail = `${corpusSummary(v.corpus)}${exceptionsSummary(v.exceptions)}`;
  const why = failing === 0 && expired > 0 ? `${expired} exception(s) expired` : `${failing} URN(s) fail`;
  const words = modeWords(mode, policy);
  const summaryLine = compatible
    ? `OK: no breaking change against ${against}: ${counts} (${words})${tail}`
    : `FAILED: ${why} against ${against}: ${counts} (${words})${tail}`;
  return {
    ...found, listed: rows.filter((r) => r.status !== 'unchanged'), compatible, summary, summaryLine, why, counted: counts + tail, note: levelNote(mode),
    absent: at.found ? undefined : `no registry at ${at.ref} for ${found.working}${found.looked ? ` (${found.looked})` : ''}: a new registry, every URN is added (--allow-new-registry)`,
    moved: at.found && at.foundBy !== undefined && at.foundBy !== 'path' ? `compared with ${at.registry} at ${at.ref} (${FOUND_BY[at.foundBy]}), URN by URN` : undefined,
  };
}

/** Two files' Report: a unit per change (failing when it breaks, unexcused) and one per schema problem (an error). */
export async function pairReport(view: PairVerdict, about: ToolInfo): Promise<Report> {
  const { oldFile, newFile, v, changes, problems, rollout, remedy, compatible, summary, summaryLine, newDoc, mode, policy, urn, note } = view;
  const results: ReportFinding[] = [];
  const units: ReportUnit[] = [];
  problems.forEach((p, i) => {
    const file = p.side === 'old' ? oldFile : newFile;
    const unit = `schema problem ${i + 1} (${p.side})`;
    units.push({ id: unit, file, outcome: 'error', text: { heading: null } });
    results.push({ rule: 'schema-problem', level: 'error', title: 'schema problem', message: problemLine(p), location: { file }, unit, text: problemText(p) });
  });
  const locate = await locator(newDoc, changes.length > 0);
  const file = newDoc?.name ?? newFile;
  // Two files: the new one is the schema itself, and the corpus (if any) is --urn's.
  const site: ChangeSite = { file, inSchema: true, locate, corpus: v.corpus?.urns[0] };
  const named = new Set<string>();
  changes.forEach((ch) => {
    // The rule, where, and what (two required-added at /required differ by their subject).
    const base = `${ch.rule} at ${where(ch.path)}${ch.subject === undefined ? '' : ` (${JSON.stringify(ch.subject)})`}`;
    let unit = base;
    for (let n = 2; named.has(unit); n++) unit = `${base} #${n}`;
    named.add(unit);
    units.push({ id: unit, file, outcome: fails(v, ch) ? 'fail' : 'pass', text: { heading: null } });
    results.push({ ...changeFinding(v, ch, site, '', remedy), unit });
  });
  if (rollout) results.push(rolloutFinding(rollout, file, ''));
  // Text after the changes: the remedy, the rollout, the corpus counts, the evidence's notices, the mode's note.
  const notes: TextLine[] = [...(remedy ? [remedyLine(remedy)] : []), ...rolloutLines(rollout, changes.length), ...corpusLines(v.corpus?.urns[0])];
  evidenceFindings(v, results, units, undefined, notes);
  if (note) notes.push([{ text: note, tone: 'dim' }]);
  const fields = {
    compatible, mode, policy, ...(urn === undefined ? {} : { urn }),
    changes: changes.map((ch) => jsonChange(v, ch)), problems: jsonProblems(problems), ...jsonRollout(rollout),
    ...(remedy ? { remedy: remedyText(remedy) } : {}), ...jsonCorpus(v.corpus), ...jsonExceptions(v),
  };
  return {
    tool: { ...about, rules: compatReportRules() }, command: 'compat', ok: compatible, summary, summaryLine, findings: results, artifacts: [file], units,
    text: { notes }, json: { fields }, markdown: pairMarkdown(view),
  };
}

const MARK: Record<Row['status'], string> = { breaking: '✗', invalid: '✗', removed: '-', compatible: '✓', added: '+', unchanged: '=' };
/** A URN's mark: ✗ when it fails the gate, ! when every break is excepted, else its status's. */
const rowMark = (r: Row): string => (rowFails(r) ? '✗' : r.excepted ? '!' : MARK[r.status]);
const rowStatus = (r: Row): string => (r.excepted ? 'breaking, excepted' : `${r.status}${r.deprecated ? ' (deprecated)' : ''}`);

/** A URN's heading in text: its mark, URN, status and schema file; an unchanged URN is not shown. */
function rowHeading(r: Row, file: string | undefined): TextLine | null {
  if (r.status === 'unchanged') return null;
  const mark = rowMark(r);
  const tone: Tone | undefined = rowFails(r) ? 'fail' : r.excepted ? 'warn' : r.status === 'compatible' ? 'pass' : undefined;
  return [tone === undefined ? mark : { text: mark, tone }, ' ', { text: r.urn, tone: 'bold' }, '  ', rowStatus(r), ...(file === undefined ? [] : ['  ', { text: file, tone: 'dim' as const }])];
}

/** What text says of a URN after its findings: that only annotations changed, the remedy, the rollout, the corpus counts. */
function rowNotes(r: Row): TextLine[] {
  const notes: TextLine[] = [];
  if (r.status === 'compatible' && r.changes.length === 0) notes.push([{ text: 'annotations only: no change that affects validation', tone: 'dim' }]);
  if (r.remedy) notes.push(remedyLine(r.remedy));
  notes.push(...rolloutLines(r.rollout, r.changes.length), ...corpusLines(r.corpus));
  return notes;
}

/** A URN's row in the pull-request comment: the URN, its status, and its problems, changes, remedy, rollout and corpus. */
function mdRow(v: Verdicts, r: Row): (readonly TextLine[])[] {
  const status: TextLine = rowFails(r) ? [strong(`${rowMark(r)} ${r.status}`)] : [`${rowMark(r)} ${rowStatus(r)}`];
  const lines: TextLine[] = [
    ...r.problems.map((p): TextLine => [strong('error:'), ' ', problemLine(p)]),
    ...r.changes.flatMap((ch) => {
      const [first, ...more] = mdChange(v, ch);
      return [[mdLabel(v, ch), ' ', code(where(ch.path)), ' ', ...first!], ...more];
    }),
  ];
  if (r.status === 'compatible' && r.changes.length === 0) lines.push(['annotations only: no change that affects validation']);
  if (r.remedy) lines.push(mdRemedy(r.remedy));
  if (r.rollout) lines.push(mdRollout(r.rollout));
  if (r.corpus) lines.push(...mdCorpus(r.corpus));
  return [[[code(r.urn)]], [status], lines];
}

/** The registry's pull-request comment: the verdict, a row per changed URN, the notices, the counts and the ref. */
function registryMarkdown(view: RegistryVerdict): ReportMarkdown {
  const { listed, v, compatible, absent, moved, mode, policy, against, why, counted, note } = view;
  const ref = code(against.ref);
  const blocks: MarkdownBlock[] = [];
  if (absent) blocks.push({ lines: [['No registry at ', ref, ' for ', code(view.working), ': a new registry, every URN is added (', code('--allow-new-registry'), ').']] });
  if (moved && against.foundBy !== undefined && against.foundBy !== 'path') {
    blocks.push({ lines: [['Compared with ', code(against.registry), ' at ', ref, ` (${FOUND_BY[against.foundBy]}), URN by URN.`]] });
  }
  if (listed.length > 0) blocks.push({ columns: ['URN', 'status', 'changes'], rows: listed.map((r) => mdRow(v, r)) });
  else blocks.push({ lines: [['No URN changed.']] });
  blocks.push(...mdNotices(v), ...mdNote(note));
  blocks.push({ lines: [[`${counted}; mode ${modeWords(mode, policy)}; against `, ref, ' at ', code(against.commit.slice(0, 12)), '.']] });
  return { heading: [compatible ? 'no breaking change' : why, ' against ', ref], blocks };
}

function jsonRow(v: Verdicts, r: Row): object {
  return {
    urn: r.urn, status: r.status, breaking: rowFails(r), changes: r.changes.map((ch) => jsonChange(v, ch)),
    ...(r.problems.length > 0 ? { problems: jsonProblems(r.problems) } : {}),
    ...(r.deprecated ? { deprecated: true } : {}),
    ...(r.excepted ? { excepted: true } : {}),
    ...(r.remedy ? { remedy: remedyText(r.remedy) } : {}),
    ...jsonRollout(r.rollout),
    ...(r.corpus ? { corpus: { checked: r.corpus.checked, rejected: r.corpus.rejected, examples: r.corpus.examples } } : {}),
  };
}

/** The registry's Report: a unit per URN, failing when it fails the gate, an error when its schema is invalid. */
export async function registryReport(view: RegistryVerdict, about: ToolInfo): Promise<Report> {
  const { rows, listed, v, compatible, summary, summaryLine, absent, moved, manifestName, manifestText, docOf, mode, policy, against, note } = view;
  const results: ReportFinding[] = [];
  const artifacts: string[] = [];
  const units: ReportUnit[] = rows.map((r) => ({
    id: r.urn, file: docOf(r)?.name ?? manifestName, outcome: r.status === 'invalid' ? 'error' : rowFails(r) ? 'fail' : 'pass',
    text: { heading: rowHeading(r, r.file?.shown), notes: r.status === 'unchanged' ? [] : rowNotes(r) }, data: jsonRow(v, r),
  }));
  // Text: the lead line, before the URNs it explains.
  if (absent) results.push({ rule: 'registry-absent', level: 'note', title: 'registry absent', message: absent, location: { file: manifestName }, text: { line: null } });
  if (moved) results.push({ rule: 'registry-moved', level: 'note', title: 'registry moved', message: moved, location: { file: manifestName }, text: { line: null } });
  const manifest = await locator({ name: manifestName, text: manifestText }, true);
  for (const r of listed) {
    if (r.status === 'added' || r.status === 'removed') {
      // Both are about the manifest: the new entry, or the list the entry was removed from.
      const pointer = r.status === 'added' ? `/schemas/${r.index}/urn` : '/schemas';
      const what = r.status === 'added' ? 'added' : r.deprecated ? 'removed (it was deprecated)' : 'removed';
      const rem = r.remedy ? `. Remedy: ${remedyText(r.remedy)}` : '';
      // Text: the URN's heading says it.
      results.push({ rule: `urn-${r.status}`, level: r.breaking ? 'error' : 'note', title: `URN ${r.status}`, message: `${r.urn}: ${what}${rem}`, urn: r.urn, location: { file: manifestName, ...manifest(pointer), pointer }, unit: r.urn, text: { line: null } });
      continue;
    }
    const doc = docOf(r);
    const file = doc?.name ?? manifestName;
    if (doc) artifacts.push(doc.name);
    for (const p of r.problems) {
      results.push({ rule: 'schema-problem', level: 'error', title: 'schema problem', message: `${r.urn}: ${problemLine(p)}`, urn: r.urn, location: { file: p.side === 'new' && doc ? doc.name : manifestName }, unit: r.urn, text: problemText(p) });
    }
    const site: ChangeSite = { file, inSchema: doc !== undefined, locate: await locator(doc, r.changes.length > 0), urn: r.urn, corpus: r.corpus };
    for (const ch of r.changes) results.push({ ...changeFinding(v, ch, site, `${r.urn}: `, r.remedy), unit: r.urn });
    if (r.rollout) results.push(rolloutFinding(r.rollout, file, `${r.urn}: `, r.urn));
  }
  const urns = new Set(rows.map((r) => r.urn));
  evidenceFindings(v, results, units, (urn) => (urns.has(urn) ? urn : undefined));
  const corpus = v.corpus ? { corpus: { documents: v.corpus.documents, ignored: v.corpus.ignored, unreadable: v.corpus.unreadable, errors: v.corpus.errors } } : {};
  return {
    tool: { ...about, rules: compatReportRules() }, command: 'compat', ok: compatible, summary, summaryLine, findings: results, artifacts, units,
    text: { lead: [...(absent ? [[{ text: absent, tone: 'warn' as const }]] : []), ...(moved ? [[{ text: moved, tone: 'dim' as const }]] : [])], notes: note ? [[{ text: note, tone: 'dim' }]] : [] },
    json: { fields: { compatible, mode, policy, against }, units: 'urns', after: { ...corpus, ...jsonExceptions(v) } },
    markdown: registryMarkdown(view),
  };
}
