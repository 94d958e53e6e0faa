import {
  listRules, remedyText, previewWitness,
  type Change, type CompatLevel, type CompatRule, type CompatPolicy, type Remedy, type Rollout, type SchemaProblem, type UrnReport, type UrnStatus,
  type Witness, corpusSentence, corpusWhere, exceptedText, type CorpusReport, type CorpusUrn, type ExceptionsState,
} from '../../compat/index.js';
import type { Position } from '../../registry/index.js';
import { pointerLabel } from '../../validator/index.js';
import { clean, type Colours, type Out } from '../output.js';
import type { Report, ReportFinding, ReportRule, ReportUnit } from '../../report/model.js';
import { docsPage, reportFormats, tool, type ViewFormatter } from './emit.js';
import { md, mdCode } from '../../report/markdown.js';

/*
 * compat's formats. The command computes a view of its verdict (PairView for two schema files,
 * RegistryView for --against) and renders it with the formatter of the format asked for
 * (PAIR_FORMATS, REGISTRY_FORMATS): the command never switches on the format itself.
 */

export type CompatFormat = 'text' | 'json' | 'github' | 'markdown' | 'sarif' | 'junit';

export interface Settings {
  level: CompatLevel;
  policy: CompatPolicy;
  format: CompatFormat;
  allowKeywords: ReadonlySet<string>;
}

/** One schema document as the renderers need it: its name as shown, and its text for positions. */
export interface Doc {
  name: string;
  text: string;
}

const noPositions = (): Position | undefined => undefined;
const where = pointerLabel;

/** Loads the positions module (and with it the YAML and JSONC parsers) only when a position is wanted. */
async function positionsFor(text: string, name: string): Promise<{ of(pointer: string): Position }> {
  const { SourcePositions } = await import('../../registry/positions.js');
  return SourcePositions.forFile(text, name);
}

const problemLine = (p: SchemaProblem): string => p.message;


/** Two schema files compared: everything their formats show. */
export interface PairView {
  oldFile: string;
  newFile: string;
  /** --urn */
  urn: string | undefined;
  s: Settings;
  v: Verdicts;
  changes: readonly Change[];
  problems: readonly SchemaProblem[];
  rollout: Rollout | undefined;
  remedy: Remedy | undefined;
  compatible: boolean;
  breakingChanges: number;
  excepted: number;
  others: number;
  /** The summary line. */
  summary: string;
  /** The new schema's source, for positions. */
  newDoc: Doc | undefined;
  corpusUrn: CorpusUrn | undefined;
  note: string;
  problemNote: string;
  exceptedNote: string;
}

/** The registry compared with a git ref: everything its formats show. */
export interface RegistryView {
  ref: string;
  atCommit: string;
  manifestPath: string;
  /** Whether the manifest exists at the ref. */
  found: boolean;
  rows: readonly Row[];
  /** The rows that changed. */
  listed: readonly Row[];
  v: Verdicts;
  s: Settings;
  compatible: boolean;
  summary: Record<string, number>;
  verdict: string;
  why: string;
  counts: string;
  tail: string;
  commit: string;
  absent: string | undefined;
  manifestName: string;
  manifestText: string;
  note: string;
  docOf: (r: UrnReport) => Doc | undefined;
}

// ---- rendering -----------------------------------------------------------------------------------

const changeMessage = (c: Change): string => `${where(c.path)}: ${c.message}`;

const plain = (s: string): string => s;
const other = (w: Witness): 'old' | 'new' => (w.validUnder === 'old' ? 'new' : 'old');

/**
 * The proof of a breaking change on one line: its witness (a payload valid under one schema and
 * rejected by the other, previewed), or why there is none and the other direction's witness.
 * `code` wraps a payload, `text` the words (markdown escapes them).
 */
export function witnessLine(c: Change, code: (s: string) => string = plain, text: (s: string) => string = plain): string | undefined {
  if (c.witness === undefined) return undefined;
  // Previewed around the place that breaks: a long payload is never cut before it.
  const shown = (w: Witness): string => `${text(`valid under ${w.validUnder}, rejected by ${other(w)}`)}): ${code(previewWitness(w.payload, c.path, c.subject))}`;
  if (c.witness !== null) return `${text('witness (')}${shown(c.witness)}`;
  const why = c.witnessReason === 'policy'
    ? 'no payload shows it: policy (a break by the registry\'s rules, not by data)'
    : c.witnessReason === 'budget' ? 'no witness: the search budget was spent on earlier changes (see docs/cli/compat.md)'
    : 'no witness found';
  if (c.otherWitness === undefined) return text(why);
  return `${text(`${why}; the other way (`)}${shown(c.otherWitness)}`;
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

const excusedBy = (v: Verdicts, c: Change) => v.exceptions?.excused.get(c);
/** A breaking change no exception excuses: it fails the gate. */
export const fails = (v: Verdicts, c: Change): boolean => c.breaking && excusedBy(v, c) === undefined;

function changeLabel(v: Verdicts, c: Change): 'breaking' | 'excepted' | 'compatible' {
  return !c.breaking ? 'compatible' : excusedBy(v, c) ? 'excepted' : 'breaking';
}

/**
 * A change for JSON: the engine's fields (witness in full) and the exception that excuses it. Its
 * pointer into the schemas is `schemaPath`, the name validate gives a violation's (docs/output.md).
 */
function jsonChange(v: Verdicts, c: Change): object {
  const { rule, breaking, path, ...rest } = c;
  const e = excusedBy(v, c);
  return { rule, breaking, schemaPath: path, ...rest, ...(e === undefined ? {} : { excepted: { reason: e.reason, owner: e.owner, expires: e.expires, source: e.source } }) };
}

function jsonRollout(r: Rollout | undefined): object {
  return r === undefined ? {} : { rollout: { order: r.order, sentence: r.sentence } };
}

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

function jsonCorpus(c: CorpusReport | undefined): object {
  if (c === undefined) return {};
  return { corpus: { documents: c.documents, ignored: c.ignored, unreadable: c.unreadable, errors: c.errors, urns: c.urns } };
}

/** The notices about exceptions and the corpus as a whole, for text output. */
function textNotices(v: Verdicts, out: Out, c: Colours): void {
  const o = v.exceptions?.outcome;
  for (const n of o?.expired ?? []) out.line(`${c.red('expired exception')}  ${clean(n.message)}`);
  for (const n of o?.stale ?? []) out.line(`${c.yellow('stale exception')}  ${clean(n.message)}`);
  for (const n of o?.unused ?? []) out.line(`${c.dim('unused exception')}  ${clean(n.message)}`);
  const corpus = v.corpus;
  if (corpus === undefined) return;
  for (const e of corpus.errors) out.line(`${c.red('corpus error')}  ${clean(`${corpusWhere(e)}: ${e.message}`)}`);
  if (corpus.unreadable > corpus.errors.length) out.line(`${c.red('corpus error')}  ${corpus.unreadable - corpus.errors.length} more unreadable document(s)`);
}

function mdNotices(v: Verdicts, out: Out): void {
  const o = v.exceptions?.outcome;
  const lines = [
    ...(o?.expired ?? []).map((n) => `- **expired exception:** ${md(n.message)}`),
    ...(o?.stale ?? []).map((n) => `- stale exception: ${md(n.message)}`),
    ...(o?.unused ?? []).map((n) => `- unused exception: ${md(n.message)}`),
    ...(v.corpus?.errors ?? []).map((e) => `- **corpus error:** ${mdCode(corpusWhere(e))}: ${md(e.message)}`),
  ];
  if (v.corpus && v.corpus.unreadable > v.corpus.errors.length) lines.push(`- **corpus error:** ${v.corpus.unreadable - v.corpus.errors.length} more unreadable document(s)`);
  for (const l of lines) out.line(l);
  if (lines.length > 0) out.line();
}

/** Text lines under a change: its witness, or the exception that excuses it. */
function textChangeLines(v: Verdicts, ch: Change, indent: string, c: Colours): string[] {
  const lines: string[] = [];
  const pad = `${indent}${' '.repeat(12)}`;
  const e = excusedBy(v, ch);
  if (e) lines.push(`${pad}${c.yellow(clean(exceptedText(e)))}`);
  const w = ch.breaking ? witnessLine(ch) : undefined;
  if (w !== undefined) lines.push(`${pad}${c.dim(clean(w))}`);
  return lines;
}

function textCorpus(u: CorpusUrn | undefined, indent: string, out: Out, c: Colours): void {
  if (u === undefined) return;
  const sentence = `corpus: ${corpusSentence(u)}`;
  out.line(`${indent}${u.rejected > 0 ? c.red(sentence) : sentence}`);
  for (const e of u.examples) out.line(`${indent}    ${clean(corpusWhere(e))}  ${clean(e.message)}`);
}

function mdChangeCells(v: Verdicts, ch: Change): string[] {
  const label = changeLabel(v, ch);
  const status = label === 'breaking' ? '**breaking**' : label;
  const lines = [`${status} ${mdCode(where(ch.path))} ${md(ch.message)} (${mdCode(ch.rule)})`];
  const e = excusedBy(v, ch);
  if (e) lines.push(md(exceptedText(e)));
  const w = ch.breaking ? witnessLine(ch, mdCode, md) : undefined;
  if (w !== undefined) lines.push(w);
  return lines;
}

const mdCorpus = (u: CorpusUrn): string[] => [
  `${u.rejected > 0 ? '**Corpus:**' : 'Corpus:'} ${md(corpusSentence(u))}`,
  ...u.examples.map((e) => `${mdCode(corpusWhere(e))} ${md(e.message)}`),
];

// ---- the Report: github, SARIF and JUnit -------------------------------------------------------

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
  { id: 'registry-absent', description: 'The registry manifest does not exist at the git ref compared with: every URN is added.', help: 'Nothing to do if the registry is new; otherwise check --against and the manifest path.', helpUri: COMPAT_PAGE },
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

const ciRules = (): ReportRule[] => [...listRules().map(compatRule), ...EXTRA_RULES];

/** A change as a finding: where it is in the new schema, what changed, and its proof, excuse and remedy. */
function changeFinding(v: Verdicts, c: Change, file: string, locate: Locate, prefix: string, remedy: Remedy | undefined): ReportFinding {
  const label = changeLabel(v, c);
  const e = excusedBy(v, c);
  const w = c.breaking ? witnessLine(c) : undefined;
  const tail = (e ? `. ${exceptedText(e)}` : '') + (w ? `. ${w}` : '') + (label === 'breaking' && remedy ? `. Remedy: ${remedyText(remedy)}` : '');
  return { ruleId: c.rule, level: label === 'breaking' ? 'error' : 'note', title: `${label} change (${c.rule})`, message: `${prefix}${changeMessage(c)}${tail}`, file, ...locate(c.path) };
}

const rolloutFinding = (r: Rollout, file: string, prefix: string, unit?: string): ReportFinding => ({
  ruleId: 'rollout-order', level: 'note', title: 'rollout order', message: `${prefix}${r.sentence}`, file, ...(unit === undefined ? {} : { unit }),
});

/**
 * The evidence's findings, and its test cases: one for the exceptions file (failing on an expired
 * exception) and one for the corpus (an error when a file cannot be read, failing on a rejection
 * that no unit of the command owns). `unitOf` names the unit a corpus URN's rejections belong to
 * (its URN, with --against); without it they are the corpus unit's.
 */
function evidenceFindings(v: Verdicts, results: ReportFinding[], units: ReportUnit[], unitOf?: (urn: string) => string | undefined): void {
  const o = v.exceptions?.outcome;
  if (v.exceptions !== undefined && o !== undefined) {
    const file = v.exceptions.file;
    const unit = `exceptions (${file})`;
    units.push({ id: unit, file, outcome: o.expired.length > 0 ? 'fail' : 'pass' });
    for (const n of o.expired) results.push({ ruleId: 'exception-expired', level: 'error', title: 'expired compat exception', message: n.message, file, unit });
    for (const n of o.stale) results.push({ ruleId: 'exception-stale', level: 'warning', title: 'stale compat exception', message: n.message, file, unit });
    for (const n of o.unused) results.push({ ruleId: 'exception-unused', level: 'note', title: 'unused compat exception', message: n.message, file, unit });
  }
  const corpus = v.corpus;
  if (corpus === undefined) return;
  const unit = 'corpus';
  let rejected = false;
  for (const e of corpus.errors) results.push({ ruleId: 'corpus-unreadable', level: 'error', title: 'corpus document unreadable', message: e.message, file: e.file, line: e.line, col: e.col, unit });
  for (const u of corpus.urns) {
    const owner = unitOf?.(u.urn);
    if (owner === undefined && u.rejected > 0) rejected = true;
    for (const e of u.examples) {
      results.push({ ruleId: 'corpus-rejected', level: 'error', title: 'rejected by the new schema', message: `${u.urn}: ${e.message} (${corpusSentence(u)})`, file: e.file, line: e.line, unit: owner ?? unit });
    }
  }
  units.push({ id: unit, outcome: corpus.unreadable > 0 ? 'error' : rejected ? 'fail' : 'pass' });
}

// ---- shared steps --------------------------------------------------------------------------------

export const levelNote = (s: Settings): string => (s.level === 'none' ? 'level none: no change breaks, nothing is gated on the rules' : '');
export const modeWords = (s: Settings): string => (s.policy === 'bqschema' ? s.level : `${s.level}, policy ${s.policy}`);

export function corpusSummary(corpus: CorpusReport | undefined): string {
  if (corpus === undefined) return '';
  const rejected = corpus.urns.reduce((n, u) => n + u.rejected, 0);
  const checked = corpus.urns.reduce((n, u) => n + u.checked, 0);
  const unreadable = corpus.unreadable > 0 ? `, ${corpus.unreadable} unreadable` : '';
  return `; corpus: ${checked} message(s) checked, ${rejected} rejected${unreadable}`;
}

export function exceptionsSummary(e: ExceptionsState | undefined): string {
  if (e === undefined) return '';
  const o = e.outcome;
  return `; exceptions: ${o.suppressed.length} excepted, ${o.expired.length} expired, ${o.stale.length} stale, ${o.unused.length} unused`;
}


const MARK: Record<UrnStatus, string> = { breaking: '✗', invalid: '✗', removed: '-', compatible: '✓', added: '+', unchanged: '=' };

/** A URN's report with what the exceptions and the corpus made of it. */
export interface Row extends UrnReport {
  /** Every breaking change is excused by an exception. */
  excepted?: boolean;
  corpus?: CorpusUrn;
}

/** A URN fails the gate: an unexcused break, a problem, or corpus messages its new schema rejects. */
export const rowFails = (r: Row): boolean => r.breaking || (r.corpus?.rejected ?? 0) > 0;
const mark = (r: Row): string => (rowFails(r) ? '✗' : r.excepted ? '!' : MARK[r.status]);

async function pairJson(view: PairView, out: Out, c: Colours): Promise<void> {
  const { urn, s, v, changes, problems, rollout, remedy, compatible, breakingChanges, excepted, others } = view;
  out.line(JSON.stringify({
    ok: compatible, compatible, mode: s.level, policy: s.policy, ...(urn === undefined ? {} : { urn: urn }),
    summary: { changes: changes.length, breaking: breakingChanges, compatible: others, ...(v.exceptions ? { excepted } : {}), errors: problems.length },
    changes: changes.map((ch) => jsonChange(v, ch)),
    problems: problems.map(({ side, message, pointer, keyword, suggestion }) => ({ side, message, pointer, keyword, suggestion })),
    ...jsonRollout(rollout),
    ...(remedy ? { remedy: remedyText(remedy) } : {}),
    ...jsonCorpus(v.corpus), ...jsonExceptions(v),
  }, null, 2));
}

/** Two files' Report: a unit per change (failing when it breaks, unexcused) and one per schema problem (an error). */
async function pairReport(view: PairView): Promise<Report> {
  const { oldFile, newFile, v, changes, problems, rollout, remedy, compatible, summary, newDoc } = view;
  const results: ReportFinding[] = [];
  const units: ReportUnit[] = [];
  problems.forEach((p, i) => {
    const file = p.side === 'old' ? oldFile : newFile;
    const unit = `schema problem ${i + 1} (${p.side})`;
    units.push({ id: unit, file, outcome: 'error' });
    results.push({ ruleId: 'schema-problem', level: 'error', title: 'schema problem', message: problemLine(p), file, unit });
  });
  const locate = await locator(newDoc, changes.length > 0);
  const file = newDoc?.name ?? newFile;
  const named = new Set<string>();
  changes.forEach((ch) => {
    // The rule, where, and what (two required-added at /required differ by their subject).
    const base = `${ch.rule} at ${where(ch.path)}${ch.subject === undefined ? '' : ` (${JSON.stringify(ch.subject)})`}`;
    let unit = base;
    for (let n = 2; named.has(unit); n++) unit = `${base} #${n}`;
    named.add(unit);
    units.push({ id: unit, file, outcome: fails(v, ch) ? 'fail' : 'pass' });
    results.push({ ...changeFinding(v, ch, file, locate, '', remedy), unit });
  });
  if (rollout) results.push(rolloutFinding(rollout, file, ''));
  evidenceFindings(v, results, units);
  return { tool: tool(ciRules()), command: 'compat', ok: compatible, summaryLine: summary, results, artifacts: [file], units };
}

async function pairMarkdown(view: PairView, out: Out, c: Colours): Promise<void> {
  const { oldFile, newFile, s, v, changes, problems, rollout, remedy, compatible, breakingChanges, others, corpusUrn, note, problemNote, exceptedNote } = view;
  const files = `from ${mdCode(oldFile)} to ${mdCode(newFile)}`;
  const heading = compatible ? `no breaking change ${files}` : `${breakingChanges} breaking change(s)${problemNote} ${files}`;
  out.line(`### bqschema compat: ${heading}`);
  out.line();
  for (const p of problems) out.line(`- **error:** ${md(problemLine(p))}`);
  if (problems.length > 0) out.line();
  if (changes.length > 0) {
    out.line('| status | path | change |');
    out.line('| --- | --- | --- |');
    for (const ch of changes) {
      const label = changeLabel(v, ch);
      const [, ...more] = mdChangeCells(v, ch);
      const cell = [`${md(ch.message)} (${mdCode(ch.rule)})`, ...more].join('<br>');
      out.line(`| ${label === 'breaking' ? '**breaking**' : label} | ${mdCode(where(ch.path))} | ${cell} |`);
    }
    out.line();
  } else if (problems.length === 0) {
    out.line('No change that affects validation.');
    out.line();
  }
  if (remedy) {
    out.line(`**Remedy:** ${remedyText(remedy, mdCode)}`);
    out.line();
  }
  if (rollout) {
    out.line(`**Rollout:** ${md(rollout.sentence)}`);
    out.line();
  }
  if (corpusUrn) {
    out.line(mdCorpus(corpusUrn).join('<br>'));
    out.line();
  }
  mdNotices(v, out);
  if (note) {
    out.line(md(note[0]!.toUpperCase() + note.slice(1)) + '.');
    out.line();
  }
  out.line(`Mode: ${md(modeWords(s))}. ${breakingChanges} breaking, ${others} compatible change(s)${exceptedNote}.`);
}

async function pairText(view: PairView, out: Out, c: Colours): Promise<void> {
  const { v, changes, problems, rollout, remedy, compatible, summary, corpusUrn, note } = view;
  for (const p of problems) out.line(`${c.red('error     ')}  ${clean(problemLine(p))}`);
  for (const ch of changes) {
    const l = changeLabel(v, ch);
    const label = l === 'breaking' ? c.red('breaking  ') : l === 'excepted' ? c.yellow('excepted  ') : c.dim('compatible');
    out.line(`${label}  ${clean(where(ch.path))}  ${clean(ch.message)}  ${c.dim(`[${ch.rule}]`)}`);
    for (const l2 of textChangeLines(v, ch, '', c)) out.line(l2);
  }
  if (remedy) out.line(`${c.yellow('→')} ${remedyText(remedy)}`);
  if (rollout && changes.length > 0) out.line(`rollout: ${rollout.sentence}`);
  textCorpus(corpusUrn, '', out, c);
  textNotices(v, out, c);
  if (note) out.line(c.dim(note));
  if (changes.length > 0 || problems.length > 0 || v.corpus || v.exceptions || note) out.line();
  out.line(compatible ? c.green(clean(summary)) : c.red(clean(summary)));
}

async function registryJson(view: RegistryView, out: Out, c: Colours): Promise<void> {
  const { ref, atCommit, manifestPath, found, rows, v, s, compatible, summary } = view;
  const urns = rows.map((r) => ({
    urn: r.urn, status: r.status, breaking: rowFails(r), changes: r.changes.map((ch) => jsonChange(v, ch)),
    ...(r.problems.length > 0 ? { problems: r.problems.map(({ side, message, pointer, keyword, suggestion }) => ({ side, message, pointer, keyword, suggestion })) } : {}),
    ...(r.deprecated ? { deprecated: true } : {}),
    ...(r.excepted ? { excepted: true } : {}),
    ...(r.remedy ? { remedy: remedyText(r.remedy) } : {}),
    ...jsonRollout(r.rollout),
    ...(r.corpus ? { corpus: { checked: r.corpus.checked, rejected: r.corpus.rejected, examples: r.corpus.examples } } : {}),
  }));
  const atRef = { ref, commit: atCommit, registry: manifestPath, found: found };
  const corpus = v.corpus ? { corpus: { documents: v.corpus.documents, ignored: v.corpus.ignored, unreadable: v.corpus.unreadable, errors: v.corpus.errors } } : {};
  out.line(JSON.stringify({ ok: compatible, compatible, mode: s.level, policy: s.policy, against: atRef, summary, urns, ...corpus, ...jsonExceptions(v) }, null, 2));
}

/** The registry's Report: a unit per URN, failing when it fails the gate, an error when its schema is invalid. */
async function registryReport(view: RegistryView): Promise<Report> {
  const { rows, listed, v, compatible, verdict, absent, manifestName, manifestText, docOf } = view;
  const results: ReportFinding[] = [];
  const artifacts: string[] = [];
  const units: ReportUnit[] = rows.map((r) => ({
    id: r.urn, file: docOf(r)?.name ?? manifestName, outcome: r.status === 'invalid' ? 'error' : rowFails(r) ? 'fail' : 'pass',
  }));
  if (absent) results.push({ ruleId: 'registry-absent', level: 'note', title: 'registry absent', message: absent, file: manifestName });
  const manifest = await locator({ name: manifestName, text: manifestText }, true);
  for (const r of listed) {
    if (r.status === 'added' || r.status === 'removed') {
      // Both are about the manifest: the new entry, or the list the entry was removed from.
      const pos = manifest(r.status === 'added' ? `/schemas/${r.index}/urn` : '/schemas');
      const what = r.status === 'added' ? 'added' : r.deprecated ? 'removed (it was deprecated)' : 'removed';
      const rem = r.remedy ? `. Remedy: ${remedyText(r.remedy)}` : '';
      results.push({ ruleId: `urn-${r.status}`, level: r.breaking ? 'error' : 'note', title: `URN ${r.status}`, message: `${r.urn}: ${what}${rem}`, file: manifestName, ...pos, unit: r.urn });
      continue;
    }
    const doc = docOf(r);
    const file = doc?.name ?? manifestName;
    if (doc) artifacts.push(doc.name);
    for (const p of r.problems) {
      results.push({ ruleId: 'schema-problem', level: 'error', title: 'schema problem', message: `${r.urn}: ${problemLine(p)}`, file: p.side === 'new' && doc ? doc.name : manifestName, unit: r.urn });
    }
    const locate = await locator(doc, r.changes.length > 0);
    for (const ch of r.changes) results.push({ ...changeFinding(v, ch, file, locate, `${r.urn}: `, r.remedy), unit: r.urn });
    if (r.rollout) results.push(rolloutFinding(r.rollout, file, `${r.urn}: `, r.urn));
  }
  const urns = new Set(rows.map((r) => r.urn));
  evidenceFindings(v, results, units, (urn) => (urns.has(urn) ? urn : undefined));
  return { tool: tool(ciRules()), command: 'compat', ok: compatible, summaryLine: verdict, results, artifacts, units };
}

async function registryMarkdown(view: RegistryView, out: Out, c: Colours): Promise<void> {
  const { ref, manifestPath, listed, v, s, compatible, why, counts, tail, commit, absent, note } = view;
  const heading = compatible ? 'no breaking change' : why;
  out.line(`### bqschema compat: ${heading} against ${mdCode(ref)}`);
  out.line();
  if (absent) {
    out.line(`${mdCode(manifestPath)} does not exist at ${mdCode(ref)}: every URN is added.`);
    out.line();
  }
  if (listed.length > 0) {
    out.line('| URN | status | changes |');
    out.line('| --- | --- | --- |');
    for (const r of listed) {
      const st = r.excepted ? 'breaking, excepted' : `${r.status}${r.deprecated ? ' (deprecated)' : ''}`;
      const status = rowFails(r) ? `**${mark(r)} ${r.status}**` : `${mark(r)} ${st}`;
      const lines = [...r.problems.map((p) => `**error:** ${md(problemLine(p))}`), ...r.changes.flatMap((ch) => mdChangeCells(v, ch))];
      if (r.status === 'compatible' && r.changes.length === 0) lines.push('annotations only: no change that affects validation');
      if (r.remedy) lines.push(`**Remedy:** ${remedyText(r.remedy, mdCode)}`);
      if (r.rollout) lines.push(`**Rollout:** ${md(r.rollout.sentence)}`);
      if (r.corpus) lines.push(...mdCorpus(r.corpus));
      out.line(`| ${mdCode(r.urn)} | ${status} | ${lines.join('<br>')} |`);
    }
    out.line();
  } else {
    out.line('No URN changed.');
    out.line();
  }
  mdNotices(v, out);
  if (note) {
    out.line(md(note[0]!.toUpperCase() + note.slice(1)) + '.');
    out.line();
  }
  out.line(`${md(counts + tail)}; mode ${md(modeWords(s))}; against ${mdCode(ref)} at ${mdCode(commit)}.`);
}

async function registryText(view: RegistryView, out: Out, c: Colours): Promise<void> {
  const { listed, v, compatible, verdict, absent, note } = view;
  if (absent) out.line(c.yellow(clean(absent)));
  for (const r of listed) {
    const sign = rowFails(r) ? c.red(mark(r)) : r.excepted ? c.yellow(mark(r)) : r.status === 'compatible' ? c.green(mark(r)) : mark(r);
    const file = r.file ? `  ${c.dim(clean(r.file.shown))}` : '';
    const st = r.excepted ? 'breaking, excepted' : `${r.status}${r.deprecated ? ' (deprecated)' : ''}`;
    out.line(`${sign} ${c.bold(clean(r.urn))}  ${st}${file}`);
    for (const p of r.problems) out.line(`    ${c.red('error     ')}  ${clean(problemLine(p))}`);
    for (const ch of r.changes) {
      const l = changeLabel(v, ch);
      const label = l === 'breaking' ? c.red('breaking  ') : l === 'excepted' ? c.yellow('excepted  ') : c.dim('compatible');
      out.line(`    ${label}  ${clean(where(ch.path))}  ${clean(ch.message)}  ${c.dim(`[${ch.rule}]`)}`);
      for (const l2 of textChangeLines(v, ch, '    ', c)) out.line(l2);
    }
    if (r.status === 'compatible' && r.changes.length === 0) out.line(`    ${c.dim('annotations only: no change that affects validation')}`);
    if (r.remedy) out.line(`    ${c.yellow('→')} ${clean(remedyText(r.remedy))}`);
    if (r.rollout && r.changes.length > 0) out.line(`    rollout: ${r.rollout.sentence}`);
    textCorpus(r.corpus, '    ', out, c);
  }
  textNotices(v, out, c);
  if (note) out.line(c.dim(note));
  if (listed.length > 0 || absent || v.corpus || v.exceptions || note) out.line();
  out.line(compatible ? c.green(clean(verdict)) : c.red(clean(verdict)));
}

// compat's markdown is its own: the pull-request comment, with witnesses, remedy and rollout.
export const PAIR_FORMATS: Record<CompatFormat, ViewFormatter<PairView>> = { ...reportFormats(pairReport), text: pairText, json: pairJson, markdown: pairMarkdown };

export const REGISTRY_FORMATS: Record<CompatFormat, ViewFormatter<RegistryView>> = { ...reportFormats(registryReport), text: registryText, json: registryJson, markdown: registryMarkdown };
