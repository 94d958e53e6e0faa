// The interpreter (compile() where code generation is refused, src/validator/interpret.ts)
// against the generated code, on the conformance manifest's orders schema and the user fixture:
// isValid on valid data, validate on invalid data. Alternating rounds in one process, medians;
// the figure is interpreter time / generated time (issue 24 item 3: what the fallback costs).
//
//   npm run bench:interpret [-- --rounds N --n N]

import { readFileSync } from 'node:fs';
import { compile, parseSchema } from '../dist/validator/index.js';
import { preview } from '../dist/validator/compile.js';
import { interpret } from '../dist/validator/interpret.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const ROUNDS = opt('--rounds', 9);
const N = opt('--n', 200_000);

const manifest = JSON.parse(readFileSync(new URL('../test/vendor/conformance/manifest.json', import.meta.url), 'utf8'));
const fixture = (name) => JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8'));
const orders = manifest.payload_schema?.schema ?? manifest.schema;
const ordersValid = (manifest.payload_schema?.cases ?? []).filter((c) => c.valid).map((c) => c.data);
const ordersInvalid = (manifest.payload_schema?.cases ?? []).filter((c) => !c.valid).map((c) => c.data);
const cases = [
  ['orders, isValid (valid data)', orders, ordersValid, 'isValid'],
  ['orders, validate (invalid data)', orders, ordersInvalid, 'validate'],
  ['user fixture, isValid (valid data)', fixture('user.schema.json'), [fixture('user.valid.json')], 'isValid'],
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

console.log(`interpreter vs generated code: node ${process.version}, ${N} calls per round, ${ROUNDS} rounds`);
for (const [name, schema, data, method] of cases) {
  if (data.length === 0) continue;
  const generated = compile(schema, { onWarning: () => {} });
  const walked = interpret(parseSchema(schema).root, preview, new Map());
  const g = (d) => (method === 'isValid' ? generated.isValid(d) : generated.validate(d).length > 0);
  const w = (d) => (method === 'isValid' ? walked.isValid(d) : walked.validate(d).length > 0);
  const gs = [];
  const ws = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) { gs.push(time(g, data)); ws.push(time(w, data)); } else { ws.push(time(w, data)); gs.push(time(g, data)); }
  }
  const gm = median(gs);
  const wm = median(ws);
  console.log(`  ${name.padEnd(40)} generated ${(gm * 1e6 / N).toFixed(0).padStart(5)} ns/call  interpreter ${(wm * 1e6 / N).toFixed(0).padStart(5)} ns/call  ratio ${(wm / gm).toFixed(2)}×`);
}
