import type { SchemaChange } from '../registry/history.js';
import { jsonEqual, pointerLabel } from '../validator/index.js';
import type { CatalogEntry, HistoryEntry } from './build.js';

/*
 * From a registry to what the catalog shows: its entries with their examples, and each URN's
 * history as verdicts of its changes. The CLI loads (the registry, example messages, git) and
 * passes what it read through `CatalogRegistry`; `buildCatalog` renders what this returns.
 */

/** What the catalog needs from a registry. */
export interface CatalogRegistry {
  entries: ReadonlyArray<{ urn: string; owner?: string; status?: string; description?: string }>;
  /** The parsed schema of a URN; throws when it cannot be read. */
  document(urn: string): unknown;
  /** The schema file of a URN, as it should be shown. */
  file(urn: string): string;
  /** The registry's example messages of a URN, when it has any. */
  examples?(urn: string): readonly unknown[];
  /** The URN's compat history, when run in a git repository. */
  history?(urn: string): readonly HistoryEntry[] | undefined;
}

/** Every entry of the registry as the catalog shows it, and the histories there are. */
export function catalogEntries(registry: CatalogRegistry): { entries: CatalogEntry[]; history: Map<string, readonly HistoryEntry[]> } {
  const entries: CatalogEntry[] = [];
  const history = new Map<string, readonly HistoryEntry[]>();
  for (const e of registry.entries) {
    const entry: CatalogEntry = { urn: e.urn, schema: registry.document(e.urn), file: registry.file(e.urn) };
    if (e.owner !== undefined) entry.owner = e.owner;
    if (e.status !== undefined) entry.status = e.status;
    if (e.description !== undefined) entry.description = e.description;
    const examples = registry.examples?.(e.urn);
    if (examples !== undefined && examples.length > 0) entry.examples = examples;
    entries.push(entry);
    const h = registry.history?.(e.urn);
    if (h !== undefined) history.set(e.urn, h);
  }
  return { entries, history };
}

/** A backward-compatibility judgement of two schemas (compat's `comparePair` for `backward`, which the CLI loads only for a history). */
export type JudgeChange = (before: unknown, after: unknown) => {
  compatible: boolean;
  problems: readonly { message: string }[];
  changes: readonly { breaking: boolean; path: string; message: string }[];
};

/** Each commit that changed a URN's schema, with the backward-compat verdict of that change. */
export function historyEntries(changes: readonly SchemaChange[], judge: JudgeChange): HistoryEntry[] {
  return changes.map((c) => {
    const base = { commit: c.commit, date: c.date, subject: c.subject };
    if (!c.existed) return { ...base, verdict: 'added' as const };
    if (jsonEqual(c.before, c.after)) return { ...base, verdict: 'unchanged' as const };
    const result = judge(c.before, c.after);
    const list = [...result.problems.map((p) => p.message), ...result.changes.filter((ch) => ch.breaking).map((ch) => `${pointerLabel(ch.path)}: ${ch.message}`)];
    return { ...base, verdict: result.compatible ? 'compatible' as const : 'breaking' as const, ...(list.length > 0 ? { changes: list } : {}) };
  });
}
