// validate on big inputs and big outputs, end to end through the built CLI: a long NDJSON stream
// comes out whole in every format (SARIF and JUnit read back by their readers, with the exact
// counts; report files equal to stdout; nothing left in the temporary directories); a message
// over a limit, or too large for the heap, or too large as YAML, is one line naming it, its size
// and the limit; a message with 1,200 violations lists 1,000 and says so in every format. The
// sizes are small enough to run in seconds (the SARIF cap and the spool's memory are lowered by their
// test knobs, test/report/bounds.test.ts holds the real ones); docs/cli/validate.md has the figures at scale.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_VIOLATIONS } from '../../src/validate/report.js';
import { readGithub, readJunit, readMarkdown, readSarif, withoutTimes } from '../helpers/ci-formats.js';
import { ROOT } from '../helpers/cli.js';
import { expectRun, removeTrees, run, tree } from '../helpers/hostile.js';

afterAll(removeTrees);

const REG = ['-r', join(ROOT, 'registry.example.json')];
const URN = 'urn:babel:orders:created';
const valid = (i: number): string =>
  JSON.stringify({ job: URN, data: { order_id: i, customer_id: `c-${i}`, currency: 'EUR', lines: [{ sku: 'SKU-1', quantity: 1 }] } });
// Two violations: order_id under its minimum, a currency outside the enum.
const invalid = (i: number): string =>
  JSON.stringify({ job: URN, data: { order_id: 0, customer_id: `c-${i}`, currency: 'GBP', lines: [] } });

/** A directory with `big.ndjson` (`n` lines, every other one invalid) and an empty `tmp/` for TMPDIR. */
function stream(n: number): { dir: string; tmp: string } {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) lines.push(i % 2 === 0 ? invalid(i) : valid(i));
  const dir = tree({ 'big.ndjson': lines.join('\n') + '\n' });
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  return { dir, tmp };
}

describe('validate: a long stream in every format', () => {
  // Enough lines for every bound the test crosses, each lowered by its test knob: N results (two per
  // invalid line, every other line) past a SARIF cap of CAP (GitHub's 25,000 in a real run), a JUnit
  // document past what the spool holds in memory (SPOOL: 64 KiB here, 8 MiB in a real run; 1,200
  // lines make about 330 KB, asserted below), and N findings past markdown's 1,000 rows.
  const N = 1_200;
  const CAP = 1_000;
  const SPOOL = 64 * 1024;
  const knobs = { BQSCHEMA_TEST_SARIF_CAP: String(CAP), BQSCHEMA_TEST_SPOOL_BYTES: String(SPOOL) };

  it(`${N} lines: SARIF on stdout and SARIF, JUnit and JSON reports, each whole, with the exact counts; nothing left behind`, async () => {
    const { dir, tmp } = stream(N);
    const reports = ['--report', 'sarif=r.sarif', '--report', 'junit=r.xml', '--report', 'json=r.json', '--report', 'markdown=r.md'];
    const [sarif, junit] = await Promise.all([
      run(['validate', ...REG, '--format', 'sarif', ...reports, 'big.ndjson'], {
        cwd: dir,
        env: { ...knobs, TMPDIR: tmp },
        timeoutMs: 120_000,
      }),
      run(['validate', ...REG, '--format', 'junit', 'big.ndjson'], { cwd: dir, env: { ...knobs, TMPDIR: tmp }, timeoutMs: 120_000 }),
    ]);
    // N / 2 invalid messages, two violations each: N results, of which SARIF keeps the first CAP
    // (all errors), the rest counted once on stderr for both SARIF outputs.
    expectRun(
      sarif,
      1,
      new RegExp(
        `^bqschema: warning: SARIF: ${N - CAP} of ${N} results left out \\(${N - CAP} errors\\): GitHub code scanning accepts at most ${CAP} per run`,
      ),
    );
    expectRun(junit, 1);
    const log = readSarif(sarif.stdout);
    const results = log.runs[0]!.results;
    expect(results).toHaveLength(CAP);
    expect(results.at(-1)!.message.text).toBe(`${URN}: /currency must be one of "USD", "EUR", "TRY"`);
    expect(results.at(-1)!.locations![0]!.physicalLocation.region!.startLine).toBe(CAP);
    expect((log.runs[0] as unknown as { properties: unknown }).properties).toEqual({
      command: 'validate',
      ok: false,
      summary: { messages: N, valid: N / 2, invalid: N / 2, skipped: 0, errors: 0 },
      omittedResults: { total: N - CAP, error: N - CAP, warning: 0, note: 0 },
    });
    expect(readFileSync(join(dir, 'r.sarif'), 'utf8')).toBe(sarif.stdout);

    // JUnit: its test cases went through the spool's temporary file (more than it holds in memory).
    const xml = readFileSync(join(dir, 'r.xml'), 'utf8');
    expect(xml.length).toBeGreaterThan(4 * SPOOL);
    expect(withoutTimes(xml)).toBe(withoutTimes(junit.stdout));
    const doc = readJunit(xml).testsuites;
    expect([doc.tests, doc.failures, doc.errors]).toEqual([`${N}`, `${N / 2}`, '0']);
    const cases = doc.testsuite![0]!.testcase!;
    expect(cases).toHaveLength(N);
    expect(cases[N - 1]!.name).toBe(`big.ndjson:${N}`);
    const col = (key: string): number => invalid(N).indexOf(`"${key}":`) + key.length + 4; // the value's first column
    expect(cases[N - 1]!.failure!['#text']).toBe(
      `big.ndjson:${N}:${col('order_id')}: ${URN}: /order_id must be >= 1, got 0\nbig.ndjson:${N}:${col('currency')}: ${URN}: /currency must be one of "USD", "EUR", "TRY"`,
    );

    const json = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
      results: Array<{ line: number; status: string }>;
      summary: { messages: number };
      ok: boolean;
    };
    expect(json.results).toHaveLength(N);
    expect(json.results[N - 1]).toMatchObject({ line: N, status: 'invalid' });
    expect(json.summary.messages).toBe(N);
    expect(readMarkdown(readFileSync(join(dir, 'r.md'), 'utf8')).rows).toHaveLength(1000);

    // No temporary report file beside the targets, no spool file in TMPDIR.
    expect(readdirSync(dir).sort()).toEqual(['big.ndjson', 'r.json', 'r.md', 'r.sarif', 'r.xml', 'tmp']);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a run stopped part-way (a line over --max-line-bytes) writes no report and leaves an existing one as it was', async () => {
    // 1,500 lines (150 KB, 600 KB of SARIF) fill the reports' 64 KB buffers many times over: their
    // temporary files have grown when the stop comes.
    const { dir, tmp } = stream(1_500);
    writeFileSync(join(dir, 'big.ndjson'), `${JSON.stringify({ job: URN, data: { x: 'y'.repeat(5000) } })}\n`, { flag: 'a' });
    writeFileSync(join(dir, 'r.sarif'), 'the previous report\n');
    const r = await run(
      [
        'validate',
        ...REG,
        '--max-line-bytes',
        '4096',
        '--format',
        'junit',
        '--report',
        'sarif=r.sarif',
        '--report',
        'junit=r.xml',
        'big.ndjson',
      ],
      { cwd: dir, env: { TMPDIR: tmp }, timeoutMs: 120_000 },
    );
    expectRun(
      r,
      2,
      /^bqschema: big\.ndjson:1501: the line is larger than 4096 bytes \(the limit of --max-line-bytes\); raise the limit with --max-line-bytes <bytes>/,
    );
    // stdout still ends its document (the run's verdict is failed); the files are not written.
    expect(readJunit(r.stdout).testsuites.tests).toBe('1500');
    expect(readFileSync(join(dir, 'r.sarif'), 'utf8')).toBe('the previous report\n');
    expect(existsSync(join(dir, 'r.xml'))).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['big.ndjson', 'r.sarif', 'tmp']);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('validate: a signal during a run with report files', () => {
  it('SIGINT or SIGTERM while the reports grow: exit 130 / 143, no temporary file left, an existing report as it was', async () => {
    // 60,000 lines (7 MB): the run judges them for more than a second, the signal comes in milliseconds.
    const { dir, tmp } = stream(60_000);
    let caught = 0;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      writeFileSync(join(dir, 'r.sarif'), 'the previous report\n');
      let sawTemp = false;
      const r = await run(['validate', ...REG, '--format', 'junit', '--report', 'sarif=r.sarif', '--report', 'json=r.json', 'big.ndjson'], {
        cwd: dir,
        env: { TMPDIR: tmp },
        timeoutMs: 120_000,
        onSpawn: (child) => {
          // A report's temporary file exists from the run's start to its end: signal once it is seen.
          const timer = setInterval(() => {
            if (readdirSync(dir).some((f) => f.endsWith('.tmp'))) {
              sawTemp = true;
              child.kill(signal);
              clearInterval(timer);
            }
          }, 5);
          child.once('exit', () => clearInterval(timer));
        },
      });
      expect(sawTemp).toBe(true);
      expect(r.stderr).not.toMatch(/^ {4}at /m);
      // Caught while a report is open: its temporary file removed, then the conventional code. A run
      // that had already ended (a machine faster than the 5 ms watch) exits 1 with its reports written.
      if (r.code !== 1) {
        expect(r.code).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(readFileSync(join(dir, 'r.sarif'), 'utf8')).toBe('the previous report\n');
        expect(existsSync(join(dir, 'r.json'))).toBe(false);
        caught++;
      }
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    }
    // The run takes seconds; the signal comes within milliseconds of its start.
    expect(caught).toBeGreaterThan(0);
  });
});

describe('validate: size limits (docs/cli/validate.md#size-limits)', () => {
  const big = JSON.stringify({ job: URN, data: { order_id: 1, customer_id: 'c', currency: 'EUR', lines: [], note: 'n'.repeat(4900) } });

  it('a file over --max-file-bytes: one line naming it, its size, the limit, the option and the heap to give', async () => {
    const dir = tree({ 'big.json': big, 'small.json': valid(1) });
    const r = await run(['validate', ...REG, '--max-file-bytes', '1000', 'small.json', 'big.json'], { cwd: dir });
    expectRun(
      r,
      2,
      new RegExp(
        `^bqschema: big\\.json: the file is ${Buffer.byteLength(big)} bytes, larger than 1000 \\(the limit of --max-file-bytes\\); raise the limit with --max-file-bytes <bytes>, and give node 40 bytes of heap per byte of message \\(NODE_OPTIONS=--max-old-space-size=<MiB>\\)$`,
      ),
    );
    expect(r.stdout).toContain('✓ valid  small.json'); // what came before is reported
  });

  it('the default is 16 MiB: a file of 16 MiB and one byte is refused, naming its size', async () => {
    const limit = 16 * 1024 * 1024;
    const head = `{"job":"${URN}","data":{"order_id":1,"customer_id":"c","currency":"EUR","lines":[],"pad":"`;
    const text = head + 'x'.repeat(limit + 1 - head.length - 3) + '"}}';
    expect(Buffer.byteLength(text)).toBe(limit + 1);
    const dir = tree({ 'm.json': text });
    const over = await run(['validate', ...REG, 'm.json'], { cwd: dir });
    expectRun(
      over,
      2,
      new RegExp(`^bqschema: m\\.json: the file is ${limit + 1} bytes, larger than ${limit} \\(the limit of --max-file-bytes\\)`),
    );
    // One byte less is read, and judged (pad is not a declared property).
    writeFileSync(join(dir, 'm.json'), head + 'x'.repeat(limit - head.length - 3) + '"}}');
    const at = await run(['validate', ...REG, 'm.json'], { cwd: dir });
    expectRun(at, 1);
    expect(at.stdout).toContain('/pad  is not allowed (additionalProperties is false)');
  });

  it('a YAML message is read up to 1/16 of --max-file-bytes: one line saying so', async () => {
    const yaml = `job: ${URN}\ndata:\n  order_id: 1\n  customer_id: c\n  currency: EUR\n  lines: []\n  note: ${'n'.repeat(200)}\n`;
    const dir = tree({ 'm.yaml': yaml });
    const r = await run(['validate', ...REG, '--max-file-bytes', String(16 * 200), 'm.yaml'], { cwd: dir });
    expectRun(
      r,
      2,
      new RegExp(
        `^bqschema: m\\.yaml: the YAML document is ${yaml.length} bytes, larger than 200 \\(YAML is read up to 1/16 of --max-file-bytes: it takes 16 times the memory of JSON\\); raise the limit with --max-file-bytes <bytes>, or give the message as JSON$`,
      ),
    );
    const ok = await run(['validate', ...REG, '--max-file-bytes', String(16 * yaml.length), 'm.yaml'], { cwd: dir });
    expectRun(ok, 1); // read, and judged: note is not a declared property
    expect(ok.stdout).toContain('/note  is not allowed');
  });

  it('a message the heap cannot hold is refused before it is parsed, naming the heap to run with, in one thread or several', async () => {
    // 8 MiB: 320 MiB of heap at 40 bytes a byte, more than a 128 MiB heap holds, less than 1 GiB.
    const pad = 8 * 1024 * 1024;
    const msg = JSON.stringify({ job: URN, data: { order_id: 1, customer_id: 'c', currency: 'EUR', lines: [], pad: 'x'.repeat(pad) } });
    const dir = tree({ 'm.json': msg, 'm.ndjson': `${valid(1)}\n${msg}\n` });
    const need = Math.ceil((msg.length * 40) / (1024 * 1024));
    const refused = new RegExp(
      `^bqschema: m\\.json: this message of ${msg.length} bytes may need ${need} MiB of heap to judge, more than node's heap of \\d+ MiB holds; run with NODE_OPTIONS=--max-old-space-size=${need + 64}$`,
    );
    const small = await run(['validate', ...REG, 'm.json'], { cwd: dir, nodeFlags: ['--max-old-space-size=128'] });
    expectRun(small, 2, refused);
    for (const jobs of ['1', '2']) {
      const line = await run(['validate', ...REG, '--jobs', jobs, 'm.ndjson'], {
        cwd: dir,
        nodeFlags: ['--max-old-space-size=128'],
        env: { BQSCHEMA_TEST_TASK_SIZE: '64,1' },
      });
      expectRun(line, 2, new RegExp(`^bqschema: m\\.ndjson:2: this message of ${msg.length} bytes may need ${need} MiB of heap`));
      expect(line.stdout).toContain('✓ valid  line 1');
    }
    const enough = await run(['validate', ...REG, 'm.json'], { cwd: dir, nodeFlags: ['--max-old-space-size=1024'] });
    expectRun(enough, 1);
    expect(enough.stdout).toContain('/pad  is not allowed');
  });
});

describe('validate: a message with 1,200 violations', () => {
  // 600 items, each missing both required keys: 200 violations more than are listed.
  const msg = `{"job":"${URN}","data":{"order_id":1,"customer_id":"c","currency":"EUR","lines":[${Array.from({ length: 600 }, () => '{}').join(',')}]}}`;
  const more = `more violations not listed: validate lists the first ${MAX_VIOLATIONS} of a message`;

  it(`lists the first ${MAX_VIOLATIONS} and says there are more, in every format`, async () => {
    const dir = tree({ 'm.json': msg });
    const formats = ['text', 'json', 'github', 'sarif', 'junit', 'markdown'] as const;
    const out = await Promise.all(formats.map((f) => run(['validate', ...REG, '--format', f, 'm.json'], { cwd: dir, timeoutMs: 60_000 })));
    const [text, json, github, sarif, junit, markdown] = out.map((r) => {
      expectRun(r, 1);
      return r.stdout;
    }) as [string, string, string, string, string, string];

    const lines = text.split('\n');
    expect(lines.filter((l) => /^ {4}\/lines\/\d+ {2}must have required property/.test(l))).toHaveLength(MAX_VIOLATIONS);
    expect(lines).toContain('    /lines/499  must have required property "quantity"');
    expect(lines).toContain(`    … ${more}`);

    const result = (JSON.parse(json) as { results: Array<{ violations: unknown[]; moreViolations?: boolean }> }).results[0]!;
    expect(result.violations).toHaveLength(MAX_VIOLATIONS);
    expect(result.moreViolations).toBe(true);

    const annotations = readGithub(github).annotations;
    expect(annotations).toHaveLength(MAX_VIOLATIONS + 1);
    expect(annotations.at(-1)).toMatchObject({ level: 'notice', message: `${URN}: ${more}` });

    const results = readSarif(sarif).runs[0]!.results;
    expect(results).toHaveLength(MAX_VIOLATIONS + 1);
    expect(results.filter((x) => x.level === 'error')).toHaveLength(MAX_VIOLATIONS);
    expect(results.at(-1)).toMatchObject({ ruleId: 'invalid-data', level: 'note', message: { text: `${URN}: ${more}` } });

    const failure = readJunit(junit).testsuites.testsuite![0]!.testcase![0]!.failure!['#text']!;
    expect(failure.split('\n')).toHaveLength(MAX_VIOLATIONS + 1);
    expect(failure.endsWith(`m.json: ${URN}: ${more}`)).toBe(true);

    expect(readMarkdown(markdown).paragraphs).toContain('… and 1 more finding(s), not shown: the SARIF and JUnit reports hold them all.');
  });
});
