import { createHash } from 'node:crypto';
import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { CompatNameError, parseCompatLevel, parseCompatPolicy, type CompatLevel, type CompatPolicy } from '../compat/index.js';
import { jsonEqual } from '../validator/index.js';
import {
  closeAfterResponse,
  declaredTooLarge,
  hasBody,
  linger,
  MAX_BODY_BYTES,
  MAX_PENDING_BYTES,
  PendingBytes,
  readBody,
} from './body.js';
import { ApiError, ERROR, type ErrorKind } from './errors.js';
import { postedBody, postedSchema } from './judge.js';
import { JudgePool } from './judge-pool.js';
import { SCHEMA_TYPE, VERSION, type LoadedVersion, type Snapshot, type SubjectEntry } from './snapshot.js';

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

/** One answered (or abandoned) request, for `--verbose`. */
export interface RequestLog {
  method: string;
  path: string;
  status: number;
  ms: number;
  /** The connection closed before the answer was written. */
  aborted: boolean;
}

export interface ServerOptions {
  /** Reported by `/config` and applied by `/compatibility` (default BACKWARD); any case (`backward`, `Full`). */
  compatibility?: string;
  /** The rules `/compatibility` applies (default `bqschema`); reported by `/config` as `compatibilityPolicy`. */
  policy?: CompatPolicy | string;
  /** Largest request body read (default 1 MiB); larger ones are answered 413. */
  maxBodyBytes?: number;
  /** Most connections open at once (default 512); one more is closed as soon as it is accepted. */
  maxConnections?: number;
  /**
   * Most bytes held by request bodies still arriving, over every connection (default 64 MiB or
   * `maxBodyBytes` if larger; at least `maxBodyBytes`). A declared Content-Length counts in full from the start, so a body let in
   * always finishes; one that would pass the cap (at once, or a chunked one as its bytes arrive) is
   * answered 503 and its connection closed.
   */
  maxPendingBytes?: number;
  /**
   * Unknown keywords (docs/contract.md §14) a posted schema may introduce; any other one is
   * refused 422 by `/compatibility`, as `bqschema compat` fails it (default none).
   */
  allowKeywords?: readonly string[];
  onRequest?: (entry: RequestLog) => void;
}

export interface RegistryServer {
  readonly server: Server;
  /** The snapshot new requests are answered from. */
  readonly snapshot: Snapshot;
  /** Swaps in a new snapshot; requests already being answered finish with the one they started with. */
  replace(snapshot: Snapshot): void;
  /** What the server holds now, and the most it has held. */
  stats(): ServerStats;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish, closes every connection after `graceMs` at the latest. */
  close(graceMs?: number): Promise<void>;
}

export interface ServerStats {
  connections: number;
  peakConnections: number;
  /** Connections closed on arrival because `maxConnections` were open. */
  refusedConnections: number;
  /** Bytes held by request bodies still arriving; a declared Content-Length counts in full from the start. */
  pendingBytes: number;
  peakPendingBytes: number;
  /** Request bodies being read. */
  pendingBodies: number;
  /** Bodies answered 503 because they would have passed `maxPendingBytes`. */
  refusedBodies: number;
}

/** A positive integer option, or the default. */
function countOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  return value;
}

export const MAX_CONNECTIONS = 512;

interface Answer {
  status: number;
  body: Buffer;
  allow?: string;
  etag?: string;
  /** Headers of a non-API answer (the catalog's content type and CSP). */
  headers?: Readonly<Record<string, string>>;
}

// Every answer body is built once per snapshot (or once for the process), so its entity tag is too:
// computed on first use and kept as long as the body lives.
const etags = new WeakMap<Buffer, string>();

/** A strong entity tag of a body: its SHA-256, base64url. */
function etagOf(body: Buffer): string {
  let tag = etags.get(body);
  if (tag === undefined) {
    tag = `"${createHash('sha256').update(body).digest('base64url')}"`;
    etags.set(body, tag);
  }
  return tag;
}

/** If-None-Match (RFC 9110 §13.1.2): `*`, or a list of entity tags compared weakly. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = etag.replace(/^W\//, '');
  for (const raw of header.split(',')) {
    const tag = raw.trim();
    if (tag === '*' || tag.replace(/^W\//, '') === bare) return true;
  }
  return false;
}

interface Call {
  /** The route's `{…}` segments, percent-decoded, in order. */
  params: string[];
  query: string;
  body: Buffer | undefined;
  snapshot: Snapshot;
}

type Handler = (call: Call) => Answer | Promise<Answer>;

interface Route {
  path: readonly string[];
  get?: Handler;
  post?: Handler;
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');
const ok = (body: Buffer): Answer => ({ status: 200, body });

const EMPTY_OBJECT = json({});
const EMPTY = Buffer.alloc(0);
const SCHEMA_TYPES = json([SCHEMA_TYPE]);
const VERSIONS = json([VERSION]);
const READ_ONLY_MODE = json({ mode: 'READONLY' });
const READ_ONLY_MESSAGE = 'this registry is read-only: schemas are managed in git, so change them with a commit (and reload the server)';
/** Confluent's one context, the default one. */
const CONTEXT = '.';
const CONTEXTS = json([CONTEXT]);
const NO_REFERENCES = json([]);
/** The most schemas `GET /schemas` lists at once, and how many when no `limit` is given: Confluent's defaults (schema.search.default.limit, schema.search.max.limit). */
const SCHEMAS_LIMIT = 1000;

const LATEST = -1;
const MAX_VERSION = 2 ** 31 - 1;

/** `latest`, `-1` or 1..2^31-1, as Confluent accepts them; checked before the subject is looked up. */
function parseVersion(raw: string): number {
  if (raw === 'latest' || raw === '-1') return LATEST;
  const n = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= MAX_VERSION)) {
    throw new ApiError(
      'invalidVersion',
      `The specified version '${raw}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
    );
  }
  return n;
}

function subjectEntry(snapshot: Snapshot, name: string): SubjectEntry {
  const entry = snapshot.bySubject.get(name);
  if (entry === undefined) throw new ApiError('subjectNotFound', `Subject '${name}' not found.`);
  return entry;
}

/** A subject's version (`latest`: its last); a broken subject answers as version 1, its error when read. */
function versionEntry(snapshot: Snapshot, name: string, rawVersion: string): SubjectEntry | LoadedVersion {
  const version = parseVersion(rawVersion);
  const entry = subjectEntry(snapshot, name);
  if (version === LATEST) return entry;
  const found = entry.ok ? versionsOf(entry).find((v) => v.version === version) : version === VERSION ? entry : undefined;
  if (found === undefined) throw new ApiError('versionNotFound', `Version ${version} not found.`);
  return found;
}

function idEntry(snapshot: Snapshot, raw: string): SubjectEntry | LoadedVersion {
  const entry = /^[0-9]{1,10}$/.test(raw) ? snapshot.byId.get(Number(raw)) : undefined;
  if (entry === undefined) throw new ApiError('schemaNotFound', `Schema ${raw} not found`);
  return entry;
}

function loaded(entry: SubjectEntry | LoadedVersion): LoadedVersion {
  if (!entry.ok) throw new ApiError('backend', `the schema of ${entry.name} could not be loaded: ${entry.error}`);
  return entry;
}

/** The subject's versions, oldest first (one, unless served with --history); the entry itself is the latest. */
const versionsOf = (entry: SubjectEntry): readonly LoadedVersion[] => (entry.ok ? [...entry.versions.slice(0, -1), entry] : []);

/** The read-only answer to a write on a subject, in Confluent's READONLY-mode words. */
function subjectReadOnly(subject: string, what: string): ApiError {
  return new ApiError(
    'readOnly',
    `Subject ${subject} in context ${CONTEXT} is in read-only mode: ${what} is not served, ${READ_ONLY_MESSAGE}`,
  );
}

/**
 * `POST /subjects/{subject}/versions`: registering the schema the subject holds answers its id,
 * as Confluent answers a schema already registered (its lookup comes before its mode check), so a
 * serializer that registers on first send (Confluent's default) works. Any other schema is
 * refused as Confluent refuses it in READONLY mode (422, 42205). A posted schema is the registered
 * one when it is JSON-equal to it, has no references, metadata or rule set, and asks for no other
 * id or version.
 */
function register(call: Call): Answer {
  const subject = call.params[0]!;
  const { schema, fields } = postedBody(call.body);
  const entry = call.snapshot.bySubject.get(subject);
  const absent = (k: string): boolean => !Object.prototype.hasOwnProperty.call(fields, k) || fields[k] === null;
  const references = fields.references;
  const id = fields.id;
  const version = fields.version;
  const plain =
    entry !== undefined &&
    (absent('references') || (Array.isArray(references) && references.length === 0)) &&
    absent('metadata') &&
    absent('ruleSet');
  if (plain) {
    loaded(entry);
    // Any version of the subject: Confluent answers a schema registered before with its id and version.
    for (const v of versionsOf(entry)) {
      const same =
        (absent('id') || (typeof id === 'number' && (id < 0 || id === v.id))) &&
        (absent('version') || version === 0 || version === LATEST || (version === v.version && id === v.id));
      if (same && jsonEqual(v.document, schema)) return ok(v.registerBody);
    }
  }
  throw subjectReadOnly(subject, 'registering a schema other than the registered one');
}

/** A non-negative integer query parameter, or `fallback` when absent. */
function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?[0-9]{1,10}$/.test(raw)) throw new ApiError('badRequest', `${name} must be an integer, got ${JSON.stringify(raw.slice(0, 40))}`);
  return Number(raw);
}

/**
 * `GET /schemas`: each subject's schema as `GET /subjects/{s}/versions/1` gives it, in subject
 * order; `subjectPrefix`, `offset` and `limit` as Confluent reads them (a limit that is not from 1
 * to 1000 lists 1000). `deleted` and `latestOnly` change nothing: a subject has one version and
 * none is deleted. A subject whose schema could not be loaded is a 50001, not left out.
 */
function listSchemas(call: Call): Answer {
  const params = new URLSearchParams(call.query);
  const prefix = params.get('subjectPrefix') ?? '';
  const offset = Math.max(0, intParam(params, 'offset', 0));
  const asked = intParam(params, 'limit', -1);
  const limit = asked > 0 && asked <= SCHEMAS_LIMIT ? asked : SCHEMAS_LIMIT;
  const names = (prefix === '' ? call.snapshot.subjects : call.snapshot.subjects.filter((s) => s.startsWith(prefix))).slice(
    offset,
    offset + limit,
  );
  const bodies = names.map((name) => loaded(call.snapshot.bySubject.get(name)!).versionBody);
  return ok(Buffer.concat([Buffer.from('['), ...bodies.flatMap((b, i) => (i === 0 ? [b] : [COMMA, b])), Buffer.from(']')]));
}
const COMMA = Buffer.from(',');

/** `GET /contexts`: the default context only; `contextPrefix`, `offset` and `limit` as Confluent reads them. */
function listContexts(call: Call): Answer {
  const params = new URLSearchParams(call.query);
  const prefix = params.get('contextPrefix') ?? '';
  const offset = Math.max(0, intParam(params, 'offset', 0));
  return ok(CONTEXT.startsWith(prefix) && offset === 0 ? CONTEXTS : NO_REFERENCES);
}

/** The schema of a `{schema: "<JSON text>", schemaType?: "JSON"}` body, parsed. */
function lookUp(call: Call): Answer {
  const schema = postedSchema(call.body);
  const entry = subjectEntry(call.snapshot, call.params[0]!);
  loaded(entry);
  const found = versionsOf(entry).find((v) => jsonEqual(v.document, schema));
  if (found === undefined) throw new ApiError('schemaNotFound', 'Schema not found');
  return ok(found.versionBody);
}

function makeCompatibility(level: CompatLevel, policy: CompatPolicy, pool: JudgePool, allowKeywords: readonly string[]): Handler {
  return (call) => {
    const [subject, version = 'latest'] = call.params as [string, string?];
    parseVersion(version);
    const entry = loaded(versionEntry(call.snapshot, subject, version));
    const verbose = new URLSearchParams(call.query).get('verbose')?.toLowerCase() === 'true';
    // Judged in a worker thread, whatever its size: every other request keeps being answered.
    const answer = pool.judge({ registered: entry.schema, body: call.body, level, policy, verbose, allowKeywords });
    return answer instanceof Promise ? answer.then((a) => ok(json(a))) : ok(json(answer));
  };
}

function routes(level: CompatLevel, policy: CompatPolicy, pool: JudgePool, allowKeywords: readonly string[]): Route[] {
  // Confluent clients read compatibilityLevel, in Confluent's upper case, and ignore the rest.
  const config = json({ compatibilityLevel: level.toUpperCase(), compatibilityPolicy: policy });
  const compatibility = makeCompatibility(level, policy, pool, allowKeywords);
  const S = '{subject}';
  const V = '{version}';
  const I = '{id}';
  return [
    { path: [], get: () => ok(EMPTY_OBJECT) },
    { path: ['subjects'], get: (c) => ok(c.snapshot.subjectsBody) },
    { path: ['subjects', S], post: lookUp },
    {
      path: ['subjects', S, 'versions'],
      get: (c) => {
        const e = subjectEntry(c.snapshot, c.params[0]!);
        return ok(e.ok ? e.versionsBody : VERSIONS);
      },
      post: register,
    },
    { path: ['subjects', S, 'versions', V], get: (c) => ok(loaded(versionEntry(c.snapshot, c.params[0]!, c.params[1]!)).versionBody) },
    {
      path: ['subjects', S, 'versions', V, 'schema'],
      get: (c) => ok(loaded(versionEntry(c.snapshot, c.params[0]!, c.params[1]!)).schemaBody),
    },
    // A schema here refers to no other (Confluent's `references`), so none refers to it.
    {
      path: ['subjects', S, 'versions', V, 'referencedby'],
      get: (c) => (versionEntry(c.snapshot, c.params[0]!, c.params[1]!), ok(NO_REFERENCES)),
    },
    { path: ['schemas'], get: listSchemas },
    { path: ['schemas', 'types'], get: () => ok(SCHEMA_TYPES) },
    { path: ['schemas', 'ids', I], get: (c) => ok(loaded(idEntry(c.snapshot, c.params[0]!)).idBody) },
    { path: ['schemas', 'ids', I, 'schema'], get: (c) => ok(loaded(idEntry(c.snapshot, c.params[0]!)).schemaBody) },
    { path: ['schemas', 'ids', I, 'versions'], get: (c) => ok(idEntry(c.snapshot, c.params[0]!).idVersionsBody) },
    { path: ['schemas', 'ids', I, 'subjects'], get: (c) => ok(idEntry(c.snapshot, c.params[0]!).idSubjectsBody) },
    { path: ['compatibility', 'subjects', S, 'versions', V], post: compatibility },
    // Without a version: against the latest (a level here is never transitive; compat --transitive is the CLI's).
    { path: ['compatibility', 'subjects', S, 'versions'], post: compatibility },
    { path: ['config'], get: () => ok(config) },
    {
      path: ['catalog'],
      get: (c) => {
        if (c.snapshot.catalog === undefined) throw new ApiError('routeNotFound', 'no catalog is served: start serve with --catalog');
        return { status: 200, body: c.snapshot.catalog.body, headers: c.snapshot.catalog.headers };
      },
    },
    { path: ['config', S], get: (c) => (subjectEntry(c.snapshot, c.params[0]!), ok(config)) },
    { path: ['mode'], get: () => ok(READ_ONLY_MODE) },
    { path: ['mode', S], get: (c) => (subjectEntry(c.snapshot, c.params[0]!), ok(READ_ONLY_MODE)) },
    { path: ['contexts'], get: listContexts },
  ];
}

/**
 * The writes Confluent serves besides registering (deleting, changing a config or a mode), by
 * method and path: each is answered as Confluent answers it in READONLY mode (422, 42205).
 */
const WRITES: ReadonlyArray<{ method: string; path: readonly string[] }> = [
  { method: 'DELETE', path: ['subjects', '{subject}'] },
  { method: 'DELETE', path: ['subjects', '{subject}', 'versions', '{version}'] },
  { method: 'PUT', path: ['config'] },
  { method: 'DELETE', path: ['config'] },
  { method: 'PUT', path: ['config', '{subject}'] },
  { method: 'DELETE', path: ['config', '{subject}'] },
  { method: 'PUT', path: ['mode'] },
  { method: 'DELETE', path: ['mode'] },
  { method: 'PUT', path: ['mode', '{subject}'] },
  { method: 'DELETE', path: ['mode', '{subject}'] },
  { method: 'DELETE', path: ['contexts', '{context}'] },
];

/** The read-only answer to a write Confluent serves, or undefined when `method` and `parts` are none. */
function confluentWrite(method: string, parts: readonly string[]): ApiError | undefined {
  for (const w of WRITES) {
    if (w.method !== method || w.path.length !== parts.length) continue;
    if (!w.path.every((p, i) => p.startsWith('{') || p === parts[i])) continue;
    const what = `${method} /${w.path.join('/')}`;
    const subjectAt = w.path.indexOf('{subject}');
    if (subjectAt >= 0) return subjectReadOnly(parts[subjectAt]!, what);
    return new ApiError('readOnly', `This registry is in read-only mode: ${what} is not served, ${READ_ONLY_MESSAGE}`);
  }
  return undefined;
}

/** The request target's path segments, percent-decoded one by one (so `%2F` stays inside a subject). */
function segments(path: string): string[] | undefined {
  if (path.charCodeAt(0) !== 0x2f) return undefined; // not origin-form (`*`, an absolute URL)
  if (path === '/') return [];
  const parts = path.slice(1).split('/');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.includes('%')) {
      try {
        parts[i] = decodeURIComponent(part);
      } catch {
        throw new ApiError('badRequest', 'malformed percent-encoding in the request path');
      }
    }
  }
  return parts;
}

function match(table: readonly Route[], parts: string[]): { route: Route; params: string[] } | undefined {
  for (const route of table) {
    if (route.path.length !== parts.length) continue;
    const params: string[] = [];
    let hit = true;
    for (let i = 0; i < parts.length; i++) {
      const p = route.path[i]!;
      if (p.charCodeAt(0) === 0x7b) params.push(parts[i]!);
      else if (p !== parts[i]) {
        hit = false;
        break;
      }
    }
    if (hit) return { route, params };
  }
  return undefined;
}

function allowed(route: Route): string {
  return [route.get ? 'GET, HEAD' : '', route.post ? 'POST' : ''].filter(Boolean).join(', ');
}

function errorAnswer(err: unknown): Answer {
  const e = err instanceof ApiError ? err : new ApiError('backend', `internal error: ${err instanceof Error ? err.message : String(err)}`);
  return { status: e.status, body: Buffer.from(e.body(), 'utf8') };
}

function apiError(kind: ErrorKind, message: string): Answer {
  return errorAnswer(new ApiError(kind, message));
}

/** An answer written straight to a socket, for the cases Node gives no response object. */
function rawAnswer(kind: ErrorKind, message: string): string {
  const { status } = ERROR[kind];
  const body = new ApiError(kind, message).body();
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** A request's answer from the routes table: its handler's, or why there is none (a write Confluent has, a path or method not served). */
function dispatch(table: readonly Route[], method: string, url: string, call: Call): Answer | Promise<Answer> {
  const q = url.indexOf('?');
  const parts = segments(q === -1 ? url : url.slice(0, q));
  const found = parts === undefined ? undefined : match(table, parts);
  const read = method === 'GET' || method === 'HEAD';
  const handler = found === undefined ? undefined : read ? found.route.get : method === 'POST' ? found.route.post : undefined;
  if (handler === undefined) {
    const write = parts === undefined ? undefined : confluentWrite(method, parts);
    if (write !== undefined) return errorAnswer(write);
    if (found === undefined)
      return apiError('routeNotFound', `no such endpoint: ${method} ${url.length > 200 ? url.slice(0, 200) + '…' : url}`);
    return {
      ...apiError(
        'methodNotAllowed',
        `${method} is not served on this endpoint (it answers ${allowed(found.route)}); ${READ_ONLY_MESSAGE}`,
      ),
      allow: allowed(found.route),
    };
  }
  call.params = found!.params;
  call.query = q === -1 ? '' : url.slice(q + 1);
  return handler(call);
}

/** Writes an answer; `closing`: the server is shutting down, so the connection ends with it. */
function send(res: ServerResponse, answer: Answer, closing: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | number> = { 'content-type': CONTENT_TYPE, 'content-length': answer.body.length };
  if (answer.allow !== undefined) headers.allow = answer.allow;
  if (answer.headers !== undefined) Object.assign(headers, answer.headers, { 'content-length': answer.body.length });
  if (answer.etag !== undefined) {
    headers.etag = answer.etag;
    if (answer.status === 304) {
      // Not modified: no body, and no content headers describing one.
      delete headers['content-type'];
      delete headers['content-length'];
    }
  }
  // Shutting down: the connection ends with this answer instead of idling until its keep-alive timeout.
  if (closing) headers.connection = 'close';
  res.writeHead(answer.status, headers);
  if (answer.status === 304) res.end();
  else res.end(answer.body);
}

/** Sends a handler's answer, a successful read with its entity tag (304 when the client holds it). */
function finish(req: IncomingMessage, res: ServerResponse, method: string, answer: Answer, closing: boolean): void {
  // A successful read carries its entity tag; a client that already holds it gets 304.
  if (answer.status === 200 && (method === 'GET' || method === 'HEAD')) {
    const etag = etagOf(answer.body);
    const header = req.headers['if-none-match'];
    answer = noneMatch(Array.isArray(header) ? header.join(',') : header, etag) ? { status: 304, body: EMPTY, etag } : { ...answer, etag };
  }
  send(res, answer, closing);
}

/** The read-only, Confluent-compatible API over a registry snapshot. */
export function createServer(initial: Snapshot, options: ServerOptions = {}): RegistryServer {
  let level: CompatLevel;
  let policy: CompatPolicy;
  try {
    level = parseCompatLevel(options.compatibility ?? 'backward');
    policy = parseCompatPolicy(options.policy ?? 'bqschema');
  } catch (err) {
    if (err instanceof CompatNameError) throw new TypeError(err.message);
    throw err;
  }
  const limit = countOption(options.maxBodyBytes, MAX_BODY_BYTES, 'maxBodyBytes');
  const pending = new PendingBytes(countOption(options.maxPendingBytes, Math.max(MAX_PENDING_BYTES, limit), 'maxPendingBytes'));
  // Below the body limit, a body that fits the limit would be refused 503 however idle the server.
  if (pending.cap < limit) throw new TypeError(`maxPendingBytes (${pending.cap}) must be at least maxBodyBytes (${limit})`);
  const maxConnections = countOption(options.maxConnections, MAX_CONNECTIONS, 'maxConnections');
  let connections = 0;
  let peakConnections = 0;
  let refusedConnections = 0;
  let refusedBodies = 0;
  const pool = new JudgePool();
  const table = routes(level, policy, pool, [...(options.allowKeywords ?? [])]);
  const onRequest = options.onRequest;
  let current = initial;
  let closing = false;

  function respond(req: IncomingMessage, res: ServerResponse, snapshot: Snapshot, body: Buffer | undefined): void {
    let answer: Answer | Promise<Answer>;
    const method = req.method ?? 'GET';
    try {
      answer = dispatch(table, method, req.url ?? '/', { params: [], query: '', body, snapshot });
    } catch (err) {
      answer = errorAnswer(err);
    }
    if (answer instanceof Promise) {
      answer.then(
        (a) => finish(req, res, method, a, closing),
        (err: unknown) => finish(req, res, method, errorAnswer(err), closing),
      );
      return;
    }
    finish(req, res, method, answer, closing);
  }

  function refuseBody(req: IncomingMessage, res: ServerResponse): void {
    closeAfterResponse(req, res);
    send(res, apiError('bodyTooLarge', `the request body is larger than ${limit} bytes`), closing);
  }

  function refuseBusy(req: IncomingMessage, res: ServerResponse): void {
    refusedBodies++;
    closeAfterResponse(req, res);
    send(
      res,
      apiError('busy', `the server already holds ${pending.cap} bytes of request bodies still arriving: send this one again in a moment`),
      closing,
    );
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      if (onRequest !== undefined) logWhenDone(req, res, onRequest);
      // Taken now: a reload while the body arrives does not change what this request sees.
      const snapshot = current;
      if (!hasBody(req)) {
        respond(req, res, snapshot, undefined);
        return;
      }
      if (declaredTooLarge(req, limit)) {
        refuseBody(req, res);
        return;
      }
      readBody(req, limit, pending)
        .then((result) => {
          if (result.ok) respond(req, res, snapshot, result.body);
          else if (result.reason === 'aborted') res.destroy();
          else if (result.reason === 'tooLarge') refuseBody(req, res);
          else refuseBusy(req, res);
        })
        .catch((err: unknown) => fail(res, err));
    } catch (err) {
      fail(res, err);
    }
  }

  /** The last resort: a 50001 answer, or, when even that cannot be written, a closed connection. */
  function fail(res: ServerResponse, err: unknown): void {
    try {
      send(res, errorAnswer(err), closing);
    } catch {
      res.destroy();
    }
  }

  const server = createHttpServer(
    {
      requestTimeout: 30_000,
      headersTimeout: 10_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1_000,
      requireHostHeader: false,
    },
    handle,
  );
  server.keepAliveTimeout = 5_000;
  // Each connection holds at most its headers (16 KiB) until its body starts, which `pending` caps.
  server.maxConnections = maxConnections;
  server.on('connection', (socket: Duplex) => {
    connections++;
    if (connections > peakConnections) peakConnections = connections;
    socket.once('close', () => connections--);
  });
  server.on('drop', () => refusedConnections++);
  // A client that half-closes after its request still gets the answer a worker thread is judging
  // (node's default ends the socket at the client's FIN, dropping an answer not yet written).
  (server as unknown as { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (declaredTooLarge(req, limit)) {
      if (onRequest !== undefined) logWhenDone(req, res, onRequest);
      refuseBody(req, res);
      return;
    }
    // No room for the declared body: refused before the client sends it (readBody takes it in this turn).
    if (!pending.fits(Number(req.headers['content-length'] ?? 0))) {
      if (onRequest !== undefined) logWhenDone(req, res, onRequest);
      refuseBusy(req, res);
      return;
    }
    res.writeContinue();
    handle(req, res);
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    closeAfterResponse(req, res);
    send(res, apiError('expectationFailed', `unsupported Expect: ${String(req.headers.expect).slice(0, 100)}`), closing);
  });
  // Node answers these without a response object; the answers stay JSON all the same. Once the
  // parser has failed, every further chunk the client sends is reported again: answered once, the
  // socket is left to linger (destroying it would reset the connection under the answer).
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return;
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [kind, message]: [ErrorKind, string] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? ['headersTooLarge', 'the request headers are too large']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? ['requestTimeout', 'the request took too long to arrive']
          : ['badRequest', `malformed HTTP request (${err.code ?? 'parse error'})`];
    answered.add(socket);
    socket.write(rawAnswer(kind, message));
    linger(socket);
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.write(rawAnswer('methodNotAllowed', `CONNECT is not served: ${READ_ONLY_MESSAGE}`));
    linger(socket);
  });

  return {
    server,
    get snapshot() {
      return current;
    },
    replace(snapshot: Snapshot) {
      current = snapshot;
    },
    stats(): ServerStats {
      return {
        connections,
        peakConnections,
        refusedConnections,
        pendingBytes: pending.held,
        peakPendingBytes: pending.peak,
        pendingBodies: pending.bodies,
        refusedBodies,
      };
    },
    listen(port: number, host: string): Promise<AddressInfo> {
      return new Promise((resolve, reject) => {
        const onError = (err: Error): void => reject(err);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close(graceMs = 10_000): Promise<void> {
      closing = true;
      return new Promise((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          // In-flight questions have been answered: the worker can go.
          void pool.close();
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

function logWhenDone(req: IncomingMessage, res: ServerResponse, onRequest: (entry: RequestLog) => void): void {
  const start = performance.now();
  let logged = false;
  const log = (aborted: boolean): void => {
    if (logged) return;
    logged = true;
    onRequest({ method: req.method ?? '', path: req.url ?? '', status: res.statusCode, ms: performance.now() - start, aborted });
  };
  res.once('finish', () => log(false));
  res.once('close', () => log(true));
}
