import type { Change } from './compare.js';
import type { CompatLevel } from './levels.js';
import type { UrnReport } from './registry.js';
import type { CompatPolicy } from './rules.js';
import { previewWitness, type Witness } from './witness.js';
import type { FoundBy } from '../registry/manifest.js';
import { plainOf, type Span } from '../report/text.js';
import { pointerLabel } from '../validator/index.js';
import { sideWords } from './reach.js';
// Types only: the transitive check loads with --transitive alone.
import type { TransitiveWindow } from './transitive.js';

/*
 * compat's words, which its Report's messages and its views (view-text.ts, view-markdown.ts) share:
 * where a change is, its witness, the level and policy, how a moved manifest was found, a URN's mark.
 */

export const where = pointerLabel;

/** A schema problem as every format says it. */
export const problemLine = (p: { message: string }): string => p.message;

/** A change as a finding's message says it: where, and what changed. */
export const changeMessage = (c: Change): string => `${where(c.path)}: ${c.message}`;

const other = (w: Witness): 'old' | 'new' => (w.validUnder === 'old' ? 'new' : 'old');
export const code = (text: string): Span => ({ text, tone: 'code' });
export const strong = (text: string): Span => ({ text, tone: 'bold' });

/**
 * The proof of a breaking change on one line: its witness (a payload valid under one schema and
 * rejected by the other, previewed, as code), or why there is none and the other direction's witness.
 */
export function witnessSpans(c: Change): Span[] | undefined {
  // Previewed around the place that breaks: a long payload is never cut before it.
  const shown = (w: Witness): Span[] => [
    `valid under ${w.validUnder}, rejected by ${other(w)}): `,
    code(previewWitness(w.payload, c.path, c.subject)),
  ];
  // A compatible change by a policy choice: the data it lets fail.
  if (!c.breaking && c.affected !== undefined) return ['affected by this policy choice (', ...shown(c.affected)];
  if (c.witness === undefined) return undefined;
  if (c.witness !== null) return ['witness (', ...shown(c.witness)];
  const why =
    c.witnessReason === 'policy'
      ? "no payload shows it: policy (a break by the registry's rules, not by data)"
      : c.witnessReason === 'budget'
        ? 'no witness: the search budget was spent on earlier changes (see docs/cli/compat.md)'
        : 'no witness found';
  if (c.otherWitness === undefined) return [why];
  return [`${why}; the other way (`, ...shown(c.otherWitness)];
}

/** The witness line in plain words (text, annotations, SARIF). */
export function witnessLine(c: Change): string | undefined {
  const spans = witnessSpans(c);
  return spans === undefined ? undefined : plainOf(spans);
}

/** The level and policy as every summary line says them: `backward`, `full, policy confluent`. */
export const levelWords = (level: CompatLevel, policy: CompatPolicy): string =>
  policy === 'bqschema' ? level : `${level}, policy ${policy}`;

/** What the level leaves out: level none gates nothing on the rules. */
export const levelNote = (level: CompatLevel): string =>
  level === 'none' ? 'level none: no change breaks, nothing is gated on the rules' : '';

/** How a moved manifest was found at the ref, in words. */
export const FOUND_BY: Record<Exclude<FoundBy, 'path'>, string> = {
  named: 'named with --against-registry',
  rename: 'git reports the rename',
  discovery: 'found as the working tree finds a manifest',
  urns: 'it registers the same URNs',
};

/** A URN's mark: ✗ when it fails the gate, ! when every break is excepted, else its status's. */
const MARK: Record<UrnReport['status'], string> = {
  breaking: '✗',
  invalid: '✗',
  removed: '-',
  compatible: '✓',
  added: '+',
  unchanged: '=',
};
export const rowMark = (r: UrnReport & { excepted?: boolean }, failing: boolean): string =>
  failing ? '✗' : r.excepted ? '!' : MARK[r.status];
export const rowStatus = (r: UrnReport & { excepted?: boolean }): string =>
  r.excepted ? 'breaking, excepted' : `${r.status}${r.deprecated ? ' (deprecated)' : ''}`;

/** A transitive window's line in the summary; `clean` escapes what came from the command line (the ref). */
export function windowSentence(w: TransitiveWindow, clean: (s: string) => string): string {
  const where = w.since === undefined ? 'over the whole history' : `since ${clean(w.since.ref)} (${w.since.commit.slice(0, 12)})`;
  const skipped = w.skipped > 0 ? `, ${w.skipped} unreadable skipped` : '';
  return `transitive ${where}: ${w.versions} earlier version(s) of ${w.urns} URN(s) in ${w.commits} commit(s), ${w.breaking} URN(s) break one${skipped}`;
}

/** Whom removing a live URN breaks: its consumers, as the old manifest named them. */
export function removedReach(r: UrnReport): string | undefined {
  const consumers = r.services?.consumers ?? [];
  return r.status === 'removed' && r.breaking && consumers.length > 0 ? `breaks ${sideWords('consumers', consumers)}` : undefined;
}
