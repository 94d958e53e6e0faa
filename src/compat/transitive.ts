import { canonicalKey, hasOwn, isSchemaObject, joinPointer, parsePointer, pointerLabel, SchemaError } from '../validator/index.js';
import { compareSchemas, type Change } from './compare.js';
import type { CompatLevel, ComparingLevel } from './levels.js';
import type { ManifestEntry } from '../registry/index.js';
import { breakingFirst, malformedKeywords, nextUrn, sunsetRemovals, type UrnReport } from './registry.js';
import { ruleMessage, type CompatPolicy } from './rules.js';

/*
 * compat --transitive: a change compatible with the version compared with can still break data
 * written under an older one, still in queues, topics and archives. Each URN's new schema is
 * compared with every earlier version in the window (from the registry's git history), in the
 * level of the run; each break it finds is a change of the URN's, carrying the version it breaks
 * (number, commit, date) and its witness, so every format says it where it says any change.
 * Pure: the history is read by the CLI (src/registry/versions.ts).
 */

/** An earlier version as the history gives it. */
export interface PastVersion {
  version: number;
  value: unknown;
  key: string;
  commit?: string;
  date?: string;
}

/** What one window's check found: the summary's line, and its JSON `transitive` object. */
export interface TransitiveWindow {
  /** The window's start (inclusive): the ref and its commit; undefined: the whole history. */
  since?: { ref: string; commit: string };
  /** Commits read. */
  commits: number;
  /** URNs with an earlier version other than today's and the one compared with; the versions checked; the URNs that break one. */
  urns: number;
  versions: number;
  breaking: number;
  /** Earlier versions that could not be compared (unreadable at their commit, or with a malformed keyword): skipped. */
  skipped: number;
}

export interface TransitiveInput {
  /** Each URN's versions, oldest first. */
  history: ReadonlyMap<string, readonly PastVersion[]>;
  /** A URN's schema today, and at the ref compared with (undefined: none). */
  now: (urn: string) => unknown;
  base: (urn: string) => unknown;
  level: CompatLevel;
  policy: CompatPolicy;
  /** Every URN on either side: what a remedy's next URN must not be. */
  taken: ReadonlySet<string>;
  /**
   * A URN's entry at the ref compared with, and today (`dayOf`): a property it deprecates, removed
   * on or after its sunset, is excused against earlier versions as against the ref (where no
   * payload of that version refutes the removal).
   */
  deprecations?: { entry: (urn: string) => ManifestEntry | undefined; today?: number };
}

const changeKey = (c: Change): string => `${c.rule}\u0000${c.path}\u0000${c.subject === undefined ? '' : canonicalKey(c.subject)}`;

/** Whether `schema` has a value at the pointer's tokens (own properties only). */
function has(schema: unknown, tokens: readonly string[]): boolean {
  let at = schema;
  for (const t of tokens) {
    if (!isSchemaObject(at) || !hasOwn(at, t)) return false;
    at = at[t];
  }
  return true;
}

/**
 * The property a change is under (`/properties/note` for `/properties/note/type`), when an earlier
 * version and the new schema declare it and a version between them (or the schema compared with)
 * does not: the name was removed and came back. Walked keyword by keyword, so a property named
 * "properties" is a name, not a keyword.
 */
export function resurrectedAt(
  path: string,
  old: unknown,
  now: unknown,
  between: readonly unknown[],
): { pointer: string; name: string } | undefined {
  const tokens = parsePointer(path);
  for (let i = 0; i < tokens.length;) {
    const keyword = tokens[i]!;
    if (keyword === 'properties' && i + 1 < tokens.length) {
      const prefix = tokens.slice(0, i + 2);
      if (has(now, prefix) && has(old, prefix) && between.some((b) => !has(b, prefix)))
        return { pointer: joinPointer('', ...prefix), name: tokens[i + 1]! };
      i += 2;
    } else if (keyword === 'items' || keyword === 'additionalProperties') i += 1;
    else return undefined;
  }
  return undefined;
}

/** "breaks version 2 (0123456789ab, 2026-01-02)", and the later ones it breaks too. */
function earlierWords(c: Change): string {
  const e = c.earlier;
  if (e === undefined) return '';
  const also = e.also && e.also.length > 0 ? `; versions ${e.also.join(', ')} too` : '';
  return `breaks version ${e.version} (${e.commit.slice(0, 12)}, ${e.date.slice(0, 10)})${also}`;
}

/**
 * Adds to each row the breaks of its new schema against the URN's earlier versions (a break the
 * direct comparison already reports is not repeated); a row that passed and breaks one fails, with
 * the new-URN remedy. Returns the counts of the window (without `since`, `commits`).
 */
export function checkTransitive(
  rows: UrnReport[],
  input: TransitiveInput,
): Pick<TransitiveWindow, 'urns' | 'versions' | 'breaking' | 'skipped'> {
  const counts = { urns: 0, versions: 0, breaking: 0, skipped: 0 };
  const level: ComparingLevel = input.level === 'none' ? 'backward' : input.level;
  for (const row of rows) {
    if (row.status === 'invalid' || row.status === 'removed') continue;
    const past = input.history.get(row.urn);
    const now = input.now(row.urn);
    if (past === undefined || now === undefined) continue;
    const nowKey = canonicalKey(now);
    const base = input.base(row.urn);
    const baseKey = base === undefined ? undefined : canonicalKey(base);
    const earlier = past.filter((v) => v.commit !== undefined && v.key !== nowKey && v.key !== baseKey);
    if (earlier.length === 0) continue;
    counts.urns++;
    const already = new Set(row.changes.filter((c) => c.breaking).map(changeKey));
    const found = new Map<string, Change>();
    for (const v of earlier) {
      if (malformedKeywords(v.value, 'old').length > 0) {
        counts.skipped++;
        continue;
      }
      counts.versions++;
      if (input.level === 'none') continue;
      let changes: Change[];
      try {
        changes = compareSchemas(v.value, now, { level, policy: input.policy, witnesses: true }).changes;
        const d = input.deprecations;
        if (d !== undefined) changes = sunsetRemovals(changes, d.entry(row.urn), v.value, now, input.level, d.today);
      } catch (err) {
        if (!(err instanceof SchemaError)) throw err;
        counts.skipped++;
        continue;
      }
      for (const found0 of changes) {
        if (!found0.breaking) continue;
        // A break under a property the compared-with schema does not have, that this version did: a resurrected name.
        const back = resurrectedAt(found0.path, v.value, now, [base, ...past.filter((w) => w.version > v.version).map((w) => w.value)]);
        const c: Change =
          back === undefined
            ? found0
            : {
                ...found0,
                rule: 'property-resurrected',
                path: back.pointer,
                subject: back.name,
                message: `${ruleMessage('property-resurrected', undefined, undefined, back.name)} (${found0.rule} at ${pointerLabel(found0.path)}: ${found0.message})`,
              };
        const key = changeKey(c);
        if (already.has(key)) continue;
        const seen = found.get(key);
        if (seen !== undefined) {
          (seen.earlier!.also ??= []).push(v.version);
          continue;
        }
        found.set(key, { ...c, earlier: { version: v.version, commit: v.commit!, date: v.date ?? '' } });
      }
    }
    if (found.size === 0) continue;
    counts.breaking++;
    const added = [...found.values()].map((c) => ({ ...c, message: `${c.message}: ${earlierWords(c)}` }));
    row.changes = breakingFirst([...row.changes, ...added]);
    // Waiting for a sunset does not help against a break of an earlier version.
    if (row.remedy?.kind === 'property-sunset') row.remedy = { kind: 'new-urn', urn: row.urn, next: nextUrn(row.urn, input.taken) };
    if (!row.breaking) {
      row.status = 'breaking';
      row.breaking = true;
      row.remedy = { kind: 'new-urn', urn: row.urn, next: nextUrn(row.urn, input.taken) };
      // The rollout order was for the change from the base alone: with older data in flight, no order makes it safe.
      delete row.rollout;
    }
  }
  return counts;
}
