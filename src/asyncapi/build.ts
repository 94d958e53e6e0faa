import { escapePointerToken, isSchemaObject } from '../validator/index.js';
import { bundleSchemas, PAYLOAD_SCHEMA_FORMAT, type Origin, type SchemaFiles } from './bundle.js';
import { byCodeUnits, RESERVED_KEYS, sanitizeKey, VALID_KEY } from './keys.js';
import type { AsyncApiIssue } from './validate.js';

/** A registry entry as the export receives it (structural: the manifest module produces these). */
export interface CatalogEntry {
  urn: string;
  schema: unknown;
  owner?: string;
  status?: string;
  description?: string;
  /** The file the schema was read from: references to other files resolve against it. */
  file?: string;
}

export interface AsyncApiOptions {
  title?: string;
  version?: string;
  /** Reads the files schemas refer to (`$ref: "common.json#/…"`); without it such a reference is an issue. */
  files?: SchemaFiles;
}

/** A document, what keeps it from being written (nothing, when `issues` is empty), and where its schemas came from. */
export interface AsyncApiBuild {
  document: Record<string, unknown>;
  /** References that cannot be bundled and keys AsyncAPI tools cannot read (docs/cli/export-asyncapi.md). */
  issues: AsyncApiIssue[];
  origins: Origin[];
}

export const DEFAULT_TITLE = 'BabelQueue event catalog';
export const DEFAULT_VERSION = '1.0.0';
/**
 * One map key per URN, valid whatever the URN holds. A URN that already is a valid key keeps it;
 * any other has each disallowed code point replaced by `_`, and a key already taken (or reserved)
 * gets `_2`, `_3`, … Keys are handed out in URN order, so the same set of URNs always gets the
 * same keys.
 */
export function catalogKeys(urns: readonly string[]): Map<string, string> {
  const sorted = [...new Set(urns)].sort(byCodeUnits);
  const keys = new Map<string, string>();
  const taken = new Set<string>(RESERVED_KEYS);
  for (const urn of sorted) {
    if (VALID_KEY.test(urn) && !taken.has(urn)) {
      keys.set(urn, urn);
      taken.add(urn);
    }
  }
  for (const urn of sorted) {
    if (keys.has(urn)) continue;
    const base = sanitizeKey(urn);
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
    keys.set(urn, key);
    taken.add(key);
  }
  return keys;
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

function message(entry: CatalogEntry, payload: unknown): Record<string, unknown> {
  const { urn, schema } = entry; // the title is the registry's, whatever bundling did to the payload
  const schemaTitle = isSchemaObject(schema) && Object.prototype.hasOwnProperty.call(schema, 'title') ? schema.title : undefined;
  const msg: Record<string, unknown> = {
    name: urn,
    title: nonEmpty(schemaTitle) ? schemaTitle : urn,
  };
  if (nonEmpty(entry.description)) msg.description = entry.description;
  msg.contentType = 'application/json';
  msg.payload = { schemaFormat: PAYLOAD_SCHEMA_FORMAT, schema: payload };
  const tags: Array<{ name: string }> = [];
  if (nonEmpty(entry.owner)) tags.push({ name: `owner:${entry.owner}` });
  if (nonEmpty(entry.status)) tags.push({ name: `status:${entry.status}` });
  if (tags.length > 0) msg.tags = tags;
  if (entry.status === 'deprecated') msg.deprecated = true;
  // Tags are for people browsing the catalog; x- fields keep the raw values for tools.
  if (nonEmpty(entry.owner)) msg['x-owner'] = entry.owner;
  if (nonEmpty(entry.status)) msg['x-status'] = entry.status;
  return msg;
}

/**
 * An AsyncAPI 3.0.0 document for the registry: per URN a channel (address = the URN) holding one
 * message, and a `receive` operation on it. Channel, message and operation share the key
 * `catalogKeys` gives the URN. A payload is its schema, verbatim unless it uses `$ref`: references
 * are rewritten into `components.schemas` and the document's own places (./bundle.ts), and what
 * cannot be rewritten, or a key no AsyncAPI tool reads as written, is an issue. Everything is
 * ordered by URN (components by key), so the same registry serialises to the same bytes whatever
 * the order of `entries`. Throws on a URN given twice (the registry guarantees unique URNs).
 */
export function assembleAsyncApi(entries: readonly CatalogEntry[], options: AsyncApiOptions = {}): AsyncApiBuild {
  const sorted = [...entries].sort((a, b) => byCodeUnits(a.urn, b.urn));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.urn === sorted[i - 1]!.urn) throw new Error(`URN ${JSON.stringify(sorted[i]!.urn)} is given twice`);
  }
  const keys = catalogKeys(sorted.map((e) => e.urn));
  const bundle = bundleSchemas(sorted, keys, options.files);
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const entry of sorted) {
    const key = keys.get(entry.urn)!;
    const channel: Record<string, unknown> = { address: entry.urn };
    if (nonEmpty(entry.description)) channel.description = entry.description;
    const messages: Record<string, unknown> = {};
    messages[key] = message(entry, bundle.payloads.get(entry.urn));
    channel.messages = messages;
    channels[key] = channel;
    const channelRef = `#/channels/${escapePointerToken(key)}`;
    operations[key] = {
      action: 'receive',
      channel: { $ref: channelRef },
      messages: [{ $ref: `${channelRef}/messages/${escapePointerToken(key)}` }],
    };
  }
  const document: Record<string, unknown> = {
    asyncapi: '3.0.0',
    info: {
      title: options.title ?? DEFAULT_TITLE,
      version: options.version ?? DEFAULT_VERSION,
      description: 'Generated by bqschema from the schema registry: one channel, message and receive operation per URN.',
    },
    defaultContentType: 'application/json',
    channels,
    operations,
  };
  if (bundle.components.length > 0) {
    const schemas: Record<string, unknown> = {};
    for (const [key, value] of bundle.components) schemas[key] = value;
    document.components = { schemas };
  }
  return { document, issues: bundle.issues, origins: bundle.origins };
}

/** assembleAsyncApi's document; throws when it has an issue (a document that must not be written). */
export function buildAsyncApi(entries: readonly CatalogEntry[], options: AsyncApiOptions = {}): Record<string, unknown> {
  const { document, issues } = assembleAsyncApi(entries, options);
  const first = issues[0];
  if (first !== undefined) throw new Error(`${first.urn === undefined ? '' : first.urn + ': '}${first.source?.pointer ?? first.pointer}: ${first.message}`);
  return document;
}
