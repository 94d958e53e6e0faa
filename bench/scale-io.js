// Big inputs, big outputs: `validate --jobs 1` over NDJSON of N and 10N lines (half invalid, two
// violations each) in the text, json, sarif and junit formats, to a file. The figure to judge is
// the ratio of times, 10N over N, per format: ~10 means the cost is linear in the input and in the
// output (no per-finding rescan, no document assembled at the end), and peak RSS that does not
// grow tenfold means the output is written as it goes.
//
//   npm run bench:scale-io
//   options: --lines N (default 50,000; 10N is also run) --rounds R (default 3) --formats text,json,sarif,junit --keep
//
// Every run is a fresh process; the sizes alternate within a round so background load hits both
// alike; times are medians of CPU time (user + system: less sensitive to other processes than wall
// time, which is printed too). Peak RSS is GNU time's, where /usr/bin/time exists.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ROOT } from './data.js';

const BQ = join(ROOT, 'bin', 'bqschema.js');
const TIME = '/usr/bin/time';
const HAS_TIME = existsSync(TIME);
const URN = 'urn:babel:orders:created';

function parseArgs(argv) {
  const o = { lines: 50_000, rounds: 3, formats: ['text', 'json', 'sarif', 'junit'], keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    if (a === '--keep') o.keep = true;
    else if (a === '--lines') o.lines = num();
    else if (a === '--rounds') o.rounds = num();
    else if (a === '--formats') o.formats = argv[++i].split(',');
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time (ms) of this process's reaped children (/proc/self/stat: cutime + cstime). */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** One validate run, its stdout to a file: wall and CPU ms, peak RSS (MB), exit status, output size. */
function validate(dir, file, format) {
  const out = join(dir, `out.${format}`);
  const err = join(dir, 'run.stderr');
  const fds = [openSync(out, 'w'), openSync(err, 'w')];
  const args = [BQ, 'validate', '-r', join(ROOT, 'registry.example.json'), '--jobs', '1', '--format', format, file];
  const [cmd, argv] = HAS_TIME ? [TIME, ['-f', 'BQBENCH-RSS %M', process.execPath, ...args]] : [process.execPath, args];
  const c0 = childrenCpuMs();
  const t0 = process.hrtime.bigint();
  let r;
  try {
    r = spawnSync(cmd, argv, { stdio: ['ignore', fds[0], fds[1]], env: { ...process.env, NO_COLOR: '1', TMPDIR: dir } });
  } finally {
    for (const fd of fds) closeSync(fd);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = childrenCpuMs() - c0;
  if (r.error) throw r.error;
  const stderr = readFileSync(err, 'utf8');
  const m = /BQBENCH-RSS (\d+)\n?$/.exec(stderr);
  if (r.status !== 1)
    throw new Error(`validate --format ${format} ${file}: exit ${r.status}, expected 1 (invalid messages):\n${stderr.slice(-2000)}`);
  return { ms, cpu, mb: m ? Number(m[1]) / 1024 : undefined, bytes: statSync(out).size, out };
}

/** The run's output says what the input holds: every message counted, every violation there. */
function checkOutput(format, out, lines) {
  const invalid = lines / 2;
  const tail = readTail(out, 4096);
  const want = {
    text: `FAILED: ${lines} messages: ${lines - invalid} valid, ${invalid} invalid, 0 skipped, 0 errors`,
    json: `"summary":{"messages":${lines},"valid":${lines - invalid},"invalid":${invalid},"skipped":0,"errors":0},"ok":false}`,
    sarif: `"messages": ${lines},\n          "valid": ${lines - invalid},\n          "invalid": ${invalid},`,
    junit: '</testsuites>',
  }[format];
  if (!tail.includes(want)) throw new Error(`${format}: the output does not end as a run of ${lines} messages does:\n${tail.slice(-600)}`);
  if (format === 'junit' && !readHead(out, 4096).includes(`tests="${lines}" failures="${invalid}" errors="0"`))
    throw new Error('junit: wrong counts');
}

function readTail(file, n) {
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(n, size));
    readSync(fd, buf, 0, buf.length, size - buf.length);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function readHead(file, n) {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const got = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function writeInput(file, lines) {
  const parts = [];
  for (let i = 1; i <= lines; i++) {
    parts.push(
      i % 2 === 0
        ? JSON.stringify({ job: URN, data: { order_id: 0, customer_id: `c-${i}`, currency: 'GBP', lines: [] } })
        : JSON.stringify({
            job: URN,
            data: {
              order_id: i,
              customer_id: `c-${i}`,
              currency: 'EUR',
              lines: [{ sku: `SKU-${(i % 1000) + 100}`, quantity: 1 + (i % 9) }],
            },
          }),
    );
  }
  writeFileSync(file, parts.join('\n') + '\n');
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const o = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(join(os.tmpdir(), 'bq-bench-scale-io-'));
const sizes = [o.lines, o.lines * 10];
try {
  // A run of two lines: what any run costs (start-up, the registry), taken off both sizes for the net ratio.
  const floorFile = join(dir, 'in-2.ndjson');
  writeInput(floorFile, 2);
  const files = sizes.map((n) => {
    const f = join(dir, `in-${n}.ndjson`);
    writeInput(f, n);
    return f;
  });
  const mb = (f) => (statSync(f).size / 1048576).toFixed(1);
  console.log(
    `validate --jobs 1 over NDJSON, half invalid (two violations each): ${sizes[0]} lines (${mb(files[0])} MB) and ${sizes[1]} (${mb(files[1])} MB); ${o.rounds} round(s), medians`,
  );
  console.log(
    `node ${process.version}, ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('');
  console.log(
    'format | 2 lines: cpu ms | N: cpu ms  wall ms  RSS MB  out MB | 10N: cpu ms  wall ms  RSS MB  out MB | 10N/N: cpu  net cpu  wall  RSS',
  );
  for (const format of o.formats) {
    const all = [floorFile, ...files];
    const counts = [2, ...sizes];
    const got = all.map(() => ({ cpu: [], ms: [], mb: [], bytes: 0 }));
    for (let round = 0; round < o.rounds; round++) {
      const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
      for (const i of order) {
        const r = validate(dir, all[i], format);
        checkOutput(format, r.out, counts[i]);
        rmSync(r.out);
        got[i].cpu.push(r.cpu);
        got[i].ms.push(r.ms);
        if (r.mb !== undefined) got[i].mb.push(r.mb);
        got[i].bytes = r.bytes;
      }
    }
    const [z, a, b] = got.map((g) => ({
      cpu: median(g.cpu),
      ms: median(g.ms),
      mb: g.mb.length ? median(g.mb) : NaN,
      out: g.bytes / 1048576,
    }));
    const f = (x, w, d = 0) => (Number.isNaN(x) ? 'n/a' : x.toFixed(d)).padStart(w);
    console.log(
      `${format.padEnd(6)} | ${f(z.cpu, 15)} | ${f(a.cpu, 10)} ${f(a.ms, 8)} ${f(a.mb, 7)} ${f(a.out, 7, 1)} | ${f(b.cpu, 11)} ${f(b.ms, 8)} ${f(b.mb, 7)} ${f(b.out, 7, 1)} | ${f(b.cpu / a.cpu, 10, 2)} ${f((b.cpu - z.cpu) / (a.cpu - z.cpu), 8, 2)} ${f(b.ms / a.ms, 5, 2)} ${f(b.mb / a.mb, 4, 2)}`,
    );
  }
  console.log('');
  console.log('net cpu: the ratio with the 2-line run (start-up, the registry) taken off both; ~10 is linear cost.');
  console.log('RSS far below 10x at 10N: the output is written as it goes, not held.');
} finally {
  if (o.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
