import { buildCatalog, catalogHandler, type CatalogEntry, type HistoryEntry } from '../../catalog/index.js';
import { RegistryError } from '../../registry/index.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { printDocument } from '../output.js';
import { writeFileAtomic } from '../write.js';

export { catalogHandler };

/** What the catalog needs from a registry; the registry layer provides it. */
export interface CatalogRegistry {
  entries: ReadonlyArray<{ urn: string; owner?: string; status?: string; description?: string }>;
  /** The parsed schema of a URN; throws (a UsageError, ideally) when it cannot be read. */
  document(urn: string): unknown;
  /** The schema file of a URN, as it should be shown. */
  file(urn: string): string;
  /** The registry's example messages of a URN, when it has any. */
  examples?(urn: string): readonly unknown[];
  /** The URN's compat history, when run in a git repository. */
  history?(urn: string): readonly HistoryEntry[] | undefined;
}

export interface CatalogOptions {
  registry: CatalogRegistry;
  /** The HTML file to write; stdout without it. */
  output?: string;
  title?: string;
}

function entriesOf(registry: CatalogRegistry): { entries: CatalogEntry[]; history: Map<string, readonly HistoryEntry[]> } {
  const entries: CatalogEntry[] = [];
  const history = new Map<string, readonly HistoryEntry[]>();
  for (const e of registry.entries) {
    let schema: unknown;
    try {
      schema = registry.document(e.urn);
    } catch (err) {
      if (err instanceof UsageError || err instanceof RegistryError) throw err;
      throw new UsageError(`${e.urn}: ${(err as Error).message}`);
    }
    const entry: CatalogEntry = { urn: e.urn, schema, file: registry.file(e.urn) };
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

export async function run(options: CatalogOptions): Promise<number> {
  const { entries, history } = entriesOf(options.registry);
  const text = buildCatalog({ title: options.title, entries, history: history.size > 0 ? history : undefined });
  if (options.output === undefined) return printDocument(text);
  writeFileAtomic(options.output, text);
  const n = entries.length;
  const kb = Math.ceil(Buffer.byteLength(text, 'utf8') / 1024);
  process.stdout.write(`Wrote ${options.output}: ${n} event${n === 1 ? '' : 's'}, ${kb} KB\n`);
  return EXIT_OK;
}
