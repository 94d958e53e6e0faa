// 1,000 seeded random requests, written as raw bytes so nothing is cleaned up on the way: odd
// methods, broken percent-encoding, unicode, huge paths, invalid and oversized bodies. Every one
// must get a JSON answer, and the server must still be there afterwards.
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, CONTENT_TYPE, ROOT, serve, stop, type Served } from '../helpers/serve.js';

const REQUESTS = 1_000;
const PARALLEL = 8;
const SEED = 0x5e7e;

const METHODS = [
  'GET',
  'GET',
  'GET',
  'GET',
  'POST',
  'POST',
  'POST',
  'HEAD',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'PROPFIND',
  'MKCOL',
  'PURGE',
  'SEARCH',
  'QUERY',
  'FOO',
  'get',
  'G3T',
  '',
];
const PIECES = [
  'subjects',
  'subjects',
  'versions',
  'versions',
  'latest',
  '1',
  '-1',
  '0',
  '2',
  '4',
  '99',
  'abc',
  'schemas',
  'ids',
  'config',
  'compatibility',
  'mode',
  'types',
  'schema',
  'subjects',
  '%',
  '%ZZ',
  '%2',
  '%2F',
  '%00',
  '%FF',
  '%C0%AF',
  '%E2%82',
  '..',
  '.',
  '',
  'urn%3Ababel%3Aorders%3Acreated',
  'urn:babel:orders:created',
  'urn%3Ababel%3Aorders%3Acancelled',
  'ü',
  '日本',
  '😀',
  '\u0000',
  '?verbose=true',
  '?',
  '#x',
  '%25',
  '\\',
  ';',
  "'",
  '"',
  '<script>',
  'a'.repeat(3000),
  'constructor',
  '__proto__',
  'hasOwnProperty',
];
const SUBJECT_PIECES = [
  'urn%3Ababel%3Aorders%3Acreated',
  'urn:babel:orders:cancelled',
  'urn%3Ababel%3Ausers%3Aregistered',
  'nope',
  '%ZZ',
  '%',
  '..',
  '😀',
  '%F0%9F%98%80',
  '',
];
const VERSION_PIECES = ['1', 'latest', '-1', '0', '2', '4', 'abc', '1.5', '99999999999', '%ZZ', '', '-0'];
const SCHEMA = '{"type":"object","required":["order_id"],"properties":{"order_id":{"type":"integer"}}}';

interface Outcome {
  method: string;
  target: string;
  status?: number;
  problem?: string;
}

/** Uniform numbers in [0, 1) from fast-check's generator: the same sequence for the same seed. */
function seeded(seed: number): () => number {
  const [g] = fc.sample(fc.gen(), { seed, numRuns: 1 });
  const word = fc.noBias(fc.integer({ min: 0, max: 2 ** 30 - 1 }));
  return () => g!(() => word) / 2 ** 30;
}

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function target(rand: () => number): string {
  const r = rand();
  if (r < 0.03) return '*';
  if (r < 0.06) return 'http://example.com/subjects';
  if (r < 0.08) return '/' + 'x'.repeat(20_000 + Math.floor(rand() * 20_000)); // over the header limit
  if (r < 0.4) {
    // Real routes with random parts, so the handlers (not only the router) see the hostile input.
    const subject = pick(rand, SUBJECT_PIECES);
    const version = pick(rand, VERSION_PIECES);
    return pick(rand, [
      `/subjects/${subject}/versions/${version}`,
      `/subjects/${subject}`,
      `/subjects/${subject}/versions`,
      `/compatibility/subjects/${subject}/versions/${version}?verbose=true`,
      `/schemas/ids/${version}`,
      `/config/${subject}`,
    ]);
  }
  const n = 1 + Math.floor(rand() * 6);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(pick(rand, PIECES));
  return (rand() < 0.05 ? '' : '/') + parts.join(rand() < 0.05 ? '//' : '/');
}

function body(rand: () => number): Buffer | undefined {
  const r = rand();
  if (r < 0.35) return undefined;
  if (r < 0.45) return Buffer.from(JSON.stringify({ schema: SCHEMA, schemaType: 'JSON' }));
  if (r < 0.5) return Buffer.from(JSON.stringify({ schema: SCHEMA, schemaType: pick(rand, ['AVRO', 'json', 5, null]) }));
  if (r < 0.55)
    return Buffer.from(
      pick(rand, [
        '{',
        '',
        'null',
        '[1,2]',
        '"x"',
        '{"schema": 5}',
        '{"schema": "{"}',
        '{"schema": "[]"}',
        '{"__proto__": {"schema": "{}"}}',
      ]),
    );
  if (r < 0.6) {
    const bytes = Buffer.alloc(1 + Math.floor(rand() * 2000));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
    return bytes;
  }
  if (r < 0.65) return Buffer.from('['.repeat(50_000)); // nesting, not closed
  if (r < 0.7) return Buffer.from(JSON.stringify({ schema: '{"items":'.repeat(5_000) + '{}' + '}'.repeat(5_000) }));
  if (r < 0.75) return Buffer.from(JSON.stringify({ schema: '{"type":{"minimum":"x"},"properties":5,"required":"a","enum":7}' }));
  if (r < 0.9) return Buffer.alloc(20_000 + Math.floor(rand() * 300_000), 0x20); // large-ish, whitespace only
  return Buffer.alloc(1024 * 1024 + 1 + Math.floor(rand() * 512 * 1024), 0x7b); // over the limit
}

function rawRequest(rand: () => number): { method: string; target: string; bytes: Buffer } {
  const method = pick(rand, METHODS);
  const path = target(rand);
  const payload = body(rand);
  const chunked = payload !== undefined && rand() < 0.3;
  const lines = [`${method} ${path} HTTP/1.1`];
  if (rand() < 0.9) lines.push('Host: 127.0.0.1');
  lines.push('Connection: close');
  if (rand() < 0.2)
    lines.push(`Content-Type: ${pick(rand, ['application/json', 'application/vnd.schemaregistry.v1+json', 'text/plain', '*/*', '☃'])}`);
  if (rand() < 0.05) lines.push('Upgrade: websocket', 'Connection: Upgrade');
  if (rand() < 0.05 && payload !== undefined) lines.push('Expect: 100-continue');
  if (rand() < 0.03) lines.push(`X-Long: ${'v'.repeat(30_000)}`);
  if (payload !== undefined) lines.push(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${payload.length}`);
  const head = Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'utf8');
  let tail = payload ?? Buffer.alloc(0);
  if (chunked && payload !== undefined) {
    const parts: Buffer[] = [];
    for (let i = 0; i < payload.length; i += 65_536) {
      const piece = payload.subarray(i, i + 65_536);
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
    tail = Buffer.concat(parts);
  }
  return { method, target: path.length > 80 ? path.slice(0, 80) + '…' : path, bytes: Buffer.concat([head, tail]) };
}

/** The first final (non-1xx) response in what the server sent; a problem string when it is not a valid answer. */
function judge(method: string, raw: Buffer): { status?: number; problem?: string } {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1)
      return { problem: `no complete response (${raw.length} bytes: ${JSON.stringify(raw.subarray(0, 120).toString('latin1'))})` };
    const head = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head[0]!)?.[1]);
    if (!Number.isInteger(status)) return { problem: `bad status line ${JSON.stringify(head[0])}` };
    if (status >= 100 && status < 200) {
      rest = rest.subarray(end + 4);
      continue;
    }
    const headers = new Map(head.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    if (headers.get('content-type') !== CONTENT_TYPE) return { status, problem: `content-type ${headers.get('content-type')}` };
    const length = Number(headers.get('content-length'));
    if (!Number.isInteger(length)) return { status, problem: 'no content-length' };
    // An answer to HEAD has no body, except one written before the request could be parsed.
    if (method === 'HEAD' && rest.length === end + 4) return { status };
    const text = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { status, problem: `body is not JSON: ${JSON.stringify(text.slice(0, 100))}` };
    }
    if (status >= 200 && status < 300) return { status };
    if (typeof parsed !== 'object' || parsed === null || !Number.isInteger(parsed.error_code) || typeof parsed.message !== 'string') {
      return { status, problem: `error body without error_code/message: ${text.slice(0, 100)}` };
    }
    if (Math.floor(parsed.error_code / 100) !== status) return { status, problem: `error_code ${parsed.error_code} with status ${status}` };
    return { status };
  }
}

function send(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('data', (c) => chunks.push(c));
    // A reset after the answer arrived is fine; what counts is what was received.
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.end(bytes);
  });
}

let served: Served;
beforeAll(async () => {
  served = await serve(['--registry', join(ROOT, 'registry.example.json')]);
});
afterAll(async () => {
  await stop(served);
});

describe('hostile input', () => {
  it(`answers ${REQUESTS} random requests with JSON and keeps serving`, async () => {
    const rand = seeded(SEED);
    const requests = Array.from({ length: REQUESTS }, () => rawRequest(rand));
    const outcomes: Outcome[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const verdict = judge(r.method, await send(served.port, r.bytes));
        outcomes.push({ method: r.method, target: r.target, ...verdict });
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));

    const problems = outcomes.filter((o) => o.problem !== undefined);
    if (problems.length > 0) console.error(problems);
    expect(problems).toEqual([]);
    // The example registry loads completely: nothing random may reach a backend error.
    expect(outcomes.filter((o) => o.status! >= 500)).toEqual([]);
    // The mix really exercised the answers it is meant to.
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const s of [200, 400, 404, 405, 413, 422, 431]) expect(statuses).toContain(s);

    expect(served.child.exitCode).toBeNull();
    const after = await call(served.port, 'GET', '/subjects');
    expect(after.status).toBe(200);
    expect(after.body).toHaveLength(4);
  });
});
