import {
  remedyText, type Change, type CompatLevel, type CompatPolicy, type UrnStatus,
  corpusSentence, corpusWhere, exceptedText, rulesMarkdown, type CompatRule, type CorpusReport, type CorpusUrn, type ExceptionsState,
} from '../../compat/index.js';
import {
  changeLabel, excusedBy, pairReport, problemLine, registryReport, rowFails, witnessLine,
  type PairVerdict, type RegistryVerdict, type Row, type Verdicts,
} from '../../compat/report.js';
import { md, mdCode } from '../../report/markdown.js';
import { pointerLabel } from '../../validator/index.js';
import type { Colours, Out } from '../output.js';
import { about, reportFormats, type ViewFormatter } from './emit.js';

/*
 * compat's formats. The command computes a view of its verdict (PairView for two schema files,
 * RegistryView for --against) and renders it with the formatter of the format asked for
 * (PAIR_FORMATS, REGISTRY_FORMATS): the command never switches on the format itself. Every format
 * renders its Report (src/compat/report.ts) but markdown, which is compat's own: the pull-request
 * comment, with witnesses, remedy and rollout.
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

// compat's markdown is its own: the pull-request comment, with witnesses, remedy and rollout.
export const PAIR_FORMATS: Record<CompatFormat, ViewFormatter<PairView>> = { ...reportFormats((v: PairView) => pairReport(v, about())), markdown: pairMarkdown };

export const REGISTRY_FORMATS: Record<CompatFormat, ViewFormatter<RegistryView>> = { ...reportFormats((v: RegistryView) => registryReport(v, about())), markdown: registryMarkdown };

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
