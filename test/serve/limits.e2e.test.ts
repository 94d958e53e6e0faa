// Hostile inputs for `serve`: a reload reads the manifest found at start, and the connections and
// the bytes of request bodies still arriving are capped (item 13).
import { mkdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MapProvider } from '../../src/index.js';
import { buildSnapshot, createServer, type RegistryServer, type ServerStats } from '../../src/serve/index.js';
import { bq, expectOneLineError } from '../helpers/cli.js';
import { call, manifest, registryDir, serve, stop, writeFiles, type Served } from '../helpers/serve.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const subjects = async (port: number): Promise<unknown> => (await call(port, 'GET', '/subjects')).body;

/** Sends SIGHUP and returns the reload's one line (reloaded or failed). */
async function reload(s: Served): Promise<string> {
  const mark = s.stderr().length;
  s.child.kill('SIGHUP');
  await s.waitFor(/(reloaded|reload failed)[^\n]*\n/, mark);
  return s.stderr().slice(mark).trimEnd();
}

describe('serve: every reload reads the manifest found at start (item 1)', { timeout: 60_000 }, () => {
  it("without --registry: a manifest moved away, replaced by a directory or by bytes that are not text keeps the old subjects; the parent directory's registry is never served", async () => {
    // The parent directory holds a registry of its own: discovery from sub/ would find it next.
    const top = registryDir({
      'registry.json': manifest([{ urn: 'urn:parent:only', schema: 'p.json' }]),
      'p.json': '{"type":"object"}',
      'sub/registry.json': manifest([
        { urn: 'urn:sub:a', schema: 'a.json' },
        { urn: 'urn:sub:b', schema: 'b.yaml' },
      ]),
      'sub/a.json': '{"type":"string"}',
      'sub/b.yaml': 'type: integer\n',
    });
    dirs.push(top);
    const sub = join(top, 'sub');
    const manifestPath = join(sub, 'registry.json');
    const s = await serve([], { cwd: sub });
    try {
      expect(await subjects(s.port)).toEqual(['urn:sub:a', 'urn:sub:b']);

      renameSync(manifestPath, join(sub, 'kept.json'));
      expect(await reload(s)).toBe(
        'bqschema serve: reload failed, still serving the previous registry: registry manifest not found: registry.json (serve reads the manifest it started with: put it back, or restart serve to use another)',
      );
      expect(await subjects(s.port)).toEqual(['urn:sub:a', 'urn:sub:b']);

      mkdirSync(manifestPath);
      expect(await reload(s)).toBe(
        'bqschema serve: reload failed, still serving the previous registry: registry manifest is a directory: registry.json',
      );
      expect(await subjects(s.port)).toEqual(['urn:sub:a', 'urn:sub:b']);
      rmdirSync(manifestPath);

      writeFileSync(manifestPath, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
      expect(await reload(s)).toMatch(
        /^bqschema serve: reload failed, still serving the previous registry: registry manifest is not valid UTF-8 \(byte offset 1\): registry\.json$/,
      );
      expect(await subjects(s.port)).toEqual(['urn:sub:a', 'urn:sub:b']);

      // The same manifest, back and changed: the reload serves it.
      writeFiles(sub, {
        'registry.json': manifest([
          { urn: 'urn:sub:a', schema: 'a.json' },
          { urn: 'urn:sub:c', schema: 'a.json' },
        ]),
      });
      expect(await reload(s)).toBe('bqschema serve: reloaded (2 subjects)');
      expect(await subjects(s.port)).toEqual(['urn:sub:a', 'urn:sub:c']);
      expect(s.stderr()).not.toContain('urn:parent:only');
    } finally {
      await stop(s);
    }
  });
});

const URN = 'urn:t:a';
const snap = (): ReturnType<typeof buildSnapshot> => buildSnapshot(new MapProvider({ [URN]: { type: 'object' } }, { onWarning: () => {} }));

/** Polls until `done` holds; a bound on the number of turns, not a clock, ends a wait that never would. */
async function until(done: () => boolean, what: () => string): Promise<void> {
  for (let turn = 0; !done(); turn++) {
    if (turn > 4_000) throw new Error(`never happened: ${what()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Client {
  socket: Socket;
  received: string;
  ended: boolean;
}

function open(port: number, first: string | Buffer): Client {
  const client: Client = { socket: connect({ host: '127.0.0.1', port }), received: '', ended: false };
  client.socket.on('data', (chunk: Buffer) => (client.received += chunk.toString('latin1')));
  client.socket.on('error', () => {}); // a refused connection may be reset
  client.socket.on('close', () => (client.ended = true));
  client.socket.write(first);
  return client;
}

/** A POST /subjects/{URN} body of exactly `size` bytes: the registered schema, padded. */
function lookUpBody(size: number): Buffer {
  const head = `{"schema":"{\\"type\\":\\"object\\"}","pad":"`;
  return Buffer.from(head + 'x'.repeat(size - head.length - 2) + '"}', 'latin1');
}

const lookUpHead = (length: number): string =>
  `POST /subjects/${encodeURIComponent(URN)} HTTP/1.1\r\nHost: t\r\nContent-Length: ${length}\r\n\r\n`;

describe('serve: the bytes held by bodies still arriving are capped (item 13)', { timeout: 60_000 }, () => {
  it('40 incomplete uploads past maxPendingBytes: the bodies past it get 503 (50301) and a closed connection, the rest complete, and a GET is answered', async () => {
    const BODY = 64 * 1024;
    const SENT = 32 * 1024;
    const CAP = 256 * 1024;
    const N = 40;
    const api: RegistryServer = createServer(snap(), { maxBodyBytes: BODY, maxPendingBytes: CAP, maxConnections: 100 });
    const { port } = await api.listen(0, '127.0.0.1');
    try {
      const body = lookUpBody(BODY);
      const clients = Array.from({ length: N }, () =>
        open(port, Buffer.concat([Buffer.from(lookUpHead(BODY), 'latin1'), body.subarray(0, SENT)])),
      );
      let stats: ServerStats = api.stats();
      const refused = (): Client[] => clients.filter((c) => c.received.startsWith('HTTP/1.1 503'));
      // Every upload is either let in or refused, and every refusal has reached its client.
      await until(
        () => {
          stats = api.stats();
          return (
            stats.pendingBodies + stats.refusedBodies === N &&
            refused().length === N - stats.pendingBodies &&
            refused().every((c) => c.ended)
          );
        },
        () => JSON.stringify(api.stats()),
      );
      // A declared length counts in full from the start: exactly four 64 KiB bodies fit 256 KiB.
      expect(stats).toMatchObject({ pendingBodies: CAP / BODY, refusedBodies: N - CAP / BODY, pendingBytes: CAP, peakPendingBytes: CAP });
      for (const c of refused()) {
        const [head, text] = c.received.split('\r\n\r\n') as [string, string];
        expect(head).toMatch(/\r\nconnection: close\r\n/i);
        expect(JSON.parse(text)).toEqual({
          error_code: 50301,
          message: `the server already holds ${CAP} bytes of request bodies still arriving: send this one again in a moment`,
        });
      }

      // With the cap full, a body announced with Expect: 100-continue is refused before it is sent.
      const asking = open(port, lookUpHead(BODY).replace('\r\n\r\n', '\r\nExpect: 100-continue\r\n\r\n'));
      await until(
        () => asking.ended,
        () => asking.received,
      );
      expect(asking.received).toMatch(/^HTTP\/1\.1 503 [^]*"error_code":50301/);
      expect(asking.received).not.toContain('100 Continue');

      // The server still answers, and the uploads it let in complete.
      expect((await call(port, 'GET', '/subjects')).status).toBe(200);
      const held = clients.filter((c) => c.received === '' && !c.ended);
      expect(held).toHaveLength(CAP / BODY);
      for (const c of held) c.socket.write(body.subarray(SENT));
      await until(
        () => held.every((c) => /\r\n\r\n\{.*\}$/s.test(c.received)),
        () => JSON.stringify(held.map((c) => c.received)),
      );
      for (const c of held) expect(c.received).toMatch(/^HTTP\/1\.1 200 /);
      expect(api.stats()).toMatchObject({ pendingBytes: 0, pendingBodies: 0 });
      for (const c of clients) c.socket.destroy();

      // Chunked bodies (no declared length) count as their bytes arrive: 40 KiB each, six fit.
      const CHUNK = 40 * 1024;
      const chunkedHead = `POST /subjects/${encodeURIComponent(URN)} HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const chunked = Array.from({ length: 12 }, () => open(port, `${chunkedHead}${CHUNK.toString(16)}\r\n${' '.repeat(CHUNK)}\r\n`));
      const refusedChunked = (): Client[] => chunked.filter((c) => c.received.startsWith('HTTP/1.1 503'));
      await until(
        () => {
          stats = api.stats();
          return (
            stats.pendingBodies + refusedChunked().length === chunked.length &&
            stats.pendingBytes === stats.pendingBodies * CHUNK &&
            refusedChunked().every((c) => c.ended)
          );
        },
        () => JSON.stringify(api.stats()),
      );
      expect(stats.pendingBodies).toBeGreaterThanOrEqual(1);
      expect(stats.pendingBodies).toBeLessThanOrEqual(Math.floor(CAP / CHUNK));
      expect(stats.refusedBodies).toBe(N - CAP / BODY + 1 + refusedChunked().length);
      expect(stats.peakPendingBytes).toBeLessThanOrEqual(CAP);
      for (const c of chunked) c.socket.destroy();
      await until(
        () => api.stats().pendingBodies === 0,
        () => JSON.stringify(api.stats()),
      );
      expect(api.stats().pendingBytes).toBe(0);
    } finally {
      await api.close(0);
    }
  });

  it('maxConnections open: the next connection is closed unanswered, and once they go a GET is answered', async () => {
    const api = createServer(snap(), { maxConnections: 5 });
    const { port } = await api.listen(0, '127.0.0.1');
    try {
      // Headers that never end: each connection holds at most its partial header block.
      const holding = Array.from({ length: 5 }, () => open(port, 'GET /subjects HTTP/1.1\r\nHost: t\r\nX-Slow: '));
      await until(
        () => api.stats().connections === 5,
        () => JSON.stringify(api.stats()),
      );
      const late = Array.from({ length: 3 }, () => open(port, 'GET /subjects HTTP/1.1\r\nHost: t\r\n\r\n'));
      await until(
        () => late.every((c) => c.ended),
        () => JSON.stringify(api.stats()),
      );
      for (const c of late) expect(c.received).toBe('');
      expect(api.stats()).toMatchObject({ connections: 5, peakConnections: 5, refusedConnections: 3 });
      for (const c of holding) c.socket.destroy();
      await until(
        () => api.stats().connections === 0,
        () => JSON.stringify(api.stats()),
      );
      expect((await call(port, 'GET', '/subjects')).status).toBe(200);
    } finally {
      await api.close(0);
    }
  });
});

describe('serve --max-connections, --max-pending-bytes (item 13)', { timeout: 60_000 }, () => {
  const registry = (): string => {
    const dir = registryDir({ 'registry.json': manifest([{ urn: URN, schema: 'a.json' }]), 'a.json': '{"type":"object"}' });
    dirs.push(dir);
    return join(dir, 'registry.json');
  };

  it('a bad number is a usage error: exit 2, one line', async () => {
    const path = registry();
    for (const [args, line] of [
      [['--max-connections', '0'], /^bqschema: --max-connections must be a positive integer, got "0"$/],
      [['--max-connections', '1.5'], /^bqschema: --max-connections must be a positive integer, got "1\.5"$/],
      [['--max-connections', '-3'], /^bqschema: --max-connections must be a positive integer, got "-3"$/],
      [['--max-connections', '99999999999999999999'], /^bqschema: --max-connections must be a positive integer, got "9+"$/],
      [
        ['--max-pending-bytes', '1048575'],
        /^bqschema: --max-pending-bytes must be a number of bytes from 1048576 \(the largest request body, 1 MiB\) up, got "1048575"$/,
      ],
      [['--max-pending-bytes', '64MiB'], /^bqschema: --max-pending-bytes must be a number of bytes from 1048576 .* got "64MiB"$/],
      [['--max-pending-bytes', ''], /^bqschema: --max-pending-bytes must be a number of bytes from 1048576 .* got ""$/],
    ] as const) {
      expectOneLineError(await bq(['serve', '--registry', path, '--port', '0', ...args]), line);
    }
  });

  it('the served process applies both: uploads past --max-pending-bytes get 503, a connection past --max-connections is closed, GET still answered', async () => {
    const s = await serve(['--registry', registry(), '--max-connections', '24', '--max-pending-bytes', '1048576', '--verbose']);
    const clients: Client[] = [];
    try {
      // 20 uploads of 256 KiB (of 1 MiB each) past a 1 MiB cap: one is let in.
      for (let i = 0; i < 20; i++)
        clients.push(open(s.port, Buffer.concat([Buffer.from(lookUpHead(1024 * 1024), 'latin1'), Buffer.alloc(256 * 1024, 0x20)])));
      const refused = (): Client[] => clients.filter((c) => c.received.startsWith('HTTP/1.1 503'));
      await until(
        () => refused().length === 19 && refused().every((c) => c.ended),
        () => `${refused().length} refused`,
      );
      expect(JSON.parse(refused()[0]!.received.split('\r\n\r\n')[1]!)).toMatchObject({ error_code: 50301 });
      expect(s.stderr()).toMatch(/^POST \/subjects\/urn%3At%3Aa 503 /m);
      expect((await call(s.port, 'GET', '/subjects')).body).toEqual([URN]);

      // Answered keep-alive connections stay open: opened one at a time, they fill the cap, and the
      // next one is closed unanswered.
      const kept: Client[] = [];
      let late: Client | undefined;
      for (let i = 0; late === undefined && i < 40; i++) {
        const c = open(s.port, 'GET /subjects HTTP/1.1\r\nHost: t\r\n\r\n');
        await until(
          () => c.received.includes('["urn:t:a"]') || c.ended,
          () => 'an answer or a close',
        );
        if (c.received === '') late = c;
        else kept.push(c);
      }
      expect(late, `${kept.length} connections answered, none refused`).toBeDefined();
      expect(kept.length).toBeLessThanOrEqual(24);
      await s.waitFor(/connection refused: 24 connections are open \(--max-connections\)/);
      for (const c of [...kept, ...clients]) c.socket.destroy();
      // Once the server has seen them go, a GET is answered again.
      let answered: unknown;
      for (let turn = 0; answered === undefined && turn < 200; turn++) {
        answered = await call(s.port, 'GET', '/subjects').then(
          (r) => r.body,
          () => new Promise((r) => setTimeout(r, 10)).then(() => undefined),
        );
      }
      expect(answered).toEqual([URN]);
    } finally {
      for (const c of clients) c.socket.destroy();
      await stop(s);
    }
  });
});
