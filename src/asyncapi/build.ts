import { escapePointerToken, isSchemaObject } from '../validator/index.js';
import { bundleSchemas, PAYLOAD_SCHEMA_FORMAT, type Origin, type SchemaFiles } from './bundle.js';
import { byCodeUnits, RESERVED_KEYS, sanitizeKey, VALID_KEY } from './keys.js';
import type { AsyncApiIssue } from './validate.js';
import type { Deprecation } from '../registry/deprecation.js';

/** A registry entry as the export receives it (structural: the manifest module produces these). */
export interface CatalogEntry {
  urn: string;
  schema: unknown;
  owner?: string;
  status?: string;
  /** The manifest's deprecation (since, sunset, replacement, reason): the message's `x-bqschema-deprecation`. */
  deprecated?: Deprecation;
  /** How many distinct versions the schema has had in git (`--versions`): the message's `x-bqschema-versions`. */
  versions?: number;
  description?: string;
  /** The file the schema was read from: references to other files resolve against it. */
  file?: string;
  /** The services (the manifest's names) that send and read it. */
  producers?: readonly string[];
  consumers?: readonly string[];
}

/** A service of the manifest as the document names it. */
interface ApplicationInfo {
  name: string;
  team?: string;
  contact?: string;
  repository?: string;
}

export interface AsyncApiOptions {
  title?: string;
  version?: string;
  /** Reads the files schemas refer to (`$ref: "common.json#/…"`); without it such a reference is an issue. */
  files?: SchemaFiles;
  /** The manifest's services: the registry's document lists them in `x-applications`. */
  applications?: readonly ApplicationInfo[];
  /**
   * One service's document: only the URNs it produces (a `send` operation) or consumes (a
   * `receive` operation), and the service in `info`. Its name must be one of `applications`.
   */
  service?: string;
}

/** A document, what keeps it from being written (nothing, when `issues` is empty), and where its schemas came from. */
export interface AsyncApiBuild {
  document: Record<string, unknown>;
  /** References that cannot be bundled and keys AsyncAPI tools cannot read (docs/cli/export-asyncapi.md). */
  issues: AsyncApiIssue[];
  origins: Origin[];
}

const DEFAULT_TITLE = 'BabelQueue event catalog';
const DEFAULT_VERSION = '1.0.0';
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
  if (entry.status === 'deprecated' && entry.deprecated !== undefined && Object.keys(entry.deprecated).length > 0) {
    // The fields in a fixed order, whatever the manifest's: the same registry, the same bytes.
    const d = entry.deprecated;
    msg['x-bqschema-deprecation'] = {
      ...(d.since === undefined ? {} : { since: d.since }),
      ...(d.sunset === undefined ? {} : { sunset: d.sunset }),
      ...(d.replacement === undefined ? {} : { replacement: d.replacement }),
      ...(d.reason === undefined ? {} : { reason: d.reason }),
    };
  }
  if (entry.versions !== undefined) msg['x-bqschema-versions'] = entry.versions;
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
  const app = options.service === undefined ? undefined : options.applications?.find((a) => a.name === options.service);
  if (options.service !== undefined && app === undefined) throw new Error(`no service ${JSON.stringify(options.service)} in the registry`);
  const role = (e: CatalogEntry): { send: boolean; receive: boolean } =>
    app === undefined
      ? { send: false, receive: true }
      : { send: e.producers?.includes(app.name) === true, receive: e.consumers?.includes(app.name) === true };
  const sorted = [...entries]
    .filter((e) => {
      const r = role(e);
      return r.send || r.receive;
    })
    .sort((a, b) => byCodeUnits(a.urn, b.urn));
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
    if (app === undefined) {
      if (entry.producers !== undefined && entry.producers.length > 0) channel['x-producers'] = entry.producers;
      if (entry.consumers !== undefined && entry.consumers.length > 0) channel['x-consumers'] = entry.consumers;
    }
    const channelRef = `#/channels/${escapePointerToken(key)}`;
    const operation = (action: 'send' | 'receive'): Record<string, unknown> => ({
      action,
      channel: { $ref: channelRef },
      messages: [{ $ref: `${channelRef}/messages/${escapePointerToken(key)}` }],
    });
    const r = role(entry);
    // A service that both sends and reads a URN has an operation of each, keyed apart.
    if (r.send && r.receive) {
      operations[`${key}.send`] = operation('send');
      operations[`${key}.receive`] = operation('receive');
    } else operations[key] = operation(r.send ? 'send' : 'receive');
  }
  const info: Record<string, unknown> = {
    title: options.title ?? (app === undefined ? DEFAULT_TITLE : app.name),
    version: options.version ?? DEFAULT_VERSION,
    description:
      app === undefined
        ? 'Generated by bqschema from the schema registry: one channel, message and receive operation per URN.'
        : 'Generated by bqschema from the schema registry: the messages this service sends (send operations) and reads (receive operations).',
  };
  if (app !== undefined) {
    const contact: Record<string, unknown> = { name: app.team ?? app.name };
    if (app.contact !== undefined && /^[^@\s]+@[^@\s]+$/.test(app.contact)) contact.email = app.contact;
    if (app.repository !== undefined && /^https?:\/\/\S+$/.test(app.repository)) contact.url = app.repository;
    info.contact = contact;
    info['x-service'] = app;
  }
  const document: Record<string, unknown> = {
    asyncapi: '3.0.0',
    info,
    defaultContentType: 'application/json',
    channels,
    operations,
  };
  // The registry's document lists every application that sends or reads its messages.
  if (app === undefined && options.applications !== undefined && options.applications.length > 0)
    document['x-applications'] = options.applications;
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
  if (first !== undefined)
    throw new Error(`${first.urn === undefined ? '' : first.urn + ': '}${first.source?.pointer ?? first.pointer}: ${first.message}`);
  return document;
}
