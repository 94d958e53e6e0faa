// Hostile inputs for `serve`: a maximal /compatibility request, reads before refusing, self-referencing
// YAML, and SIGHUP reloads while a file is being written.
import type { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CYCLIC_SCHEMA_YAML,
  expectRun,
  hostileRegistry,
  refusedOpens,
  removeTrees,
  guardRepo,
  run,
  tree,
  type Run,
  type RunOptions,
} from '../helpers/hostile.js';
import { call } from '../helpers/serve.js';

// A server a failed test left running is ended here (the runner's own timeout dies with the worker).
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  removeTrees();
});

guardRepo();

interface Server {
  child: ChildProcess;
  port: number;
  stderr(): string;
  waitFor(pattern: RegExp, from?: number): Promise<void>;
  /** Resolves when the process has ended. */
  done: Promise<Run>;
}

/** `bqschema serve --port 0 …` in `cwd`, through the hostile runner (so opens can be watched). */
async function startServe(args: string[], options: Omit<RunOptions, 'onSpawn'>): Promise<Server> {
  let child!: ChildProcess;
  let err = '';
  const done = run(['serve', '--port', '0', ...args], {
    timeoutMs: 120_000,
    ...options,
    onSpawn: (c) => {
      child = c;
      started.push(c);
      c.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    },
  });
  const waitFor = async (pattern: RegExp, from = 0): Promise<void> => {
    const started = Date.now();
    while (!pattern.test(err.slice(from))) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`serve ended before ${pattern}: ${err}`);
      if (Date.now() - started > 20_000) throw new Error(`timed out waiting for ${pattern}: ${err}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  await waitFor(/listening on http:\/\/[^\s]+:\d+/);
  const port = Number(/listening on http:\/\/.+:(\d+) /.exec(err)![1]);
  return { child, port, stderr: () => err, waitFor, done };
}

const enc = encodeURIComponent;

describe('serve: a maximal /compatibility request (item 3)', { timeout: 180_000 }, () => {
  // The registered schema holds a 100k-entry enum of distinct objects; the request holds as many
  // distinct objects as fit the 1 MiB body limit (each {"k":n} costs ~14 bytes once escaped).
  const N = 100_000;
  const registered = JSON.stringify({ type: 'object', properties: { v: { enum: Array.from({ length: N }, (_, i) => ({ k: i + 1 })) } } });
  function maximalBody(): { body: string; entries: number } {
    for (let n = 80_000; ; n -= 500) {
      const body = JSON.stringify({
        schema: JSON.stringify({ type: 'object', properties: { v: { enum: Array.from({ length: n }, (_, i) => ({ k: i })) } } }),
      });
      if (Buffer.byteLength(body) <= 1024 * 1024) return { body, entries: n };
    }
  }

  it('is answered correctly, the server keeps serving, and SIGTERM during one ends it (exit 0)', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:big', schema: 'big.json' }] }),
      'big.json': registered,
    });
    const s = await startServe([], { cwd: dir });
    const { body, entries } = maximalBody();
    const path = `/compatibility/subjects/${enc('urn:test:big')}/versions/latest?verbose=true`;
    const headers = { 'content-type': 'application/vnd.schemaregistry.v1+json' };
    const started = performance.now();
    let postDone = false;
    const post = call(s.port, 'POST', path, body, headers).finally(() => {
      postDone = true;
    });
    // A GET sent while the POST is being judged (in serve's worker thread) is answered at once,
    // before the POST: the thread that answers requests never waits on a comparison.
    await new Promise((r) => setTimeout(r, 200));
    const getStarted = performance.now();
    const get = await call(s.port, 'GET', '/subjects');
    const getMs = performance.now() - getStarted;
    expect(postDone).toBe(false);
    const answer = await post;
    const postMs = performance.now() - started;
    console.log(
      `serve: POST /compatibility with a ${entries}-object enum against ${N}: ${Math.round(postMs)} ms; a concurrent GET waited ${Math.round(getMs)} ms`,
    );
    expect(get.status).toBe(200);
    expect(answer.status).toBe(200);
    // Value 0 is new (compatible); values entries..N are removed: breaking, each named.
    expect(answer.body.is_compatible).toBe(false);
    expect(answer.body.messages).toHaveLength(N - entries + 1);
    expect(answer.body.messages[0]).toMatch(
      /^\/properties\/v\/enum: enum value \{"k":\d+\} removed \(enum-value-removed\); witness valid under old: /,
    );
    expect(postMs).toBeLessThan(30_000);

    // SIGTERM while the next such request is being judged: the process ends, exit 0.
    const again = call(s.port, 'POST', path, body, headers).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const signalled = performance.now();
    s.child.kill('SIGTERM');
    const end = await s.done;
    await again;
    console.log(`serve: SIGTERM during a maximal POST ended the process after ${Math.round(performance.now() - signalled)} ms`);
    expect(end.code).toBe(0);
    expect(end.stderr).toMatch(/SIGTERM: closing/);
    expect(end.stderr).not.toMatch(/^ {4}at /m);
  });
});

describe('serve: nothing is opened before the outside-path rule (item 4)', { timeout: 60_000 }, () => {
  it('/dev/zero, FIFOs inside and outside, ../../etc/shadow: served as broken subjects, refused paths never opened', async () => {
    const { dir, outsideFifo } = hostileRegistry();
    const s = await startServe([], { cwd: dir, watchOpens: true });
    for (const urn of ['urn:hostile:zero', 'urn:hostile:fifo-out', 'urn:hostile:shadow']) {
      expect(s.stderr()).toContain(
        `warning: ${urn} is answered with error 50001: schema file for ${urn} is outside the registry directory`,
      );
    }
    expect(s.stderr()).toContain(
      'warning: urn:hostile:fifo-in is answered with error 50001: schema file for urn:hostile:fifo-in is not a regular file: fifo-in',
    );
    const zero = await call(s.port, 'GET', `/subjects/${enc('urn:hostile:zero')}/versions/latest/schema`);
    expect(zero.status).toBe(500);
    expect(zero.body.error_code).toBe(50001);
    const good = await call(s.port, 'GET', `/subjects/${enc('urn:test:order')}/versions/latest/schema`);
    expect(good.status).toBe(200);
    // A reload reads again: still nothing refused is opened.
    const mark = s.stderr().length;
    s.child.kill('SIGHUP');
    await s.waitFor(/reload failed, still serving the previous registry/, mark);
    s.child.kill('SIGTERM');
    const end = await s.done;
    expect(end.code).toBe(0);
    expect(refusedOpens(end, outsideFifo)).toEqual([]);
    expect(end.opened.some((p) => p.endsWith('schemas/order.json'))).toBe(true);
  });
});

describe('serve: self-referencing YAML (item 5)', { timeout: 60_000 }, () => {
  it('in a schema: a warning naming the file and position, the subject answers 50001, the rest is served', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:test:cyc', schema: 'cyc.yaml' },
          { urn: 'urn:test:ok', schema: 'ok.json' },
        ],
      }),
      'cyc.yaml': CYCLIC_SCHEMA_YAML,
      'ok.json': '{"type":"object"}',
    });
    const s = await startServe([], { cwd: dir, nodeFlags: ['--max-old-space-size=256'] });
    expect(s.stderr()).toMatch(
      /warning: urn:test:cyc is answered with error 50001: schema file for urn:test:cyc is malformed: cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/,
    );
    expect((await call(s.port, 'GET', `/subjects/${enc('urn:test:ok')}/versions/latest/schema`)).status).toBe(200);
    s.child.kill('SIGTERM');
    expect((await s.done).code).toBe(0);
  });

  it('in a manifest: one line naming the file and position, exit 1, promptly', async () => {
    const dir = tree({ 'registry.yaml': 'schemas: &s\n  - urn: urn:test:x\n    schema: *s\n' });
    const r = await run(['serve', '--port', '0'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(r, 1, /^bqschema: registry\.yaml:3:13: invalid YAML: the alias \*s refers to a node that contains it/);
  });
});

describe('serve: SIGHUP while a schema is being written (item 8)', { timeout: 120_000 }, () => {
  it('no served version is a prefix of the final file unless it is a complete version the writer produced', async () => {
    // Complete checkpoints: the first version and the last. Every step between is valid YAML and a
    // valid schema (it just lacks `additionalProperties: false` and some properties): a reload that
    // took one of them would serve a half-written file.
    const first = 'type: object\nproperties:\n  a:\n    type: string\n';
    const steps = Array.from({ length: 40 }, (_, i) => `  p${i}:\n    type: string\n`);
    steps.push('additionalProperties: false\n');
    const dir = tree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:w', schema: 'w.yaml' }] }), 'w.yaml': first });
    const s = await startServe([], { cwd: dir });
    const schemaPath = `/subjects/${enc('urn:test:w')}/versions/latest/schema`;
    const firstServed = (await call(s.port, 'GET', schemaPath)).body;
    const finalSchema = {
      type: 'object',
      properties: Object.fromEntries([['a', { type: 'string' }], ...steps.slice(0, -1).map((_, i) => [`p${i}`, { type: 'string' }])]),
      additionalProperties: false,
    };
    const complete = [JSON.stringify(firstServed), JSON.stringify(finalSchema)];
    expect(firstServed).toEqual({ type: 'object', properties: { a: { type: 'string' } } });

    const served = new Set<string>();
    let writing = true;
    const poll = (async () => {
      while (writing) {
        served.add(JSON.stringify((await call(s.port, 'GET', schemaPath)).body));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const hups = setInterval(() => s.child.kill('SIGHUP'), 60);
    for (const step of steps) {
      appendFileSync(join(dir, 'w.yaml'), step);
      await new Promise((r) => setTimeout(r, 20));
    }
    clearInterval(hups);
    // The last reload settles on the final file.
    const mark = s.stderr().length;
    s.child.kill('SIGHUP');
    await s.waitFor(/reloaded \(1 subjects\)/, mark);
    const last = (await call(s.port, 'GET', schemaPath)).body;
    writing = false;
    await poll;
    served.add(JSON.stringify(last));
    expect(last).toEqual(finalSchema);
    for (const version of served) expect(complete).toContain(version);
    s.child.kill('SIGTERM');
    const end = await s.done;
    expect(end.code).toBe(0);
    expect(end.stderr).not.toMatch(/^ {4}at /m);
    console.log(
      `serve SIGHUP under a writer: ${served.size} distinct version(s) served, ${(end.stderr.match(/reloaded/g) ?? []).length} reload(s)`,
    );
  });
});
