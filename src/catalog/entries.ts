import type { SchemaChange } from '../registry/history.js';
import type { Deprecation } from '../registry/index.js';
import { serviceRoster, type ServiceSource } from '../services/index.js';
import { jsonEqual } from '../validator/index.js';
import type { CatalogEntry, CatalogService, HistoryEntry, RuleChange } from './build.js';

/*
 * From a registry to what the catalog shows: its entries with their examples, and each URN's
 * history as verdicts of its changes. The CLI loads (the registry, example messages, git) and
 * passes what it read through `CatalogRegistry`; `buildCatalog` renders what this returns.
 */

/** What the catalog needs from a registry. */
export interface CatalogRegistry {
  entries: ReadonlyArray<{
    urn: string;
    owner?: string;
    status?: string;
    description?: string;
    deprecated?: Deprecation;
    producers?: readonly string[];
    consumers?: readonly string[];
  }>;
  /** The manifest's `services`, when it declares any. */
  services?: ServiceSource['services'];
  /** The parsed schema of a URN; throws when it cannot be read. */
  document(urn: string): unknown;
  /** The schema file of a URN, as it should be shown. */
  file(urn: string): string;
  /** The registry's example messages of a URN, when it has any. */
  examples?(urn: string): readonly unknown[];
  /** The URN's compat history, when run in a git repository. */
  history?(urn: string): readonly HistoryEntry[] | undefined;
}

/**
 * Every entry of the registry as the catalog shows it, the histories there are, and its services as
 * `bqschema services` lists them (declared ones in the manifest's order, then names URNs list that
 * none declares); no services when the manifest names none.
 */
export function catalogEntries(registry: CatalogRegistry): {
  entries: CatalogEntry[];
  history: Map<string, readonly HistoryEntry[]>;
  services: CatalogService[];
} {
  const entries: CatalogEntry[] = [];
  const history = new Map<string, readonly HistoryEntry[]>();
  for (const e of registry.entries) {
    const entry: CatalogEntry = { urn: e.urn, schema: registry.document(e.urn), file: registry.file(e.urn) };
    if (e.owner !== undefined) entry.owner = e.owner;
    if (e.status !== undefined) entry.status = e.status;
    if (e.deprecated !== undefined) entry.deprecated = e.deprecated;
    if (e.description !== undefined) entry.description = e.description;
    if (e.producers !== undefined) entry.producers = e.producers;
    if (e.consumers !== undefined) entry.consumers = e.consumers;
    const examples = registry.examples?.(e.urn);
    if (examples !== undefined && examples.length > 0) entry.examples = examples;
    entries.push(entry);
    const h = registry.history?.(e.urn);
    if (h !== undefined) history.set(e.urn, h);
  }
  return { entries, history, services: catalogServices({ services: registry.services ?? [], entries: registry.entries }) };
}

/** The services the catalog gives a page: `bqschema services`' roster (declared in the manifest's order, then names only URNs list). */
export function catalogServices(registry: ServiceSource): CatalogService[] {
  return serviceRoster(registry).map((v): CatalogService => ({
    name: v.name,
    ...(v.team === undefined ? {} : { team: v.team }),
    ...(v.contact === undefined ? {} : { contact: v.contact }),
    ...(v.repository === undefined ? {} : { repository: v.repository }),
    declared: v.declared,
    produces: v.produces,
    consumes: v.consumes,
  }));
}

/** A compatibility judgement of two schemas in one direction (compat's `comparePair`, which the CLI loads only for a history). */
export type JudgeChange = (
  before: unknown,
  after: unknown,
  direction: 'backward' | 'forward',
) => {
  compatible: boolean;
  problems: readonly { message: string }[];
  changes: readonly { rule: string; breaking: boolean; path: string; message: string }[];
};

/**
 * Each commit that changed a URN's schema (its changelog): who and when, the backward verdict, every
 * rule that fired from the version before with the directions it breaks, and whether the URN was
 * deprecated by then (its `since`, given, on or before the commit's date).
 */
export function historyEntries(changes: readonly SchemaChange[], judge: JudgeChange, since?: string): HistoryEntry[] {
  return changes.map((c) => {
    const base = {
      commit: c.commit,
      date: c.date,
      author: c.author,
      subject: c.subject,
      ...(since !== undefined && c.date >= since ? { deprecated: true } : {}),
    };
    if (!c.existed) return { ...base, verdict: 'added' as const };
    if (jsonEqual(c.before, c.after)) return { ...base, verdict: 'unchanged' as const };
    const backward = judge(c.before, c.after, 'backward');
    const forward = judge(c.before, c.after, 'forward');
    // The same change in both directions is one rule; one a direction alone lists is kept too.
    const rules = new Map<string, RuleChange>();
    for (const ch of backward.changes)
      rules.set(`${ch.rule} ${ch.path}`, { rule: ch.rule, path: ch.path, message: ch.message, backward: ch.breaking, forward: false });
    for (const ch of forward.changes) {
      const key = `${ch.rule} ${ch.path}`;
      const known = rules.get(key);
      if (known !== undefined) known.forward = ch.breaking;
      else rules.set(key, { rule: ch.rule, path: ch.path, message: ch.message, backward: false, forward: ch.breaking });
    }
    const problems = backward.problems.map((p) => p.message);
    return {
      ...base,
      verdict: backward.compatible ? ('compatible' as const) : ('breaking' as const),
      ...(problems.length > 0 ? { changes: problems } : {}),
      ...(rules.size > 0 ? { rules: [...rules.values()] } : {}),
    };
  });
}
