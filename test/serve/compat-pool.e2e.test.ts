// Serve's /compatibility is judged off the main thread whatever the body's size,
// under limits that are the same in every thread.
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/serve/errors.js';
import { judgeCompatibility, type CompatQuestion } from '../../src/serve/judge.js';
import { MAX_DEPTH } from '../../src/validator/index.js';
import { removeTrees, tree } from '../helpers/hostile.js';
import { call, CONTENT_TYPE, serve, stop, type Served } from '../helpers/serve.js';

afterAll(removeTrees);

function deepItems(n: number): unknown {
  let s: unknown = { type: 'string' };
  for (let i = 0; i < n; i++) s = { type: 'array', items: s };
  return s;
}
const body = (schema: unknown): Uint8Array => Buffer.from(JSON.stringify({ schema: JSON.stringify(schema) }));

/** The status a question gets: 200, or its ApiError's. */
function statusOf(run: () => unknown): number {
  try {
    run();
    return 200;
  } catch (err) {
    if (err instanceof ApiError) return err.status;
    throw err;
  }
}

/** The status the built compat worker (dist/serve/compat-worker.js, serve's own) answers with. */
async function workerStatus(q: CompatQuestion): Promise<number> {
  const worker = new Worker(new URL('../../dist/serve/compat-worker.js', import.meta.url));
  try {
    const msg = await new Promise<{ answer?: unknown; apiError?: { kind: string; message: string } }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage({ id: 1, question: q });
    });
    if (msg.apiError === undefined) return 200;
    return new ApiError(msg.apiError.kind as never, msg.apiError.message).status;
  } finally {
    await worker.terminate();
  }
}

describe('one answer for one question, whatever the thread (item 5)', { timeout: 120_000 }, () => {
  for (const [depth, verbose] of [
    [2_000, false],
    [2_000, true],
    [MAX_DEPTH - 1, true],
  ] as const) {
    it(`items nested ${depth} deep (verbose ${verbose}): the main thread and the worker give the same status`, async () => {
      const q: CompatQuestion = {
        registered: JSON.stringify(deepItems(3)),
        body: body(deepItems(depth)),
        level: 'backward',
        policy: 'bqschema',
        verbose,
      };
      const main = statusOf(() => judgeCompatibility(q));
      expect(await workerStatus(q)).toBe(main);
      // Past the limit it is refused for its depth; within it, judged.
      expect(main).toBe(depth >= MAX_DEPTH ? 422 : 200);
    });
  }

  it('the refusal names the limit', () => {
    const q: CompatQuestion = { registered: '{}', body: body(deepItems(2_000)), level: 'backward', policy: 'bqschema', verbose: false };
    expect(() => judgeCompatibility(q)).toThrow(`Invalid schema: nested deeper than ${MAX_DEPTH} levels`);
  });
});

describe('/compatibility never holds up other requests (item 5)', { timeout: 120_000 }, () => {
  let served: Served;
  beforeAll(async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:wide', schema: 'wide.json' }] }),
      'wide.json': '{"type":"object"}',
    });
    served = await serve(['--registry', `${dir}/registry.json`]);
  });
  afterAll(async () => {
    await stop(served);
  });

  it('a GET sent after eight small but costly questions is answered before the last of them', async () => {
    // Under 32 KiB each (the old threshold judged such bodies in the main thread, one by one).
    const required = Array.from({ length: 3_300 }, (_, i) => `f${i}`);
    const posted = Buffer.from(JSON.stringify({ schema: JSON.stringify({ type: 'object', required }) }));
    expect(posted.byteLength).toBeLessThan(32 * 1024);
    const path = `/compatibility/subjects/${encodeURIComponent('urn:test:wide')}/versions/latest?verbose=true`;
    const order: string[] = [];
    const posts = Array.from({ length: 8 }, (_, i) =>
      call(served.port, 'POST', path, posted, { 'content-type': CONTENT_TYPE }).then((r) => {
        order.push(`post${i}`);
        return r;
      }),
    );
    // The questions are on their way; the GET goes after them.
    await new Promise((r) => setTimeout(r, 20));
    const get = await call(served.port, 'GET', '/subjects').then((r) => {
      order.push('get');
      return r;
    });
    const answers = await Promise.all(posts);
    expect(get.status).toBe(200);
    expect(get.body).toEqual(['urn:test:wide']);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.is_compatible).toBe(false);
      expect(a.body.messages).toHaveLength(3_300);
    }
    // The GET did not wait for every judgement to end.
    expect(order.indexOf('get')).toBeLessThan(order.length - 1);
  });
});
