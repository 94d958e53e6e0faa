// HttpProvider against registries that lie, redirect, reset, echo credentials or never stop naming
// new URNs: each test runs a hostile node:http server on 127.0.0.1 (an ephemeral port).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkAsync, HttpProvider, RegistryError, type HttpProviderOptions } from '../../src/index.js';

const CART = 'urn:shop:cart:checked-out';
const NEEDS_SKU = JSON.stringify({ type: 'object', required: ['sku'] });

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Hostile {
  url: string;
  port: number;
  /** Every request's path and headers, in arrival order. */
  requests: Array<{ path: string; headers: IncomingMessage['headers'] }>;
  /** Answers from now on with `handler`. */
  set(handler: Handler): void;
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of open.splice(0)) await close();
});

async function hostile(handler: Handler): Promise<Hostile> {
  let current = handler;
  const requests: Hostile['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    current(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, port, requests, set: (next) => void (current = next) };
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/vnd.schemaregistry.v1+json', ...headers });
  res.end(JSON.stringify(body));
};
/** The subject named in a `/subjects/{subject}/versions/latest` path. */
const subjectOf = (req: IncomingMessage): string => decodeURIComponent((req.url ?? '').split('/')[2] ?? '');
/** A Confluent answer for the subject asked for. */
const schemaAnswer =
  (schema: string, version = 3): Handler =>
  (req, res) =>
    send(res, 200, { subject: subjectOf(req), version, id: 41, schemaType: 'JSON', schema });
const notFound: Handler = (req, res) => send(res, 404, { error_code: 40401, message: `Subject '${subjectOf(req)}' not found.` });

const quiet: HttpProviderOptions = { onWarning: () => {}, timeoutMs: 3000 };
const violations = async (p: HttpProvider, urn: string, data: unknown): Promise<number> => (await checkAsync(p, urn, data)).length;

describe('HttpProvider fails static on a "not found" for a subject it has served', () => {
  it('a revalidation answered 404/40401 keeps the schema and tells onStale, every time', async () => {
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const stale: Error[] = [];
    const p = new HttpProvider(reg.url, { ...quiet, onStale: (_urn, err) => stale.push(err) });
    expect(await violations(p, CART, { qty: 2 })).toBe(1);
    reg.set(notFound); // a replica that lost the subject, or points at an empty registry
    for (let i = 1; i <= 4; i++) {
      await p.refresh();
      expect(await violations(p, CART, { qty: 2 })).toBe(1);
      expect(stale).toHaveLength(i);
    }
    expect(stale[0]).toBeInstanceOf(RegistryError);
    expect(stale[3]!.message).toContain(
      `schema for ${CART} cannot be read from ${reg.url}: the registry answered 404 (subject not found) for a subject it served before; the last schema is kept`,
    );
    expect(stale[3]!.message).toContain('4 so far');
    expect(reg.requests).toHaveLength(5);
  });

  it('the background revalidation after refreshMs fails static too (the audit saw 1, 1, 0)', async () => {
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const stale: string[] = [];
    const p = new HttpProvider(reg.url, { ...quiet, refreshMs: 0, onStale: (urn) => stale.push(urn) });
    expect(await violations(p, CART, {})).toBe(1);
    reg.set(notFound);
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      seen.push(await violations(p, CART, {}));
      await vi.waitFor(() => expect(stale.length).toBeGreaterThan(i)); // wait for that revalidation
    }
    expect(seen).toEqual([1, 1, 1, 1, 1, 1]);
    expect(new Set(stale)).toEqual(new Set([CART]));
  });

  it('drops the schema only after 3 "not found" answers in a row spanning deleteAfterMs; any schema answer restarts the count', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = new Date('2026-03-01T12:00:00Z').getTime();
    vi.setSystemTime(t0);
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const stale: Error[] = [];
    const p = new HttpProvider(reg.url, { ...quiet, deleteAfterMs: 120_000, onStale: (_u, e) => stale.push(e) });
    expect(await violations(p, CART, {})).toBe(1);
    reg.set(notFound);
    const at = async (ms: number): Promise<number> => {
      vi.setSystemTime(t0 + ms);
      await p.refresh();
      return violations(p, CART, {});
    };
    expect([await at(1_000), await at(50_000), await at(100_000)]).toEqual([1, 1, 1]); // 3 answers, but over 99 s
    reg.set(schemaAnswer(NEEDS_SKU, 4)); // the registry has it after all: the count starts again
    expect(await at(110_000)).toBe(1);
    reg.set(notFound);
    expect([await at(200_000), await at(250_000), await at(300_000)]).toEqual([1, 1, 1]); // 100 s
    expect(await at(320_001)).toBe(0); // the 4th in a row, 120.001 s after the first: a deletion
    expect(stale).toHaveLength(6); // every refused "not found"; the accepted one is not a failure
    expect(await p.schemaFor(CART)).toBeUndefined();
    expect(p.cacheSize()).toEqual({ schemas: 0, misses: 1 });
  });

  it('deleteAfterMs: Infinity never drops a schema', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(0);
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const stale: Error[] = [];
    const p = new HttpProvider(reg.url, { ...quiet, deleteAfterMs: Infinity, onStale: (_u, e) => stale.push(e) });
    await p.schemaFor(CART);
    reg.set(notFound);
    for (let day = 1; day <= 5; day++) {
      vi.setSystemTime(day * 86_400_000);
      await p.refresh();
    }
    expect(await violations(p, CART, {})).toBe(1);
    expect(stale.at(-1)!.message).toContain('it is kept until the process restarts (deleteAfterMs is Infinity)');
  });

  it('a URN never served is none at once (a first "not found" is not a deletion)', async () => {
    const reg = await hostile(notFound);
    const p = new HttpProvider(reg.url, quiet);
    expect(await p.schemaFor('urn:shop:never')).toBeUndefined();
    expect(await violations(p, 'urn:shop:never', {})).toBe(0);
    expect(reg.requests).toHaveLength(1);
  });
});

describe('HttpProvider keeps a bounded cache', () => {
  it('keeps at most maxSchemas schemas, least recently used dropped first, and counts one request per load', async () => {
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const p = new HttpProvider(reg.url, { ...quiet, maxSchemas: 4, refreshMs: Infinity });
    const urns = Array.from({ length: 11 }, (_, i) => `urn:shop:item:${i}`);
    for (const urn of urns) {
      await p.schemaFor(urn);
      expect(p.cacheSize().schemas).toBeLessThanOrEqual(4);
    }
    expect(reg.requests).toHaveLength(11);
    for (const urn of urns.slice(7)) await p.schemaFor(urn); // the 4 most recent: cached
    expect(reg.requests).toHaveLength(11);
    await p.schemaFor(urns[7]!); // now most recently used: 8 is the oldest
    await p.schemaFor(urns[0]!); // evicted long ago: asked again, evicting 8
    expect(reg.requests).toHaveLength(12);
    await p.schemaFor(urns[7]!);
    expect(reg.requests).toHaveLength(12);
    await p.schemaFor(urns[8]!);
    expect(reg.requests).toHaveLength(13);
    expect(p.cacheSize()).toEqual({ schemas: 4, misses: 0 });
  });

  it('a stream of unknown URNs fills only the bounded miss cache: no schema is evicted', async () => {
    const reg = await hostile((req, res) =>
      subjectOf(req).startsWith('urn:real:') ? schemaAnswer(NEEDS_SKU)(req, res) : notFound(req, res),
    );
    const p = new HttpProvider(reg.url, { ...quiet, maxSchemas: 3, refreshMs: Infinity });
    const real = ['urn:real:a', 'urn:real:b', 'urn:real:c'];
    for (const urn of real) await p.schemaFor(urn);
    for (let i = 0; i < 1_300; i++) {
      expect(await p.schemaFor(`urn:attacker:${i}`)).toBeUndefined();
    }
    expect(p.cacheSize()).toEqual({ schemas: 3, misses: 1_000 }); // the default miss bound
    expect(reg.requests).toHaveLength(3 + 1_300);
    for (const urn of real) expect(await violations(p, urn, {})).toBe(1);
    await p.schemaFor('urn:attacker:1299'); // a recent miss is remembered
    expect(reg.requests).toHaveLength(3 + 1_300);
    await p.schemaFor('urn:attacker:0'); // an old one was dropped: asked again
    expect(reg.requests).toHaveLength(3 + 1_301);
  });

  it('maxMisses: 0 keeps no miss', async () => {
    const reg = await hostile(notFound);
    const p = new HttpProvider(reg.url, { ...quiet, maxMisses: 0 });
    await p.schemaFor('urn:x');
    await p.schemaFor('urn:x');
    expect(reg.requests).toHaveLength(2);
    expect(p.cacheSize()).toEqual({ schemas: 0, misses: 0 });
  });
});

describe('HttpProvider never shows a credential', () => {
  const PASSWORD = 'Tr0ub4dor-pw';
  const BEARER = 'tok-7Hq9ZkL2mW';
  const secrets = (user: string, password: string): string[] => [
    password,
    `${user}:${password}`,
    Buffer.from(`${user}:${password}`).toString('base64'),
    BEARER,
  ];

  /** Every text an error exposes. */
  function texts(err: unknown): string[] {
    const e = err as Error & { cause?: unknown; file?: string };
    const cause = e.cause as { message?: unknown; stack?: unknown } | undefined;
    return [
      String(e),
      e.message,
      String(e.stack),
      JSON.stringify(e),
      String(e.file),
      JSON.stringify(e.cause ?? null),
      String(cause?.message),
      String(cause?.stack),
    ];
  }
  function expectClean(err: unknown, forbidden: string[]): void {
    expect(err).toBeInstanceOf(Error);
    for (const text of texts(err)) for (const secret of forbidden) expect(text).not.toContain(secret);
  }

  it('sends URL credentials as Basic authorization and keeps them out of every error and cause', async () => {
    // Each answer is hostile in its own way; the echoing ones repeat the authorization header back.
    const answers: Handler[] = [
      (req, res) =>
        send(res, 500, {
          error_code: 50001,
          message: `denied for ${req.headers.authorization} (${Buffer.from(String(req.headers.authorization).slice(6), 'base64').toString()})`,
        }),
      (req, res) => send(res, 302, {}, { location: `http://ops:${PASSWORD}@127.0.0.1:9/${req.headers.authorization}` }),
      (req) => req.socket.resetAndDestroy(),
      (req, res) => send(res, 200, { subject: `${req.headers.authorization}`, schema: '{}' }),
      (req, res) =>
        send(res, 200, { subject: subjectOf(req), schema: JSON.stringify({ type: 'object', required: `${req.headers.authorization}` }) }),
      (_req, res) => {
        res.writeHead(200, { 'content-length': '10000' });
        res.write('{"subj');
      },
    ];
    const reg = await hostile(answers[0]!);
    const p = new HttpProvider(`http://svc-reader:${PASSWORD}@127.0.0.1:${reg.port}/`, { ...quiet, strict: true, timeoutMs: 500 });
    for (const answer of answers) {
      reg.set(answer);
      const err = await p.schemaFor(CART).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistryError);
      expect((err as Error).message).toContain(`schema for ${CART}`);
      expect((err as Error).message).toContain(`http://127.0.0.1:${reg.port}`);
      expectClean(err, [...secrets('svc-reader', PASSWORD), 'svc-reader']);
      if (answer === answers[0]) expect((err as Error).message).toContain('HTTP 500: denied for Basic *** (***)'); // the echo was there
    }
    expect(reg.requests.every((r) => r.headers.authorization === `Basic ${Buffer.from(`svc-reader:${PASSWORD}`).toString('base64')}`)).toBe(
      true,
    );
    expect(reg.requests).toHaveLength(answers.length);
  });

  it('keeps a headers option value (a bearer token) out of errors, onStale errors included', async () => {
    const echo: Handler = (req, res) =>
      send(res, 503, {
        error_code: 50003,
        message: `token ${String(req.headers.authorization).split(' ')[1]} expired; header was "${req.headers.authorization}"`,
      });
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const stale: Error[] = [];
    const p = new HttpProvider(reg.url, { ...quiet, headers: { Authorization: `Bearer ${BEARER}` }, onStale: (_u, e) => stale.push(e) });
    await p.schemaFor(CART);
    reg.set(echo);
    await p.refresh();
    expect(stale).toHaveLength(1);
    expect(stale[0]!.message).toContain('HTTP 503: token *** expired');
    expectClean(stale[0], [BEARER]);
    const first = await new HttpProvider(reg.url, { ...quiet, headers: { authorization: `Bearer ${BEARER}` } })
      .schemaFor('urn:other')
      .catch((e: unknown) => e);
    expectClean(first, [BEARER]);
    expect(reg.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${BEARER}`, `Bearer ${BEARER}`, `Bearer ${BEARER}`]);
  });

  it('a URL it cannot parse is refused without quoting it', () => {
    let err: unknown;
    try {
      new HttpProvider(`http://svc-reader:${PASSWORD}@[not-a-host/`);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TypeError);
    expectClean(err, [PASSWORD]);
    expect(() => new HttpProvider(`http://svc%zz:${PASSWORD}@127.0.0.1:8081/`)).not.toThrow(); // a user name that does not percent-decode
  });
});

describe('HttpProvider refuses options that would break it', () => {
  const bad: Array<[keyof HttpProviderOptions, unknown]> = [
    ['timeoutMs', NaN],
    ['timeoutMs', Infinity],
    ['timeoutMs', -1],
    ['timeoutMs', 0],
    ['timeoutMs', 2.5],
    ['timeoutMs', 2 ** 31],
    ['timeoutMs', '5000'],
    ['maxBodyBytes', NaN],
    ['maxBodyBytes', Infinity],
    ['maxBodyBytes', 0],
    ['maxBodyBytes', -4096],
    ['maxBodyBytes', 1e3 + 0.5],
    ['refreshMs', NaN],
    ['refreshMs', -30],
    ['refreshMs', '60000'],
    ['refreshMs', null],
    ['maxSchemas', 0],
    ['maxSchemas', NaN],
    ['maxSchemas', 7.25],
    ['maxSchemas', Infinity],
    ['maxMisses', -1],
    ['maxMisses', NaN],
    ['maxMisses', 0.5],
    ['deleteAfterMs', NaN],
    ['deleteAfterMs', -1],
    ['deleteAfterMs', '900000'],
  ];
  it.each(bad)('%s: %s is a RangeError naming the option', (name, value) => {
    const make = (): HttpProvider => new HttpProvider('http://127.0.0.1:8081', { [name]: value } as HttpProviderOptions);
    expect(make).toThrow(RangeError);
    expect(make).toThrow(new RegExp(`^HttpProvider: ${name} must be .*, got ${typeof value === 'number' ? String(value) : '.*'}`));
  });

  it('takes the edges that are valid', () => {
    for (const options of [
      { refreshMs: Infinity },
      { refreshMs: 0 },
      { deleteAfterMs: Infinity },
      { deleteAfterMs: 0 },
      { maxMisses: 0 },
      { timeoutMs: 2 ** 31 - 1 },
      { maxBodyBytes: 1 },
      { maxSchemas: 1 },
    ]) {
      expect(() => new HttpProvider('http://127.0.0.1:8081', options)).not.toThrow();
    }
  });

  it('refuses non-function callbacks and malformed headers, naming them', () => {
    expect(() => new HttpProvider('http://127.0.0.1:8081', { onStale: 'log' as never })).toThrow(
      'HttpProvider: onStale must be a function, got string',
    );
    expect(() => new HttpProvider('http://127.0.0.1:8081', { headers: { 'x-a\r\nb': 'v' } })).toThrow(TypeError);
    expect(() => new HttpProvider('http://127.0.0.1:8081', { headers: { 'x-key': 'secret-value\r\nx: y' } })).toThrow(
      'HttpProvider: headers.x-key must be a string without line breaks',
    );
    expect(() => new HttpProvider('http://u:p@127.0.0.1:8081', { headers: { authorization: 'Bearer t' } })).toThrow(
      /either in the URL or in headers.authorization/,
    );
  });
});

describe('HttpProvider refuses URNs that would change the request path', () => {
  it.each(['.', '..', '%2e', '%2E%2e', '.%2E', '%252e%252e', 'urn:a/..', '../admin', 'urn:x\\..\\y', 'urn:shop%2F%2E%2E'])(
    '%s: a RegistryError, no request',
    async (urn) => {
      const reg = await hostile(schemaAnswer('{}'));
      const p = new HttpProvider(reg.url, quiet);
      const err = await p.schemaFor(urn).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistryError);
      expect((err as RegistryError).urn).toBe(urn);
      expect((err as Error).message).toMatch(/holds a "\." or "\.\." path segment.*no request was sent$/);
      await p.schemaFor(urn).catch(() => {}); // refused again: never cached
      expect(reg.requests).toHaveLength(0);
    },
  );

  it('still asks for URNs that merely contain dots, slashes and percent signs', async () => {
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const p = new HttpProvider(reg.url, quiet);
    for (const urn of ['urn:a.b:c', '...', 'urn:x/y', '%2e%2e%2e', 'urn:..x', '%zz..']) expect(await violations(p, urn, {})).toBe(1);
    expect(reg.requests).toHaveLength(6);
  });

  it('a lone surrogate is refused without a request', async () => {
    const reg = await hostile(schemaAnswer('{}'));
    await expect(new HttpProvider(reg.url, quiet).schemaFor('urn:\ud800')).rejects.toThrow(/not well-formed Unicode/);
    expect(reg.requests).toHaveLength(0);
  });
});

describe('HttpProvider keeps causes', () => {
  it('a redirect is reported as one, to a location without credentials, and not followed', async () => {
    const reg = await hostile((_req, res) => send(res, 307, {}, { location: '/moved/subjects/x/versions/latest' }));
    const err = (await new HttpProvider(reg.url, quiet).schemaFor(CART).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(RegistryError);
    expect(err.message).toBe(
      `schema for ${CART} cannot be read from ${reg.url}: the registry answered a redirect (HTTP 307) to ${reg.url}/moved/subjects/x/versions/latest; redirects are not followed: give the registry's own URL`,
    );
    expect(err.cause).toEqual({ status: 307, location: `${reg.url}/moved/subjects/x/versions/latest` });
    reg.set((_req, res) => send(res, 301, {}, { location: 'https://backup:hunter2-x@registry.example/' }));
    const other = (await new HttpProvider(reg.url, quiet).schemaFor(CART).catch((e: unknown) => e)) as Error;
    expect(other.message).toContain('redirect (HTTP 301) to https://registry.example/;');
    expect(JSON.stringify(other.cause)).not.toContain('hunter2');
    expect(reg.requests.map((r) => r.path)).toEqual([
      `/subjects/${encodeURIComponent(CART)}/versions/latest`,
      `/subjects/${encodeURIComponent(CART)}/versions/latest`,
    ]);
  });

  it('a redirect on revalidation goes to onStale and the schema stays', async () => {
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const stale: Error[] = [];
    const p = new HttpProvider(reg.url, { ...quiet, onStale: (_u, e) => stale.push(e) });
    await p.schemaFor(CART);
    reg.set((_req, res) => send(res, 308, {}));
    await p.refresh();
    expect(await violations(p, CART, {})).toBe(1);
    expect(stale[0]!.message).toContain('the registry answered a redirect (HTTP 308) with no location');
  });

  it('a connection reset, before or during the answer, keeps its cause and code', async () => {
    const reg = await hostile((req) => req.socket.resetAndDestroy());
    const p = new HttpProvider(reg.url, quiet);
    const before = (await p.schemaFor(CART).catch((e: unknown) => e)) as Error & { cause?: Error & { code?: string } };
    expect(before).toBeInstanceOf(RegistryError);
    expect(before.message).toMatch(new RegExp(`^schema for ${CART} cannot be read from ${reg.url}: .*ECONNRESET`));
    expect(before.message).not.toContain('fetch failed');
    expect(before.cause).toBeInstanceOf(Error);
    expect(before.cause!.code).toBe('ECONNRESET');
    reg.set((req, res) => {
      res.writeHead(200, { 'content-length': '900' });
      res.write('{"subject":"');
      setTimeout(() => req.socket.resetAndDestroy(), 10);
    });
    const during = (await p.schemaFor(CART).catch((e: unknown) => e)) as Error & { cause?: Error & { code?: string } };
    expect(during.message).not.toMatch(/: (terminated|fetch failed)$/);
    expect(during.cause!.code).toMatch(/^(ECONNRESET|UND_ERR_SOCKET)$/);
  });

  it('a refused connection and a timeout keep their cause', async () => {
    const reg = await hostile(() => {}); // never answers
    const timeout = (await new HttpProvider(reg.url, { ...quiet, timeoutMs: 150 }).schemaFor(CART).catch((e: unknown) => e)) as Error;
    expect(timeout.message).toContain('no answer within 150 ms');
    expect((timeout.cause as Error).name).toBe('TimeoutError');
    const closed = await hostile(() => {});
    const port = closed.port;
    await open.pop()!();
    const refused = (await new HttpProvider(`http://127.0.0.1:${port}`, quiet).schemaFor(CART).catch((e: unknown) => e)) as Error & {
      cause?: { code?: string };
    };
    expect(refused.message).toContain('ECONNREFUSED');
    expect(refused.cause!.code).toBe('ECONNREFUSED');
  });

  it('a schema that does not compile keeps the compile error as cause', async () => {
    const reg = await hostile(schemaAnswer(JSON.stringify({ type: 'object', required: 'sku' })));
    const err = (await new HttpProvider(reg.url, { ...quiet, strict: true }).schemaFor(CART).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(RegistryError);
    expect((err as RegistryError).kind).toBe('malformed');
    expect((err.cause as Error).message).toBe(err.message.slice(`schema for ${CART} from ${reg.url}: `.length));
  });
});

describe('HttpProvider checks that the answer is for the subject asked for', () => {
  it('a 200 naming another subject, or none, is an error on a first load', async () => {
    const reg = await hostile((_req, res) => send(res, 200, { subject: 'urn:shop:anything-goes', version: 1, schema: '{}' }));
    const p = new HttpProvider(reg.url, quiet);
    await expect(p.schemaFor(CART)).rejects.toThrow(
      `schema for ${CART} cannot be read from ${reg.url}: the answer names subject "urn:shop:anything-goes", not the subject asked for`,
    );
    reg.set((_req, res) => send(res, 200, { version: 1, schema: '{}' }));
    await expect(p.schemaFor(CART)).rejects.toThrow('the answer names no subject, not the subject asked for');
    reg.set((req, res) => send(res, 200, { subject: subjectOf(req).toUpperCase(), schema: '{}' }));
    await expect(p.schemaFor(CART)).rejects.toThrow(/names subject "URN:SHOP:CART:CHECKED-OUT"/);
    reg.set((req, res) => send(res, 200, { subject: subjectOf(req), version: 'latest', schema: '{}' }));
    await expect(p.schemaFor(CART)).rejects.toThrow("the answer's version is string, not a version number");
    reg.set((req, res) => send(res, 200, { subject: subjectOf(req), version: 0, schema: '{}' }));
    await expect(p.schemaFor(CART)).rejects.toThrow("the answer's version is 0, not a version number");
  });

  it('on revalidation a wrong subject keeps the cached schema and tells onStale', async () => {
    const reg = await hostile(schemaAnswer(NEEDS_SKU));
    const stale: Error[] = [];
    const p = new HttpProvider(reg.url, { ...quiet, onStale: (_u, e) => stale.push(e) });
    expect(await violations(p, CART, {})).toBe(1);
    reg.set((_req, res) => send(res, 200, { subject: 'urn:shop:cart:abandoned', version: 9, schema: '{}' }));
    await p.refresh();
    expect(await violations(p, CART, {})).toBe(1);
    expect(stale.map((e) => e.message)).toEqual([
      `schema for ${CART} cannot be read from ${reg.url}: the answer names subject "urn:shop:cart:abandoned", not the subject asked for`,
    ]);
  });
});
