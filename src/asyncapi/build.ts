import { escapePointerToken, isSchemaObject } from '../validator/index.js';

/** A registry entry as the export receives it (structural: the manifest module produces these). */
export interface CatalogEntry {
  urn: string;
  schema: unknown;
  owner?: string;
  status?: string;
  description?: string;
}

export interface AsyncApiOptions {
  title?: string;
  version?: string;
}

export const DEFAULT_TITLE = 'BabelQueue event catalog';
export const DEFAULT_VERSION = '1.0.0';
/**
 * Registry schemas are draft-07, so each payload is a Multi Format Schema Object that says so.
 * It carries the schema verbatim (annotations and x-gdpr-sensitive included), and unlike a bare
 * payload it admits the boolean schemas `true`/`false`, which @asyncapi/parser rejects as a
 * bare payload ("payload property type must be object").
 */
export const PAYLOAD_SCHEMA_FORMAT = 'application/schema+json;version=draft-07';

/** The key pattern AsyncAPI 3.0.0 gives component maps (`^[\w\d\.\-_]+$`, ASCII `\w`). */
const VALID_KEY = /^[A-Za-z0-9._-]+$/;
const INVALID_KEY_CHAR = /[^A-Za-z0-9._-]/gu;

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Names of Object.prototype members. As map keys they break AsyncAPI tooling (@asyncapi/parser's
 * ref resolver calls `target.hasOwnProperty`; `__proto__` garbles the whole document), so they
 * count as taken. A fixed list, not read from the runtime, so every Node version agrees.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set([
  '__proto__', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
  'constructor', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString',
  'toString', 'valueOf',
]);

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
    const base = urn.replace(INVALID_KEY_CHAR, '_') || '_';
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
    keys.set(urn, key);
    taken.add(key);
  }
  return keys;
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

function message(entry: CatalogEntry): Record<string, unknown> {
  const { urn, schema } = entry;
  const schemaTitle = isSchemaObject(schema) && Object.prototype.hasOwnProperty.call(schema, 'title') ? schema.title : undefined;
  const msg: Record<string, unknown> = {
    name: urn,
    title: nonEmpty(schemaTitle) ? schemaTitle : urn,
  };
  if (nonEmpty(entry.description)) msg.description = entry.description;
  msg.contentType = 'application/json';
  msg.payload = { schemaFormat: PAYLOAD_SCHEMA_FORMAT, schema };
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
 * `catalogKeys` gives the URN. Everything is ordered by URN, so the same registry serialises to
 * the same bytes whatever the order of `entries`. Payload schemas are referenced, not copied.
 * Throws on a URN given twice (the registry guarantees unique URNs).
 */
export function buildAsyncApi(entries: readonly CatalogEntry[], options: AsyncApiOptions = {}): Record<string, unknown> {
  const sorted = [...entries].sort((a, b) => byCodeUnits(a.urn, b.urn));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.urn === sorted[i - 1]!.urn) throw new Error(`URN ${JSON.stringify(sorted[i]!.urn)} is given twice`);
  }
  const keys = catalogKeys(sorted.map((e) => e.urn));
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  for (const entry of sorted) {
    const key = keys.get(entry.urn)!;
    const channel: Record<string, unknown> = { address: entry.urn };
    if (nonEmpty(entry.description)) channel.description = entry.description;
    const messages: Record<string, unknown> = {};
    messages[key] = message(entry);
    channel.messages = messages;
    channels[key] = channel;
    const channelRef = `#/channels/${escapePointerToken(key)}`;
    operations[key] = {
      action: 'receive',
      channel: { $ref: channelRef },
      messages: [{ $ref: `${channelRef}/messages/${escapePointerToken(key)}` }],
    };
  }
  return {
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
}
