// Does 10× the input cost ~10× the time? For each case, N and 10N through the CLI (a fresh
// `node bin/bqschema.js` per run, the start of the same command on a one-URN registry subtracted),
// plus what parsing registry files costs on a large schema.
//
//   npm run bench:scale                   # build, then N = 2,000 and 20,000, 3 rounds; prints medians
//   options: --n N (default 2000), --compat-n N (default 200), --types-n N (default 50000), --rounds R (default 3),
//            --big-mb M (the large schema, default 60; 0 skips it)
//
//   check      N properties each with an unknown keyword (each finding is positioned in the file)
//   compat     two schemas, N properties each changing type (each change positioned in the new file);
//              its positions alone are timed in process too, as compat looks them up
//   yaml       a YAML schema with N anchors and N aliases, through check
//   types      an N-value string enum, TypeScript and Go
//   parse      a schema of about M MB: JSON.parse, and parseText as registry files are read (repeated
//              keys refused), as a ratio to JSON.parse
//
// The figure to judge is the ratio: ~10 is linear, ~100 quadratic. Before the change these cases
// were quadratic (check with 4,000 unknown keywords 14.6 s, 16,000 took 30 s; 4,000 aliases 52 s;
// types with 20,000 values 18 s). compat's witness search validates each witness against the whole
// schema, so its CLI ratio stays above 10 (the positions it used to rescan per change are linear).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BQ = join(ROOT, 'bin', 'bqschema.js');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  if (i === -1) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isInteger(v) || v < 0) throw new Error(`${name} needs a whole number`);
  return v;
};
const N = arg('--n', 2_000);
// compat's witness search is quadratic (see above): 10 × 2,000 changes would run for many minutes.
const COMPAT_N = arg('--compat-n', 200);
// types is quick: smaller enums would measure the start alone.
const TYPES_N = arg('--types-n', 50_000);
const ROUNDS = Math.max(1, arg('--rounds', 3));
const BIG_MB = arg('--big-mb', 60);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const manifest = (file) => JSON.stringify({ schemas: [{ urn: 'urn:bench:a', schema: file }] });

/** The files of each case at size n, written into `dir`; `args` runs it, `exit` is its expected code. */
const CASES = {
  check: {
    args: ['check'],
    exit: 1,
    files: (n) => {
      const properties = {};
      for (let i = 0; i < n; i++) properties[`p${i}`] = { type: 'string', typx: i };
      return { 'a.json': JSON.stringify({ type: 'object', properties }, null, 2), 'registry.json': manifest('a.json') };
    },
  },
  compat: {
    n: COMPAT_N,
    args: ['compat', 'old.json', 'new.json'],
    exit: 1,
    files: (n) => {
      const before = {};
      const after = {};
      for (let i = 0; i < n; i++) {
        before[`p${i}`] = { type: 'string' };
        after[`p${i}`] = { type: 'integer' };
      }
      return {
        'old.json': JSON.stringify({ type: 'object', properties: before }, null, 2),
        'new.json': JSON.stringify({ type: 'object', properties: after }, null, 2),
        'registry.json': manifest('old.json'),
      };
    },
  },
  yaml: {
    args: ['check'],
    exit: 0,
    files: (n) => {
      let text = 'type: object\nx-defs:\n';
      for (let i = 0; i < n; i++) text += `  d${i}: &a${i} {type: string, maxLength: ${i + 1}}\n`;
      text += 'properties:\n';
      for (let i = 0; i < n; i++) text += `  p${i}: *a${i}\n`;
      return { 'a.yaml': text, 'registry.json': manifest('a.yaml') };
    },
  },
  'types ts': {
    n: TYPES_N,
    args: ['types'],
    exit: 0,
    files: (n) => ({
      'a.json': JSON.stringify({ type: 'object', properties: { e: { enum: Array.from({ length: n }, (_, i) => `v${i}`) } } }),
      'registry.json': manifest('a.json'),
    }),
  },
  'types go': {
    n: TYPES_N,
    args: ['types', '--lang', 'go'],
    exit: 0,
    files: (n) => CASES['types ts'].files(n),
  },
};

function write(dir, files) {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

function cli(dir, args, exit) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BQ, ...args], { cwd: dir, maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t0;
  if (r.status !== exit)
    throw new Error(`${args.join(' ')} in ${dir}: exit ${r.status}, expected ${exit}: ${r.stderr.toString().slice(0, 300)}`);
  return ms;
}

/** compat's positions alone: one SourcePositions over the new file, a lookup per changed property. */
async function compatPositions(dir, n) {
  const { SourcePositions } = await import(pathToFileURL(join(ROOT, 'dist', 'registry', 'positions.js')).href);
  const text = readFileSync(join(dir, 'new.json'), 'utf8');
  const t0 = performance.now();
  const positions = SourcePositions.forFile(text, 'new.json');
  for (let i = 0; i < n; i++) positions.of(`/properties/p${i}/type`);
  return performance.now() - t0;
}

/** A schema of about `mb` MB, pretty-printed, with the strings schemas have (descriptions, enums). */
function bigSchema(mb) {
  const properties = {};
  let size = 0;
  for (let i = 0; size < mb * 1e6; i++) {
    properties[`p${i}`] = {
      type: 'object',
      description: `field ${i}: "quoted", a colon: and a backslash \\ ünïcødé`,
      properties: { a: { type: 'string', maxLength: 40, enum: [`x${i}`, 'y', 'z'] }, b: { type: 'integer', minimum: i } },
      required: ['a'],
    };
    size += 420;
  }
  return JSON.stringify({ type: 'object', properties }, null, 2);
}

async function main() {
  const work = mkdtempSync(join(os.tmpdir(), 'bq-scale-'));
  try {
    const lines = [];
    for (const [name, c] of Object.entries(CASES)) {
      // The start: the same command on one small URN (compat: two one-property schemas).
      const start = join(work, `${name}-start`.replace(' ', '-'));
      write(start, c.files(1));
      const n = c.n ?? N;
      const sizes = [n, 10 * n];
      const dirs = sizes.map((n) => {
        const d = join(work, `${name}-${n}`.replace(' ', '-'));
        write(d, c.files(n));
        return d;
      });
      const base = [];
      const times = sizes.map(() => []);
      const inner = sizes.map(() => []);
      for (let r = 0; r < ROUNDS; r++) {
        // Alternating rounds: a change of load touches every size alike.
        base.push(cli(start, c.args, c.exit));
        for (let k = 0; k < sizes.length; k++) {
          times[k].push(cli(dirs[k], c.args, c.exit));
          if (name === 'compat') inner[k].push(await compatPositions(dirs[k], sizes[k]));
        }
      }
      const b = median(base);
      const [t1, t10] = times.map((t) => Math.max(1, median(t) - b));
      lines.push(
        `${name.padEnd(9)} ${String(n).padStart(7)}: ${t1.toFixed(0).padStart(7)} ms  ${String(10 * n).padStart(7)}: ${t10.toFixed(0).padStart(7)} ms  ×${(t10 / t1).toFixed(1)}   (start ${b.toFixed(0)} ms subtracted)`,
      );
      if (name === 'compat') {
        const [p1, p10] = inner.map(median);
        lines.push(
          `${'  positions'.padEnd(9)} ${String(n).padStart(7)}: ${p1.toFixed(1).padStart(7)} ms  ${String(10 * n).padStart(7)}: ${p10.toFixed(1).padStart(7)} ms  ×${(p10 / p1).toFixed(1)}   (in process; the rest of compat's time is its witness search)`,
        );
      }
    }
    if (BIG_MB > 0) {
      const { parseText } = await import(pathToFileURL(join(ROOT, 'dist', 'registry', 'parse.js')).href);
      const text = bigSchema(BIG_MB);
      const plain = [];
      const unique = [];
      for (let r = 0; r < ROUNDS; r++) {
        let t0 = performance.now();
        JSON.parse(text);
        plain.push(performance.now() - t0);
        t0 = performance.now();
        parseText(text, 'big.json', 'json', { uniqueKeys: true });
        unique.push(performance.now() - t0);
      }
      const [p, u] = [median(plain), median(unique)];
      lines.push(
        `parse     ${(text.length / 1e6).toFixed(0)} MB schema: JSON.parse ${p.toFixed(0)} ms, as a registry file (repeated keys refused) ${u.toFixed(0)} ms  ×${(u / p).toFixed(2)}`,
      );
    }
    console.log(
      `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; medians of ${ROUNDS}`,
    );
    for (const line of lines) console.log(line);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
