// What bench/interpret.js and bench/standalone.js share: their options, the schemas and data they
// time (the conformance manifest's orders schema, the user fixture), and paired timing (alternating
// rounds in one process, medians).

import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
export const ROUNDS = opt('--rounds', 9);
export const N = opt('--n', 200_000);

const manifest = JSON.parse(readFileSync(new URL('../test/vendor/conformance/manifest.json', import.meta.url), 'utf8'));
const fixture = (name) => JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8'));
const orders = manifest.payload_schema?.schema ?? manifest.schema;
const ordersCases = manifest.payload_schema?.cases ?? [];
const user = fixture('user.schema.json');

/** The schemas timed, by name. */
export const SCHEMAS = { orders, user };

/** [label, schema name, data, method]: isValid on valid data, validate on invalid data. */
export const CASES = [
  ['orders, isValid (valid data)', 'orders', ordersCases.filter((c) => c.valid).map((c) => c.data), 'isValid'],
  ['orders, validate (invalid data)', 'orders', ordersCases.filter((c) => !c.valid).map((c) => c.data), 'validate'],
  ['user fixture, isValid (valid data)', 'user', [fixture('user.valid.json')], 'isValid'],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function time(fn, data) {
  let sink = 0;
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink += fn(data[i % data.length]) ? 1 : 0;
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (sink < 0) console.log(sink);
  return ms;
}

/**
 * Times `method` of two compiled forms on `data` in alternating rounds and prints one line:
 * each form's ns per call and the ratio second / first.
 */
export function paired(name, [aLabel, a], [bLabel, b], data, method) {
  const call = (c) => (d) => (method === 'isValid' ? c.isValid(d) : c.validate(d).length > 0);
  const fa = call(a);
  const fb = call(b);
  const as = [];
  const bs = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      as.push(time(fa, data));
      bs.push(time(fb, data));
    } else {
      bs.push(time(fb, data));
      as.push(time(fa, data));
    }
  }
  const am = median(as);
  const bm = median(bs);
  console.log(
    `  ${name.padEnd(40)} ${aLabel} ${((am * 1e6) / N).toFixed(0).padStart(5)} ns/call  ${bLabel} ${((bm * 1e6) / N).toFixed(0).padStart(5)} ns/call  ratio ${(bm / am).toFixed(2)}×`,
  );
}
