import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { MapProvider } from '../../src/index.js';
import { compile } from '../../src/validator/index.js';
import { buildSnapshot, createServer, schemaId, type LoadedSubject, type RegistryServer, type Snapshot } from '../../src/serve/index.js';
import { BIN, call, CONTENT_TYPE, manifest, registryDir, serve, stop, writeFiles, type Reply, type Served } from '../helpers/serve.js';

const ORDERS = {
  type: 'object',
  required: ['order_id'],
  properties: { order_id: { type: 'integer', minimum: 1 }, note: { type: 'string' } },
  additionalProperties: false,
};
const CANCELLED_YAML = '# YAML is served as JSON text\ntype: object\nrequired: [order_id]\nproperties:\n  order_id: {type: integer}\n';
const CANCELLED = { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } };
const AB_JSONC = '// a comment, and a trailing comma\n{ "type": "string", "maxLength": 5, }\n';
const AB = { type: 'string', maxLength: 5 };
const SPACE = { type: 'boolean' };
const ZETA = { enum: ['z'] };

// Code-unit order, written out by hand: upper case sorts before lower case.
const SUBJECTS = [
  'urn:babel:Zeta',
  'urn:babel:a/b',
  'urn:babel:orders:cancelled',
  'urn:babel:orders:created',
  'urn:babel:with space',
  'urn:babel:zz:broken',
];
const DOCS: Record<string, unknown> = {
  'urn:babel:Zeta': ZETA,
  'urn:babel:a/b': AB,
  'urn:babel:orders:cancelled': CANCELLED,
  'urn:babel:orders:created': ORDERS,
  'urn:babel:with space': SPACE,
};
const BROKEN = 'urn:babel:zz:broken';
const enc = encodeURIComponent;

const dirs: string[] = [];
let main: Served;

function expectJson(reply: Reply): void {
  expect(reply.headers['content-type']).toBe(CONTENT_TYPE);
}
function expectError(reply: Reply, status: number, code: number): void {
  expectJson(reply);
  expect(reply.status).toBe(status);
  expect(reply.body.error_code).toBe(code);
  expect(typeof reply.body.message).toBe('string');
}
const get = async (path: string): Promise<Reply> => {
  const r = await call(main.port, 'GET', path);
  expectJson(r);
  return r;
};
const post = async (path: string, body: unknown): Promise<Reply> => {
  const r = await call(main.port, 'POST', path, typeof body === 'string' ? body : JSON.stringify(body));
  expectJson(r);
  return r;
};

beforeAll(async () => {
  const dir = registryDir({
    'registry.json': manifest([
      { urn: 'urn:babel:orders:created', schema: 'schemas/orders.json' },
      { urn: BROKEN, schema: 'schemas/broken.json' },
      { urn: 'urn:babel:orders:cancelled', schema: 'schemas/cancelled.yaml' },
      { urn: 'urn:babel:with space', schema: 'schemas/space.json' },
      { urn: 'urn:babel:a/b', schema: 'schemas/ab.jsonc' },
      { urn: 'urn:babel:Zeta', schema: 'schemas/zeta.json' },
    ]),
    'schemas/orders.json': JSON.stringify(ORDERS),
    'schemas/broken.json': '{ "type": ',
    'schemas/cancelled.yaml': CANCELLED_YAML,
    'schemas/space.json': JSON.stringify(SPACE),
    'schemas/ab.jsonc': AB_JSONC,
    'schemas/zeta.json': JSON.stringify(ZETA),
  });
  dirs.push(dir);
  main = await serve(['--registry', join(dir, 'registry.json'), '--verbose']);
});

afterAll(async () => {
  await stop(main);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('reads', () => {
  it('answers the probes clients send: GET / and /schemas/types', async () => {
    expect((await get('/')).body).toEqual({});
    expect((await get('/schemas/types')).body).toEqual(['JSON']);
  });

  it('lists the subjects in code-unit order', async () => {
    const r = await get('/subjects');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(SUBJECTS);
  });

  it('gives every subject one version, 1; unknown subjects are 40401', async () => {
    for (const s of SUBJECTS) expect((await get(`/subjects/${enc(s)}/versions`)).body).toEqual([1]);
    expectError(await get('/subjects/urn%3Ababel%3Anope/versions'), 404, 40401);
  });

  it('serves each schema as JSON text under version 1, latest and -1, with ids derived from each URN', async () => {
    for (const s of SUBJECTS) {
      if (s === BROKEN) continue;
      for (const v of ['1', 'latest', '-1']) {
        const r = await get(`/subjects/${enc(s)}/versions/${v}`);
        expect(r.status).toBe(200);
        expect(Object.keys(r.body).sort()).toEqual(['id', 'schema', 'schemaType', 'subject', 'version']);
        expect(r.body).toMatchObject({ subject: s, version: 1, id: schemaId(s), schemaType: 'JSON' });
        expect(JSON.parse(r.body.schema)).toEqual(DOCS[s]);
      }
      const raw = await get(`/subjects/${enc(s)}/versions/latest/schema`);
      expect(raw.body).toEqual(DOCS[s]);
    }
  });

  it('serves YAML and JSONC schema files as JSON text', async () => {
    const yaml = await get('/subjects/urn%3Ababel%3Aorders%3Acancelled/versions/1');
    expect(yaml.body.schema).toBe(JSON.stringify(YAML.parse(CANCELLED_YAML)));
    const jsonc = await get(`/subjects/${enc('urn:babel:a/b')}/versions/1`);
    expect(jsonc.body.schema).toBe(JSON.stringify(AB));
  });

  it('percent-decodes subjects segment by segment: %2F stays inside the subject, %20 is a space', async () => {
    const slash = await get('/subjects/urn%3Ababel%3Aa%2Fb/versions/latest');
    expect(slash.body.subject).toBe('urn:babel:a/b');
    const space = await get('/subjects/urn:babel:with%20space/versions/latest');
    expect(space.body.subject).toBe('urn:babel:with space');
    // An unencoded slash splits the path: that is another (unknown) route, not the subject.
    expectError(await get('/subjects/urn:babel:a/b/versions'), 404, 40400);
    // Percent-encoded letters are the same subject.
    expect((await get('/subjects/urn%3Ababel%3A%5Aeta/versions/1')).body.subject).toBe('urn:babel:Zeta');
  });

  it('answers malformed percent-encoding with a JSON 400, and unknown routes with 40400', async () => {
    for (const p of ['/subjects/%ZZ/versions', '/subjects/%/versions', '/subjects/%E0%A4%A/versions', '/schemas/ids/%C0']) {
      expectError(await get(p), 400, 40001);
    }
    for (const p of [
      '/nope',
      '/subjects/x/y/z/w/v/u',
      '/schemas/nope',
      '/schemas/ids',
      '/subjects/x/versions/1/extra',
      '/config/a/b',
      '/contexts/x',
    ]) {
      expectError(await get(p), 404, 40400);
    }
  });

  it('rejects versions that are not latest, -1 or 1..2^31-1 with 42202 (before looking at the subject)', async () => {
    for (const v of ['abc', '0', '-2', '1.0', '01x', '2147483648', '99999999999', '%20']) {
      expectError(await get(`/subjects/urn%3Ababel%3AZeta/versions/${v}`), 422, 42202);
    }
    expectError(await get('/subjects/urn%3Ababel%3Anope/versions/abc'), 422, 42202);
    expectError(await get('/subjects/urn%3Ababel%3Anope/versions/1'), 404, 40401);
    for (const v of ['2', '2147483647']) expectError(await get(`/subjects/urn%3Ababel%3AZeta/versions/${v}`), 404, 40402);
  });

  it('serves schemas by id, and the subject behind each id', async () => {
    for (const s of SUBJECTS) {
      const id = schemaId(s);
      const versions = await get(`/schemas/ids/${id}/versions`);
      expect(versions.body).toEqual([{ subject: s, version: 1 }]);
      expect((await get(`/schemas/ids/${id}/subjects`)).body).toEqual([s]);
      if (s === BROKEN) continue;
      const r = await get(`/schemas/ids/${id}`);
      expect(r.body).toEqual({ schemaType: 'JSON', schema: JSON.stringify(DOCS[s]) });
      expect((await get(`/schemas/ids/${id}/schema`)).body).toEqual(DOCS[s]);
    }
    for (const id of ['0', '1', '7', '-1', 'abc', '1e0', '1.0', '99999999999', '2147483648'])
      expectError(await get(`/schemas/ids/${id}`), 404, 40403);
  });

  it('answers a schema file that failed to load with 50001, and says so on stderr at start', async () => {
    const r = await get(`/subjects/${enc(BROKEN)}/versions/latest`);
    expectError(r, 500, 50001);
    expect(r.body.message).toContain('broken.json');
    expectError(await get(`/schemas/ids/${schemaId(BROKEN)}`), 500, 50001);
    expectError(await post(`/subjects/${enc(BROKEN)}`, { schema: '{}' }), 500, 50001);
    expect(main.stderr()).toMatch(/warning: urn:babel:zz:broken is answered with error 50001: .*broken\.json/);
  });

  it('reports the configured compatibility level globally and per known subject', async () => {
    expect((await get('/config')).body).toEqual({ compatibilityLevel: 'BACKWARD', compatibilityPolicy: 'bqschema' });
    expect((await get('/config/urn%3Ababel%3AZeta')).body).toEqual({ compatibilityLevel: 'BACKWARD', compatibilityPolicy: 'bqschema' });
    expectError(await get('/config/urn%3Ababel%3Anope'), 404, 40401);
    expect((await get('/mode')).body).toEqual({ mode: 'READONLY' });
  });

  it('answers HEAD like GET without a body', async () => {
    const r = await call(main.port, 'HEAD', '/subjects');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(CONTENT_TYPE);
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(SUBJECTS)));
    expect(r.text).toBe('');
  });

  it('logs one line per request with --verbose', async () => {
    const mark = main.stderr().length;
    await get('/schemas/types?x=1');
    await main.waitFor(/^GET \/schemas\/types\?x=1 200 \d+\.\dms$/m, mark);
  });
});

describe('POST /subjects/{subject}: look a schema up', () => {
  const created = 'urn%3Ababel%3Aorders%3Acreated';

  it('finds a JSON-equal schema, whatever its key order and whitespace', async () => {
    const reordered = `{ "additionalProperties": false, "properties": {"note": {"type":"string"}, "order_id": {"minimum": 1.0, "type": "integer"}}, "required": ["order_id"], "type": "object" }`;
    const r = await post(`/subjects/${created}`, { schema: reordered, schemaType: 'JSON' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      subject: 'urn:babel:orders:created',
      version: 1,
      id: schemaId('urn:babel:orders:created'),
      schemaType: 'JSON',
      schema: JSON.stringify(ORDERS),
    });
    // schemaType may be left out: the registry holds JSON schemas only.
    expect((await post(`/subjects/${created}`, { schema: JSON.stringify(ORDERS) })).body.id).toBe(schemaId('urn:babel:orders:created'));
  });

  it('answers 40403 for a schema that differs, 40401 for an unknown subject', async () => {
    const other = { ...ORDERS, required: [] };
    expectError(await post(`/subjects/${created}`, { schema: JSON.stringify(other) }), 404, 40403);
    // The same schema under another subject is not that subject's.
    expectError(await post('/subjects/urn%3Ababel%3AZeta', { schema: JSON.stringify(ORDERS) }), 404, 40403);
    expectError(await post('/subjects/urn%3Ababel%3Anope', { schema: JSON.stringify(ORDERS) }), 404, 40401);
  });

  it('refuses bodies that are not JSON objects (40001) and schemas that are not JSON schema objects (42201)', async () => {
    for (const body of ['', '{', 'not json', '[]', '"schema"', 'null']) expectError(await post(`/subjects/${created}`, body), 400, 40001);
    for (const body of [{}, { schema: 5 }, { schema: '{' }, { schema: '[]' }, { schema: 'true' }, { schema: '{}', schemaType: 'AVRO' }]) {
      expectError(await post(`/subjects/${created}`, body), 422, 42201);
    }
  });
});

describe('POST /compatibility/subjects/{subject}/versions/{version}', () => {
  const path = (v = 'latest'): string => `/compatibility/subjects/urn%3Ababel%3Aorders%3Acreated/versions/${v}`;
  // order_id changes from integer to string: old data stops validating, in every mode.
  const retyped = { ...ORDERS, properties: { ...ORDERS.properties, order_id: { type: 'string' } } };
  const described = { ...ORDERS, description: 'annotations change nothing' };

  it('applies BACKWARD: an annotation is compatible, a changed property type is not', async () => {
    expect((await post(path(), { schema: JSON.stringify(described), schemaType: 'JSON' })).body).toEqual({ is_compatible: true });
    expect((await post(path('1'), { schema: JSON.stringify(retyped) })).body).toEqual({ is_compatible: false });
    // Without a version: against every version (there is one).
    expect(
      (await post('/compatibility/subjects/urn%3Ababel%3Aorders%3Acreated/versions', { schema: JSON.stringify(retyped) })).body,
    ).toEqual({ is_compatible: false });
  });

  it('lists the breaking changes with ?verbose=true', async () => {
    const r = await post(`${path()}?verbose=true`, { schema: JSON.stringify(retyped) });
    expect(r.body.is_compatible).toBe(false);
    expect(r.body.messages.length).toBeGreaterThan(0);
    // Each message carries its witness: a payload the old schema accepts and the new one rejects.
    const message = (r.body.messages as string[]).find((m) =>
      /^\/properties\/order_id.*\(type-narrowed\); witness valid under old: \{/.test(m),
    );
    expect(message).toBeDefined();
    const payload = JSON.parse(message!.slice(message!.indexOf('witness valid under old: ') + 'witness valid under old: '.length));
    expect(compile(ORDERS).isValid(payload)).toBe(true);
    expect(compile(retyped).isValid(payload)).toBe(false);
    expect((await post(`${path()}?verbose=true`, { schema: JSON.stringify(ORDERS) })).body).toEqual({ is_compatible: true, messages: [] });
  });

  it('answers the error codes: 42202, 40401, 40402, 42201, 50001', async () => {
    const body = { schema: JSON.stringify(ORDERS) };
    expectError(await post(path('abc'), body), 422, 42202);
    expectError(await post('/compatibility/subjects/urn%3Ababel%3Anope/versions/latest', body), 404, 40401);
    expectError(await post(path('3'), body), 404, 40402);
    const wrongShape = await post(path(), { schema: '{"type": "object", "properties": {"a": {"minimum": "1"}}}' });
    expectError(wrongShape, 422, 42201);
    expect(wrongShape.body.message).toContain('/properties/a: minimum');
    expectError(await post(path(), { schema: 'nope' }), 422, 42201);
    expectError(await post(`/compatibility/subjects/${enc(BROKEN)}/versions/latest`, body), 500, 50001);
  });
});

describe('writes are refused', () => {
  it('answers every write Confluent serves as its READONLY mode does (422 / 42205), naming git', async () => {
    const writes: [string, string][] = [
      ['POST', '/subjects/urn%3Ababel%3AZeta/versions'],
      ['PUT', '/config'],
      ['PUT', '/config/urn%3Ababel%3AZeta'],
      ['PUT', '/mode'],
      ['PUT', '/mode/urn%3Ababel%3AZeta'],
      ['DELETE', '/subjects/urn%3Ababel%3AZeta'],
      ['DELETE', '/subjects/urn%3Ababel%3AZeta/versions/1'],
      ['DELETE', '/config'],
      ['DELETE', '/config/urn%3Ababel%3AZeta'],
      ['DELETE', '/mode'],
      ['DELETE', '/contexts/.ctx'],
    ];
    for (const [method, path] of writes) {
      const r = await call(main.port, method, path, '{"schema":"{}"}');
      expectError(r, 422, 42205);
      expect(r.body.message).toMatch(/read-only mode: .*git/);
      expect(r.headers.allow).toBeUndefined();
    }
    expect((await call(main.port, 'DELETE', '/subjects/urn%3Ababel%3AZeta')).body.message).toMatch(
      /^Subject urn:babel:Zeta in context \. is in read-only mode: DELETE \/subjects\/\{subject\} is not served, /,
    );
  });

  it('answers a method no endpoint serves with 405 / 40501 and the Allow header, and an unknown path with 404', async () => {
    for (const [method, path, allow] of [
      ['PATCH', '/subjects', 'GET, HEAD'],
      ['POST', '/config', 'GET, HEAD'],
      ['OPTIONS', '/subjects', 'GET, HEAD'],
      ['PUT', '/subjects/urn%3Ababel%3AZeta/versions', 'GET, HEAD, POST'],
    ] as const) {
      const r = await call(main.port, method, path, '{}');
      expectError(r, 405, 40501);
      expect(r.headers.allow).toBe(allow);
    }
    expectError(await call(main.port, 'DELETE', '/no/such/route'), 404, 40400);
  });

  it('answers a GET to a POST-only endpoint with 405 and its Allow header', async () => {
    const r = await get('/compatibility/subjects/urn%3Ababel%3AZeta/versions/latest');
    expectError(r, 405, 40501);
    expect(r.headers.allow).toBe('POST');
  });

  it('still serves the same data afterwards', async () => {
    expect((await get('/subjects')).body).toEqual(SUBJECTS);
  });
});

/** Sends the headers and some of the body, then waits for the answer without finishing the body. */
async function answerBeforeBodyEnds(port: number, headers: Record<string, string | number>, sent: number): Promise<Reply> {
  const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/subjects/urn%3Ababel%3AZeta', agent: false, headers });
  req.on('error', () => {});
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  for (let n = 0; n < sent; n += chunk.length) req.write(chunk);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  req.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: res.statusCode!, headers: res.headers, text, body: JSON.parse(text) };
}

const MiB = 1024 * 1024;

/**
 * Writes a request line and a `size`-byte body on a raw socket, reading nothing until the whole body
 * is written: a server that resets the connection under its answer makes the kernel drop the unread
 * answer, and the writes fail. The body is larger than loopback buffers hold, so the client only
 * finishes if the server keeps reading.
 */
async function rawUpload(port: number, requestLine: string, size: number): Promise<{ text: string; reset?: string }> {
  const socket = connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  let reset: string | undefined;
  socket.on('error', (err: NodeJS.ErrnoException) => (reset = err.code));
  socket.pause();
  socket.write(`${requestLine}\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`);
  const chunk = Buffer.alloc(MiB, 0x20);
  for (let n = 0; n < size; n += MiB) socket.write(chunk);
  socket.end();
  await Promise.race([once(socket, 'finish'), once(socket, 'close')]);
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.resume();
  if (!socket.destroyed) await once(socket, 'close');
  return { text: Buffer.concat(chunks).toString('latin1'), reset };
}

describe('request bodies over 1 MiB', () => {
  it('answers 413 to a 2 MiB body sent with Content-Length, and closes the connection', async () => {
    const r = await call(main.port, 'POST', '/subjects/urn%3Ababel%3AZeta', Buffer.alloc(2 * MiB, 0x20));
    expectError(r, 413, 41301);
    expect(r.headers.connection).toBe('close');
  });

  it('answers 413 to a 2 MiB chunked body', async () => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: main.port,
      method: 'POST',
      path: '/subjects/urn%3Ababel%3AZeta',
      agent: false,
      headers: { 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => {});
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let i = 0; i < 32; i++) req.write(chunk);
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let text = '';
    for await (const c of res) text += c;
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toBe(CONTENT_TYPE);
    expect(JSON.parse(text).error_code).toBe(41301);
  });

  it('answers without reading the rest: from the Content-Length alone, and as soon as a chunked body passes 1 MiB', async () => {
    const declared = await answerBeforeBodyEnds(main.port, { 'content-length': 2 * MiB }, 64 * 1024);
    expect([declared.status, declared.body.error_code]).toEqual([413, 41301]);
    const chunked = await answerBeforeBodyEnds(main.port, { 'transfer-encoding': 'chunked' }, MiB + 128 * 1024);
    expect([chunked.status, chunked.body.error_code]).toEqual([413, 41301]);
  });

  it('reads a body of exactly 1 MiB', async () => {
    const body = '{"schema": "{}"}'.padEnd(MiB, ' ');
    expectError(await post('/subjects/urn%3Ababel%3AZeta', body), 404, 40403);
    expectError(await post('/subjects/urn%3Ababel%3AZeta', body + ' '), 413, 41301);
  });

  it('refuses a too-large Expect: 100-continue upload before the client sends it', async () => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: main.port,
      method: 'POST',
      path: '/subjects/urn%3Ababel%3AZeta',
      agent: false,
      headers: { 'content-length': 2 * MiB, expect: '100-continue' },
    });
    req.on('error', () => {});
    let continued = false;
    req.on('continue', () => (continued = true));
    req.flushHeaders();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    res.resume();
    req.destroy();
    expect(res.statusCode).toBe(413);
    expect(continued).toBe(false);
  });

  it('answers a malformed request with a JSON 400 even while a large body is still arriving', async () => {
    const { text, reset } = await rawUpload(main.port, 'G3T /subjects HTTP/1.1', 16 * MiB);
    // The server read the rest of the body and dropped it rather than resetting the connection.
    expect(reset).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toContain(`Content-Type: ${CONTENT_TYPE}`);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error_code).toBe(40001);
  });

  it('closes after a 413 without resetting the connection under the answer', async () => {
    const { text, reset } = await rawUpload(main.port, 'POST /subjects/urn%3Ababel%3AZeta HTTP/1.1', 16 * MiB);
    expect(reset).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error_code).toBe(41301);
  });

  it('keeps serving afterwards', async () => {
    expect((await get('/subjects')).body).toEqual(SUBJECTS);
    expect(main.child.exitCode).toBeNull();
  });
});

describe('the process', () => {
  it('binds 127.0.0.1 by default', async () => {
    expect(main.stderr()).toMatch(/^bqschema serve: listening on http:\/\/127\.0\.0\.1:\d+ \(6 subjects\)$/m);
    // Where the machine has another address, the port is not reachable through it.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (external) {
      const socket = connect({ host: external.address, port: main.port });
      const [err] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
      expect(err.code).toBe('ECONNREFUSED');
    }
  });

  it('reloads on SIGHUP; a broken registry keeps the previous snapshot', async () => {
    const dir = registryDir({ 'registry.json': manifest([{ urn: 'urn:t:one', schema: 'one.json' }]), 'one.json': '{"type":"string"}' });
    dirs.push(dir);
    const s = await serve(['--registry', join(dir, 'registry.json')]);
    try {
      const subjects = async (): Promise<unknown> => (await call(s.port, 'GET', '/subjects')).body;
      const latest = async (urn: string): Promise<Reply> => call(s.port, 'GET', `/subjects/${enc(urn)}/versions/latest`);
      expect(await subjects()).toEqual(['urn:t:one']);

      writeFiles(dir, {
        'registry.json': manifest([
          { urn: 'urn:t:one', schema: 'one.json' },
          { urn: 'urn:t:two', schema: 'two.yaml' },
        ]),
        'one.json': '{"type":"integer"}',
        'two.yaml': 'type: boolean\n',
      });
      let mark = s.stderr().length;
      s.child.kill('SIGHUP');
      await s.waitFor(/reloaded \(2 subjects\)/, mark);
      expect(await subjects()).toEqual(['urn:t:one', 'urn:t:two']);
      expect(JSON.parse((await latest('urn:t:one')).body.schema)).toEqual({ type: 'integer' });
      expect((await latest('urn:t:two')).body).toMatchObject({ id: schemaId('urn:t:two'), schema: '{"type":"boolean"}' });

      writeFiles(dir, { 'registry.json': '{ "schemas": [' });
      mark = s.stderr().length;
      s.child.kill('SIGHUP');
      await s.waitFor(/reload failed, still serving the previous registry: .*registry\.json/, mark);
      expect(await subjects()).toEqual(['urn:t:one', 'urn:t:two']);

      // A manifest that reads but names a schema file that does not load is refused as a whole.
      writeFiles(dir, {
        'registry.json': manifest([
          { urn: 'urn:t:one', schema: 'one.json' },
          { urn: 'urn:t:three', schema: 'missing.json' },
        ]),
      });
      mark = s.stderr().length;
      s.child.kill('SIGHUP');
      await s.waitFor(/reload failed, still serving the previous registry: urn:t:three: .*missing\.json/, mark);
      expect(await subjects()).toEqual(['urn:t:one', 'urn:t:two']);
      expect((await latest('urn:t:two')).status).toBe(200);
      // Without --verbose no request is logged.
      expect(s.stderr()).not.toMatch(/^GET /m);
    } finally {
      await stop(s);
    }
  });

  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0', async () => {
    const s = await serve(['--registry', join(dirs[0]!, 'registry.json')]);
    try {
      const body = JSON.stringify({ schema: JSON.stringify(ZETA) });
      const req = httpRequest({
        host: '127.0.0.1',
        port: s.port,
        method: 'POST',
        path: '/subjects/urn%3Ababel%3AZeta',
        agent: false,
        headers: { 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      req.on('error', () => {}); // a failure shows as a missing response
      req.flushHeaders();
      // 'continue' means the server is handling this request, waiting for its body.
      await once(req, 'continue');
      const mark = s.stderr().length;
      s.child.kill('SIGTERM');
      await s.waitFor(/SIGTERM: closing/, mark);
      const refused = connect({ host: '127.0.0.1', port: s.port });
      const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
      expect(err.code).toBe('ECONNREFUSED');
      req.end(body);
      const [res] = (await once(req, 'response')) as [IncomingMessage];
      let text = '';
      for await (const c of res) text += c;
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(text)).toMatchObject({ subject: 'urn:babel:Zeta', id: schemaId('urn:babel:Zeta') });
      expect(await s.exited).toBe(0);
    } finally {
      await stop(s);
    }
  });

  it('exits 0 on SIGINT', async () => {
    const s = await serve(['--registry', join(dirs[0]!, 'registry.json')]);
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
  });

  it('reports a port in use in one line and exits 2', async () => {
    const dir = registryDir({ 'registry.json': manifest([{ urn: 'urn:t:one', schema: 'one.json' }]), 'one.json': '{}' });
    dirs.push(dir);
    const child = spawn(process.execPath, [BIN, 'serve', '--port', String(main.port), '--registry', join(dir, 'registry.json')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(2);
    expect(err).toMatch(new RegExp(`^bqschema: cannot listen on 127\\.0\\.0\\.1:${main.port}: the port is already in use\\n$`));
  });

  it('refuses a --port that is not a port number with exit 2', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '70000', '--registry', join(dirs[0]!, 'registry.json')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(2);
    expect(err).toContain('--port');
  });

  it('--compatibility in any case and --policy: /config reports them, /compatibility applies them', async () => {
    const s = await serve(['--registry', join(dirs[0]!, 'registry.json'), '--compatibility', 'full', '--policy', 'Confluent']);
    try {
      expect((await call(s.port, 'GET', '/config')).body).toEqual({ compatibilityLevel: 'FULL', compatibilityPolicy: 'confluent' });
    } finally {
      await stop(s);
    }
  });

  it('refuses an unknown --compatibility or --policy with one line and exit 2', async () => {
    for (const args of [
      ['--compatibility', 'BACKWARD_TRANSITIVE'],
      ['--policy', 'avro'],
    ]) {
      const child = spawn(process.execPath, [BIN, 'serve', ...args, '--registry', join(dirs[0]!, 'registry.json')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
      const [code] = (await once(child, 'exit')) as [number];
      expect(code).toBe(2);
      expect(err).toMatch(
        args[0] === '--policy'
          ? /^bqschema: unknown compat policy "avro" \(expected bqschema, confluent, in any case\)\n$/
          : /^bqschema: unknown compatibility level "BACKWARD_TRANSITIVE" .*transitive levels are not supported.*\n$/,
      );
    }
  });
});

describe('the server core, in process', () => {
  const OLD = { type: 'object', properties: { a: { type: 'string' } } };
  const REQUIRED = { ...OLD, required: ['a'] };
  const servers: RegistryServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close(100);
  });

  async function start(snapshot: Snapshot, level?: 'BACKWARD' | 'FORWARD' | 'FULL' | 'NONE'): Promise<number> {
    const api = createServer(snapshot, { compatibility: level });
    servers.push(api);
    return (await api.listen(0, '127.0.0.1')).port;
  }
  const compat = async (port: number, schema: unknown): Promise<boolean> =>
    (await call(port, 'POST', '/compatibility/subjects/urn%3Ax/versions/latest', JSON.stringify({ schema: JSON.stringify(schema) }))).body
      .is_compatible;

  it('applies the configured level: BACKWARD, FORWARD, FULL and NONE', async () => {
    const snapshot = buildSnapshot(new MapProvider({ 'urn:x': OLD }));
    // Making `a` required breaks old data (backward) but not new data read by old readers (forward).
    const verdicts: Record<string, [boolean, boolean]> = {};
    for (const level of ['BACKWARD', 'FORWARD', 'FULL', 'NONE'] as const) {
      const port = await start(snapshot, level);
      expect((await call(port, 'GET', '/config')).body).toEqual({ compatibilityLevel: level, compatibilityPolicy: 'bqschema' });
      verdicts[level] = [await compat(port, REQUIRED), await compat(port, { type: 'string' })];
    }
    expect(verdicts).toEqual({ BACKWARD: [false, false], FORWARD: [true, false], FULL: [false, false], NONE: [true, true] });
  });

  it('takes the level in any case and reports it upper case; the policy decides /compatibility and is in /config', async () => {
    const snapshot = buildSnapshot(new MapProvider({ 'urn:x': OLD }));
    const added = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } };
    const verdicts: Record<string, boolean> = {};
    for (const [level, policy] of [
      ['backward', 'bqschema'],
      ['Backward', 'CONFLUENT'],
    ] as const) {
      const api = createServer(snapshot, { compatibility: level, policy });
      servers.push(api);
      const port = (await api.listen(0, '127.0.0.1')).port;
      const config = (await call(port, 'GET', '/config')).body;
      expect(config).toEqual({ compatibilityLevel: 'BACKWARD', compatibilityPolicy: policy.toLowerCase() });
      verdicts[policy] = await compat(port, added);
    }
    // Adding a property to an open content model: compatible by bqschema's rules, breaking by Confluent's.
    expect(verdicts).toEqual({ bqschema: true, CONFLUENT: false });
    expect(() => createServer(snapshot, { compatibility: 'sideways' })).toThrow(/unknown compatibility level "sideways"/);
    expect(() => createServer(snapshot, { policy: 'avro' })).toThrow(/unknown compat policy "avro"/);
  });

  it('swaps snapshots with replace()', async () => {
    const api = createServer(buildSnapshot(new MapProvider({ 'urn:x': OLD })));
    servers.push(api);
    const { port } = await api.listen(0, '127.0.0.1');
    api.replace(buildSnapshot(new MapProvider({ 'urn:y': OLD, 'urn:x': OLD })));
    expect((await call(port, 'GET', '/subjects')).body).toEqual(['urn:x', 'urn:y']);
    expect(api.snapshot.subjects).toEqual(['urn:x', 'urn:y']);
  });

  it('keeps a subject whose schema fails to load, marked broken', () => {
    const source = {
      urns: () => ['urn:c', 'urn:a', 'urn:b'],
      schemaFor: (urn: string) => {
        if (urn === 'urn:a') throw new Error('cannot read a.json');
        return new MapProvider({ [urn]: { type: 'string' } }).schemaFor(urn);
      },
    };
    const snapshot = buildSnapshot(source);
    expect(snapshot.subjects).toEqual(['urn:a', 'urn:b', 'urn:c']);
    expect([...snapshot.byId.values()].map((e) => [e.id, e.name, e.ok])).toEqual(
      ['urn:a', 'urn:b', 'urn:c'].map((u) => [schemaId(u), u, u !== 'urn:a']),
    );
    expect(snapshot.broken.map((b) => b.error)).toEqual(['cannot read a.json']);
  });

  it('answers 50001 when a handler throws, and keeps serving', async () => {
    const good = buildSnapshot(new MapProvider({ 'urn:x': OLD }));
    const entry = good.bySubject.get('urn:x') as LoadedSubject;
    const exploding: LoadedSubject = Object.defineProperty({ ...entry }, 'document', {
      get: () => {
        throw new Error('boom');
      },
    });
    const snapshot: Snapshot = { ...good, bySubject: new Map([['urn:x', exploding]]) };
    const port = await start(snapshot);
    const r = await call(port, 'POST', '/subjects/urn%3Ax', JSON.stringify({ schema: JSON.stringify(OLD) }));
    expectError(r, 500, 50001);
    expect(r.body.message).toContain('boom');
    expect((await call(port, 'GET', '/subjects')).body).toEqual(['urn:x']);
  });
});
