import { buildCatalog, catalogEntries, type CatalogRegistry } from '../../catalog/index.js';
import { RegistryError } from '../../registry/index.js';
import { emitDocument } from '../document.js';
import { UsageError } from '../errors.js';

export type { CatalogRegistry };

export interface CatalogOptions {
  registry: CatalogRegistry;
  /** The HTML file to write; stdout without it. */
  output?: string;
  title?: string;
}

/** The registry's `document`, its failures named by URN as one-line usage errors. */
function readable(registry: CatalogRegistry): CatalogRegistry {
  const read: CatalogRegistry = {
    entries: registry.entries,
    document: (urn) => {
      try {
        return registry.document(urn);
      } catch (err) {
        if (err instanceof UsageError || err instanceof RegistryError) throw err;
        throw new UsageError(`${urn}: ${(err as Error).message}`);
      }
    },
    file: (urn) => registry.file(urn),
  };
  if (registry.services !== undefined) read.services = registry.services;
  if (registry.examples !== undefined) read.examples = (urn) => registry.examples!(urn);
  if (registry.history !== undefined) read.history = (urn) => registry.history!(urn);
  return read;
}

export async function run(options: CatalogOptions): Promise<number> {
  const { entries, history, services } = catalogEntries(readable(options.registry));
  const text = buildCatalog({ title: options.title, entries, history: history.size > 0 ? history : undefined, services });
  const n = entries.length;
  const kb = Math.ceil(Buffer.byteLength(text, 'utf8') / 1024);
  const s = services.length === 0 ? '' : `, ${services.length} service${services.length === 1 ? '' : 's'}`;
  return emitDocument(text, { output: options.output }, { holds: `${n} event${n === 1 ? '' : 's'}${s}, ${kb} KB` });
}
