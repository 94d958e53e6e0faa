import type { comparePair as ComparePairFn } from '../../compat/index.js';
import { ParseFailure, parseJsonLine, parseText, type Registry } from '../../registry/index.js';
import { jsonEqual } from '../../validator/index.js';
import type { HistoryEntry, RuleChange } from '../../catalog/index.js';
import type { schemaHistory as SchemaHistoryFn } from '../../registry/history.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { protectInputs } from '../protect.js';
import { claimTarget } from '../write.js';
import { run } from './catalog.js';

type SchemaHistory = typeof SchemaHistoryFn;
type ComparePair = typeof ComparePairFn;

export interface CatalogCommandOptions extends RegistryCliOptions {
  output?: string;
  title?: string;
  /** `--no-history` sets it false. */
  history?: boolean;
  /** Files or directories of example messages (envelopes), shown under their URN. */
  messages?: string[];
}

/** Example envelopes by URN, read with validate's reader; a message that does not parse is left out. */
async function examplesByUrn(paths: string[]): Promise<Map<string, unknown[]>> {
  // The message reader and the envelope rules load only when there are messages to read.
  const [{ documents }, { readEnvelope }] = await Promise.all([import('../inputs.js'), import('../../guard/index.js')]);
  const byUrn = new Map<string, unknown[]>();
  for await (const batch of documents(paths)) {
    for (const doc of batch) {
      if (doc.kind !== 'doc') continue;
      try {
        const value = doc.line === undefined ? parseText(doc.text, doc.file, 'json') : parseJsonLine(doc.text, doc.file, doc.line);
        const { urn } = readEnvelope(value);
        const list = byUrn.get(urn) ?? [];
        list.push(value);
        byUrn.set(urn, list);
      } catch (err) {
        if (!(err instanceof ParseFailure) && !(err instanceof Error && err.name === 'EnvelopeError')) throw err;
      }
    }
  }
  return byUrn;
}

/**
 * Each commit that changed the URN's schema (its changelog): who and when, the backward verdict, every
 * rule that fired from the version before with the modes it breaks, and whether the URN was
 * deprecated by then (its `since` on or before the commit's date).
 */
function history(registry: Registry, urn: string, schemaHistory: SchemaHistory, comparePair: ComparePair): HistoryEntry[] {
  const since = registry.entry(urn)?.deprecated?.since;
  return schemaHistory(registry, urn).map((c) => {
    const base = { commit: c.commit, date: c.date, author: c.author, subject: c.subject, ...(since !== undefined && c.date >= since ? { deprecated: true } : {}) };
    if (!c.existed) return { ...base, verdict: 'added' as const };
    if (jsonEqual(c.before, c.after)) return { ...base, verdict: 'unchanged' as const };
    const backward = comparePair(c.before, c.after, 'backward', { witnesses: false });
    const forward = comparePair(c.before, c.after, 'forward', { witnesses: false });
    // The same change in both directions is one rule; one a direction alone lists is kept too.
    const rules = new Map<string, RuleChange>();
    for (const ch of backward.changes) rules.set(`${ch.rule} ${ch.path}`, { rule: ch.rule, path: ch.path, message: ch.message, backward: ch.breaking, forward: false });
    for (const ch of forward.changes) {
      const key = `${ch.rule} ${ch.path}`;
      const known = rules.get(key);
      if (known !== undefined) known.forward = ch.breaking;
      else rules.set(key, { rule: ch.rule, path: ch.path, message: ch.message, backward: false, forward: ch.breaking });
    }
    const changes = backward.problems.map((p) => p.message);
    return { ...base, verdict: backward.compatible ? 'compatible' as const : 'breaking' as const, ...(changes.length > 0 ? { changes } : {}), ...(rules.size > 0 ? { rules: [...rules.values()] } : {}) };
  });
}

/** `bqschema catalog`: the registry (and its example messages and git history) as one HTML file. */
export async function runCatalog(options: CatalogCommandOptions): Promise<number> {
  const registry = openRegistry(options);
  // Checked before anything is read or built: the registry and the example messages are never the output.
  protectInputs(options.messages, 'an example message file', 'an example message directory');
  if (options.output !== undefined) claimTarget(options.output, '-o');
  // git is read, and schema changes judged, only for the history (not at all with --no-history).
  const [schemaHistory, comparePair] =
    options.history === false ? [undefined, undefined] : await Promise.all([
      import('../../registry/history.js').then((m) => m.schemaHistory),
      import('../../compat/index.js').then((m) => m.comparePair),
    ]);
  const examples = options.messages && options.messages.length > 0 ? await examplesByUrn(options.messages) : new Map<string, unknown[]>();
  return run({
    output: options.output,
    title: options.title,
    registry: {
      entries: registry.entries,
      document: (urn) => registry.document(urn).value,
      file: (urn) => registry.fileFromRoot(urn),
      examples: (urn) => examples.get(urn) ?? [],
      history: schemaHistory === undefined || comparePair === undefined ? undefined : (urn) => history(registry, urn, schemaHistory, comparePair),
    },
  });
}
