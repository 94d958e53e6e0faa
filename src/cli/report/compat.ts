import {
  remedyText, type Change, type CompatLevel, type CompatPolicy, type Rollout, type UrnStatus,
  corpusSentence, corpusWhere, exceptedText, rulesMarkdown, type CompatRule, type CorpusReport, type CorpusUrn, type ExceptionsState,
} from '../../compat/index.js';
import {
  changeLabel, excusedBy, pairReport, problemLine, registryReport, rowFails, witnessLine,
  type PairVerdict, type RegistryVerdict, type Row, type Verdicts,
} from '../../compat/report.js';
import { md, mdCode } from '../../report/markdown.js';
import { pointerLabel } from '../../validator/index.js';
import { clean, type Colours, type Out } from '../output.js';
import { about, reportFormats, type ViewFormatter } from './emit.js';

/*
 * compat's formats. The command computes a view of its verdict (PairView for two schema files,
 * RegistryView for --against) and renders it with the formatter of the format asked for
 * (PAIR_FORMATS, REGISTRY_FORMATS): the command never switches on the format itself. Text, json
 * and the pull-request markdown are compat's own; the others render its Report (src/compat/report.ts).
 */

const where = pointerLabel;

export type CompatFormat = 'text' | 'json' | 'github' | 'markdown' | 'sarif' | 'junit';

export interface Settings {
  level: CompatLevel;
  policy: CompatPolicy;
  format: CompatFormat;
  allowKeywords: ReadonlySet<string>;
}



/** Two schema files compared: everything their formats show (the Report's part in PairVerdict). */
export interface PairView extends PairVerdict {
  /** --urn */
  urn: string | undefined;
  s: Settings;
  breakingChanges: number;
  excepted: number;
  others: number;
  corpusUrn: CorpusUrn | undefined;
  note: string;
  problemNote: string;
  exceptedNote: string;
}

/** The registry compared with a git ref: everything its formats show (the Report's part in RegistryVerdict). */
export interface RegistryView extends RegistryVerdict {
  ref: string;
  atCommit: string;
  manifestPath: string;
  /** Whether the manifest exists at the ref. */
  found: boolean;
  s: Settings;
  why: string;
  counts: string;
  tail: string;
  commit: string;
  note: string;
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

const mark = (r: Row): string => (rowFails(r) ? '✗' : r.excepted ? '!' : MARK[r.status]);

async function pairJson(view: PairView, out: Out, c: Colours): Promise<void> {
  const { urn, s, v, changes, problems, rollout, remedy, compatible, summary } = view;
  out.line(JSON.stringify({
    ok: compatible, compatible, mode: s.level, policy: s.policy, ...(urn === undefined ? {} : { urn: urn }),
    summary,
    changes: changes.map((ch) => jsonChange(v, ch)),
    problems: problems.map(({ side, message, pointer, keyword, suggestion }) => ({ side, message, pointer, keyword, suggestion })),
    ...jsonRollout(rollout),
    ...(remedy ? { remedy: remedyText(remedy) } : {}),
    ...jsonCorpus(v.corpus), ...jsonExceptions(v),
  }, null, 2));
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
  const { v, changes, problems, rollout, remedy, compatible, summaryLine, corpusUrn, note } = view;
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
  out.line(compatible ? c.green(clean(summaryLine)) : c.red(clean(summaryLine)));
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
  const { listed, v, compatible, summaryLine, absent, note } = view;
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
  out.line(compatible ? c.green(clean(summaryLine)) : c.red(clean(summaryLine)));
}

// compat's markdown is its own: the pull-request comment, with witnesses, remedy and rollout.
export const PAIR_FORMATS: Record<CompatFormat, ViewFormatter<PairView>> = { ...reportFormats((v: PairView) => pairReport(v, about())), text: pairText, json: pairJson, markdown: pairMarkdown };

export const REGISTRY_FORMATS: Record<CompatFormat, ViewFormatter<RegistryView>> = { ...reportFormats((v: RegistryView) => registryReport(v, about())), text: registryText, json: registryJson, markdown: registryMarkdown };

// ---- --list-rules ---------------------------------------------------------------------------------

const BREAKS_WORDS = { backward: 'backward', forward: 'forward', both: 'backward and forward', never: 'never' } as const;

/** The rules' table, in the formats --list-rules offers (the others are a usage error). */
export const RULES_FORMATS: Partial<Record<CompatFormat, (rules: readonly CompatRule[], out: Out) => void>> = {
  json: (rules, out) => out.line(JSON.stringify({ rules }, null, 2)),
  markdown: (_rules, out) => out.line(rulesMarkdown().replace(/\n$/, '')),
  text: (rules, out) => {
    for (const r of rules) {
      out.line(`${r.id}`);
      out.line(`    ${r.description}`);
      out.line(`    breaks: ${BREAKS_WORDS[r.breaks]} (bqschema), ${BREAKS_WORDS[r.confluentBreaks]} (confluent)`);
      out.line(`    confluent: ${r.confluent ?? '—'}`);
      if (r.note !== '') out.line(`    note: ${r.note}`);
    }
  },
};
