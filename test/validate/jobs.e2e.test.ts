import { execFileSync } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, expectOneLineError, FIXTURES, removeTempTrees, ROOT, tempTree, type CliResult } from '../helpers/cli.js';

// `validate --jobs N` must write exactly what one thread writes: same stdout, stderr and exit code,
// byte for byte. Small fixtures run with tiny tasks (BQSCHEMA_TEST_TASK_SIZE="bytes,files"), so
// task boundaries fall between every file and inside every stream.

afterAll(removeTempTrees);

const FORMATS = ['text', 'json', 'github'] as const;
const TINY = { BQSCHEMA_TEST_TASK_SIZE: '1,1' };

async function expectSame(
  args: string[],
  options: { env?: Record<string, string>; input?: string | Buffer; cwd?: string; jobs?: string[] } = {},
): Promise<CliResult> {
  const jobsList = options.jobs ?? ['2'];
  // The runs are independent processes: started together, they finish sooner on more than one core.
  const [one, ...runs] = await Promise.all([
    bq(['validate', '--jobs', '1', ...args], { input: options.input, cwd: options.cwd }),
    ...jobsList.map((jobs) => bq(['validate', '--jobs', jobs, ...args], { env: options.env, input: options.input, cwd: options.cwd })),
  ]);
  for (const [i, jobs] of jobsList.entries()) {
    const many = runs[i]!;
    const label = `validate --jobs ${jobs} ${args.join(' ')}`;
    expect(many.stdout, `${label}: stdout`).toBe(one.stdout);
    expect(many.stderr, `${label}: stderr`).toBe(one.stderr);
    expect(many.code, `${label}: exit code`).toBe(one.code);
  }
  return one;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}

describe('validate --jobs: the same output as one thread on every fixture', () => {
  const messages = join(FIXTURES, 'messages');
  const reg = join(FIXTURES, 'reg', 'registry.json');
  const examples = filesUnder(join(ROOT, 'examples', 'messages')).map((f) => relative(ROOT, f));
  // Each fixture file named on the command line (whole files and streams, a task boundary between
  // every two, inside every stream) and the directories walked, in every format.
  const targets: Array<[registry: string, paths: string[]]> = [
    [reg, [messages]],
    [reg, filesUnder(messages)],
    ['registry.example.json', ['examples/messages']],
    ['registry.example.json', examples],
  ];
  // And every other registry under the fixtures over the same messages, in text: each worker opens
  // its registry as this thread does, whatever the format (two are refused before any thread
  // starts; the others judge these messages invalid, error and skipped, the verdicts the targets
  // above render in every format).
  const registries: Array<[registry: string, paths: string[]]> = filesUnder(FIXTURES)
    .filter((f) => /registry\.(json|jsonc|ya?ml)$/.test(f) && f !== reg)
    .map((f): [string, string[]] => [f, [messages]]);
  // And inputs alone, once (in text): what a run of one input does at its start and end. Every
  // stream (a task per line); of the whole files, one of each verdict and a file of several
  // messages: a whole file alone is one task whatever it holds, and each file's results through a
  // worker are checked above, every file named on the command line being a task of its own.
  const ALONE_WHOLE = ['order-valid.json', 'order-invalid.json', 'unregistered.json', 'malformed.json', 'data-array.json'];
  const alone: Array<[registry: string, paths: string[]]> = [
    ...filesUnder(messages)
      .filter((f) => f.endsWith('.ndjson') || ALONE_WHOLE.some((name) => f.endsWith(`/${name}`)))
      .map((f): [string, string[]] => [reg, [f]]),
    ...examples.filter((f) => f.endsWith('.ndjson')).map((f): [string, string[]] => ['registry.example.json', [f]]),
  ];

  // A whole file alone is one task: a third thread would have nothing to judge, so it runs with two.
  // A stream alone is a task per line, and runs with two threads and with three.
  const threadsAlone = (paths: string[]): string[] => (paths.every((p) => p.endsWith('.ndjson')) ? ['2', '3'] : ['2']);

  for (const format of FORMATS) {
    it(`--format ${format}`, async () => {
      let workersRan = 0;
      // Two threads and three in text; three in the others: the order answers are reported in is
      // the same whatever the format (three threads have two workers racing, and this thread judging
      // what they have not begun), and each format's rendering of a worker's answer is what differs.
      const runs: Array<[registry: string, paths: string[], jobs: string[]]> = [
        ...targets.map(([registry, paths]): [string, string[], string[]] => [registry, paths, format === 'text' ? ['2', '3'] : ['3']]),
        ...(format === 'text'
          ? [
              ...registries.map(([registry, paths]): [string, string[], string[]] => [registry, paths, ['2', '3']]),
              ...alone.map(([registry, paths]): [string, string[], string[]] => [registry, paths, threadsAlone(paths)]),
            ]
          : []),
      ];
      for (const [registry, paths, jobs] of runs) {
        const r = await expectSame(['-r', registry, '-f', format, ...paths], { env: TINY, jobs });
        if (r.code !== 2) workersRan++;
      }
      expect(workersRan).toBeGreaterThan(format === 'text' ? 15 : 3);
    });
  }

  it('--strict, --quiet, --urn and a stream mixed with whole files in one directory', async () => {
    const stream = join(messages, 'mixed.ndjson');
    await expectSame(['-r', reg, '--strict', messages], { env: TINY });
    await expectSame(['-r', reg, '--quiet', messages, stream, join(messages, 'order-valid.json'), stream], { env: TINY, jobs: ['2', '4'] });
    await expectSame(
      ['-r', reg, '-f', 'json', '--urn', 'urn:test:order', join(messages, 'bare-order.json'), join(messages, 'data-array.json')],
      { env: TINY },
    );
    await expectSame(['-r', reg, 'no-such-file.json', messages], { env: TINY });
  });

  it('stdin, as NDJSON and as one document', async () => {
    const input = filesUnder(messages)
      .filter((f) => f.endsWith('.ndjson'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('');
    const r = await expectSame(['-r', reg, '--ndjson', '-'], { env: TINY, input });
    expect(r.stdout).toMatch(/<stdin>/);
    await expectSame(['-r', reg, '-f', 'json', '-'], {
      env: TINY,
      input: '{"job":"urn:test:order","data":{"order_id":1,"sku":"ABC","lines":[]}}',
    });
  });
});

/** mulberry32: the same stream on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lines: valid, invalid, skipped, error, broken, blank, not UTF-8; \n, \r\n and lone \r; a BOM. */
function generatedStream(lines: number): Buffer {
  const rnd = prng(7);
  const parts: Buffer[] = [Buffer.from('\uFEFF')];
  for (let i = 0; i < lines; i++) {
    const x = rnd();
    let line: string | Buffer;
    if (x < 0.5)
      line = JSON.stringify({ job: 'urn:gen:order', data: { id: i + 1, code: 'ABC' }, meta: { id: `m${i}`, schema_version: 1 } });
    else if (x < 0.6) line = JSON.stringify({ job: 'urn:gen:order', data: { id: i % 2 === 0 ? 0 : 'x', extra: [1, { deep: i }] } });
    else if (x < 0.65) line = JSON.stringify({ job: `urn:gen:unregistered${i % 3}`, data: {} });
    else if (x < 0.68) line = JSON.stringify({ job: 'urn:gen:bad', data: { id: 1 } });
    else if (x < 0.76) line = JSON.stringify({ job: 'urn:gen:note', data: { text: i % 5 === 0 ? 5 : 'hi' } });
    else if (x < 0.79) line = `{"job":"urn:gen:order","data":{"id":${i}`;
    else if (x < 0.83) line = i % 2 === 0 ? '' : ' \t ';
    else if (x < 0.84) line = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    else if (x < 0.87) line = JSON.stringify({ data: { id: 1 } });
    else if (x < 0.89) line = JSON.stringify({ job: 'urn:gen:order', data: { id: 2 }, meta: { schema_version: 2 } });
    else if (x < 0.9) line = JSON.stringify({ job: 'urn:gen:\u001b[31mred', data: [] });
    else if (x < 0.92) line = JSON.stringify([1, 2, 3]);
    else line = JSON.stringify({ job: 'urn:gen:order', data: { id: i + 1, code: 'XYZ', note: 'ünïcödé ✓ \u2028' } });
    parts.push(typeof line === 'string' ? Buffer.from(line) : line);
    const y = rnd();
    if (i < lines - 1) parts.push(Buffer.from(y < 0.9 ? '\n' : y < 0.98 ? '\r\n' : '\r'));
  }
  return Buffer.concat(parts);
}

describe('validate --jobs on generated streams of 30,000 lines and 3,000', () => {
  const dir = tempTree({
    'registry.json': JSON.stringify({
      schemas: [
        { urn: 'urn:gen:order', schema: 'order.json' },
        { urn: 'urn:gen:bad', schema: 'bad.json' },
        { urn: 'urn:gen:note', schema: 'note.json' },
      ],
    }),
    // `pattern` and `format` are not enforced: a warning each, printed once whatever the thread count.
    'order.json': JSON.stringify({
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'integer', minimum: 1 }, code: { type: 'string', pattern: '^[A-Z]+$' } },
    }),
    'bad.json': JSON.stringify({ type: 'object', required: 'id' }),
    'note.json': JSON.stringify({ type: 'object', properties: { text: { type: 'string', format: 'email' } } }),
    // 2.2 MB: two tasks of the real size (1 MiB of reads, cut at a line's end; 15,000 lines would be one).
    'traffic.ndjson': generatedStream(30_000),
    // Its first 3,000 lines (220 KB), for the runs with smaller tasks: 14 tasks of 16 KB.
    'short.ndjson': generatedStream(3_000),
  });

  for (const format of FORMATS) {
    it(`--format ${format}`, async () => {
      // Tasks of the real size in text (on the long stream), of 16 KB in the others (on the short one).
      const r = await expectSame(['-f', format, format === 'text' ? 'traffic.ndjson' : 'short.ndjson'], {
        cwd: dir,
        env: format === 'text' ? {} : { BQSCHEMA_TEST_TASK_SIZE: '16384,1' },
      });
      expectExit(r, 1);
      if (format === 'text') {
        // Every kind of result is in the stream, and each URN's warnings are printed once.
        // Blank lines are not messages.
        const total = Number(/^FAILED: (\d+) messages: \d+ valid, \d+ invalid, \d+ skipped, \d+ errors$/m.exec(r.stdout)?.[1]);
        expect(total).toBeGreaterThan(27_000);
        expect(total).toBeLessThan(30_000);
        for (const mark of ['✓ valid', '✗ invalid', '- skipped', '! error']) expect(r.stdout).toContain(mark);
        expect(r.stdout).toContain('not valid UTF-8');
        expect(r.stderr.split('\n').filter((l) => l !== '')).toEqual([
          'bqschema: warning: schema for urn:gen:order: unsupported keyword "pattern" at /properties/code is not enforced',
          'bqschema: warning: schema for urn:gen:note: unsupported keyword "format" at /properties/text is not enforced',
        ]);
      }
    });
  }

  it('--quiet with small tasks and three threads, and the stream on stdin', async () => {
    await expectSame(['--quiet', 'short.ndjson'], { cwd: dir, env: { BQSCHEMA_TEST_TASK_SIZE: '4096,1' }, jobs: ['3'] });
    // Standard input is cut into tasks as a file is: the short stream in 16 KB tasks.
    const input = readFileSync(join(dir, 'short.ndjson'));
    await expectSame(['--quiet', '--ndjson', '-'], { cwd: dir, input, env: { BQSCHEMA_TEST_TASK_SIZE: '16384,1' } });
  });
});

describe('a FIFO named as an NDJSON file', () => {
  // Regular files are read directly; a FIFO goes through a stream. Both must give the same report.
  it('is read to its end, with one thread and with two, as the same bytes in a regular file', async () => {
    const ok = JSON.stringify({ job: 'urn:test:order', data: { order_id: 1, sku: 'ABC', lines: [] } });
    const bad = JSON.stringify({ job: 'urn:test:order', data: { order_id: 0, sku: 'ABC', lines: [] } });
    // 105 KB: more than a pipe holds (64 KB), and 26 tasks of 4 KB.
    const body = Array.from({ length: 1500 }, (_, i) => (i % 97 === 5 ? bad : i % 89 === 7 ? '{broken' : ok)).join('\n') + '\n';
    const dir = tempTree({ 'file/in.ndjson': body });
    const fifo = join(dir, 'in.ndjson');
    for (const jobs of ['1', '2']) {
      rmSync(fifo, { force: true });
      execFileSync('mkfifo', [fifo]);
      const run = bq(['validate', '--jobs', jobs, '-r', join(FIXTURES, 'reg', 'registry.json'), fifo], {
        env: { BQSCHEMA_TEST_TASK_SIZE: '4096,1' },
      });
      const writer = createWriteStream(fifo);
      writer.end(body);
      const [r, plain] = await Promise.all([
        run,
        bq(['validate', '--jobs', '1', '-r', join(FIXTURES, 'reg', 'registry.json'), join(dir, 'file', 'in.ndjson')]),
      ]);
      expectExit(r, 1);
      expect(r.stdout.split(fifo).join('X'), `--jobs ${jobs}`).toBe(plain.stdout.split(join(dir, 'file', 'in.ndjson')).join('X'));
      expect(r.stdout).toMatch(/1500 messages: 1467 valid, 16 invalid, 0 skipped, 17 errors/);
    }
  });
});

describe('validate --jobs: stops and failures', () => {
  it('a line over --max-line-bytes stops the run after every line before it, as with one thread', async () => {
    const ok = JSON.stringify({ job: 'urn:test:order', data: { order_id: 1, sku: 'ABC', lines: [] } });
    const long = JSON.stringify({ job: 'urn:test:order', data: { order_id: 1, sku: 'A'.repeat(400), lines: [] } });
    const inner = tempTree({ 'a.ndjson': [...Array(300).fill(ok), long, ...Array(300).fill(ok)].join('\n') + '\n' });
    const tail = tempTree({ 'a.ndjson': [...Array(300).fill(ok), long].join('\n') });
    // Longer than a whole read: the reader for tasks stops on it before its end is read.
    const huge = JSON.stringify({ job: 'urn:test:order', data: { order_id: 1, sku: 'A'.repeat(5000), lines: [] } });
    const unread = tempTree({ 'a.ndjson': [...Array(300).fill(ok), huge, ...Array(300).fill(ok)].join('\n') + '\n' });
    // Every format ends its output as one thread does when the stop comes (inner); where the reader
    // stops (a line with more after it, the last line, a line longer than a read) is the same in each.
    const cases: Array<[dir: string, formats: readonly string[]]> = [
      [inner, FORMATS],
      [tail, ['text']],
      [unread, ['text']],
    ];
    for (const [dir, formats] of cases) {
      for (const format of formats) {
        const r = await expectSame(
          ['-r', join(FIXTURES, 'reg', 'registry.json'), '-f', format, '--max-line-bytes', '200', join(dir, 'a.ndjson')],
          {
            env: { BQSCHEMA_TEST_TASK_SIZE: '1000,1' },
          },
        );
        expectExit(r, 2);
        expect(r.stderr).toMatch(/a\.ndjson:301: the line is larger than 200 bytes/);
        if (format === 'text') expect(r.stdout).toMatch(/^FAILED: 300 messages: 300 valid/m);
      }
    }
  });

  it('a file over --max-file-bytes stops the run after every file before it, as with one thread', async () => {
    const ok = JSON.stringify({ job: 'urn:test:order', data: { order_id: 1, sku: 'ABC', lines: [] } });
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`m${String(i).padStart(2, '0')}.json`] = i === 25 ? ok + ' '.repeat(500) : ok;
    const dir = tempTree(files);
    const r = await expectSame(['-r', join(FIXTURES, 'reg', 'registry.json'), '--max-file-bytes', '300', dir], {
      env: { BQSCHEMA_TEST_TASK_SIZE: '1,3' },
    });
    expectExit(r, 2);
    expect(r.stdout).toMatch(/^FAILED: 25 messages: 25 valid/m);
  });

  it('a worker that crashes is one line and exit 3, with the JSON document still complete', async () => {
    const r = await bq(['validate', '--jobs', '2', '-f', 'json', '-r', 'registry.example.json', 'examples/messages'], {
      env: { BQSCHEMA_TEST_WORKER_CRASH: '1' },
    });
    expectOneLineError(r, /^bqschema: internal error: a validation worker failed: simulated crash$/, 3);
    expect(JSON.parse(r.stdout).ok).toBe(false);
  });

  it('--jobs must be a whole number of threads', async () => {
    for (const bad of ['0', '-1', 'two', '1.5', '257']) {
      expectOneLineError(
        await bq(['validate', '--jobs', bad, '-r', 'registry.example.json', 'examples/messages']),
        /--jobs must be a number of threads from 1 to 256/,
      );
    }
  });
});
