// Installed size and startup of the package as a user gets it:
//   - `npm pack` this checkout, `npm install --omit=dev` the tarball into a fresh project, `du -sb`
//     of node_modules/bqschema (limit 2.5 MB);
//   - startup of a few commands from that install, in alternating rounds (medians), as ratios to
//     `node -e 0`: the install as shipped, the same install without its V8 code caches (*.cache: do
//     they pay for themselves?), and, with --against <tarball>, another build (e.g. the previous
//     release) installed the same way.
//
//   npm run bench:install [-- --rounds N --against path/to/bqschema-x.y.z.tgz]
//
// Run `npm run build` first (the tarball is packed from dist/ as it is).

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT } from './data.js';

const LIMIT_BYTES = 2_750_000;

function parseArgs(argv) {
  const o = { rounds: 15, against: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') o.rounds = Number(argv[++i]);
    else if (argv[i] === '--against') o.against = resolve(argv[++i]);
    else throw new Error(`unknown option ${argv[i]}`);
  }
  if (!Number.isInteger(o.rounds) || o.rounds < 1) throw new Error('--rounds needs a positive integer');
  return o;
}

function must(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Installs `tarball` into a new project under `dir`; returns the installed package's directory. */
function install(dir, tarball) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  must('npm', ['install', '--omit=dev', tarball, '--no-audit', '--no-fund', '--loglevel=error'], dir);
  return join(dir, 'node_modules', 'bqschema');
}

/** `du -sb` where it exists (what the issue measured), else the sum of file sizes. */
function size(dir) {
  const du = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  if (du.status === 0) return Number(du.stdout.split('\t')[0]);
  const walk = (d) =>
    readdirSync(d, { withFileTypes: true }).reduce(
      (n, e) => n + (e.isDirectory() ? walk(join(d, e.name)) : statSync(join(d, e.name)).size),
      0,
    );
  return walk(dir);
}

function dropCaches(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) dropCaches(p);
    else if (e.name.endsWith('.cache')) rmSync(p);
  }
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time (ms) of this process's reaped children (/proc/self/stat: cutime + cstime), NaN where there is none. */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** One run: wall and CPU (user + system) ms. */
function time(args) {
  const c0 = childrenCpuMs();
  const t = process.hrtime.bigint();
  spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  return { wall: Number(process.hrtime.bigint() - t) / 1e6, cpu: childrenCpuMs() - c0 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

function main() {
  const o = parseArgs(process.argv.slice(2));
  const tmp = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-install-'));
  try {
    console.log(
      `bqschema install benchmark: node ${process.version}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    const packed = JSON.parse(must('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], ROOT));
    const installs = [['this build', install(join(tmp, 'now'), join(tmp, packed[0].filename))]];
    const noCache = join(tmp, 'nocache', 'bqschema');
    cpSync(installs[0][1], noCache, { recursive: true });
    dropCaches(noCache);
    // The copy resolves its dependencies from the first install's node_modules.
    cpSync(join(tmp, 'now', 'node_modules'), join(tmp, 'nocache', 'node_modules'), {
      recursive: true,
      filter: (src) => !src.startsWith(installs[0][1]),
    });
    installs.push(['without code caches', noCache]);
    if (o.against) installs.push([`--against ${o.against.split('/').pop()}`, install(join(tmp, 'against'), o.against)]);

    console.log('\nInstalled size (du -sb of node_modules/bqschema):');
    for (const [label, dir] of installs) console.log(`  ${label.padEnd(40)} ${size(dir).toLocaleString('en-US').padStart(11)} B`);
    const now = size(installs[0][1]);
    console.log(`  limit ${LIMIT_BYTES.toLocaleString('en-US')} B: ${now <= LIMIT_BYTES ? 'ok' : 'OVER'}`);

    // The commands CI runs on every pull request (with the Action's `--format github`), which the
    // build gives code caches, and the others, which compile from source.
    const commands = [
      ['--version'],
      ['check', '-r', 'registry.example.json'],
      ['validate', '-r', 'registry.example.json', 'examples/messages/valid'],
      ['validate', '-r', 'registry.example.json', '--strict', '--format', 'github', 'examples/messages'],
      ['compat', 'examples/compat/orders-created.v1.json', 'examples/compat/orders-created.compatible.json'],
      ['export-asyncapi', '-r', 'registry.example.json'],
      ['gdpr', '-r', 'registry.example.json'],
      ['types', '-r', 'registry.example.json'],
    ];
    const sides = [['node -e 0', () => time(['-e', '0'])]];
    for (const [label, dir] of installs) {
      for (const c of commands)
        sides.push([
          `${label}: ${c[0]}${c.includes('github') ? ' --format github' : ''}`,
          () => time([join(dir, 'bin', 'bqschema.js'), ...c]),
        ]);
    }
    const runs = sides.map(() => []);
    for (let r = 0; r < o.rounds; r++) {
      for (let k = 0; k < sides.length; k++) {
        const i = (k + r) % sides.length;
        runs[i].push(sides[i][1]());
      }
    }
    // CPU time (user + system) is steadier than wall time on a busy machine; /proc counts it in
    // clock ticks (10 ms), so its figure is the mean over the rounds rather than the median.
    const floor = median(runs[0].map((r) => r.wall));
    const cpuFloor = mean(runs[0].map((r) => r.cpu));
    console.log(
      `\nStartup, ${o.rounds} alternating rounds: wall median and ratio to node -e 0 (${floor.toFixed(0)} ms), CPU mean and ratio to node -e 0 (${cpuFloor.toFixed(0)} ms):`,
    );
    sides.forEach(([label], i) => {
      const m = median(runs[i].map((r) => r.wall));
      const c = mean(runs[i].map((r) => r.cpu));
      console.log(
        `  ${label.padEnd(60)} ${m.toFixed(0).padStart(5)} ms  ${(m / floor).toFixed(2)}×   cpu ${c.toFixed(0).padStart(5)} ms  ${(c / cpuFloor).toFixed(2)}×`,
      );
    });
    console.log(
      `\nload average at the end ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    process.exitCode = now <= LIMIT_BYTES ? 0 : 1;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main();
