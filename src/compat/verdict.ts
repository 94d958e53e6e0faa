import type { Change } from './compare.js';
import type { CorpusReport, CorpusUrn, ExceptionsState } from './evidence.js';
import type { CompatLevel } from './levels.js';
import { nextUrn, type Remedy, type SchemaProblem, type UrnReport } from './registry.js';
import type { Rollout } from './rollout.js';
import type { CompatPolicy } from './rules.js';
import { FOUND_BY, levelNote, levelWords, windowSentence } from './words.js';
// Types only: the transitive check loads with --transitive alone.
import type { TransitiveWindow } from './transitive.js';
import type { FoundBy } from '../registry/manifest.js';
import { clean } from '../report/text.js';

/*
 * compat's verdict, as data: for two schema files (PairVerdict) or the registry against a git ref
 * (RegistryVerdict), what fails the gate, the counts of its summary and its summary line. Its
 * Report (report.ts) and its views (view-text.ts, view-json.ts, view-markdown.ts) are made of it.
 * Fields a verdict gains later (transitive windows, deprecation, the services a break reaches) are
 * optional, so each view shows them where it has a place for them.
 */

/** One schema document as the renderers need it: its name as shown, and its text for positions. */
export interface Doc {
  name: string;
  text: string;
}

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
  level: CompatLevel;
  policy: CompatPolicy;
  /** --urn: the URN the two files are versions of. */
  urn: string | undefined;
  /** What the level leaves out (none), or ''. */
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
  level: CompatLevel;
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
  /** What the level leaves out (none), or ''. */
  note: string;
  /** `--transitive`: the window of earlier versions checked. */
  window?: TransitiveWindow;
  /** `--mention`: the teams of the services the failing changes reach, mentioned in the pull-request comment. */
  mention?: readonly string[];
}

/**
 * The services the failing URNs reach: each unexcused breaking change's, a live URN's consumers
 * when it is removed, and the consumers of a URN whose new schema rejects captured messages.
 */
export function reachedServices(rows: readonly Row[], v: Verdicts): string[] {
  const out = new Set<string>();
  for (const r of rows) {
    if (!rowFails(r)) continue;
    for (const c of r.changes)
      if (fails(v, c)) for (const name of [...(c.reach?.consumers ?? []), ...(c.reach?.producers ?? [])]) out.add(name);
    if ((r.status === 'removed' || (r.corpus?.rejected ?? 0) > 0) && r.services) for (const name of r.services.consumers) out.add(name);
  }
  return [...out];
}

// ---- verdicts ---------------------------------------------------------------------------------------

/** What two files' comparison found, before it is weighed: the PairVerdict's inputs. */
export type PairFindings = Pick<
  PairVerdict,
  'oldFile' | 'newFile' | 'urn' | 'v' | 'changes' | 'problems' | 'rollout' | 'newDoc' | 'level' | 'policy'
>;

/**
 * Two files' verdict: compatible unless a change breaks unexcused, a schema cannot be compared, an
 * exception expired or the corpus fails; its counts, its summary line, and the remedy (a new URN).
 */
export function pairVerdict(found: PairFindings): PairVerdict {
  const { oldFile, newFile, urn, v, changes, problems, level, policy } = found;
  const breaking = changes.filter((ch) => fails(v, ch)).length;
  const excepted = changes.filter((ch) => ch.breaking && !fails(v, ch)).length;
  const compatible = breaking === 0 && problems.length === 0 && !v.exceptions?.outcome.expired.length && !v.corpus?.failed;
  const remedy: Remedy | undefined =
    breaking === 0 ? undefined : urn === undefined ? { kind: 'new-urn' } : { kind: 'new-urn', urn, next: nextUrn(urn, new Set([urn])) };
  const others = changes.length - breaking - excepted;
  // File names come from the command line: escaped, so a name cannot forge the summary line.
  const span = `from ${clean(oldFile)} to ${clean(newFile)}`;
  const problemNote = problems.length > 0 ? `, ${problems.length} schema problem(s)` : '';
  const exceptedNote = excepted > 0 ? `, ${excepted} excepted` : '';
  const tail = `${corpusSummary(v.corpus)}${exceptionsSummary(v.exceptions)}`;
  const summary = { changes: changes.length, breaking, compatible: others, ...(v.exceptions ? { excepted } : {}), errors: problems.length };
  const words = levelWords(level, policy);
  const summaryLine = compatible
    ? `OK: no breaking change ${span}: ${others} compatible change(s)${exceptedNote} (${words})${tail}`
    : `FAILED: ${breaking} breaking change(s)${problemNote} ${span}, ${others} compatible${exceptedNote} (${words})${tail}`;
  return { ...found, remedy, compatible, summary, summaryLine, note: levelNote(level) };
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
export type RegistryFindings = Pick<
  RegistryVerdict,
  'rows' | 'v' | 'manifestName' | 'manifestText' | 'docOf' | 'level' | 'policy' | 'against' | 'working' | 'looked' | 'window' | 'mention'
>;
/**
 * The registry's verdict against a git ref: compatible unless a URN fails, an exception expired or
 * a corpus document is unreadable; the URNs counted by status, the summary line, why it fails.
 */
export function registryVerdict(found: RegistryFindings): RegistryVerdict {
  const { rows, v, level, policy, against: at } = found;
  const expired = v.exceptions?.outcome.expired.length ?? 0;
  const compatible = rows.every((r) => !rowFails(r)) && expired === 0 && !(v.corpus && v.corpus.unreadable > 0);
  const count = (st: UrnReport['status']): number => rows.filter((r) => r.status === st && !r.excepted).length;
  const summary = {
    urns: rows.length,
    breaking: count('breaking'),
    compatible: count('compatible'),
    added: count('added'),
    removed: count('removed'),
    unchanged: count('unchanged'),
    errors: count('invalid'),
    ...(v.exceptions ? { excepted: rows.filter((r) => r.excepted).length } : {}),
    ...(v.corpus ? { corpusRejected: v.corpus.urns.reduce((n, u) => n + u.rejected, 0) } : {}),
  };
  const failing = rows.filter(rowFails).length;
  const against = `${at.ref} (${at.commit.slice(0, 12)})`;
  const invalidNote = summary.errors > 0 ? `, ${summary.errors} invalid` : '';
  const exceptedNote = summary.excepted ? `, ${summary.excepted} excepted` : '';
  const counts = `${summary.breaking} breaking, ${summary.compatible} compatible, ${summary.added} added, ${summary.removed} removed, ${summary.unchanged} unchanged${invalidNote}${exceptedNote}`;
  const tail = `${corpusSummary(v.corpus)}${exceptionsSummary(v.exceptions)}${found.window ? `; ${windowSentence(found.window, clean)}` : ''}`;
  const why = failing === 0 && expired > 0 ? `${expired} exception(s) expired` : `${failing} URN(s) fail`;
  const words = levelWords(level, policy);
  const summaryLine = compatible
    ? `OK: no breaking change against ${against}: ${counts} (${words})${tail}`
    : `FAILED: ${why} against ${against}: ${counts} (${words})${tail}`;
  return {
    ...found,
    listed: rows.filter((r) => r.status !== 'unchanged'),
    compatible,
    summary,
    summaryLine,
    why,
    counted: counts + tail,
    note: levelNote(level),
    absent: at.found
      ? undefined
      : `no registry at ${at.ref} for ${found.working}${found.looked ? ` (${found.looked})` : ''}: a new registry, every URN is added (--allow-new-registry)`,
    moved:
      at.found && at.foundBy !== undefined && at.foundBy !== 'path'
        ? `compared with ${at.registry} at ${at.ref} (${FOUND_BY[at.foundBy]}), URN by URN`
        : undefined,
  };
}
