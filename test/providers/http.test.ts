import { once } from 'node:events';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkAsync, HttpProvider, MapProvider, RegistryError } from '../../src/index.js';
import { buildSnapshot, createServer, type RegistryServer, type RequestLog } from '../../src/serve/index.js';

const URN = 'urn:babel:orders:created';
const V1 = { type: 'object', required: ['order_id'] };
const V2 = { type: 'object', required: ['order_id', 'amount'] };

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function registry(
  schemas: Record<string, unknown>,
): Promise<{ api: RegistryServer; url: string; log: RequestLog[]; set(next: Record<string, unknown>): void }> {
  const log: RequestLog[] = [];
  const api = createServer(buildSnapshot(new MapProvider(schemas, { onWarning: () => {} })), { onRequest: (e) => log.push(e) });
  const address = await api.listen(0, '127.0.0.1');
  open.push({ close: () => api.close(0) });
  return {
    api,
    url: `http://127.0.0.1:${address.port}`,
    log,
    set: (next) => api.replace(buildSnapshot(new MapProvider(next, { onWarning: () => {} }))),
  };
}

/** Waits until the request log has `n` finished entries (logging happens when the response ends). */
async function logged(log: RequestLog[], n: number): Promise<void> {
  for (let i = 0; i < 200 && log.length < n; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('HttpProvider', () => {
  it('strict: a schema with an unknown or malformed keyword fails its load (docs/contract.md §8, §14); lenient: it warns', async () => {
    const reg = await registry({ 'urn:t:unknown': { type: 'object', requried: ['a'] }, 'urn:t:malformed': { type: 'integr' } });
    const strict = new HttpProvider(reg.url, { strict: true, onWarning: () => {} });
    await expect(strict.schemaFor('urn:t:unknown')).rejects.toThrow(/unknown keyword "requried" .*did you mean "required"\?/);
    await expect(strict.schemaFor('urn:t:malformed')).rejects.toThrow(/malformed keyword "type"/);
    const kinds: string[] = [];
    const lenient = new HttpProvider(reg.url, { onWarning: (w) => kinds.push(`${w.kind} ${w.keyword}`) });
    expect((await lenient.schemaFor('urn:t:unknown'))!.isValid({})).toBe(true);
    expect(kinds).toEqual(['unknown requried']);
  });

  it('is lazy, caches, and shares one request among concurrent lookups', async () => {
    const reg = await registry({ [URN]: V1 });
    const p = new HttpProvider(reg.url, { onWarning: () => {} });
    expect(reg.log).toHaveLength(0);
    const answers = await Promise.all([p.schemaFor(URN), p.schemaFor(URN), p.schemaFor(URN)]);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]!.isValid({ order_id: 1 })).toBe(true);
    expect(await p.schemaFor(URN)).toBe(answers[0]);
    await logged(reg.log, 1);
    expect(reg.log.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      `GET /subjects/${encodeURIComponent(URN)}/versions/latest 200`,
    ]);
  });

  it('answers undefined for a subject the registry does not have, and for an empty URN without asking', async () => {
    const reg = await registry({ [URN]: V1 });
    const p = new HttpProvider(reg.url);
    expect(await p.schemaFor('urn:none')).toBeUndefined();
    expect(await p.schemaFor('')).toBeUndefined();
    await logged(reg.log, 1);
    expect(reg.log).toHaveLength(1);
  });

  it('revalidates with If-None-Match: 304 keeps the schema, a change is recompiled', async () => {
    const reg = await registry({ [URN]: V1 });
    const p = new HttpProvider(reg.url, { onWarning: () => {} });
    const first = await p.schemaFor(URN);
    await p.refresh();
    expect(await p.schemaFor(URN)).toBe(first);
    reg.set({ [URN]: V2 });
    await p.refresh();
    const second = await p.schemaFor(URN);
    expect(second).not.toBe(first);
    expect(second!.isValid({ order_id: 1 })).toBe(false);
    await logged(reg.log, 3);
    expect(reg.log.map((e) => e.status)).toEqual([200, 304, 200]);
  });

  it('after refreshMs a lookup answers the cached schema at once and revalidates in the background', async () => {
    const reg = await registry({ [URN]: V1 });
    const p = new HttpProvider(reg.url, { refreshMs: 0, onWarning: () => {} });
    const first = await p.schemaFor(URN);
    reg.set({ [URN]: V2 });
    expect(await p.schemaFor(URN)).toBe(first); // stale-while-revalidate
    await vi.waitFor(async () => expect((await p.schemaFor(URN))!.isValid({ order_id: 1 })).toBe(false));
  });

  it('a subject removed from the registry stays until "not found" has held for 3 refreshes over deleteAfterMs', async () => {
    const reg = await registry({ [URN]: V1 });
    const stale: string[] = [];
    const p = new HttpProvider(reg.url, { deleteAfterMs: 0, onStale: (urn) => stale.push(urn) });
    expect(await p.schemaFor(URN)).toBeDefined();
    reg.set({});
    await p.refresh();
    await p.refresh();
    expect(await p.schemaFor(URN)).toBeDefined(); // serve answers 404/40401, as a stale replica would
    expect(stale).toEqual([URN, URN]);
    await p.refresh();
    expect(await p.schemaFor(URN)).toBeUndefined();
  });

  it('keeps serving the last good schema when the registry is unreachable, and says so', async () => {
    const reg = await registry({ [URN]: V1 });
    const stale: Array<[string, string]> = [];
    const p = new HttpProvider(reg.url, { onStale: (urn, err) => stale.push([urn, err.message]), timeoutMs: 2000 });
    const first = await p.schemaFor(URN);
    await reg.api.close(0);
    await p.refresh();
    expect(await p.schemaFor(URN)).toBe(first);
    expect(stale).toHaveLength(1);
    expect(stale[0]![0]).toBe(URN);
    expect(stale[0]![1]).toContain(`schema for ${URN} cannot be read`);
  });

  it('never caches a failure: a first load that fails throws naming the URN, the retry succeeds', async () => {
    // A port with nothing listening, then a registry on it.
    const probe = createNetServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as { port: number }).port;
    probe.close();
    await once(probe, 'close');
    const p = new HttpProvider(`http://127.0.0.1:${port}`, { timeoutMs: 2000 });
    const err = await p.schemaFor(URN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect((err as RegistryError).urn).toBe(URN);
    expect((err as RegistryError).message).toContain(URN);
    const api = createServer(buildSnapshot(new MapProvider({ [URN]: V1 })));
    await api.listen(port, '127.0.0.1');
    open.push({ close: () => api.close(0) });
    expect((await p.schemaFor(URN))!.isValid({})).toBe(false);
  });

  it('bounds every request by timeoutMs', async () => {
    const sockets: Socket[] = [];
    const hang: NetServer = createNetServer((s) => void sockets.push(s)); // accepts, never answers
    hang.listen(0, '127.0.0.1');
    await once(hang, 'listening');
    open.push({
      close: async () => {
        for (const s of sockets) s.destroy();
        hang.close();
      },
    });
    const p = new HttpProvider(`http://127.0.0.1:${(hang.address() as { port: number }).port}`, { timeoutMs: 100 });
    const started = Date.now();
    await expect(p.schemaFor(URN)).rejects.toThrow(
      `schema for ${URN} cannot be read from http://127.0.0.1:${(hang.address() as { port: number }).port}: no answer within 100 ms`,
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses an oversized answer, a non-JSON schema type and a broken subject, naming the URN', async () => {
    const reg = await registry({ [URN]: { enum: ['x'.repeat(2000)] } });
    await expect(new HttpProvider(reg.url, { maxBodyBytes: 1000 }).schemaFor(URN)).rejects.toThrow(/larger than 1000 bytes/);
    const fake =
      (body: object, status = 200): typeof fetch =>
      async () =>
        new Response(JSON.stringify({ subject: URN, ...body }), { status });
    await expect(
      new HttpProvider('http://x.invalid', { fetch: fake({ schema: '{}', schemaType: 'AVRO' }) }).schemaFor(URN),
    ).rejects.toThrow(`schema for ${URN}`);
    await expect(new HttpProvider('http://x.invalid', { fetch: fake({ schema: '{' }) }).schemaFor(URN)).rejects.toThrow(/not valid JSON/);
    await expect(
      new HttpProvider('http://x.invalid', { fetch: fake({ error_code: 50001, message: 'disk on fire' }, 500) }).schemaFor(URN),
    ).rejects.toThrow(/HTTP 500: disk on fire/);
    await expect(
      new HttpProvider('http://x.invalid', { fetch: fake({ error_code: 40400, message: 'no route' }, 404) }).schemaFor(URN),
    ).rejects.toThrow(/HTTP 404/);
  });

  it('sends compile warnings to onWarning, once per registration', async () => {
    const reg = await registry({ [URN]: { type: 'object', pattern: 'x' } });
    const seen: string[] = [];
    const p = new HttpProvider(reg.url, { onWarning: (w) => seen.push(`${w.urn} ${w.keyword}`) });
    await p.schemaFor(URN);
    await p.refresh(); // 304: not registered again
    expect(seen).toEqual([`${URN} pattern`]);
  });

  it('works with the async guard', async () => {
    const reg = await registry({ [URN]: V1 });
    const p = new HttpProvider(reg.url);
    expect(await checkAsync(p, URN, {})).toHaveLength(1);
  });

  it('fails static when a revalidated schema brings an unknown or malformed keyword: the last good schema stays, onStale is told', async () => {
    const good = { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } };
    const typo = { type: 'object', requried: ['order_id'], properties: { order_id: { type: 'integer' } } };
    const malformed = { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integr' } } };
    const reg = await registry({ [URN]: good });
    const stale: Error[] = [];
    const warned: string[] = [];
    const p = new HttpProvider(reg.url, { onStale: (_, err) => stale.push(err), onWarning: (w) => warned.push(`${w.kind} ${w.keyword}`) });
    const first = (await p.schemaFor(URN))!;
    for (const [bad, words] of [
      [
        typo,
        /schema for urn:babel:orders:created from http:\/\/127\.0\.0\.1:\d+: the registry answered a new schema in which unknown keyword "requried" at the schema root is not enforced \(no JSON Schema draft defines it\); did you mean "required"\? The last good schema is kept until an answer without it$/,
      ],
      [
        malformed,
        /the registry answered a new schema in which malformed keyword "type" at \/properties\/order_id: unknown type name "integr"; it is not enforced; the last good schema is kept until an answer without it$/,
      ],
    ] as const) {
      reg.set({ [URN]: bad });
      stale.length = 0;
      for (let i = 0; i < 2; i++) {
        await p.refresh(); // asked again each time: still refused
        expect(await p.schemaFor(URN)).toBe(first);
        expect(await checkAsync(p, URN, {})).toEqual([expect.objectContaining({ keyword: 'required' })]);
        expect(await checkAsync(p, URN, { order_id: 'x' })).toEqual([expect.objectContaining({ keyword: 'type' })]);
      }
      expect(stale).toHaveLength(2);
      expect(stale[0]).toBeInstanceOf(RegistryError);
      expect(stale[0]).toMatchObject({ kind: 'malformed', urn: URN });
      expect(stale[0]!.message).toMatch(words);
    }
    // Background revalidation after refreshMs fails static the same way.
    const lazy = new HttpProvider(reg.url, { refreshMs: 0, onStale: (_, err) => stale.push(err), onWarning: () => {} });
    reg.set({ [URN]: good });
    const kept = (await lazy.schemaFor(URN))!;
    reg.set({ [URN]: typo });
    stale.length = 0;
    await lazy.schemaFor(URN);
    await vi.waitFor(() => expect(stale).toHaveLength(1));
    expect(await lazy.schemaFor(URN)).toBe(kept);
    // The refused schemas' warnings went to onStale, not onWarning; a schema that fixes it is taken.
    expect(warned).toEqual([]);
    reg.set({ [URN]: V2 });
    await p.refresh();
    expect((await p.schemaFor(URN))!.isValid({ order_id: 1 })).toBe(false);
  });

  it('takes a revalidated schema whose unknown keywords the last one had already, and one that adds an unsupported keyword (warned)', async () => {
    const first = { type: 'object', required: ['order_id'], 'x-ok': 1, requried: ['a'] };
    const reg = await registry({ [URN]: first });
    const warned: string[] = [];
    const stale: Error[] = [];
    const p = new HttpProvider(reg.url, { onStale: (_, err) => stale.push(err), onWarning: (w) => warned.push(`${w.kind} ${w.keyword}`) });
    // A first answer has no last good schema to keep: as MapProvider and DirProvider do, it is served and warned (strict refuses it).
    expect((await p.schemaFor(URN))!.isValid({ order_id: 1 })).toBe(true);
    expect(warned).toEqual(['unknown requried']);
    reg.set({ [URN]: { ...first, required: ['order_id', 'amount'] } });
    await p.refresh();
    expect((await p.schemaFor(URN))!.isValid({ order_id: 1 })).toBe(false);
    reg.set({ [URN]: { ...first, required: ['order_id', 'amount'], properties: { amount: { type: 'integer', format: 'int32' } } } });
    await p.refresh();
    expect((await p.schemaFor(URN))!.isValid({ order_id: 1, amount: 1.5 })).toBe(false);
    expect(warned).toEqual(['unknown requried', 'unknown requried', 'unknown requried', 'unsupported format']);
    expect(stale).toEqual([]);
  });

  it('accepts only http and https registry URLs', () => {
    expect(() => new HttpProvider('file:///etc/passwd')).toThrow(TypeError);
    expect(() => new HttpProvider('http://127.0.0.1:1/?q=1')).toThrow(TypeError);
    expect(() => new HttpProvider('not a url')).toThrow(TypeError);
  });
});
