// Worker threads benchmark: `bqschema validate --quiet` over generated NDJSON (100,000 and
// 1,000,000 lines by default) with --jobs 1, --jobs 2 and the default --jobs, in alternating rounds
// (rotating which goes first), medians. For each mode: wall time, and CPU time (user + system of
// the process and its threads), which other processes on the machine hardly change; the ratios are
// within this run. The load average is printed at the start and end of each corpus.
//
//   npm run bench:jobs
//   options: --lines N[,N...] --rounds N --keep
//            --baseline <bin/bqschema.js of another build>: its --jobs 2 and default as well (before/after)
//
// Targets: the default --jobs never slower than --jobs 1; --jobs 2 at least 1.6x --jobs 1
// on 1M lines when two cores are free (on a busy machine wall ratios say little: read the CPU).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ROOT, setupRegistry, writeNdjson } from './data.js';

const BQ = join(ROOT, 'bin', 'bqschema.js');
const TARGET_JOBS2 = 1.6;

function parseArgs(argv) {
  const o = { lines: [100_000, 1_000_000], rounds: 3, keep: false, baseline: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--keep') o.keep = true;
    else if (a === '--rounds') o.rounds = Number(argv[++i]);
    else if (a === '--lines') o.lines = argv[++i].split(',').map(Number);
    else if (a === '--baseline') o.baseline = argv[++i];
    else throw new Error(`unknown option ${a}`);
  }
  if (!Number.isInteger(o.rounds) || o.rounds < 1 || o.lines.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('--rounds and --lines need positive integers');
  return o;
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time (user + system, ms) of this process's reaped children (/proc/self/stat: cutime, cstime). */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

function run(bin, args) {
  const c0 = childrenCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = childrenCpuMs() - c0;
  if (r.error) throw r.error;
  return { ms, cpu, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

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
  const tmp = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-jobs-'));
  const misses = [];
  try {
    console.log(
      `bqschema validate --jobs benchmark: node ${process.version}, ${os.availableParallelism()} CPUs, ${o.rounds} alternating rounds`,
    );
    const { registry } = setupRegistry(tmp);
    for (const lines of o.lines) {
      const file = join(tmp, `traffic-${lines}.ndjson`);
      const invalid = await writeNdjson(file, lines, 3);
      const modes = [
        ['--jobs 1', ['--jobs', '1']],
        ['--jobs 2', ['--jobs', '2']],
        ['default --jobs', []],
      ];
      if (o.baseline !== undefined) modes.push(['baseline --jobs 2', ['--jobs', '2'], o.baseline], ['baseline default', [], o.baseline]);
      const sides = modes.map(
        ([, extra, bin]) =>
          () =>
            run(bin ?? BQ, ['validate', '--registry', registry, '--quiet', ...extra, file]),
      );
      const want = `FAILED: ${lines} messages: ${lines - invalid} valid, ${invalid} invalid, 0 skipped, 0 errors`;
      for (const [label, side] of modes.map((m, i) => [m[0], sides[i]])) {
        const r = side();
        if (r.status !== 1 || !r.stdout.includes(want))
          throw new Error(`${label}: expected "${want}", exit 1; got exit ${r.status}:\n${r.stdout.slice(-300)}${r.stderr}`);
      }
      console.log(
        `\n${lines.toLocaleString('en-US')} lines (${(statSync(file).size / 1e6).toFixed(0)} MB, ${invalid} invalid), load average before ${load()}`,
      );
      const runs = alternate(o.rounds, sides);
      const wall = runs.map((rs) => median(rs.map((r) => r.ms)));
      const cpu = runs.map((rs) => median(rs.map((r) => r.cpu)));
      modes.forEach(([label], i) => {
        const per = runs[i].map((r) => r.ms.toFixed(0)).join(' ');
        console.log(
          `  ${label.padEnd(17)} wall median ${wall[i].toFixed(0).padStart(6)} ms (rounds ${per})   cpu median ${cpu[i].toFixed(0).padStart(6)} ms`,
        );
      });
      const speedup = wall[0] / wall[1];
      const defaultRatio = wall[2] / wall[0];
      console.log(`  --jobs 2 vs --jobs 1: ${speedup.toFixed(2)}x faster (wall), cpu ${(cpu[1] / cpu[0]).toFixed(2)}x`);
      console.log(
        `  default vs --jobs 1: wall ${defaultRatio.toFixed(2)}, cpu ${(cpu[2] / cpu[0]).toFixed(2)} (at most 1 is never slower)`,
      );
      if (o.baseline !== undefined)
        console.log(
          `  baseline vs --jobs 1: --jobs 2 wall ${(wall[0] / wall[3]).toFixed(2)}x faster, cpu ${(cpu[3] / cpu[0]).toFixed(2)}x; default wall ${(wall[4] / wall[0]).toFixed(2)}, cpu ${(cpu[4] / cpu[0]).toFixed(2)}`,
        );
      console.log(`  load average after ${load()}`);
      if (defaultRatio > 1.05) misses.push(`${lines} lines: the default --jobs took ${defaultRatio.toFixed(2)}x the time of --jobs 1`);
      if (lines >= 1_000_000 && speedup < TARGET_JOBS2)
        misses.push(`${lines} lines: --jobs 2 ${speedup.toFixed(2)}x --jobs 1, target ${TARGET_JOBS2}x with two free cores`);
    }
    console.log(
      misses.length === 0
        ? '\nTargets: PASS'
        : `\nTargets missed (wall times; on a busy machine see the CPU figures):\n  ${misses.join('\n  ')}`,
    );
  } finally {
    if (o.keep) console.log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
