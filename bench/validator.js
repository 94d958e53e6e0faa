// Validator benchmark: our isValid/validate against ajv's compiled validators, same data.
// Usage: npm run bench   (node bench/validator.js [--quick] [--against DIR] [--processes N])
// --against DIR: also times the build in DIR (another checkout of bqschema, built: its dist/) in
// the same rounds, on these cases and bench/paired.js's, and prints after/before: this build is
// "after", DIR's "before" (docs/CONTRIBUTING.md#benchmarks).
// Figures are ops per second of this process's CPU time (not wall time: other processes sharing
// the cores would otherwise decide the result), medians over rounds that alternate between the
// two sides. Absolute numbers drift with the machine; the ratios are what matter.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { Ajv } from 'ajv';
import { compile } from '../dist/index.js';
import { CASES as PAIRED_CASES, SCHEMAS as PAIRED_SCHEMAS } from './paired.js';

// Optimise on the main thread: on a busy machine the background compiler thread can starve, and
// rounds would then time whichever tier a function happens to be in.
v8.setFlagsFromString('--no-concurrent-recompilation');

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 10;
const ROUND_MS = quick ? 50 : 200;
const WARMUP_MS = quick ? 100 : 400;

const againstAt = process.argv.indexOf('--against');
const against = againstAt === -1 ? undefined : resolve(process.argv[againstAt + 1] ?? '');
if (against !== undefined && !existsSync(join(against, 'dist', 'index.js'))) {
  console.error(`bench: --against ${against}: no dist/index.js there; build that checkout first (npm ci && npm run build)`);
  process.exit(2);
}

const fixture = (name) => JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8'));

// (a) The conformance manifest's orders schema.
const orders = {
  type: 'object',
  required: ['order_id'],
  properties: {
    order_id: { type: 'integer', minimum: 1 },
    amount: { type: 'number', minimum: 0 },
    currency: { enum: ['USD', 'EUR', 'TRY'] },
  },
  additionalProperties: false,
};

// (c) 1,000 line items.
const lineItem = {
  type: 'object',
  required: ['id', 'sku', 'qty', 'price'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', minimum: 1 },
    sku: { type: 'string', minLength: 3, maxLength: 16 },
    qty: { type: 'integer', minimum: 1 },
    price: { type: 'number', minimum: 0 },
    currency: { enum: ['USD', 'EUR', 'TRY'] },
    note: { type: ['string', 'null'], maxLength: 100 },
  },
};
const lineItems = Array.from({ length: 1000 }, (_, i) => ({
  id: i + 1,
  sku: `SKU-${String((i * 7919) % 100000).padStart(5, '0')}`,
  qty: 1 + (i % 9),
  price: Math.round(((i * 37.3) % 500) * 100) / 100,
  currency: ['USD', 'EUR', 'TRY'][i % 3],
  note: i % 4 === 0 ? null : `kalem ${i} — güncellendi`,
}));

// (d) Long strings where code points and UTF-16 units differ, with bounds set so neither side
// can decide from the UTF-16 length alone (length < 2·minLength, maxLength < length ≤ 2·maxLength).
const PIECES = ['ğ', 'ü', 'ş', 'ı', 'ö', 'ç', 'İ', 'a', ' ', '😀', '🇹🇷', 'e\u0301'];
function longText(codePoints, salt) {
  let s = '';
  let cp = 0;
  for (let i = salt; cp < codePoints; i++) {
    let piece = PIECES[(i * 7) % PIECES.length];
    const n = [...piece].length;
    if (cp + n > codePoints) piece = 'x';
    s += piece;
    cp += [...piece].length;
  }
  return s;
}
const longSchema = {
  type: 'object',
  required: ['title', 'body'],
  properties: {
    title: { type: 'string', minLength: 1500, maxLength: 2100 },
    body: { type: 'string', minLength: 6000, maxLength: 8500 },
    summary: { type: 'string', minLength: 10, maxLength: 300 },
  },
};
const longValid = { title: longText(2000, 1), body: longText(8000, 2), summary: longText(250, 3) };
const longInvalid = { title: longText(2101, 1), body: longText(5999, 2), summary: longText(250, 3) };

// Invalid messages differ from one another, as real failures do (another number, another stray
// key, another length): a validator that remembered its last message must not win by it here.
const ordersInvalid = (i) => ({ order_id: -i, amount: 10 + i, currency: ['GBP', 'JPY', 'CHF', 'AUD'][i % 4], [`coupon_${i}`]: 'X' });
const longInvalidAt = (i) => ({ title: longText(2101 + i, 1 + i), body: longText(5999 - i, 2 + i), summary: longText(250, 3) });

const cases = [
  { name: 'a orders valid', valid: true, schema: orders, data: { order_id: 1042, amount: 99.9, currency: 'USD' } },
  { name: 'a orders invalid', valid: false, schema: orders, data: ordersInvalid(0), variant: ordersInvalid },
  { name: 'b user (59 fields)', valid: true, schema: fixture('user.schema.json'), data: fixture('user.valid.json') },
  { name: 'c 1,000 items', valid: true, schema: { type: 'array', items: lineItem }, data: lineItems },
  { name: 'd long unicode valid', valid: true, schema: longSchema, data: longValid },
  { name: 'd long unicode invalid', valid: false, schema: longSchema, data: longInvalid, variant: longInvalidAt },
];
// With --against, bench/paired.js's cases too (the interpreter's and standalone modules' benches):
// the conformance manifest's orders cases, cycled through, and the user fixture.
if (against !== undefined) {
  for (const [label, schemaName, data, method] of PAIRED_CASES) {
    if (data.length === 0) continue;
    const variant = data.length > 1 ? (i) => data[i % data.length] : undefined;
    cases.push({ name: `p ${label}`, valid: method === 'isValid', schema: PAIRED_SCHEMAS[schemaName], data: data[0], variant });
  }
}

const ajvFast = new Ajv({ strict: false });
const ajvAll = new Ajv({ strict: false, allErrors: true });

// Each runner is its own function with its own source (V8 shares compiled code, and with it call-site
// state, between functions of identical source), so one side's call sites never see the other's
// validators. It cycles through parsed copies of the datum (or of its variants), as a consumer sees
// fresh messages: one constant object would let the optimiser hoist reads out of the loop. Every
// side of a case reads the same copies: apart, where each side's copies lie in memory moved the
// 1,000-item case by ±10% between two builds of identical code.
const COPIES = 16;
const copies = (c) => Array.from({ length: COPIES }, (_, i) => JSON.parse(JSON.stringify(c.variant ? c.variant(i) : c.data)));
function runner(side, fn, pool, body) {
  const make = new Function(
    'fn',
    'pool',
    `/* ${side} */ return function run(n){let c=0;for(let i=0;i<n;i++){const data=pool[i&${COPIES - 1}];${body}}return c;};`,
  );
  return make(fn, pool);
}
const boolBody = 'if(fn(data))c++;';

let checksum = 0;

/** CPU time (user + system) this process has used, in ms. */
function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** ops per CPU-second of `run`, running batches until `ms` of CPU time has passed. */
function measure(run, batch, ms) {
  let ops = 0;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    checksum += run(batch);
    ops += batch;
    now = cpuMs();
  }
  return ops / ((now - start) / 1000);
}

/** A batch size that takes about 5 ms of CPU, so the clock is read rarely. */
function calibrate(run) {
  let n = 1;
  for (;;) {
    const t = cpuMs();
    checksum += run(n);
    const ms = cpuMs() - t;
    if (ms >= 5 || n >= 1 << 24) return n;
    n *= ms < 0.5 ? 10 : 2;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Medians of each side's ops/s, over rounds that rotate which side goes first (drifting load favours none). */
function compare(sides) {
  for (const run of sides) measure(run, calibrate(run), WARMUP_MS);
  const batches = sides.map(calibrate);
  const ops = sides.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (k + r) % sides.length;
      ops[i].push(measure(sides[i], batches[i], ROUND_MS));
    }
  }
  return ops.map(median);
}

/** One case, measured in this process: the validators compiled here and nothing else run before. */
async function measureCase(c) {
  // Distinct URNs give the two builds' generated functions distinct sources (a sourceURL), so V8
  // shares neither code nor type feedback between them.
  const builds = [['ours', compile]];
  if (against !== undefined) builds.push(['before', (await import(pathToFileURL(join(against, 'dist', 'index.js')).href)).compile]);
  const mine = builds.map(([side, comp]) => comp(c.schema, { onWarning() {}, ...(against === undefined ? {} : { urn: side }) }));
  const fast = ajvFast.compile(c.schema);
  const all = ajvAll.compile(c.schema);
  // Same verdicts first, and the intended ones: a fast wrong answer is worth nothing.
  for (let i = 0; i < (c.variant ? COPIES : 1); i++) {
    const data = c.variant ? c.variant(i) : c.data;
    const verdicts = [...mine.flatMap((m) => [m.isValid(data), m.validate(data).length === 0]), fast(data), all(data)];
    if (verdicts.some((v) => v !== c.valid)) {
      console.error(
        `wrong verdict on "${c.name}" (expected ${c.valid}): isValid, validate (each build), ajv, ajv allErrors = ${verdicts.join(', ')}`,
      );
      process.exit(1);
    }
  }
  const pool = copies(c);
  const sides = (fn, api) => mine.map((m, i) => runner(builds[i][0], fn(m), pool, api));
  const v = compare([...sides((m) => m.isValid, boolBody), runner('ajv', fast, pool, boolBody)]);
  const e = compare([...sides((m) => m.validate, 'c+=fn(data).length;'), runner('ajv', all, pool, 'if(!fn(data))c+=fn.errors.length;')]);
  const row = (api, target, [ours, ...rest]) => ({
    name: c.name,
    api,
    target,
    ours,
    theirs: rest.at(-1),
    before: rest.length > 1 ? rest[0] : undefined,
  });
  // Targets: isValid 1.1x ajv, validate at least ajv's speed, on every case.
  return [row('isValid', 1.1, v), row('validate', 1.0, e)];
}

// Each case runs in a process of its own: helpers both sides share across schemas (ajv's string
// length, our code-point count) would otherwise arrive warmed, or deoptimised, by earlier cases.
const only = process.argv.indexOf('--case');
if (only !== -1) {
  const rows = await measureCase(cases[Number(process.argv[only + 1])]);
  // The load average as the case ends, reported beside its figures.
  for (const r of rows) r.load = os.loadavg()[0];
  process.stdout.write(JSON.stringify({ rows, checksum }));
  process.exit(0);
}
// --processes N: each case in N processes one after another, each figure the median of theirs (how
// V8 happens to compile a case moves a figure by more than the rounds' spread within one process).
const processesAt = process.argv.indexOf('--processes');
const PROCESSES = processesAt === -1 ? 1 : Number(process.argv[processesAt + 1]);
if (!Number.isInteger(PROCESSES) || PROCESSES < 1) {
  console.error('bench: --processes needs a positive integer');
  process.exit(2);
}
const rows = [];
for (let i = 0; i < cases.length; i++) {
  const runs = [];
  for (let p = 0; p < PROCESSES; p++) {
    const args = ['--case', String(i), ...(quick ? ['--quick'] : []), ...(against ? ['--against', against] : [])];
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], { encoding: 'utf8' });
    if (child.status !== 0) {
      process.stderr.write(child.stderr);
      process.exit(child.status ?? 1);
    }
    const out = JSON.parse(child.stdout);
    runs.push(out.rows);
    checksum += out.checksum;
  }
  rows.push(
    ...runs[0].map((row, k) => {
      const of = (field) => (row[field] === undefined ? undefined : median(runs.map((r) => r[k][field])));
      return { ...row, ours: of('ours'), theirs: of('theirs'), before: of('before'), load: Math.max(...runs.map((r) => r[k].load)) };
    }),
  );
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
// With --against: a case this build runs more than 5% slower than the other one fails (issue 38).
const KEEP = 0.95;
const head = against
  ? ['case', 'api', 'before ops/s', 'after ops/s', 'after/before', 'ajv ops/s', 'after/ajv', 'before/ajv', 'target', '', 'load']
  : ['case', 'api', 'ours ops/s', 'ajv ops/s', 'ours/ajv', 'target', '', 'load'];
const numeric = new Set(head.flatMap((h, i) => (/ops\/s|\/|load/.test(h) ? [i] : [])));
const table = [head];
for (const r of rows) {
  const ratio = r.ours / r.theirs;
  const verdict = ratio < r.target ? 'BELOW' : r.before !== undefined && r.ours / r.before < KEEP ? 'SLOWER' : 'PASS';
  const vsBefore = r.before === undefined ? [] : [fmt(r.before)];
  const ratios = r.before === undefined ? [] : [(r.ours / r.before).toFixed(3)];
  table.push([
    r.name,
    r.api,
    ...vsBefore,
    fmt(r.ours),
    ...ratios,
    fmt(r.theirs),
    ratio.toFixed(2),
    ...(r.before === undefined ? [] : [(r.before / r.theirs).toFixed(2)]),
    `≥${r.target.toFixed(1)}`,
    verdict,
    r.load.toFixed(2),
  ]);
}
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
for (const row of table) {
  console.log(
    row
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}
const sides = against ? `3 sides (this build, ${against}, ajv)` : '2 sides';
const each = PROCESSES === 1 ? 'each case in a process of its own' : `each case in ${PROCESSES} processes of its own (medians)`;
console.log(
  `\n${quick ? 'quick run, ' : ''}${each}; ${ROUNDS} rounds × ${ROUND_MS} ms CPU per side, ${sides} alternating; load = highest 1-minute load average as the case ended; checksum ${checksum}`,
);
