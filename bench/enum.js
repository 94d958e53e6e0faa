// Large-enum benchmark: compat and the validator on 100,000-entry enums of objects.
//
//   npm run bench:enum                 # build, then 7 alternating rounds; prints medians and ratios
//   options: --n N (enum size, default 100000) --rounds N
//
// Both compare enum values by canonical key, so their cost is linear in the enum's size. The floor
// is what any linear approach pays at least: JSON.stringify of every value of both enums into a
// Set. Rounds alternate floor and subject in the same process; the figure is the median ratio.
// (This replaced timed assertions in test/compat-linear and test/validator-enum, which failed CI
// on a loaded machine: tests prove the answers, this measures the speed.)

import { compareSchemas } from '../dist/compat/index.js';
import { compile } from '../dist/validator/index.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} needs a positive integer`);
  return n;
};
const N = opt('--n', 100_000);
const ROUNDS = opt('--rounds', 7);
const LIMIT = { compat: 20, compile: 12, isValid: 12 }; // a pairwise regression is 1000× and more; compat re-canonicalises for its witnesses (GC-bound, ~11× here)

const item = (i) => ({ id: i, tags: [`t${i}`, i % 3], meta: { a: i % 5, b: null } });
const oldEnum = Array.from({ length: N }, (_, i) => item(i));
const newEnum = Array.from({ length: N }, (_, i) => {
  const v = item(i === 17 ? N : i);
  return { meta: { b: null, a: v.meta.a }, tags: v.tags, id: v.id };
});
const probes = newEnum;

const time = (f) => {
  const t0 = process.hrtime.bigint();
  const r = f();
  return [Number(process.hrtime.bigint() - t0) / 1e6, r];
};
const floor = () => {
  const s = new Set();
  for (const v of oldEnum) s.add(JSON.stringify(v));
  let hits = 0;
  for (const v of newEnum) if (s.has(JSON.stringify(v))) hits++;
  return hits;
};
const quiet = { onWarning: () => {} };

const rows = { floor: [], compat: [], compile: [], isValid: [] };
for (let r = 0; r < ROUNDS; r++) {
  rows.floor.push(time(floor)[0]);
  const [c, res] = time(() => compareSchemas({ enum: oldEnum }, { enum: newEnum }));
  if (res.changes.length !== 2) throw new Error(`compat found ${res.changes.length} changes, expected 2`);
  rows.compat.push(c);
  const [k, schema] = time(() => compile({ enum: oldEnum }, quiet));
  rows.compile.push(k);
  const [v, valid] = time(() => {
    let n = 0;
    for (const p of probes) if (schema.isValid(p)) n++;
    return n;
  });
  if (valid !== N - 1) throw new Error(`isValid accepted ${valid}, expected ${N - 1}`);
  rows.isValid.push(v);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const f = median(rows.floor);
console.log(`enum of ${N} objects, ${ROUNDS} alternating rounds, medians (floor: JSON.stringify both enums into a Set)`);
console.log(`  floor                 ${f.toFixed(0).padStart(6)} ms`);
let ok = true;
for (const k of ['compat', 'compile', 'isValid']) {
  const m = median(rows[k]);
  const ratio = m / f;
  const pass = ratio <= LIMIT[k];
  ok &&= pass;
  const label = { compat: 'compareSchemas', compile: 'compile', isValid: `${N}× isValid` }[k];
  console.log(`  ${label.padEnd(21)} ${m.toFixed(0).padStart(6)} ms  ${ratio.toFixed(2)}× floor (≤${LIMIT[k]}) ${pass ? 'PASS' : 'FAIL'}`);
}
process.exitCode = ok ? 0 : 1;
