import { compile, isSchemaObject, malformedMessage, unknownMessage, type CompiledSchema, type SchemaWarning } from '../validator/index.js';
import { reportWarnings } from '../validator/warnings.js';
import { RegistryError } from '../registry/errors.js';
import type { ProviderOptions } from './map-provider.js';
import type { AsyncProvider } from './provider.js';

/**
 * The part of `fetch` HttpProvider uses, declared here so the package's types need neither the DOM
 * library nor @types/node: the global fetch (Node 18+) satisfies it.
 */
export type FetchLike = (
  url: string,
  /** `signal` is an AbortSignal (typed loosely so the declarations need no DOM or Node types). */
  init: { headers: Record<string, string>; signal: unknown; redirect: 'manual' },
) => Promise<FetchAnswer>;

/** The part of a fetch Response HttpProvider reads. */
interface FetchAnswer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** Node's and the browsers' ReadableStream (read with a reader where it is not async-iterable), or any async iterable. */
  readonly body: AsyncIterable<Uint8Array> | null;
  /** A browser's answer to `redirect: 'manual'` is `opaqueredirect` (status 0, no headers). */
  readonly type?: string;
}

export interface HttpProviderOptions extends ProviderOptions {
  /**
   * How old a cached answer may get before a lookup revalidates it (a conditional GET with
   * If-None-Match, in the background: the lookup answers the cached schema at once). Default 60 s;
   * `Infinity` never revalidates.
   */
  refreshMs?: number;
  /** The longest one request may take, headers and body, in ms (default 5000, at most 2^31-1). */
  timeoutMs?: number;
  /** The largest response body read, in bytes (default 16 MiB). */
  maxBodyBytes?: number;
  /** How many URNs with a schema are kept, least recently used dropped first (default 10,000). */
  maxSchemas?: number;
  /** How many "no such subject" answers are kept, apart from the schemas (default 1,000; 0 keeps none). */
  maxMisses?: number;
  /**
   * A URN that had a schema loses it only when the registry has answered "subject not found" (404,
   * error_code 40401) at 3 revalidations in a row spanning at least this long, in ms (default 15
   * minutes; `Infinity` never drops a schema). Every such answer before that goes to `onStale`.
   */
  deleteAfterMs?: number;
  /** Sent with every request (e.g. `authorization`); their values never appear in a message. */
  headers?: Readonly<Record<string, string>>;
  /** Told when a revalidation fails and the last good schema keeps being served. */
  onStale?: (urn: string, error: Error) => void;
  /** The fetch to use (default: the global fetch). */
  fetch?: FetchLike;
  /**
   * A version to read per URN instead of the latest (`{"urn:…": 2}`: `GET …/versions/2`), for a
   * registry that keeps versions (`bqschema serve --history`); each an integer from 1 to 2^31-1.
   */
  versions?: Readonly<Record<string, number>>;
}

interface Entry {
  /** `undefined`: the registry has no such subject. */
  schema: CompiledSchema | undefined;
  etag: string | undefined;
  checkedAt: number;
  /** "Subject not found" answers in a row for a URN that has a schema: how many, and since when. */
  gone?: { since: number; count: number };
}

/** The `cause` of an error about an answer's status: the status, and a redirect's target without credentials. */
interface HttpAnswerCause {
  readonly status: number;
  readonly location?: string;
}

/** What one request established. */
type Answer =
  { kind: 'schema'; schema: CompiledSchema; etag: string | undefined } | { kind: 'unchanged'; etag: string | undefined } | { kind: 'none' };

const ACCEPT = 'application/vnd.schemaregistry.v1+json, application/json';
const SUBJECT_NOT_FOUND = 40401;
/** "Subject not found" answers in a row (over `deleteAfterMs`) that drop a schema. */
const DELETION_CHECKS = 3;
/** Shorter secrets are not searched for in text the registry sends back (they would mangle it). */
const MIN_SECRET = 4;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Reads schemas by URN from a `bqschema serve` (or any Confluent-compatible registry serving JSON
 * schemas): `GET {base}/subjects/{urn}/versions/latest`. Lazy (a URN is fetched on first lookup;
 * concurrent lookups share one request), cached in two bounded LRUs (schemas, and "no such subject"
 * answers, so a stream of unknown URNs never evicts a schema), revalidated after `refreshMs` with
 * If-None-Match. It fails static: when a revalidation fails, or answers "not found" for a URN that
 * had a schema (a stale replica says that too), the last good schema keeps being served and
 * `onStale` is told; only `deleteAfterMs` of consistent "not found" answers drop it. A failed first
 * load throws a RegistryError naming the URN and is never cached, so a retry asks again.
 * `schemaFor` returns a promise: use it with `checkAsync`, `validateAsync` or `wrap`.
 */
export class HttpProvider implements AsyncProvider {
  /** The registry URL without credentials: the only form any message shows. */
  private readonly base: string;
  private readonly schemas = new Map<string, Entry>();
  private readonly misses = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly refreshMs: number;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly maxSchemas: number;
  private readonly maxMisses: number;
  private readonly deleteAfterMs: number;
  private readonly headers: Record<string, string>;
  /** Every credential sent, longest first, so none can reach a message (a registry may echo them). */
  private readonly secrets: string[];
  private readonly fetcher: FetchLike;
  private readonly pinned = new Map<string, number>();

  constructor(
    baseUrl: string | { readonly href: string },
    readonly options: HttpProviderOptions = {},
  ) {
    let url: URL;
    try {
      url = new URL(typeof baseUrl === 'string' ? baseUrl : baseUrl.href);
    } catch {
      // Never the input itself: it may hold a password.
      throw new TypeError('HttpProvider needs an http: or https: URL, got text that is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`HttpProvider needs an http: or https: URL, got ${url.protocol}`);
    if (url.search !== '' || url.hash !== '') throw new TypeError('HttpProvider: the registry URL must have no query or fragment');
    this.refreshMs = duration(options, 'refreshMs', 60_000);
    this.deleteAfterMs = duration(options, 'deleteAfterMs', 15 * 60_000);
    this.timeoutMs = whole(options, 'timeoutMs', 5_000, 1, MAX_TIMER_MS);
    this.maxBodyBytes = whole(options, 'maxBodyBytes', 16 * 1024 * 1024, 1);
    this.maxSchemas = whole(options, 'maxSchemas', 10_000, 1);
    this.maxMisses = whole(options, 'maxMisses', 1_000, 0);
    for (const name of ['onStale', 'fetch', 'onWarning'] as const) {
      if (options[name] !== undefined && typeof options[name] !== 'function')
        throw new TypeError(`HttpProvider: ${name} must be a function, got ${typeof options[name]}`);
    }
    if (options.versions !== undefined) {
      if (typeof options.versions !== 'object' || options.versions === null)
        throw new TypeError('HttpProvider: versions must be an object of URN to version number');
      for (const urn of Object.keys(options.versions)) {
        const v = options.versions[urn];
        if (!(Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 2 ** 31 - 1)) {
          throw new RangeError(
            `HttpProvider: versions[${JSON.stringify(urn.slice(0, 200))}] must be an integer from 1 to 2147483647, got ${typeof v === 'number' ? v : typeof v}`,
          );
        }
        this.pinned.set(urn, v as number);
      }
    }
    const { headers, secrets } = requestHeaders(url, options.headers);
    url.username = '';
    url.password = '';
    this.base = url.href.replace(/\/+$/, '');
    this.headers = headers;
    this.secrets = secrets;
    // Called as a plain function: a browser's fetch called as this.fetcher(…) throws "Illegal invocation".
    this.fetcher = options.fetch ?? ((input, init) => (fetch as unknown as FetchLike)(input, init));
  }

  async schemaFor(urn: string): Promise<CompiledSchema | undefined> {
    if (urn === '') return undefined; // no registry holds an empty subject
    const entry = this.cached(urn);
    if (entry === undefined) return (await this.load(urn, undefined)).schema;
    if (Date.now() - entry.checkedAt >= this.refreshMs) void this.load(urn, entry).catch(() => {});
    return entry.schema;
  }

  /** Revalidates every cached URN now and waits for the answers (a failed one keeps its last good schema). */
  async refresh(): Promise<void> {
    await Promise.all([...this.schemas, ...this.misses].map(([urn, entry]) => this.load(urn, entry).catch(() => {})));
  }

  /** How many URNs the cache holds now: with a schema, and answered "no such subject". */
  cacheSize(): { schemas: number; misses: number } {
    return { schemas: this.schemas.size, misses: this.misses.size };
  }

  /** The cached entry, marked most recently used. */
  private cached(urn: string): Entry | undefined {
    for (const pool of [this.schemas, this.misses]) {
      const entry = pool.get(urn);
      if (entry !== undefined) {
        pool.delete(urn);
        pool.set(urn, entry);
        return entry;
      }
    }
    return undefined;
  }

  /** Caches `entry` in its pool (and out of the other), dropping the least recently used past the bound. */
  private keep(urn: string, entry: Entry): void {
    const [pool, other, max] =
      entry.schema === undefined ? [this.misses, this.schemas, this.maxMisses] : [this.schemas, this.misses, this.maxSchemas];
    other.delete(urn);
    pool.delete(urn);
    if (max === 0) return;
    pool.set(urn, entry);
    if (pool.size > max) pool.delete(pool.keys().next().value!);
  }

  /** One request per URN at a time: concurrent lookups and revalidations share it. */
  private load(urn: string, previous: Entry | undefined): Promise<Entry> {
    let pending = this.inflight.get(urn);
    if (pending === undefined) {
      pending = (async () => {
        try {
          const entry = this.settle(urn, previous, await this.fetchAnswer(urn, previous));
          this.keep(urn, entry);
          return entry;
        } catch (err) {
          if (previous === undefined) throw err; // never cached: the next lookup asks again
          previous.checkedAt = Date.now(); // the last good schema stays; retried after refreshMs
          this.options.onStale?.(urn, err as Error);
          return previous;
        } finally {
          this.inflight.delete(urn);
        }
      })();
      this.inflight.set(urn, pending);
    }
    return pending;
  }

  /** The entry an answer makes; throws (so the last schema stays) on a "not found" not yet taken as a deletion. */
  private settle(urn: string, previous: Entry | undefined, answer: Answer): Entry {
    const now = Date.now();
    if (answer.kind === 'schema') return { schema: answer.schema, etag: answer.etag, checkedAt: now };
    if (answer.kind === 'unchanged') return { schema: previous!.schema, etag: answer.etag ?? previous!.etag, checkedAt: now };
    if (previous?.schema === undefined) return { schema: undefined, etag: undefined, checkedAt: now };
    // A stale or misconfigured replica answers "not found" too: only a consistent answer over
    // deleteAfterMs is a deletion.
    const gone = previous.gone ?? { since: now, count: 0 };
    gone.count += 1;
    previous.gone = gone;
    if (gone.count >= DELETION_CHECKS && now - gone.since >= this.deleteAfterMs)
      return { schema: undefined, etag: undefined, checkedAt: now };
    const held =
      this.deleteAfterMs === Infinity
        ? 'it is kept until the process restarts (deleteAfterMs is Infinity)'
        : `it is dropped once that answer holds for ${DELETION_CHECKS} checks over ${this.deleteAfterMs} ms (deleteAfterMs); ${gone.count} so far`;
    throw this.error(
      'unreadable',
      urn,
      `the registry answered 404 (subject not found) for a subject it served before; the last schema is kept: ${held}`,
      { status: 404 },
    );
  }

  private async fetchAnswer(urn: string, previous: Entry | undefined): Promise<Answer> {
    const url = this.urlFor(urn);
    const headers: Record<string, string> = { ...this.headers, accept: ACCEPT };
    const conditional = previous?.schema !== undefined && previous.etag !== undefined;
    if (conditional) headers['if-none-match'] = previous.etag!;
    const signal = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let etag: string | undefined;
    let text = '';
    try {
      const res = await this.fetcher(url, { headers, signal, redirect: 'manual' });
      status = res.status;
      etag = res.headers.get('etag') ?? undefined;
      if ((status >= 300 && status < 400 && status !== 304) || res.type === 'opaqueredirect') {
        await discard(res);
        const location = this.location(res.headers.get('location'), url);
        const to = location === undefined ? 'with no location' : `to ${location}`;
        throw this.error(
          'unreadable',
          urn,
          `the registry answered a redirect (HTTP ${status}) ${to}; redirects are not followed: give the registry's own URL`,
          { status, location },
        );
      }
      if (status !== 304) text = await readCapped(res, this.maxBodyBytes);
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      const e = err as Error;
      const problem = e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer within ${this.timeoutMs} ms` : describe(e);
      throw this.error('unreadable', urn, problem, e);
    }
    if (status === 304 && conditional) return { kind: 'unchanged', etag };
    const body = parseJson(text);
    if (status === 404 && isSchemaObject(body) && body.error_code === SUBJECT_NOT_FOUND) return { kind: 'none' };
    if (status !== 200) {
      const said = isSchemaObject(body) && typeof body.message === 'string' ? `: ${body.message.slice(0, 500)}` : '';
      throw this.error('unreadable', urn, `HTTP ${status}${said}`, { status });
    }
    if (!isSchemaObject(body) || typeof body.schema !== 'string') throw this.error('unreadable', urn, 'the answer has no "schema" string');
    // The answer must be the one asked for: a misrouting proxy or a broken replica answering another
    // subject would otherwise put that subject's rules on this URN.
    if (body.subject !== urn) {
      const named = typeof body.subject === 'string' ? `subject ${JSON.stringify(body.subject.slice(0, 200))}` : 'no subject';
      throw this.error('unreadable', urn, `the answer names ${named}, not the subject asked for`);
    }
    const pinned = this.pinned.get(urn);
    if (body.version !== undefined && !(Number.isSafeInteger(body.version) && (body.version as number) >= 1)) {
      throw this.error(
        'unreadable',
        urn,
        `the answer's version is ${typeof body.version === 'number' ? body.version : typeof body.version}, not a version number (${pinned === undefined ? 'the latest' : `version ${pinned}`} was asked for)`,
      );
    }
    // A pinned version must be the one answered: another would put that version's rules on this URN.
    if (pinned !== undefined && body.version !== pinned) {
      throw this.error(
        'unreadable',
        urn,
        `the answer is version ${typeof body.version === 'number' ? body.version : 'unnamed'}, not version ${pinned} asked for`,
      );
    }
    if (body.schemaType !== undefined && body.schemaType !== null && body.schemaType !== 'JSON') {
      throw this.error(
        'unreadable',
        urn,
        `the schema type is ${typeof body.schemaType === 'string' ? body.schemaType.slice(0, 40) : typeof body.schemaType}, not JSON`,
      );
    }
    const document = parseJson(body.schema);
    if (document === undefined) throw this.error('unreadable', urn, 'the schema is not valid JSON');
    // Warnings are held until the schema is taken: one that is refused is reported through onStale.
    const warnings: SchemaWarning[] = [];
    let schema: CompiledSchema;
    try {
      schema = compile(document, { urn, onWarning: (w) => warnings.push(w), strict: this.options.strict });
    } catch (err) {
      throw this.error('malformed', urn, (err as Error).message, err as Error);
    }
    // A schema that replaces a good one must not bring a constraint nobody would enforce (a typo
    // such as `requried`, a malformed `type`): taking it would switch that constraint off, so the
    // last good schema stays (failing static), as for any other failed revalidation.
    const held = previous?.schema;
    const added = held === undefined ? undefined : unenforcedAdded(schema.warnings, held.warnings);
    if (added !== undefined) {
      const what = added.kind === 'unknown' ? unknownMessage(added) : `${malformedMessage(added)}; it is not enforced`;
      throw this.error(
        'malformed',
        urn,
        `the registry answered a new schema in which ${what}${what.endsWith('?') ? ' T' : '; t'}he last good schema is kept until an answer without it`,
      );
    }
    reportWarnings(warnings, { onWarning: this.options.onWarning });
    return { kind: 'schema', schema, etag };
  }

  /**
   * The request URL. A URN holding a dot segment, even once percent-decoded (`.`, `..`, `%2e`,
   * `a/..`, `%252e`), would name another path (URL parsing, or a proxy that decodes, removes it):
   * refused, as is any URN whose URL parsing would change.
   */
  private urlFor(urn: string): string {
    const url = this.pathFor(urn);
    if (url === undefined)
      throw this.error('unreadable', urn, 'the URN is not well-formed Unicode (it holds a lone surrogate); no request was sent');
    const dotted = dotSegments(urn);
    if (dotted !== undefined || new URL(url).href !== url) {
      const shown = dotted === undefined || dotted === urn ? '' : ` (percent-decoded: ${JSON.stringify(dotted.slice(0, 200))})`;
      throw this.error(
        'unreadable',
        urn,
        `the URN${shown} holds a "." or ".." path segment, which would make the request name another path; no request was sent`,
      );
    }
    return url;
  }

  /** `{base}/subjects/{urn}/versions/latest` (or the version pinned); `undefined` when the URN cannot be encoded (a lone surrogate). */
  private pathFor(urn: string): string | undefined {
    try {
      return `${this.base}/subjects/${encodeURIComponent(urn)}/versions/${this.pinned.get(urn) ?? 'latest'}`;
    } catch {
      return undefined;
    }
  }

  /** A redirect's target, resolved against the request, without credentials; `undefined` if there is none. */
  private location(header: string | null, from: string): string | undefined {
    if (header === null) return undefined;
    try {
      const to = new URL(header, from);
      to.username = '';
      to.password = '';
      return this.redact(to.href.slice(0, 500));
    } catch {
      return this.redact(JSON.stringify(header.slice(0, 200)));
    }
  }

  /**
   * A RegistryError naming the URN and the registry (never a credential). `cause`: a copy of the
   * error it wraps, or the answer `{ status, location? }` when the registry answered unexpectedly.
   */
  private error(kind: 'unreadable' | 'malformed', urn: string, problem: string, cause?: Error | HttpAnswerCause): RegistryError {
    const message =
      kind === 'malformed'
        ? `schema for ${urn} from ${this.base}: ${problem}`
        : `schema for ${urn} cannot be read from ${this.base}: ${problem}`;
    const err = new RegistryError(kind, this.pathFor(urn) ?? this.base, this.redact(message), urn);
    if (cause !== undefined)
      Object.defineProperty(err, 'cause', { value: cause instanceof Error ? this.copy(cause) : cause, writable: true, configurable: true });
    return err;
  }

  /**
   * The innermost error of a chain as a new Error: its name, message and `code` (ECONNRESET,
   * UND_ERR_SOCKET, …), credentials removed, so no text the provider did not check escapes with it.
   */
  private copy(err: Error): Error {
    const inner = innermost(err);
    const copy = new Error(this.redact(inner.message));
    copy.name = inner.name;
    const code = codeOf(err);
    if (code !== undefined) (copy as Error & { code: string }).code = code;
    if (typeof inner.stack === 'string') copy.stack = this.redact(inner.stack);
    return copy;
  }

  private redact(text: string): string {
    for (const secret of this.secrets) text = text.split(secret).join('***');
    return text;
  }
}

/** The first unknown or malformed keyword of `next` that `held` does not have (the same kind, pointer and keyword), if any. */
function unenforcedAdded(next: readonly SchemaWarning[], held: readonly SchemaWarning[]): SchemaWarning | undefined {
  const key = (w: SchemaWarning): string => `${w.kind}\0${w.pointer}\0${w.keyword}`;
  const known = new Set(held.filter((w) => w.kind !== 'unsupported').map(key));
  return next.find((w) => w.kind !== 'unsupported' && !known.has(key(w)));
}

/** The URN, or a percent-decoding of it, that holds a `.` or `..` segment between slashes; `undefined` if none does. */
function dotSegments(urn: string): string | undefined {
  let text = urn;
  for (let i = 0; i < 8; i++) {
    if (text.split(/[\\/]/).some((part) => part === '.' || part === '..')) return text;
    let next: string;
    try {
      next = decodeURIComponent(text);
    } catch {
      return undefined; // not decodable: no server or proxy decodes it into a segment either
    }
    if (next === text) return undefined;
    text = next;
  }
  return undefined;
}

/** A duration option: a number from 0, `Infinity` allowed. */
function duration(options: HttpProviderOptions, name: 'refreshMs' | 'deleteAfterMs', fallback: number): number {
  const value: unknown = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0))
    throw new RangeError(`HttpProvider: ${name} must be a number of milliseconds from 0 (Infinity allowed), got ${shown(value)}`);
  return value;
}

/** A whole-number option from `min` to `max`. */
function whole(
  options: HttpProviderOptions,
  name: 'timeoutMs' | 'maxBodyBytes' | 'maxSchemas' | 'maxMisses',
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value: unknown = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`HttpProvider: ${name} must be a whole number from ${min} to ${max}, got ${shown(value)}`);
  }
  return value;
}

function shown(value: unknown): string {
  return typeof value === 'number'
    ? String(value)
    : typeof value === 'string'
      ? `${JSON.stringify(value.slice(0, 40))} (a string)`
      : value === null
        ? 'null'
        : typeof value;
}

/**
 * The headers every request carries and the secrets they hold. URL credentials become Basic
 * authorization (fetch refuses a URL holding them, and they must never reach a message).
 */
function requestHeaders(
  url: URL,
  given: Readonly<Record<string, string>> | undefined,
): { headers: Record<string, string>; secrets: string[] } {
  const headers: Record<string, string> = {};
  const secrets = new Set<string>();
  if (given !== undefined) {
    if (given === null || typeof given !== 'object')
      throw new TypeError(
        `HttpProvider: headers must be an object of header names to strings, got ${given === null ? 'null' : typeof given}`,
      );
    for (const name of Object.keys(given)) {
      const value: unknown = given[name];
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
        throw new TypeError(`HttpProvider: headers has a name that is not an HTTP header name: ${JSON.stringify(name.slice(0, 40))}`);
      // The value is never shown: it may be a credential.
      if (typeof value !== 'string' || /[\r\n\0]/.test(value))
        throw new TypeError(`HttpProvider: headers.${name} must be a string without line breaks`);
      headers[name.toLowerCase()] = value;
      secrets.add(value.trim());
      for (const part of value.trim().split(/\s+/).slice(1)) secrets.add(part); // `Bearer <token>`: the token alone too
    }
  }
  if (url.username !== '' || url.password !== '') {
    if (headers.authorization !== undefined)
      throw new TypeError('HttpProvider: give credentials either in the URL or in headers.authorization, not both');
    const user = decoded(url.username);
    const password = decoded(url.password);
    const token = base64Utf8(`${user}:${password}`);
    headers.authorization = `Basic ${token}`;
    for (const s of [url.username, url.password, user, password, `${user}:${password}`, `${url.username}:${url.password}`, token])
      secrets.add(s);
  }
  return { headers, secrets: [...secrets].filter((s) => s.length >= MIN_SECRET).sort((a, b) => b.length - a.length) };
}

/** Percent-decoded, or as it is when it does not decode (`%zz`). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function innermost(err: Error): Error {
  let e = err;
  for (let i = 0; i < 8 && e.cause instanceof Error; i++) e = e.cause;
  return e;
}

/** The innermost `code` of a chain (`ECONNRESET` under undici's "fetch failed"). */
function codeOf(err: Error): string | undefined {
  let code: string | undefined;
  let e: unknown = err;
  for (let i = 0; i < 8 && e instanceof Error; i++) {
    const c = (e as Error & { code?: unknown }).code;
    if (typeof c === 'string') code = c;
    e = e.cause;
  }
  return code;
}

/** What went wrong, from the innermost error: undici's "fetch failed" says nothing. */
function describe(err: Error): string {
  const inner = innermost(err);
  const code = codeOf(err);
  const message = inner.message.slice(0, 300);
  return code === undefined || message.includes(code) ? message : `${message} (${code})`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Releases an answer's body unread. */
async function discard(res: FetchAnswer): Promise<void> {
  const body = res.body as (AsyncIterable<Uint8Array> & { cancel?: () => Promise<void> }) | null;
  if (body === null) return;
  if (typeof body.cancel === 'function') await body.cancel();
  else await body[Symbol.asyncIterator]().return?.();
}

/** The body as UTF-8 text, refusing more than `limit` bytes while reading. */
async function readCapped(res: FetchAnswer, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > limit) throw new Error(`the answer is larger than ${limit} bytes`);
  if (res.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksOf(res.body)) {
    size += chunk.byteLength;
    if (size > limit) throw new Error(`the answer is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  // As Buffer's toString: malformed UTF-8 becomes U+FFFD, and a BOM is kept (the JSON parse refuses it).
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(all);
}

type Reader = { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void };

/** A body's chunks: async iteration where the stream has it, else its reader (browsers without it). */
async function* chunksOf(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function') {
    yield* body;
    return;
  }
  const reader = (body as unknown as { getReader(): Reader }).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value !== undefined) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Base64 of a string's UTF-8 bytes (Basic credentials), without Buffer: it runs in browsers too. */
function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
