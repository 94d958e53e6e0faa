// Hostile inputs for `conformance --out`: it refuses every target that is not a regular file or a new
// path (a symlink included: documented in docs/conformance-protocol.md), and leaves it as it was.
// An adapter that hangs with a child of its own, floods a line, or outlives a signal to
// the runner is killed with everything it started, and the run ends with its summary and results.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { asNobody, expectRun, IS_ROOT, listing, removeTrees, guardRepo, ROOT, run, tree } from '../helpers/hostile.js';

afterAll(removeTrees);

const ADAPTER = `node ${JSON.stringify(join(ROOT, 'examples', 'conformance-adapter.mjs'))}`;

describe('conformance --out: only a regular file or a new path', { timeout: 120_000 }, () => {
  guardRepo();
  const conformance = (dir: string, out: string) => run(['conformance', '--impl', ADAPTER, '--out', out], { cwd: dir, timeoutMs: 60_000 });
  const refused = (out: string): RegExp =>
    new RegExp(`^bqschema: --out ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a regular file: refusing to replace it$`);

  it.runIf(IS_ROOT)('/dev/null is refused and stays a character device', async () => {
    const dir = tree();
    const r = await conformance(dir, '/dev/null');
    expectRun(r, 2, refused('/dev/null'));
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('a FIFO, a socket, a directory, a symlink to a file and a symlink to /dev/stdout are refused and stay as they were', async () => {
    const dir = tree({ 'real.json': 'old' });
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'd'));
    symlinkSync('real.json', join(dir, 'link.json'));
    symlinkSync('/dev/stdout', join(dir, 'so'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    try {
      for (const name of ['fifo', 'sock', 'd', 'link.json', 'so']) {
        const r = await conformance(dir, name);
        expectRun(r, 2, refused(join(dir, name)));
      }
      expect(lstatSync(join(dir, 'sock')).isSocket()).toBe(true); // closing the server removes it
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(lstatSync(join(dir, 'fifo')).isFIFO()).toBe(true);
    expect(lstatSync(join(dir, 'd')).isDirectory()).toBe(true);
    expect(readlinkSync(join(dir, 'link.json'))).toBe('real.json');
    expect(readFileSync(join(dir, 'real.json'), 'utf8')).toBe('old');
    expect(readlinkSync(join(dir, 'so'))).toBe('/dev/stdout');
    expect(listing(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a regular file is replaced whole (the control case)', async () => {
    const dir = tree();
    writeFileSync(join(dir, 'results.json'), 'old');
    const r = await conformance(dir, 'results.json');
    expectRun(r, 0);
    expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'))).toHaveProperty('conformance_version');
    expect(listing(dir)).toEqual(['results.json']);
  });
});

describe('conformance --suite: a suite it cannot read is a one-line error, never "ran nothing, exit 0"', { timeout: 120_000 }, () => {
  guardRepo();
  const VERSION = readFileSync(join(ROOT, 'conformance', 'CONFORMANCE_VERSION'), 'utf8');
  const SHIPPED = readFileSync(join(ROOT, 'conformance', 'manifest.json'), 'utf8');
  const withSuite = (dir: string, suite: string, extra: { prefix: string[]; bin: string } | object = {}) =>
    run(['conformance', '--impl', ADAPTER, '--suite', suite, '--out', 'results.json'], { cwd: dir, timeoutMs: 60_000, ...extra });
  const manifest = (m: unknown): Record<string, string> => ({
    'suite/manifest.json': typeof m === 'string' ? m : JSON.stringify(m),
    'suite/CONFORMANCE_VERSION': VERSION,
  });
  const runnable = { schema: { type: 'string' }, cases: [{ name: 'c', data: 'x', valid: true }] };
  const READ_FIX = "give --suite the directory holding the suite's manifest.json and CONFORMANCE_VERSION, or that manifest.json$";
  const SHAPE_FIX = ', so the suite would run none of its cases; fix the manifest$';

  const cases: Array<[what: string, files: Record<string, string>, suite: string, line: RegExp]> = [
    ['a path that does not exist', {}, 'nowhere', new RegExp(`^bqschema: \\S+/nowhere: cannot read the suite \\(ENOENT\\); ${READ_FIX}`)],
    [
      'a directory without manifest.json',
      { 'suite/CONFORMANCE_VERSION': VERSION },
      'suite',
      new RegExp(`^bqschema: \\S+/suite/manifest\\.json: cannot read the suite's manifest \\(ENOENT\\); ${READ_FIX}`),
    ],
    [
      'a manifest.json that is a directory',
      { 'suite/manifest.json/x': '{}', 'suite/CONFORMANCE_VERSION': VERSION },
      'suite',
      /: cannot read the suite's manifest \(it is a directory\); give --suite/,
    ],
    [
      'a manifest that is not JSON',
      manifest('{"sections": {\n'),
      'suite',
      /^bqschema: \S+\/suite\/manifest\.json:2:1: invalid JSON: close brace expected; the suite's manifest must be JSON$/,
    ],
    [
      'a manifest that is not an object',
      manifest([]),
      'suite',
      new RegExp(`manifest\\.json: the manifest is not a JSON object${SHAPE_FIX}`),
    ],
    [
      'no sections map',
      manifest({ payload_schema: runnable }),
      'suite',
      new RegExp(`the manifest has no "sections" map \\(section name to scope\\)${SHAPE_FIX}`),
    ],
    [
      'an empty sections map',
      manifest({ sections: {} }),
      'suite',
      new RegExp(`the manifest names no section this runner runs \\(payload_schema, payload_schema_unicode\\)${SHAPE_FIX}`),
    ],
    [
      'only sections this runner does not know',
      manifest({ sections: { retry_backoff: 'core' }, retry_backoff: { cases: [{}] } }),
      'suite',
      /the manifest names no section this runner runs/,
    ],
    [
      'a runnable section without its block',
      manifest({ sections: { payload_schema: 'core' } }),
      'suite',
      new RegExp(
        `section "payload_schema" has no block of the \\{schema, cases: \\[\\{data, valid\\}\\]\\} shape this runner reads${SHAPE_FIX}`,
      ),
    ],
    [
      'a runnable section with no cases',
      manifest({ sections: { payload_schema: 'core' }, payload_schema: { schema: {}, cases: [] } }),
      'suite',
      new RegExp(`section "payload_schema" has no cases${SHAPE_FIX}`),
    ],
    [
      'a scope that is not a string',
      manifest({ sections: { payload_schema: 1 }, payload_schema: runnable }),
      'suite',
      /the scope of section "payload_schema" is not a string/,
    ],
    [
      'no CONFORMANCE_VERSION',
      { 'suite/manifest.json': JSON.stringify({ sections: { payload_schema: 'core' }, payload_schema: runnable }) },
      'suite',
      /suite\/CONFORMANCE_VERSION: cannot read the suite's CONFORMANCE_VERSION \(ENOENT\)/,
    ],
    [
      'an empty CONFORMANCE_VERSION',
      {
        'suite/manifest.json': JSON.stringify({ sections: { payload_schema: 'core' }, payload_schema: runnable }),
        'suite/CONFORMANCE_VERSION': '\n',
      },
      'suite',
      /suite\/CONFORMANCE_VERSION: the suite's version is empty; give --suite/,
    ],
  ];
  for (const [what, files, suite, line] of cases) {
    it(`${what}: exit 2, one line, nothing written`, async () => {
      const dir = tree(files);
      const before = listing(dir);
      const r = await withSuite(dir, suite);
      expectRun(r, 2, line);
      expect(r.stdout).toBe('');
      expect(listing(dir)).toEqual(before);
    });
  }

  it("a suite whose runnable sections are all out of the adapter's scope: exit 2, one line, nothing written", async () => {
    const m = JSON.parse(SHIPPED) as { sections: Record<string, string> };
    m.sections.payload_schema = 'kafka';
    m.sections.payload_schema_unicode = 'amqp';
    const dir = tree(manifest(m));
    const r = await withSuite(dir, 'suite');
    expectRun(
      r,
      2,
      /^bqschema: the suite's sections this runner runs \(payload_schema: scope kafka, payload_schema_unicode: scope amqp\) are all out of the implementation's scope \(bindings: none\), so it would run none of the suite's cases; give a suite with a section in scope, or have the adapter's hello name the binding$/,
    );
    expect(existsSync(join(dir, 'results.json'))).toBe(false);
    // One in scope is enough: the other is reported as not run, as before.
    m.sections.payload_schema = 'core';
    const ok = tree(manifest(m));
    const r2 = await withSuite(ok, 'suite');
    expectRun(r2, 0);
    expect(r2.stdout).toContain('not run: payload_schema_unicode (scope amqp is not carried (bindings: none))');
  });

  it('as nobody, a manifest it may not read (EACCES): exit 2, one line', async (ctx) => {
    const nobody = asNobody();
    if ('skip' in nobody) return ctx.skip(nobody.skip);
    const dir = tree(manifest(SHIPPED));
    const { chmodSync } = await import('node:fs');
    chmodSync(join(dir, 'suite', 'manifest.json'), 0o000);
    chmodSync(dir, 0o777); // nobody may write results.json here, were the suite read
    const r = await withSuite(dir, 'suite', nobody);
    expectRun(r, 2, /suite\/manifest\.json: cannot read the suite's manifest \(EACCES\); give --suite/);
    expect(existsSync(join(dir, 'results.json'))).toBe(false);
  });

  it("the control cases: the suite's directory, or its manifest.json itself, runs every case", async () => {
    for (const suite of ['suite', 'suite/manifest.json']) {
      const dir = tree(manifest(SHIPPED));
      const r = await withSuite(dir, suite);
      expectRun(r, 0);
      expect(r.stdout).toMatch(/: 145\/145 cases pass/);
      expect(r.stdout).toMatch(/^sections run: payload_schema, payload_schema_unicode, contract_validation/m);
    }
  });
});

/** Whether a process has ended: no such pid, or a zombie (dead, its pipes closed, only not yet reaped by init). */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    return /^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // gone between the two looks
  }
}

/** Polls until the process has ended; false after a generous hang guard (SIGKILL is immediate, reaping is not). */
async function endsSoon(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && !ended(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return ended(pid);
}

// Not strict: ajv's strict mode objects to the vendored schema's untyped `then` pattern, which is not ours to edit.
const resultsSchema = new Ajv2020({ strict: false, validateFormats: false, allErrors: true }).compile(
  JSON.parse(readFileSync(join(ROOT, 'test', 'vendor', 'conformance', 'results.schema.json'), 'utf8')),
);

/** Reads results.json and checks it against the suite's results.schema.json. */
function validResults(file: string): { sections: Record<string, Record<string, { status: string; reason?: string }>> } {
  const results = JSON.parse(readFileSync(file, 'utf8'));
  expect(resultsSchema(results), JSON.stringify(resultsSchema.errors)).toBe(true);
  return results;
}

/**
 * An adapter (node) in `dir` that answers hello, records its pid in `dir/adapter.pid`, and then
 * does `misbehave` (the body of an async function of the request `r`) on the first other request.
 */
function adapter(dir: string, misbehave: string, beforeHello = ''): string {
  const file = join(dir, 'adapter.mjs');
  writeFileSync(
    file,
    `import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
writeFileSync(${JSON.stringify(join(dir, 'adapter.pid'))}, String(process.pid));
${beforeHello}
for await (const line of createInterface({ input: process.stdin })) {
  const r = JSON.parse(line);
  if (r.op === 'hello') { process.stdout.write(JSON.stringify({ id: r.id, sdk: 'hostile', version: '0.0.1' }) + '\\n'); continue; }
  await (async () => { ${misbehave} })();
}
`,
  );
  return `node ${JSON.stringify(file)}`;
}

// A child that keeps the adapter's stdout open for 60 s, its pid in sleep.pid.
const GRANDCHILD = (dir: string): string =>
  `const s = spawn('sleep', ['60'], { stdio: ['ignore', 'inherit', 'inherit'] }); writeFileSync(${JSON.stringify(join(dir, 'sleep.pid'))}, String(s.pid)); await new Promise(() => {});`;
// Bytes without a newline, for ever, as fast as the pipe takes them.
const FLOOD = `const chunk = Buffer.alloc(1 << 20, 0x61); const pump = () => { while (process.stdout.write(chunk)); process.stdout.once('drain', pump); }; pump(); await new Promise(() => {});`;

describe('conformance: an adapter that hangs, floods or is interrupted is killed with all it started', { timeout: 120_000 }, () => {
  guardRepo();
  // Whatever a failing run (the code before the fix) leaves running is not left for the next test.
  const pids: string[] = [];
  afterEach(() => {
    for (const file of pids.splice(0)) {
      if (!existsSync(file)) continue;
      try {
        process.kill(Number(readFileSync(file, 'utf8')), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  const pidsOf = (dir: string): { adapter: string; sleep: string } => {
    const files = { adapter: join(dir, 'adapter.pid'), sleep: join(dir, 'sleep.pid') };
    pids.push(files.adapter, files.sleep);
    return files;
  };
  const pidIn = (file: string): number => Number(readFileSync(file, 'utf8'));

  it('a hung adapter whose child (sleep 60) holds its stdout: the run ends after --timeout, both are gone, summary and results file are there', async () => {
    const dir = tree();
    const files = pidsOf(dir);
    // Hang guard 30 s: before the fix the run waited for sleep 60.
    const r = await run(['conformance', '--impl', adapter(dir, GRANDCHILD(dir)), '--timeout', '1000', '--out', 'results.json'], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    expectRun(r, 1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^FAIL payload_schema valid-minimal: no answer to request 2 \(validate\) within 1000 ms: the implementation was stopped$/m,
    );
    expect(r.stdout).toMatch(/^conformance [\d.]+: hostile 0\.0\.1: 0\/\d+ cases pass$/m);
    const results = validResults(join(dir, 'results.json'));
    expect(results.sections.contract_envelopes!['urn alias only']!.reason).toMatch(/^not answered: no answer to request 2/);
    expect(await endsSoon(pidIn(files.sleep)), 'the grandchild sleep 60 was killed').toBe(true);
    expect(await endsSoon(pidIn(files.adapter)), 'the adapter was killed').toBe(true);
  });

  it('a line longer than --max-line-bytes, without a newline and without end: bounded memory, one-line reason, summary and results file', async () => {
    const dir = tree();
    const files = pidsOf(dir);
    const time = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-v', '-o', join(dir, 'time.txt')] : undefined;
    const r = await run(['conformance', '--impl', adapter(dir, FLOOD), '--max-line-bytes', '1048576', '--out', 'results.json'], {
      cwd: dir,
      timeoutMs: 60_000,
      prefix: time,
    });
    expectRun(r, 1);
    expect(r.stderr).toBe('');
    const reason =
      'the implementation wrote a line longer than 1048576 bytes in answer to request 2 (the limit is --max-line-bytes): it was stopped';
    expect(r.stdout.split('\n')).toContain(`FAIL payload_schema valid-minimal: ${reason}`);
    expect(r.stdout).toMatch(/^conformance [\d.]+: hostile 0\.0\.1: 0\/\d+ cases pass$/m);
    const results = validResults(join(dir, 'results.json'));
    expect(results.sections.payload_schema!['valid-minimal']).toEqual({ status: 'fail', reason });
    expect(results.sections.contract_warnings!['pattern at the root']).toEqual({ status: 'fail', reason: `not answered: ${reason}` });
    expect(await endsSoon(pidIn(files.adapter)), 'the adapter was killed').toBe(true);
    if (time !== undefined) {
      // The runner holds at most the cap of a line: far below the hundreds of MB it grew to before.
      const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(join(dir, 'time.txt'), 'utf8'))?.[1]);
      console.log(`conformance --max-line-bytes 1048576, an endless line: max RSS ${Math.round(kb / 1024)} MB`);
      expect(kb).toBeLessThan(200 * 1024);
      rmSync(join(dir, 'time.txt'));
    }
  });

  it('a flood before hello is one usage line (exit 2), and the adapter is killed', async () => {
    const dir = tree();
    const files = pidsOf(dir);
    const r = await run(
      [
        'conformance',
        '--impl',
        adapter(dir, '', FLOOD.replace(' await new Promise(() => {});', '')),
        '--max-line-bytes',
        '65536',
        '--out',
        'results.json',
      ],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expectRun(
      r,
      2,
      /^bqschema: the implementation wrote a line longer than 65536 bytes in answer to request 1 \(the limit is --max-line-bytes\): it was stopped \(before answering hello\)$/,
    );
    expect(existsSync(join(dir, 'results.json'))).toBe(false);
    expect(await endsSoon(pidIn(files.adapter)), 'the adapter was killed').toBe(true);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to the runner kills the adapter and its child; the run still ends with its summary and results (exit ${signal === 'SIGINT' ? 130 : 143})`, async () => {
      const dir = tree();
      const files = pidsOf(dir);
      const r = await run(['conformance', '--impl', adapter(dir, GRANDCHILD(dir)), '--timeout', '600000', '--out', 'results.json'], {
        cwd: dir,
        timeoutMs: 30_000,
        // Signalled once the grandchild is running, i.e. while the runner waits for an answer.
        onSpawn: (child) => {
          const poll = setInterval(() => {
            if (!existsSync(files.sleep)) return;
            clearInterval(poll);
            child.kill(signal);
          }, 50);
          child.once('exit', () => clearInterval(poll));
        },
      });
      expectRun(r, signal === 'SIGINT' ? 130 : 143);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(
        new RegExp(`^FAIL payload_schema valid-minimal: the run was interrupted \\(${signal}\\): the implementation was stopped$`, 'm'),
      );
      expect(r.stdout).toMatch(/^conformance [\d.]+: hostile 0\.0\.1: 0\/\d+ cases pass$/m);
      validResults(join(dir, 'results.json'));
      expect(await endsSoon(pidIn(files.sleep)), 'the grandchild sleep 60 was killed').toBe(true);
      expect(await endsSoon(pidIn(files.adapter)), 'the adapter was killed').toBe(true);
    });
  }

  it('--max-line-bytes that is not a positive number of bytes is one usage line', async () => {
    const dir = tree();
    for (const bad of ['0', '-1', '1k', '']) {
      const r = await run(['conformance', '--impl', 'true', '--max-line-bytes', bad], { cwd: dir });
      expectRun(r, 2, new RegExp(`^bqschema: --max-line-bytes must be a positive number of bytes, got ${JSON.stringify(bad)}$`));
    }
  });
});
