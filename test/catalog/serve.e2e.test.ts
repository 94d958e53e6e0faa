import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOG_CSP_HEADER } from '../../src/catalog/index.js';
import { call, ROOT, serve, stop, type Served } from '../helpers/serve.js';

// serve --catalog: the HTML catalog at /catalog, read-only, under the catalog's CSP as a header.

const running: Served[] = [];
afterAll(async () => {
  for (const s of running) await stop(s);
});

async function get(port: number, path: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path, agent: false });
  req.end();
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') };
}

describe('serve --catalog', () => {
  it('answers GET /catalog with the catalog of the served registry, under its CSP; writes are refused', async () => {
    // Run from another directory with an absolute --registry: the page shows no path of this machine.
    const s = await serve(['--registry', join(ROOT, 'registry.example.json'), '--catalog'], { cwd: tmpdir() });
    running.push(s);
    const page = await get(s.port, '/catalog');
    expect(page.text).not.toContain(ROOT);
    expect(page.text).toContain('<code>examples/schemas/orders-created.json</code>');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CATALOG_CSP_HEADER);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.text).toMatch(/^<!DOCTYPE html>/);
    for (const urn of [
      'urn:babel:orders:created',
      'urn:babel:orders:cancelled',
      'urn:babel:users:registered',
      'urn:babel:payments:captured',
    ]) {
      expect(page.text).toContain(urn);
    }
    expect((await call(s.port, 'POST', '/catalog', '{}')).status).toBe(405);
    // The API keeps answering as before.
    expect((await call(s.port, 'GET', '/subjects')).body).toHaveLength(4);
  });

  it('without --catalog there is no /catalog (404, a Confluent error body)', async () => {
    const s = await serve(['--registry', join(ROOT, 'registry.example.json')]);
    running.push(s);
    const r = await call(s.port, 'GET', '/catalog');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error_code: 40400 });
  });
});
