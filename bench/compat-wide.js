// compat on a wide `required` list: `{"type":"object"}` → `required` with N names, N = 1k, 5k, 10k,
// 20k, through the CLI (text and --format json) and through serve's judge (verbose, as
// `POST /compatibility?verbose=true` answers it).
//
//   npm run bench:compat-wide               # build, then 3 rounds per case; prints medians
//   options: --rounds N
//
// Every CLI run is a fresh `node bin/bqschema.js` process (startup included). The figure to judge
// is the ratio per doubling of N: ~2 is linear; the witness search was quadratic (10k names ran
// past 120 s), so a regression shows as a ratio near 4.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BQ = join(ROOT, 'bin', 'bqschema.js');
const SIZES = [1_000, 5_000, 10_000, 20_000];

const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg === -1 ? 3 : Number(process.argv[roundsArg + 1]);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds needs a positive integer');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wide = (n) => ({ type: 'object', required: Array.from({ length: n }, (_, i) => `field_${i}`) });

function cli(dir, args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BQ, 'compat', ...args], { cwd: dir, maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 1) throw new Error(`compat ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  if (args.includes('json')) JSON.parse(r.stdout.toString('utf8'));
  return { ms, bytes: r.stdout.length };
}

async function main() {
  const { judgeCompatibility } = await import(pathToFileURL(join(ROOT, 'dist', 'serve', 'judge.js')).href);
  const dir = mkdtempSync(join(os.tmpdir(), 'bq-compat-wide-'));
  try {
    writeFileSync(join(dir, 'old.json'), '{"type":"object"}');
    const rows = [];
    for (const n of SIZES) {
      writeFileSync(join(dir, `new${n}.json`), JSON.stringify(wide(n)));
      const text = [],
        json = [],
        judge = [];
      let bytes = 0;
      const body = Buffer.from(JSON.stringify({ schema: JSON.stringify(wide(n)) }));
      for (let r = 0; r < ROUNDS; r++) {
        text.push(cli(dir, ['old.json', `new${n}.json`]).ms);
        const j = cli(dir, ['--format', 'json', 'old.json', `new${n}.json`]);
        json.push(j.ms);
        bytes = j.bytes;
        const t0 = performance.now();
        judgeCompatibility({ registered: '{"type":"object"}', body, mode: 'backward', policy: 'bqschema', verbose: true });
        judge.push(performance.now() - t0);
      }
      rows.push({ n, text: median(text), json: median(json), judge: median(judge), bytes });
    }
    console.log(
      `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; medians of ${ROUNDS}`,
    );
    console.log('names    text ms (×)      json ms (×)      json bytes    judge ms (×)');
    let prev;
    for (const row of rows) {
      const ratio = (k) => (prev === undefined ? '' : ` (×${(row[k] / prev[k]).toFixed(2)})`);
      console.log(
        `${String(row.n).padStart(6)}  ${(row.text.toFixed(0) + ratio('text')).padEnd(16)} ${(row.json.toFixed(0) + ratio('json')).padEnd(16)} ${String(row.bytes).padStart(10)}    ${row.judge.toFixed(1)}${ratio('judge')}`,
      );
      prev = row;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
