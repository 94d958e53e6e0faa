import { listRules, type CompatRule } from './rules.js';
import type { Change } from './compare.js';
import { remedyText, type Remedy, type SchemaProblem } from './registry.js';
import type { Rollout } from './rollout.js';
import { corpusSentence, exceptedText, type CorpusReport, type CorpusUrn } from './evidence.js';
import {
  changeLabel,
  excusedBy,
  fails,
  rowFails,
  type Doc,
  type PairVerdict,
  type RegistryVerdict,
  type Row,
  type Verdicts,
} from './verdict.js';
import { changeMessage, problemLine, removedReach, where, witnessLine } from './words.js';
import { reachWords } from './reach.js';
import type { Position } from '../registry/positions.js';
import { docsPage } from '../report/docs.js';
import type { Report, ReportEvidence, ReportFinding, ReportRule, ReportUnit, ToolInfo } from '../report/model.js';

/*
 * compat's Report, as data (src/report renders it in every format; its views lay out text, JSON and
 * the pull-request comment: view-text.ts, view-json.ts, view-markdown.ts): for two schema files a
 * unit per change and per schema problem, for the registry against a git ref a unit per URN; the
 * evidence (corpus, exceptions) adds its own. Each finding's subject is what it is about (a change,
 * a schema problem, an exception, a corpus document), each URN unit's its row, for the views.
 */

/** What a finding of compat is about, for its views; findings said elsewhere (a rollout, a URN added) have none. */
export type CompatSubject =
  | { readonly kind: 'change'; readonly change: Change }
  | { readonly kind: 'problem'; readonly problem: SchemaProblem }
  | { readonly kind: 'exception'; readonly state: 'expired' | 'stale' | 'unused' }
  | { readonly kind: 'corpus-error'; readonly error: CorpusReport['errors'][number] };

/** What a unit of compat is: a URN's row (with --against), or the evidence's units. */
export type CompatUnitSubject = { readonly kind: 'urn'; readonly row: Row } | { readonly kind: 'corpus' } | { readonly kind: 'exceptions' };

export type CompatReport = Report<CompatSubject, CompatUnitSubject>;
type Finding = ReportFinding<CompatSubject>;
type Unit = ReportUnit<CompatUnitSubject>;

const noPositions = (): Position | undefined => undefined;

/** Loads the positions module (and with it the YAML and JSONC parsers) only when a position is wanted. */
async function positionsFor(text: string, name: string): Promise<{ of(pointer: string): Position }> {
  const { SourcePositions } = await import('../registry/positions.js');
  return SourcePositions.forFile(text, name);
}

/** Where a change is in the NEW schema's source: the keyword, or its nearest ancestor there. */
type Locate = (pointer: string) => Position | undefined;

async function locator(doc: Doc | undefined, wanted: boolean): Promise<Locate> {
  if (!wanted || doc === undefined) return noPositions;
  const positions = await positionsFor(doc.text, doc.name);
  return (pointer) => positions.of(pointer);
}

const COMPAT_PAGE = docsPage('cli/compat.md');
const EXTRA_RULES: readonly ReportRule[] = [
  {
    id: 'schema-problem',
    description:
      'A schema cannot be read, or has a malformed keyword, or the new one an unknown keyword (a typo), that would not be enforced.',
    help: 'Fix the schema (bqschema check names the keyword and the nearest valid one); an unknown keyword used on purpose is named x-… or allowed with --allow-keyword.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'urn-removed',
    description: "A URN was removed from the registry without being deprecated first, or before its deprecation's sunset.",
    help: 'Keep the URN registered with "status": "deprecated" (or "deprecated": {"sunset": …}) until its consumers have moved off it, and remove it on or after its sunset.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'urn-added',
    description: 'A URN was added to the registry.',
    help: 'Nothing to do: a new URN breaks no consumer.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'corpus-rejected',
    description: 'A captured message of a changed URN is rejected by its new schema.',
    help: 'The new schema rejects traffic that exists: mint a new URN for it, or change it so that the captured messages stay valid.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'corpus-unreadable',
    description: 'A corpus document does not parse or is not a message envelope.',
    help: 'Fix or remove the corpus file at the position given (NDJSON: one envelope per line).',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'exception-expired',
    description: 'A compat exception is past its date: the break it excused fails again.',
    help: 'Ship the migration the exception was for, or review the exception again and move its expires date.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'exception-stale',
    description: 'The old schema changed since a compat exception was reviewed.',
    help: 'Review the exception against the schema as it is now and update its fingerprint.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'exception-unused',
    description: 'A compat exception matches no breaking change.',
    help: 'Remove the exception: nothing needs excusing any more.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'rollout-order',
    description: 'In which order to deploy producers and consumers for the changes of a URN.',
    help: 'Deploy in the order given; when no order is safe, mint a new URN instead.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'registry-absent',
    description: 'No registry manifest was found at the git ref compared with, and --allow-new-registry counts every URN as added.',
    help: 'Nothing to do if this change creates the registry; otherwise name the manifest it had at the ref with --against-registry <path>.',
    helpUri: COMPAT_PAGE,
  },
  {
    id: 'registry-moved',
    description:
      'The registry manifest was elsewhere at the git ref compared with (renamed, moved, or in another format): URNs are compared all the same.',
    help: 'Nothing to do; --against-registry <path> names another manifest at the ref if this is not the one.',
    helpUri: COMPAT_PAGE,
  },
];

/** A compat rule as a CI rule: when it breaks, and what to do about a breaking change. */
function compatRule(r: CompatRule): ReportRule {
  const breaks =
    r.breaks === 'never'
      ? 'It never breaks (a notice).'
      : `It breaks ${r.breaks === 'both' ? 'backward and forward' : r.breaks} compatibility under the default policy.`;
  return {
    id: r.id,
    description: r.description,
    fullDescription: `${r.description} ${breaks}`,
    help:
      r.breaks === 'never'
        ? 'Nothing to do: the change is listed for review.'
        : 'Where the change breaks the level you gate on, mint a new URN for the new schema (the URN with .v2, or the next .vN) instead of changing the registered one; the witness shows data one side accepts and the other rejects.',
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
    ...(c.breaking && c.reach ? { reach: c.reach } : {}),
  };
  return Object.keys(e).length === 0 ? undefined : e;
}

/** A change as a finding: where it is in the new schema, what changed, and its proof, excuse and remedy. */
function changeFinding(v: Verdicts, c: Change, site: ChangeSite, prefix: string, remedy: Remedy | undefined): Finding {
  const label = changeLabel(v, c);
  const e = excusedBy(v, c);
  const w = witnessLine(c);
  const reach = c.breaking && c.reach ? `. Reach: ${reachWords(c.reach)}` : '';
  const tail =
    (e ? `. ${exceptedText(e)}` : '') +
    (w ? `. ${w}` : '') +
    reach +
    (label === 'breaking' && remedy ? `. Remedy: ${remedyText(remedy)}` : '');
  const evidence = changeEvidence(c, site.corpus);
  return {
    rule: c.rule,
    level: label === 'breaking' ? 'error' : 'note',
    title: `${label} change (${c.rule})`,
    message: `${prefix}${changeMessage(c)}${tail}`,
    ...(site.urn === undefined ? {} : { urn: site.urn }),
    location: { file: site.file, ...site.locate(c.path), ...(site.inSchema ? { pointer: c.path } : {}) },
    ...(evidence ? { evidence } : {}),
    subject: { kind: 'change', change: c },
  };
}

const rolloutFinding = (r: Rollout, file: string, prefix: string, urn?: string): Finding => ({
  rule: 'rollout-order',
  level: 'note',
  title: 'rollout order',
  message: `${prefix}${r.sentence}`,
  location: { file },
  ...(urn === undefined ? {} : { urn, unit: urn }),
});

/** An exception's finding by its state: expired ones fail the gate, stale and unused ones are said. */
const EXCEPTION_FINDINGS = [
  ['expired', 'exception-expired', 'error'],
  ['stale', 'exception-stale', 'warning'],
  ['unused', 'exception-unused', 'note'],
] as const;

/**
 * The evidence's findings, and its test cases: one for the exceptions file (failing on an expired
 * exception) and one for the corpus (an error when a file cannot be read, failing on a rejection
 * that no unit of the command owns). `unitOf` names the unit a corpus URN's rejections belong to
 * (its URN, with --against); without it they are the corpus unit's.
 */
function evidenceFindings(v: Verdicts, results: Finding[], units: Unit[], unitOf?: (urn: string) => string | undefined): void {
  const o = v.exceptions?.outcome;
  if (v.exceptions !== undefined && o !== undefined) {
    const file = v.exceptions.file;
    const unit = `exceptions (${file})`;
    units.push({ id: unit, file, outcome: o.expired.length > 0 ? 'fail' : 'pass', subject: { kind: 'exceptions' } });
    const location = { file };
    for (const [state, rule, level] of EXCEPTION_FINDINGS) {
      for (const n of o[state]) {
        results.push({
          rule,
          level,
          title: `${state} compat exception`,
          message: n.message,
          location,
          unit,
          subject: { kind: 'exception', state },
        });
      }
    }
  }
  const corpus = v.corpus;
  if (corpus === undefined) return;
  const unit = 'corpus';
  let rejected = false;
  for (const e of corpus.errors) {
    results.push({
      rule: 'corpus-unreadable',
      level: 'error',
      title: 'corpus document unreadable',
      message: e.message,
      location: { file: e.file, line: e.line, col: e.col },
      unit,
      subject: { kind: 'corpus-error', error: e },
    });
  }
  for (const u of corpus.urns) {
    const owner = unitOf?.(u.urn);
    if (owner === undefined && u.rejected > 0) rejected = true;
    for (const e of u.examples) {
      results.push({
        rule: 'corpus-rejected',
        level: 'error',
        title: 'rejected by the new schema',
        message: `${u.urn}: ${e.message} (${corpusSentence(u)})`,
        urn: u.urn,
        location: { file: e.file, line: e.line },
        evidence: { corpus: { checked: u.checked, rejected: u.rejected } },
        unit: owner ?? unit,
      });
    }
  }
  units.push({ id: unit, outcome: corpus.unreadable > 0 ? 'error' : rejected ? 'fail' : 'pass', subject: { kind: 'corpus' } });
}

/** Two files' Report: a unit per change (failing when it breaks, unexcused) and one per schema problem (an error). */
export async function pairReport(view: PairVerdict, about: ToolInfo): Promise<CompatReport> {
  const { oldFile, newFile, v, changes, problems, rollout, remedy, compatible, summary, summaryLine, newDoc } = view;
  const results: Finding[] = [];
  const units: Unit[] = [];
  problems.forEach((p, i) => {
    const file = p.side === 'old' ? oldFile : newFile;
    const unit = `schema problem ${i + 1} (${p.side})`;
    units.push({ id: unit, file, outcome: 'error' });
    results.push({
      rule: 'schema-problem',
      level: 'error',
      title: 'schema problem',
      message: problemLine(p),
      location: { file },
      unit,
      subject: { kind: 'problem', problem: p },
    });
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
    units.push({ id: unit, file, outcome: fails(v, ch) ? 'fail' : 'pass' });
    results.push({ ...changeFinding(v, ch, site, '', remedy), unit });
  });
  if (rollout) results.push(rolloutFinding(rollout, file, ''));
  evidenceFindings(v, results, units);
  return {
    tool: { ...about, rules: compatReportRules() },
    command: 'compat',
    ok: compatible,
    summary,
    summaryLine,
    findings: results,
    artifacts: [file],
    units,
  };
}

/** The registry's Report: a unit per URN, failing when it fails the gate, an error when its schema is invalid. */
export async function registryReport(view: RegistryVerdict, about: ToolInfo): Promise<CompatReport> {
  const { rows, listed, v, compatible, summary, summaryLine, absent, moved, manifestName, manifestText, docOf } = view;
  const results: Finding[] = [];
  const artifacts: string[] = [];
  const units: Unit[] = rows.map((r) => ({
    id: r.urn,
    file: docOf(r)?.name ?? manifestName,
    outcome: r.status === 'invalid' ? 'error' : rowFails(r) ? 'fail' : 'pass',
    subject: { kind: 'urn', row: r },
  }));
  if (absent)
    results.push({ rule: 'registry-absent', level: 'note', title: 'registry absent', message: absent, location: { file: manifestName } });
  if (moved)
    results.push({ rule: 'registry-moved', level: 'note', title: 'registry moved', message: moved, location: { file: manifestName } });
  const manifest = await locator({ name: manifestName, text: manifestText }, true);
  for (const r of listed) {
    if (r.status === 'added' || r.status === 'removed') {
      // Both are about the manifest: the new entry, or the list the entry was removed from.
      const pointer = r.status === 'added' ? `/schemas/${r.index}/urn` : '/schemas';
      const what = r.status === 'added' ? 'added' : r.deprecated ? 'removed (it was deprecated)' : 'removed';
      const gone = removedReach(r);
      const rem = (gone ? `. Reach: ${gone}` : '') + (r.remedy ? `. Remedy: ${remedyText(r.remedy)}` : '');
      const evidence = gone ? { evidence: { reach: { consumers: r.services!.consumers } } } : {};
      results.push({
        rule: `urn-${r.status}`,
        level: r.breaking ? 'error' : 'note',
        title: `URN ${r.status}`,
        message: `${r.urn}: ${what}${rem}`,
        urn: r.urn,
        location: { file: manifestName, ...manifest(pointer), pointer },
        unit: r.urn,
        ...evidence,
      });
      continue;
    }
    const doc = docOf(r);
    const file = doc?.name ?? manifestName;
    if (doc) artifacts.push(doc.name);
    for (const p of r.problems) {
      results.push({
        rule: 'schema-problem',
        level: 'error',
        title: 'schema problem',
        message: `${r.urn}: ${problemLine(p)}`,
        urn: r.urn,
        location: { file: p.side === 'new' && doc ? doc.name : manifestName },
        unit: r.urn,
        subject: { kind: 'problem', problem: p },
      });
    }
    const site: ChangeSite = {
      file,
      inSchema: doc !== undefined,
      locate: await locator(doc, r.changes.length > 0),
      urn: r.urn,
      corpus: r.corpus,
    };
    for (const ch of r.changes) results.push({ ...changeFinding(v, ch, site, `${r.urn}: `, r.remedy), unit: r.urn });
    if (r.rollout) results.push(rolloutFinding(r.rollout, file, `${r.urn}: `, r.urn));
  }
  const urns = new Set(rows.map((r) => r.urn));
  evidenceFindings(v, results, units, (urn) => (urns.has(urn) ? urn : undefined));
  return {
    tool: { ...about, rules: compatReportRules() },
    command: 'compat',
    ok: compatible,
    summary,
    summaryLine,
    findings: results,
    artifacts,
    units,
  };
}
