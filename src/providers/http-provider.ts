import { compile, isSchemaObject, type CompiledSchema } from '../validator/index.js';
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
  init: { headers: Record<string, string>; signal: unknown; redirect: 'error' },
) => Promise<FetchAnswer>;

/** The part of a fetch Response HttpProvider reads. */
export interface FetchAnswer {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: AsyncIterable<Uint8Array> | null;
}

export interface HttpProviderOptions extends ProviderOptions {
  /**
   * How old a cached answer may get before a lookup revalidates it (a conditional GET with
   * If-None-Match, in the background: the lookup answers the cached schema at once). Default 60 s;
   * `Infinity` never revalidates.
   */
  refreshMs?: number;
  /** The longest one request may take, headers and body, in ms (default 5000). */
  timeoutMs?: number;
  /** The largest response body read, in bytes (default 16 MiB). */
  maxBodyBytes?: number;
  /** Told when a revalidation fails and the last good schema keeps being served. */
  onStale?: (urn: string, error: Error) => void;
  /** The fetch to use (default: the global fetch). */
  fetch?: FetchLike;
}

interface Entry {
  /** `undefined`: the registry has no such subject. */
  schema: CompiledSchema | undefined;
  etag: string | undefined;
  checkedAt: number;
}

const ACCEPT = 'application/vnd.schemaregistry.v1+json, application/json';
const SUBJECT_NOT_FOUND = 40401;

/**
 * Reads schemas by URN from a `bqschema serve` (or any Confluent-compatible registry serving JSON
 * schemas): `GET {base}/subjects/{urn}/versions/latest`. Lazy (a URN is fetched on first lookup;
 * concurrent lookups share one request), cached, revalidated after `refreshMs` with If-None-Match.
 * When a revalidation fails the last good schema keeps being served and `onStale` is told; a
 * failed first load throws a RegistryError naming the URN and is never cached, so a retry asks again.
 * `schemaFor` returns a promise: use it with `checkAsync`, `validateAsync` or `wrap`.
 */
export class HttpProvider implements AsyncProvider {
  private readonly base: string;
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private readonly refreshMs: number;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly fetcher: FetchLike;

  constructor(
    baseUrl: string | { readonly href: string },
    readonly options: HttpProviderOptions = {},
  ) {
    const url = new URL(typeof baseUrl === 'string' ? baseUrl : baseUrl.href);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`HttpProvider needs an http: or https: URL, got ${url.protocol}`);
    if (url.search !== '' || url.hash !== '') throw new TypeError('HttpProvider: the registry URL must have no query or fragment');
    this.base = url.href.replace(/\/+$/, '');
    this.refreshMs = options.refreshMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
    this.fetcher = options.fetch ?? (fetch as unknown as FetchLike);
  }

  async schemaFor(urn: string): Promise<CompiledSchema | undefined> {
    if (urn === '') return undefined; // no registry holds an empty subject
    const entry = this.entries.get(urn);
    if (entry === undefined) return (await this.load(urn, undefined)).schema;
    if (Date.now() - entry.checkedAt >= this.refreshMs) void this.load(urn, entry).catch(() => {});
    return entry.schema;
  }

  /** Revalidates every cached URN now and waits for the answers (a failed one keeps its last good schema). */
  async refresh(): Promise<void> {
    await Promise.all([...this.entries].map(([urn, entry]) => this.load(urn, entry).catch(() => {})));
  }

  /** One request per URN at a time: concurrent lookups and revalidations share it. */
  private load(urn: string, previous: Entry | undefined): Promise<Entry> {
    let pending = this.inflight.get(urn);
    if (pending === undefined) {
      pending = this.fetchEntry(urn, previous).then(
        (entry) => {
          this.inflight.delete(urn);
          this.entries.set(urn, entry);
          return entry;
        },
        (err: Error) => {
          this.inflight.delete(urn);
          if (previous === undefined) throw err; // never cached: the next lookup asks again
          previous.checkedAt = Date.now(); // the last good schema stays; retried after refreshMs
          this.options.onStale?.(urn, err);
          return previous;
        },
      );
      this.inflight.set(urn, pending);
    }
    return pending;
  }

  private async fetchEntry(urn: string, previous: Entry | undefined): Promise<Entry> {
    const url = `${this.base}/subjects/${encodeURIComponent(urn)}/versions/latest`;
    const fail = (problem: string): RegistryError => new RegistryError('unreadable', url, `schema for ${urn} cannot be read from ${this.base}: ${problem}`, urn);
    const headers: Record<string, string> = { accept: ACCEPT };
    if (previous?.etag !== undefined) headers['if-none-match'] = previous.etag;
    const signal = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let etag: string | undefined;
    let text: string;
    try {
      const res = await this.fetcher(url, { headers, signal, redirect: 'error' });
      status = res.status;
      etag = res.headers.get('etag') ?? undefined;
      text = status === 304 ? '' : await readCapped(res, this.maxBodyBytes);
    } catch (err) {
      const e = err as Error;
      throw fail(e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer within ${this.timeoutMs} ms` : e.message);
    }
    const now = Date.now();
    if (status === 304 && previous !== undefined) return { schema: previous.schema, etag: etag ?? previous.etag, checkedAt: now };
    const body = parseJson(text);
    if (status === 404 && isSchemaObject(body) && body.error_code === SUBJECT_NOT_FOUND) return { schema: undefined, etag: undefined, checkedAt: now };
    if (status !== 200) {
      const said = isSchemaObject(body) && typeof body.message === 'string' ? `: ${body.message.slice(0, 500)}` : '';
      throw fail(`HTTP ${status}${said}`);
    }
    if (!isSchemaObject(body) || typeof body.schema !== 'string') throw fail('the answer has no "schema" string');
    if (body.schemaType !== undefined && body.schemaType !== null && body.schemaType !== 'JSON') {
      throw fail(`the schema type is ${typeof body.schemaType === 'string' ? body.schemaType.slice(0, 40) : typeof body.schemaType}, not JSON`);
    }
    const document = parseJson(body.schema);
    if (document === undefined) throw fail('the schema is not valid JSON');
    let schema: CompiledSchema;
    try {
      schema = compile(document, { urn, onWarning: this.options.onWarning, strict: this.options.strict });
    } catch (err) {
      throw new RegistryError('malformed', url, `schema for ${urn} from ${this.base}: ${(err as Error).message}`, urn);
    }
    return { schema, etag, checkedAt: now };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body as UTF-8 text, refusing more than `limit` bytes while reading. */
async function readCapped(res: FetchAnswer, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > limit) throw new Error(`the answer is larger than ${limit} bytes`);
  if (res.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > limit) throw new Error(`the answer is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
