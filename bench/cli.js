// CLI benchmark, one run, every comparison in alternating rounds (medians; ratios within one run
// are what count, absolute times drift with the machine):
//   - 10,000 envelope files: bqschema validate (default --jobs, and --jobs 1) vs ajv-cli vs the
//     read+parse floor (bench/floor-files.js: read each file, JSON.parse, nothing else);
//   - 100,000 NDJSON lines, --jobs 1: bqschema vs the read+parse floor (bench/floor-ndjson.js),
//     with peak RSS (through /usr/bin/time when it exists);
//   - 1,000,000 NDJSON lines (~230 MB): --jobs 1 vs --jobs 2 throughput;
//   - startup of every command (`--help`, and a trivial run where there is one) vs `node -e 0`.
//
//   npm run bench:cli
//   options: --files N --lines N --big-lines N --rounds N --big-rounds N --startup-rounds N --keep
//            --against DIR: instead, this build ("after") against the one in DIR ("before": another
//            checkout of bqschema, built) on the same data: the files, both NDJSON streams and one
//            file's run, each after/before (no figure worse by more than 5%: docs/CONTRIBUTING.md)
//
// Every measured run is a fresh process; the sides of a comparison alternate within each round
// (rotating which goes first) so background load hits them alike. The load average is printed.

import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { envelopes, ROOT, setupRegistry, writeFiles, writeNdjson } from './data.js';
import { COMMANDS } from '../dist/cli/program.js';

const BQ = join(ROOT, 'bin', 'bqschema.js');
const AJV = join(ROOT, 'node_modules', 'ajv-cli', 'dist', 'index.js');
const FLOOR_FILES = join(ROOT, 'bench', 'floor-files.js');
const FLOOR_NDJSON = join(ROOT, 'bench', 'floor-ndjson.js');
const TIME = '/usr/bin/time';

const TARGET_FILES_VS_AJV = 0.45;
const TARGET_NDJSON_VS_FLOOR = 1.3;
const TARGET_RSS_MB = 100;
const TARGET_STARTUP = 1.4;
const TARGET_JOBS2 = 1.6;

function parseArgs(argv) {
  const o = {
    files: 10_000,
    lines: 100_000,
    bigLines: 1_000_000,
    rounds: 5,
    bigRounds: 3,
    startupRounds: 10,
    keep: false,
    against: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    if (a === '--keep') o.keep = true;
    else if (a === '--against') {
      o.against = resolve(argv[++i] ?? '');
      if (!existsSync(join(o.against, 'dist', 'cli', 'main.js')))
        throw new Error(`--against ${o.against}: no built bqschema there (npm ci && npm run build)`);
    } else if (a === '--files') o.files = num();
    else if (a === '--lines') o.lines = num();
    else if (a === '--big-lines') o.bigLines = num();
    else if (a === '--rounds') o.rounds = num();
    else if (a === '--big-rounds') o.bigRounds = num();
    else if (a === '--startup-rounds') o.startupRounds = num();
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

// ---- running ----------------------------------------------------------------------------------

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * CPU time (user + system, ms) of this process's reaped children, from /proc/self/stat (cutime,
 * cstime; clock-tick resolution). Less sensitive than wall time to other processes on the machine.
 */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

const HAS_TIME = existsSync(TIME);

/** One fresh process: wall and CPU time, and (with `rss`, through /usr/bin/time) its peak RSS in MB. */
function run(cmd, args, opts = {}, rss = false) {
  const [file, argv] = rss && HAS_TIME ? [TIME, ['-f', 'BQBENCH-RSS %M', cmd, ...args]] : [cmd, args];
  const c0 = childrenCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(file, argv, { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' }, ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = childrenCpuMs() - c0;
  if (r.error) throw r.error;
  let stderr = r.stderr ?? '';
  let mb;
  const m = /BQBENCH-RSS (\d+)\n?$/.exec(stderr);
  if (m) {
    mb = Number(m[1]) / 1024;
    stderr = stderr.slice(0, m.index);
  }
  return { ms, cpu, mb, status: r.status, stdout: r.stdout ?? '', stderr };
}

/** `run`, with stdout and stderr written to files (read back afterwards) instead of pipes. */
function runToFiles(cmd, args, dir) {
  const out = join(dir, 'run.stdout');
  const err = join(dir, 'run.stderr');
  const fds = [openSync(out, 'w'), openSync(err, 'w')];
  try {
    const r = run(cmd, args, { stdio: ['ignore', fds[0], fds[1]] });
    return { ...r, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') };
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** The counts of bqschema's text summary line (`FAILED: N messages: a valid, b invalid, ...`). */
function summary(stdout) {
  const m = /(\d+) messages?: (\d+) valid, (\d+) invalid, (\d+) skipped, (\d+) errors?/.exec(stdout);
  if (!m) throw new Error(`no summary line in bqschema output:\n${stdout.slice(-500)}`);
  const [total, valid, invalid, skipped, errors] = m.slice(1).map(Number);
  return { total, valid, invalid, skipped, errors };
}

function check(label, got, want) {
  if (got !== want) throw new Error(`${label}: got ${got}, expected ${want}`);
}

function checkBq(label, r, messages, invalid) {
  const s = summary(r.stdout);
  check(`${label} exit code`, r.status, invalid > 0 ? 1 : 0);
  check(`${label} messages`, s.total, messages);
  check(`${label} invalid`, s.invalid, invalid);
  check(`${label} valid`, s.valid, messages - invalid);
  check(`${label} skipped + errors`, s.skipped + s.errors, 0);
}

function checkAjv(label, r, messages, invalid) {
  const count = (text, word) => text.split('\n').filter((l) => l.endsWith(` ${word}`)).length;
  check(`${label} exit code`, r.status, invalid > 0 ? 1 : 0);
  check(`${label} valid`, count(r.stdout, 'valid'), messages - invalid);
  check(`${label} invalid`, count(r.stderr, 'invalid'), invalid);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const f1 = (x) => x.toFixed(1);
const wall = (runs) => runs.map((r) => r.ms);
const cpu = (runs) => runs.map((r) => r.cpu);

/** One line per side: wall-clock median, min, max and spread, then the CPU-time median. */
function fmt(label, runs) {
  const s = wall(runs).sort((a, b) => a - b);
  const m = median(s);
  const spread = ((s[s.length - 1] - s[0]) / m) * 100;
  return `  ${label.padEnd(44)} wall median ${f1(m).padStart(8)} ms  min ${f1(s[0]).padStart(8)}  max ${f1(s[s.length - 1]).padStart(8)}  (spread ${spread.toFixed(0)}%)   cpu median ${f1(median(cpu(runs))).padStart(7)} ms`;
}

/** Median ratio of side a to side b, wall and CPU, with the per-round wall ratios. */
function ratio(a, b) {
  return {
    wall: median(wall(a)) / median(wall(b)),
    cpu: median(cpu(a)) / median(cpu(b)),
    rounds: a.map((r, i) => (r.ms / b[i].ms).toFixed(2)).join(' '),
  };
}

const verdict = (ok) => (ok ? 'PASS' : 'MISS');
const rssOf = (runs) => Math.max(...runs.map((r) => r.mb ?? NaN));

/** Runs the sides once each per round, rotating which goes first. */
function alternate(rounds, sides) {
  const runs = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (k + r) % sides.length;
      runs[i].push(sides[i]());
    }
  }
  return runs;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const tmp = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-'));
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  const results = [];
  const target = (name, value, limit, ok) => results.push({ name, value, limit, ok });
  try {
    console.log(`bqschema CLI benchmark: node ${process.version}, ${os.cpus().length} CPUs, load average ${load()}`);
    const { registry, envSchema } = setupRegistry(tmp);
    const dir = join(tmp, 'messages');
    const filesInvalid = writeFiles(dir, o.files);
    const ndjson = join(tmp, 'traffic.ndjson');
    const ndjsonInvalid = await writeNdjson(ndjson, o.lines, 2);
    const big = join(tmp, 'big.ndjson');
    const bigInvalid = await writeNdjson(big, o.bigLines, 3);
    console.log(
      `data: ${o.files} files (${filesInvalid} invalid), ${o.lines} NDJSON lines (${ndjsonInvalid} invalid, ${(statSync(ndjson).size / 1e6).toFixed(1)} MB), ${o.bigLines} NDJSON lines (${(statSync(big).size / 1e6).toFixed(0)} MB)`,
    );

    if (o.against !== undefined) {
      againstBuild(o, { registry, dir, filesInvalid, ndjson, ndjsonInvalid, big, bigInvalid, load });
      return;
    }
    const bq = (args, rss = false) => run(process.execPath, [BQ, ...args], {}, rss);
    const bqDir = () => bq(['validate', '--registry', registry, '--quiet', dir]);
    const bqDir1 = () => bq(['validate', '--registry', registry, '--quiet', '--jobs', '1', dir]);
    const bqDir2 = () => bq(['validate', '--registry', registry, '--quiet', '--jobs', '2', dir]);
    // Quoted glob: ajv-cli expands it itself (glob.sync), the shell never sees 10,000 names.
    // ajv-cli writes its output to files: it exits before a full pipe drains, and the lost lines
    // would fail the correctness check (bqschema waits for its output to drain).
    const ajvDir = () =>
      runToFiles(
        process.execPath,
        [AJV, 'validate', '-s', envSchema, '-d', join(dir, '*.json'), '--spec=draft7', '--strict=false', '--all-errors', '--errors=line'],
        tmp,
      );
    const floorDir = () => run(process.execPath, [FLOOR_FILES, dir]);
    const bqNdjson = () => bq(['validate', '--registry', registry, '--quiet', '--jobs', '1', ndjson], true);
    const floorNdjson = () => run(process.execPath, [FLOOR_NDJSON, ndjson], {}, true);
    const bqBig = (jobs) => () => bq(['validate', '--registry', registry, '--quiet', '--jobs', String(jobs), big]);

    // Warm-up doubles as the correctness check: every tool must count exactly the generated messages.
    checkBq('bqschema files', bqDir(), o.files, filesInvalid);
    checkBq('bqschema files --jobs 1', bqDir1(), o.files, filesInvalid);
    checkBq('bqschema files --jobs 2', bqDir2(), o.files, filesInvalid);
    checkAjv('ajv-cli files', ajvDir(), o.files, filesInvalid);
    check('floor files', floorDir().stdout.trim(), `${o.files} files`);
    checkBq('bqschema ndjson', bqNdjson(), o.lines, ndjsonInvalid);
    check('floor ndjson', floorNdjson().stdout.trim(), `${o.lines} lines`);
    console.log(
      `correctness: bqschema and ajv-cli both report exactly ${filesInvalid} invalid of ${o.files} files; bqschema ${ndjsonInvalid} invalid of ${o.lines} lines; the floors read every file and line`,
    );

    console.log(
      `\n${o.files} files, ${o.rounds} alternating rounds (bqschema's default --jobs is what a user gets; --jobs 1 and 2 for comparison):`,
    );
    const [tBq, tBq1, tBq2, tAjv, tFloor] = alternate(o.rounds, [bqDir, bqDir1, bqDir2, ajvDir, floorDir]);
    console.log(fmt('bqschema validate --quiet DIR', tBq));
    console.log(fmt('bqschema validate --quiet --jobs 1 DIR', tBq1));
    console.log(fmt('bqschema validate --quiet --jobs 2 DIR', tBq2));
    console.log(fmt(`ajv-cli validate -d 'DIR/*.json'`, tAjv));
    console.log(fmt('read+parse floor (bench/floor-files.js)', tFloor));
    const vsAjv = ratio(tBq, tAjv);
    const vsAjv1 = ratio(tBq1, tAjv);
    const vsFloor = ratio(tBq, tFloor);
    const vsAjv2 = ratio(tBq2, tAjv);
    console.log(
      `  bqschema / ajv-cli: wall ${vsAjv.wall.toFixed(3)} (per round ${vsAjv.rounds}), cpu ${vsAjv.cpu.toFixed(3)}; --jobs 1: wall ${vsAjv1.wall.toFixed(3)}, cpu ${vsAjv1.cpu.toFixed(3)}; --jobs 2: wall ${vsAjv2.wall.toFixed(3)}, cpu ${vsAjv2.cpu.toFixed(3)}`,
    );
    console.log(
      `  bqschema / floor:   wall ${vsFloor.wall.toFixed(3)} (per round ${vsFloor.rounds}), cpu ${vsFloor.cpu.toFixed(3)}; --jobs 1: wall ${ratio(tBq1, tFloor).wall.toFixed(3)}`,
    );
    target('10k files vs ajv-cli (wall, default --jobs)', vsAjv.wall, `<= ${TARGET_FILES_VS_AJV}`, vsAjv.wall <= TARGET_FILES_VS_AJV);

    console.log(`\n${o.lines} NDJSON lines, --jobs 1, ${o.rounds} alternating rounds:`);
    const [tNd, tNdFloor] = alternate(o.rounds, [bqNdjson, floorNdjson]);
    console.log(fmt('bqschema validate --quiet --jobs 1 NDJSON', tNd));
    console.log(fmt('read+parse floor (bench/floor-ndjson.js)', tNdFloor));
    const nd = ratio(tNd, tNdFloor);
    const rss = rssOf(tNd);
    console.log(
      `  bqschema / floor: wall ${nd.wall.toFixed(3)} (per round ${nd.rounds}), cpu ${nd.cpu.toFixed(3)}; peak RSS bqschema ${f1(rss)} MB, floor ${f1(rssOf(tNdFloor))} MB`,
    );
    target('100k NDJSON vs floor (wall)', nd.wall, `<= ${TARGET_NDJSON_VS_FLOOR}`, nd.wall <= TARGET_NDJSON_VS_FLOOR);
    target('100k NDJSON peak RSS (MB)', rss, `<= ${TARGET_RSS_MB}`, rss <= TARGET_RSS_MB);

    console.log(`\n${o.bigLines} NDJSON lines, ${o.bigRounds} alternating rounds:`);
    const [tJ1, tJ2] = alternate(o.bigRounds, [bqBig(1), bqBig(2)]);
    for (const r of [...tJ1, ...tJ2]) checkBq('bqschema big', r, o.bigLines, bigInvalid);
    console.log(fmt('bqschema validate --quiet --jobs 1 BIG', tJ1));
    console.log(fmt('bqschema validate --quiet --jobs 2 BIG', tJ2));
    const speedup = median(wall(tJ1)) / median(wall(tJ2));
    const perSec = (runs) => Math.round(o.bigLines / (median(wall(runs)) / 1000)).toLocaleString('en-US');
    console.log(
      `  throughput: --jobs 1 ${perSec(tJ1)} lines/s, --jobs 2 ${perSec(tJ2)} lines/s: ${speedup.toFixed(2)}x (cpu ratio jobs2/jobs1 ${ratio(tJ2, tJ1).cpu.toFixed(2)})`,
    );
    target('1M NDJSON --jobs 2 vs --jobs 1 throughput', speedup, `>= ${TARGET_JOBS2}`, speedup >= TARGET_JOBS2);

    // Startup: every command's --help, and a trivial run on a one-URN JSON registry where there is one.
    const schema = join(tmp, 'examples', 'schemas', 'orders-created.json');
    writeFileSync(
      join(tmp, 'small.json'),
      JSON.stringify({ schemas: [{ urn: 'urn:babel:orders:created', schema: 'examples/schemas/orders-created.json' }] }),
    );
    const reg1 = join(tmp, 'small.json');
    const one = join(dir, `msg-${'0'.padStart(String(o.files).length, '0')}.json`);
    const commands = COMMANDS.map((c) => c.name);
    const sides = [
      ['node -e 0', () => run(process.execPath, ['-e', '0'])],
      ['bqschema --version', () => bq(['--version'])],
      ...commands.map((c) => [`bqschema ${c} --help`, () => bq([c, '--help'])]),
      ['bqschema validate FILE', () => bq(['validate', '-r', reg1, one])],
      ['bqschema check', () => bq(['check', '-r', reg1])],
      ['bqschema compat OLD NEW', () => bq(['compat', schema, schema])],
      ['bqschema gdpr', () => bq(['gdpr', '-r', reg1])],
      ['bqschema export-asyncapi', () => bq(['export-asyncapi', '-r', reg1])],
      ['bqschema types', () => bq(['types', '-r', reg1])],
      ['bqschema catalog --no-history', () => bq(['catalog', '-r', reg1, '--no-history'])],
    ];
    for (const [label, f] of sides) {
      const r = f();
      if (r.status !== 0 && !/validate FILE/.test(label)) throw new Error(`${label} exited ${r.status}: ${r.stderr}`);
    }
    console.log(`\nStartup, ${o.startupRounds} alternating rounds (ratios to node -e 0, wall medians):`);
    const runs = alternate(
      o.startupRounds,
      sides.map(([, f]) => f),
    );
    const base = runs[0];
    console.log(fmt('node -e 0', base));
    let worst = 0;
    let worstLabel = '';
    for (let i = 1; i < sides.length; i++) {
      const r = ratio(runs[i], base);
      if (r.wall > worst) {
        worst = r.wall;
        worstLabel = sides[i][0];
      }
      console.log(`${fmt(sides[i][0], runs[i])}   ${r.wall.toFixed(2)}x (cpu ${r.cpu.toFixed(2)}x)`);
    }
    target(`startup, worst command (${worstLabel}) vs node -e 0`, worst, `<= ${TARGET_STARTUP}`, worst <= TARGET_STARTUP);

    console.log(`\nload average at end ${load()}`);
    console.log('\nTargets:');
    for (const t of results) console.log(`  ${t.name.padEnd(58)} ${t.value.toFixed(3).padStart(8)}  (target ${t.limit}): ${verdict(t.ok)}`);
  } finally {
    if (o.keep) console.log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

/** Limit of after/before (CPU median) per figure of `--against`. */
const MAX_SLOWDOWN = 1.05;

/**
 * `--against`: validate of this build ("after") and of the one in `o.against` ("before") on the
 * same registry and data, alternating builds within each round. The gate is the CPU-time ratio
 * (other processes on the machine move wall time more); wall is printed beside it.
 */
function againstBuild(o, { registry, dir, filesInvalid, ndjson, ndjsonInvalid, big, bigInvalid, load }) {
  const builds = [
    ['after', BQ],
    ['before', join(o.against, 'bin', 'bqschema.js')],
  ];
  const results = [];
  // A short run is timed `batch` times in a row per round, summed: CPU time comes in clock ticks.
  const section = (title, rounds, args, messages, invalid, { rss = false, batch = 1 } = {}) => {
    const once = (bin) => {
      const r = run(process.execPath, [bin, 'validate', '--registry', registry, '--quiet', ...args], {}, rss);
      checkBq(title, r, messages, invalid);
      return r;
    };
    const sides = builds.map(([, bin]) => () => {
      const runs = Array.from({ length: batch }, () => once(bin));
      return { ms: runs.reduce((t, r) => t + r.ms, 0), cpu: runs.reduce((t, r) => t + r.cpu, 0), mb: rssOf(runs) };
    });
    for (const side of sides) side();
    const [after, before] = alternate(rounds, sides);
    const r = ratio(after, before);
    console.log(`\n${title}, ${rounds} alternating rounds${batch > 1 ? ` of ${batch} runs per build` : ''} (load average ${load()}):`);
    console.log(fmt(`after  (${ROOT})`, after));
    console.log(fmt(`before (${o.against})`, before));
    const peak = rss ? `; peak RSS after ${f1(rssOf(after))} MB, before ${f1(rssOf(before))} MB` : '';
    console.log(`  after / before: cpu ${r.cpu.toFixed(3)}, wall ${r.wall.toFixed(3)} (per round ${r.rounds})${peak}`);
    results.push({ name: title, value: r.cpu, ok: r.cpu <= MAX_SLOWDOWN });
  };
  console.log(`after: ${ROOT}\nbefore: ${o.against}`);
  section(`${o.files} files, default --jobs`, o.rounds, [dir], o.files, filesInvalid);
  section(`${o.files} files, --jobs 1`, o.rounds, ['--jobs', '1', dir], o.files, filesInvalid);
  section(`${o.lines} NDJSON lines, --jobs 1`, o.rounds, ['--jobs', '1', ndjson], o.lines, ndjsonInvalid, { rss: true });
  section(`${o.bigLines} NDJSON lines, --jobs 1`, o.bigRounds, ['--jobs', '1', big], o.bigLines, bigInvalid);
  section(`${o.bigLines} NDJSON lines, default --jobs`, o.bigRounds, [big], o.bigLines, bigInvalid);
  const one = join(dir, '..', 'one.json');
  const next = envelopes(4);
  let [text, bad] = next();
  while (bad) [text, bad] = next();
  writeFileSync(one, text);
  section('one valid file (startup)', o.startupRounds, [one], 1, 0, { batch: 5 });
  console.log(`\nload average at end ${load()}\n\nafter / before, CPU medians (limit ${MAX_SLOWDOWN}):`);
  for (const t of results) console.log(`  ${t.name.padEnd(44)} ${t.value.toFixed(3).padStart(6)}  ${verdict(t.ok)}`);
}

await main();
