// CLI benchmark: `bqschema validate` against ajv-cli on the same envelopes, `bqschema --version`
// against bare node startup, and (with --rss) peak RSS while streaming a 1,000,000-line NDJSON file.
//
//   npm run bench:cli                 # file, NDJSON and --version rounds
//   npm run bench:cli -- --rss        # also the peak-RSS measurement (~200 MB temp file, takes a while)
//   options: --files N --lines N --rounds N --version-rounds N --rss-lines N --keep
//
// Every measured run is a fresh process; the two sides of a comparison alternate within each round
// (and swap which goes first) so background load hits both alike. Ratios within one run are what count.

import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, writeFileSync, cpSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BQ = join(ROOT, 'bin', 'bqschema.js');
const AJV = join(ROOT, 'node_modules', 'ajv-cli', 'dist', 'index.js');
const URN = 'urn:babel:orders:created';

const TARGET_FILES = 0.5;
const TARGET_VERSION = 1.5;
const TARGET_RSS_MB = 150;

function parseArgs(argv) {
  const o = { files: 10_000, lines: 100_000, rounds: 5, versionRounds: 20, rssLines: 1_000_000, rss: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
      return n;
    };
    if (a === '--rss') o.rss = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--files') o.files = num();
    else if (a === '--lines') o.lines = num();
    else if (a === '--rounds') o.rounds = num();
    else if (a === '--version-rounds') o.versionRounds = num();
    else if (a === '--rss-lines') o.rssLines = num();
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

function run(cmd, args, opts = {}) {
  const c0 = childrenCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' }, ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = childrenCpuMs() - c0;
  if (r.error) throw r.error;
  return { ms, cpu, status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
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
  return `  ${label.padEnd(34)} wall median ${f1(m).padStart(8)} ms  min ${f1(s[0]).padStart(8)}  max ${f1(s[s.length - 1]).padStart(8)}  (spread ${spread.toFixed(0)}%)   cpu median ${f1(median(cpu(runs))).padStart(7)} ms`;
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

async function measureRss(tmp, registry, lines) {
  const timeBin = '/usr/bin/time';
  if (!existsSync(timeBin)) {
    console.log(`\n--rss: ${timeBin} not found (apt-get install -y time); skipped`);
    return undefined;
  }
  const file = join(tmp, 'big.ndjson');
  process.stdout.write(`\nPeak RSS: generating ${lines.toLocaleString('en-US')} lines ... `);
  const invalid = await writeNdjson(file, lines, 3);
  console.log(`${(statSync(file).size / 1e6).toFixed(0)} MB, ${invalid} invalid`);
  // stdout to a file: the parent must not buffer the child's output, and the summary is checked after.
  const outFile = join(tmp, 'big.out');
  const fd = openSync(outFile, 'w');
  let r;
  try {
    r = run(timeBin, ['-v', process.execPath, BQ, 'validate', '--registry', registry, '--quiet', file], { stdio: ['ignore', fd, 'pipe'] });
  } finally {
    closeSync(fd);
  }
  const stdout = readFileSync(outFile, 'utf8');
  rmSync(file);
  rmSync(outFile);
  checkBq('rss run', { ...r, stdout }, lines, invalid);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`no RSS in /usr/bin/time output:\n${r.stderr.slice(-500)}`);
  const mb = Number(m[1]) / 1024;
  console.log(`  bqschema validate --quiet, ${lines.toLocaleString('en-US')} lines: ${f1(r.ms / 1000)} s, ${Math.round(lines / (r.ms / 1000)).toLocaleString('en-US')} lines/s`);
  console.log(`  peak RSS ${f1(mb)} MB (target < ${TARGET_RSS_MB} MB): ${verdict(mb < TARGET_RSS_MB)}`);
  return mb;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const tmp = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-'));
  try {
    console.log(`bqschema CLI benchmark: node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    const { registry, envSchema } = setupRegistry(tmp);
    const dir = join(tmp, 'messages');
    const filesInvalid = writeFiles(dir, o.files);
    const ndjson = join(tmp, 'traffic.ndjson');
    const ndjsonInvalid = await writeNdjson(ndjson, o.lines, 2);
    console.log(`data: ${o.files} files (${filesInvalid} invalid), ${o.lines} NDJSON lines (${ndjsonInvalid} invalid, ${(statSync(ndjson).size / 1e6).toFixed(1)} MB)`);

    const bqDir = () => run(process.execPath, [BQ, 'validate', '--registry', registry, '--quiet', dir]);
    // Quoted glob: ajv-cli expands it itself (glob.sync), the shell never sees 10,000 names.
    const ajvDir = () => run(process.execPath, [AJV, 'validate', '-s', envSchema, '-d', join(dir, '*.json'), '--spec=draft7', '--strict=false', '--all-errors', '--errors=line']);
    const bqNdjson = () => run(process.execPath, [BQ, 'validate', '--registry', registry, '--quiet', ndjson]);
    const bqVersion = () => run(process.execPath, [BQ, '--version']);
    const bareNode = () => run(process.execPath, ['-e', '0']);

    // Warm-up doubles as the correctness check: both tools must find exactly the generated invalid ones.
    checkBq('bqschema files', bqDir(), o.files, filesInvalid);
    checkAjv('ajv-cli files', ajvDir(), o.files, filesInvalid);
    checkBq('bqschema ndjson', bqNdjson(), o.lines, ndjsonInvalid);
    const v = bqVersion();
    check('bqschema --version output', v.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    console.log(`correctness: bqschema and ajv-cli both report exactly ${filesInvalid} invalid of ${o.files} files; bqschema ${ndjsonInvalid} invalid of ${o.lines} lines`);

    console.log(`\nValidate ${o.files} files, ${o.rounds} alternating rounds (NDJSON run rotated in; ajv-cli has no NDJSON mode, so the NDJSON figure stands alone):`);
    const [tBq, tAjv, tNd] = alternate(o.rounds, [bqDir, ajvDir, bqNdjson]);
    console.log(fmt(`bqschema validate --quiet DIR`, tBq));
    console.log(fmt(`ajv-cli validate -d 'DIR/*.json'`, tAjv));
    console.log(fmt(`bqschema validate --quiet NDJSON`, tNd));
    const files = ratio(tBq, tAjv);
    const filesRatio = files.wall;
    console.log(`  files ratio bqschema/ajv-cli: wall ${files.wall.toFixed(3)} (per round ${files.rounds}), cpu ${files.cpu.toFixed(3)}; target <= ${TARGET_FILES}: ${verdict(filesRatio <= TARGET_FILES)}`);
    const perSec = (n, runs) => Math.round(n / (median(wall(runs)) / 1000)).toLocaleString('en-US');
    console.log(`  throughput (wall): bqschema ${perSec(o.files, tBq)} files/s, ajv-cli ${perSec(o.files, tAjv)} files/s, bqschema NDJSON ${perSec(o.lines, tNd)} lines/s`);

    console.log(`\nStartup, ${o.versionRounds} alternating rounds:`);
    const [tV, tNode] = alternate(o.versionRounds, [bqVersion, bareNode]);
    console.log(fmt('bqschema --version', tV));
    console.log(fmt('node -e 0', tNode));
    const startup = ratio(tV, tNode);
    const versionRatio = startup.wall;
    console.log(`  --version ratio: wall ${startup.wall.toFixed(3)}x bare node (per round ${startup.rounds}), cpu ${startup.cpu.toFixed(3)}x; target <= ${TARGET_VERSION}x: ${verdict(versionRatio <= TARGET_VERSION)}`);

    let rssOk = true;
    if (o.rss) {
      const mb = await measureRss(tmp, registry, o.rssLines);
      rssOk = mb === undefined || mb < TARGET_RSS_MB;
    } else {
      console.log('\n(peak RSS over 1,000,000 NDJSON lines: run with --rss)');
    }
    console.log(`\nload average at end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    const ok = filesRatio <= TARGET_FILES && versionRatio <= TARGET_VERSION && rssOk;
    console.log(`verdict: ${ok ? 'all targets met' : 'target(s) missed'}`);
  } finally {
    if (o.keep) console.log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
