import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, removeTempTrees, tempTree } from '../helpers/cli.js';

// `validate --jobs 2` and `--jobs 3` write the very bytes `--jobs 1` writes (stdout, stderr, exit
// code) on random NDJSON corpora, in random formats, with task boundaries anywhere, and whether
// the workers judge their tasks or never begin one (BQSCHEMA_TEST_WORKER_STALL: a worker that gets
// no CPU, whose tasks the main thread takes back). Without the take-back, a stalled worker hangs
// the run and the test times out.
//
// BQ_JOBS_RUNS=<n> runs more corpora; BQ_JOBS_SEED=<n> another seed (a failure prints the seed).

const RUNS = Number(process.env['BQ_JOBS_RUNS'] ?? 5);
const SEED = Number(process.env['BQ_JOBS_SEED'] ?? 20261206);

afterAll(removeTempTrees);

const REGISTRY = {
  'registry.json': JSON.stringify({
    schemas: [
      { urn: 'urn:p:order', schema: 'order.json' },
      { urn: 'urn:p:note', schema: 'note.json' },
      { urn: 'urn:p:bad', schema: 'bad.json' },
    ],
  }),
  // Each schema has a keyword that is not enforced: its warning must be printed once, in the same place.
  'order.json': JSON.stringify({
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'integer', minimum: 1 }, code: { type: 'string', pattern: '^[A-Z]+$' } },
  }),
  'note.json': JSON.stringify({ type: 'object', properties: { text: { type: 'string', format: 'email' } } }),
  'bad.json': JSON.stringify({ type: 'object', required: 'id' }),
};

/** One line of a corpus: every kind of result, and lines that are not messages. */
const line = fc.oneof(
  fc
    .record({ id: fc.integer({ min: -2, max: 5 }), code: fc.constantFrom('ABC', 'x', 'ünï ✓') })
    .map((d) => JSON.stringify({ job: 'urn:p:order', data: d })),
  fc.constantFrom('hi', 5, 'a@b').map((text) => JSON.stringify({ job: 'urn:p:note', data: { text } })),
  fc.constant(JSON.stringify({ job: 'urn:p:bad', data: { id: 1 } })),
  fc.constantFrom('urn:p:ordre', 'urn:p:unknown', 'URN:P:NOTE').map((job) => JSON.stringify({ job, data: {} })),
  fc.constantFrom('{"job":"urn:p:order","data":{"id":', '[1,2]', '', ' \t', JSON.stringify({ data: {} })),
);

const corpus = fc.record({
  lines: fc.array(fc.tuple(line, fc.constantFrom('\n', '\n', '\n', '\r\n', '\r')), { minLength: 1, maxLength: 120 }),
  format: fc.constantFrom('text', 'json', 'github'),
  flags: fc.subarray(['--quiet', '--strict']),
  taskBytes: fc.integer({ min: 1, max: 512 }),
  stall: fc.boolean(),
});

describe('validate --jobs: one thread and many write the same bytes', () => {
  it(`on ${RUNS} random corpora (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(corpus, async (c) => {
        const text = c.lines.map(([l, end]) => l + end).join('');
        const dir = tempTree({ ...REGISTRY, 'in.ndjson': text });
        const args = ['validate', '-f', c.format, ...c.flags, 'in.ndjson'];
        const one = await bq([...args, '--jobs', '1'], { cwd: dir });
        const env = { BQSCHEMA_TEST_TASK_SIZE: `${c.taskBytes},1`, BQSCHEMA_TEST_WORKER_STALL: c.stall ? '1' : undefined };
        for (const jobs of ['2', '3']) {
          const many = await bq([...args, '--jobs', jobs], { cwd: dir, env });
          expect(many.stdout, `--jobs ${jobs}: stdout`).toBe(one.stdout);
          expect(many.stderr, `--jobs ${jobs}: stderr`).toBe(one.stderr);
          expect(many.code, `--jobs ${jobs}: exit code`).toBe(one.code);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 120_000);

  it("a URN's warning goes with the first task, in input order, that meets it, whichever thread judged which task first", async () => {
    // Every line a task; the worker never begins its three, so the main thread judges tasks 4 and 5
    // (order, then note: each URN's first meeting for this thread) before it takes back 1 to 3.
    const note = JSON.stringify({ job: 'urn:p:note', data: { text: 'hi' } });
    const order = JSON.stringify({ job: 'urn:p:order', data: { id: 1 } });
    const dir = tempTree({ ...REGISTRY, 'in.ndjson': [note, order, note, order, note].join('\n') + '\n' });
    const one = await bq(['validate', '--jobs', '1', 'in.ndjson'], { cwd: dir });
    expect(one.stderr.split('\n').filter((l) => l !== '')).toEqual([
      'bqschema: warning: schema for urn:p:note: unsupported keyword "format" at /properties/text is not enforced',
      'bqschema: warning: schema for urn:p:order: unsupported keyword "pattern" at /properties/code is not enforced',
    ]);
    const many = await bq(['validate', '--jobs', '2', 'in.ndjson'], {
      cwd: dir,
      env: { BQSCHEMA_TEST_TASK_SIZE: '1,1', BQSCHEMA_TEST_WORKER_STALL: '1' },
    });
    expect(many).toEqual(one);
  });
});
