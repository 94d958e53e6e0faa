import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MapProvider } from '../../src/index.js';
import { buildSnapshot, createServer, type RegistryServer } from '../../src/serve/index.js';
import { call } from '../helpers/serve.js';

const URN = 'urn:babel:orders:created';
const path = `/subjects/${encodeURIComponent(URN)}/versions/latest`;
let api: RegistryServer;
let port: number;
const snap = (schemas: Record<string, unknown>) => buildSnapshot(new MapProvider(schemas, { onWarning: () => {} }));

beforeAll(async () => {
  api = createServer(snap({ [URN]: { type: 'object' }, 'urn:b': { type: 'string' } }));
  port = (await api.listen(0, '127.0.0.1')).port;
});
afterAll(() => api.close(0));

describe('serve: ETag and If-None-Match', () => {
  it('every successful GET carries a strong ETag, the same on every request for the same answer', async () => {
    const a = await call(port, 'GET', path);
    const b = await call(port, 'GET', path);
    expect(a.status).toBe(200);
    expect(a.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(b.headers.etag).toBe(a.headers.etag);
    const other = await call(port, 'GET', `/subjects/urn%3Ab/versions/latest`);
    expect(other.headers.etag).not.toBe(a.headers.etag);
    for (const p of ['/subjects', '/schemas/types', '/config', `${path}/schema`])
      expect((await call(port, 'GET', p)).headers.etag, p).toMatch(/^"/);
  });

  it('answers 304 without a body when the tag matches (listed, weak, or *), 200 otherwise', async () => {
    const tag = (await call(port, 'GET', path)).headers.etag as string;
    for (const header of [tag, `"nope", ${tag}`, `W/${tag}`, '*']) {
      const r = await call(port, 'GET', path, undefined, { 'if-none-match': header });
      expect(r.status, header).toBe(304);
      expect(r.text).toBe('');
      expect(r.headers.etag).toBe(tag);
      expect(r.headers['content-length']).toBeUndefined();
    }
    const miss = await call(port, 'GET', path, undefined, { 'if-none-match': '"other"' });
    expect(miss.status).toBe(200);
    expect(miss.body.schema).toBe('{"type":"object"}');
    const head = await call(port, 'HEAD', path, undefined, { 'if-none-match': tag });
    expect(head.status).toBe(304);
  });

  it('errors carry no ETag and are never 304', async () => {
    const r = await call(port, 'GET', '/subjects/urn%3Anone/versions/latest', undefined, { 'if-none-match': '*' });
    expect(r.status).toBe(404);
    expect(r.headers.etag).toBeUndefined();
  });

  it('a changed schema has a new tag after a reload; an unchanged one keeps its tag', async () => {
    const before = (await call(port, 'GET', path)).headers.etag;
    const other = (await call(port, 'GET', '/subjects/urn%3Ab/versions/latest')).headers.etag;
    api.replace(snap({ [URN]: { type: 'object', required: ['a'] }, 'urn:b': { type: 'string' } }));
    const after = await call(port, 'GET', path, undefined, { 'if-none-match': before as string });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before);
    expect((await call(port, 'GET', '/subjects/urn%3Ab/versions/latest', undefined, { 'if-none-match': other as string })).status).toBe(
      304,
    );
  });
});
