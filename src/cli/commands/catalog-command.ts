import { ParseFailure, parseJsonLine, parseText } from '../../registry/index.js';
import { historyEntries } from '../../catalog/index.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { protectInputs } from '../protect.js';
import { claimDocument } from '../document.js';
import { run } from './catalog.js';

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

/** `bqschema catalog`: the registry (and its example messages and git history) as one HTML file. */
export async function runCatalog(options: CatalogCommandOptions): Promise<number> {
  const registry = openRegistry(options);
  // Checked before anything is read or built: the registry and the example messages are never the output.
  protectInputs(options.messages, 'an example message file', 'an example message directory');
  claimDocument(options);
  // git is read, and schema changes judged, only for the history (not at all with --no-history).
  const [schemaHistory, comparePair] =
    options.history === false
      ? [undefined, undefined]
      : await Promise.all([
          import('../../registry/history.js').then((m) => m.schemaHistory),
          import('../../compat/index.js').then((m) => m.comparePair),
        ]);
  const examples = options.messages && options.messages.length > 0 ? await examplesByUrn(options.messages) : new Map<string, unknown[]>();
  return run({
    output: options.output,
    title: options.title,
    registry: {
      entries: registry.entries,
      services: registry.services,
      document: (urn) => registry.document(urn).value,
      file: (urn) => registry.fileFromRoot(urn),
      examples: (urn) => examples.get(urn) ?? [],
      history:
        schemaHistory === undefined || comparePair === undefined
          ? undefined
          : (urn) =>
              historyEntries(
                schemaHistory(registry, urn),
                (before, after, direction) => comparePair(before, after, direction, { witnesses: false }),
                registry.entry(urn)?.deprecated?.since,
              ),
    },
  });
}
