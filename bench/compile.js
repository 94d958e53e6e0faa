// Compile benchmark: how compile time and memory grow with a schema's width.
// Usage: npm run bench:compile   (node bench/compile.js [--quick])
// Each size runs in a process of its own (memory is that process's peak RSS). Figures are CPU ms
// (user + system) of: compile (parse + isValid's code), the first isValid call (V8 compiles the
// generated functions then), and the first validate call (its code is built then). The figure to
// judge is µs per property across sizes: flat means linear.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compile } from '../dist/index.js';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [10_000, 100_000] : [10_000, 100_000, 300_000];

function wideSchema(n) {
  const properties = {};
  for (let i = 0; i < n; i++) properties[`p${i}`] = { type: 'string', maxLength: 10 };
  return { type: 'object', required: ['p0'], properties };
}

function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function runCase(n) {
  const schema = wideSchema(n);
  const bytes = JSON.stringify(schema).length;
  let t = cpuMs();
  const compiled = compile(schema, { onWarning() {} });
  const compileMs = cpuMs() - t;
  t = cpuMs();
  const ok = compiled.isValid({ p0: 'a', [`p${n - 1}`]: 'b' }) && !compiled.isValid({ p0: 'a', [`p${n - 1}`]: 1 });
  const isValidMs = cpuMs() - t;
  t = cpuMs();
  const violations = compiled.validate({ p0: 'a', [`p${n - 1}`]: 1 });
  const validateMs = cpuMs() - t;
  if (!ok || violations.length !== 1) throw new Error(`wrong verdict at ${n} properties`);
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ n, bytes, compileMs, isValidMs, validateMs, maxRssMb }));
}

const at = process.argv.indexOf('--case');
if (at !== -1) {
  runCase(Number(process.argv[at + 1]));
} else {
  const self = fileURLToPath(import.meta.url);
  const fmt = (v, d = 0) => v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log('properties  schema MB  compile ms  isValid 1st ms  validate 1st ms  total µs/property  peak RSS MB');
  for (const n of SIZES) {
    const r = spawnSync(process.execPath, [self, '--case', String(n)], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) {
      console.log(`${fmt(n).padStart(10)}  failed (exit ${r.status}): ${r.stderr.trim().split('\n').pop() ?? ''}`);
      continue;
    }
    const x = JSON.parse(r.stdout);
    const total = x.compileMs + x.isValidMs + x.validateMs;
    console.log(
      [
        fmt(n).padStart(10),
        fmt(x.bytes / 1e6, 1).padStart(9),
        fmt(x.compileMs).padStart(10),
        fmt(x.isValidMs).padStart(14),
        fmt(x.validateMs).padStart(15),
        fmt((total * 1000) / n, 1).padStart(17),
        fmt(x.maxRssMb).padStart(11),
      ].join('  '),
    );
  }
  console.log('\neach size in a process of its own; CPU time; one run (absolute figures drift with the machine)');
}
