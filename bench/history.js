// Git history as the version store, at scale: a generated repository of 1,000 commits over 200
// URNs (each commit changes one to three schemas compatibly, adding an optional property; every
// 100th commit moves a schema file; one in 50 retypes a property, a break), and the commands that
// read it:
//   - `compat --transitive --against HEAD~1` (the window a pull request of one commit has),
//   - `compat --transitive` alone (the whole history: every commit read),
//   - `serve --history` from start to its "listening" line (every version of every URN served).
// Each is timed from spawn to exit (or to the line), with the peak RSS of its process; the same
// commands on a repository of 250 commits, and on one of 1,000 commits of which only those 250
// change the registry (the rest touch README.md), in the same rounds, show what more commits cost:
// time grows with commits read, memory with versions kept.
//
//   npm run bench:history [-- --rounds N --commits N --urns N]
//
// Rounds alternate the two repositories; figures are medians. Run `npm run build` first.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { prng, ROOT } from './data.js';

const BIN = join(ROOT, 'bin', 'bqschema.js');

function parseArgs(argv) {
  const o = { rounds: 3, commits: 1000, urns: 200 };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]?.replace(/^--/, '');
    if (!(name in o)) throw new Error(`unknown option ${argv[i]}`);
    o[name] = Number(argv[++i]);
    if (!Number.isInteger(o[name]) || o[name] < 1) throw new Error(`--${name} needs a positive integer`);
  }
  return o;
}

const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', NO_COLOR: '1' };
delete ENV.BQSCHEMA_REGISTRY;

function must(args, cwd, input) {
  const r = spawnSync('git', ['-c', 'safe.directory=*', ...args], { cwd, env: ENV, input, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * A repository of `commits` commits over `urns` URNs, written with one `git fast-import` (a
 * process per commit would take longer than what is measured).
 */
function generate(commits, urns, seed, quiet = 0) {
  const dir = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-history-'));
  must(['init', '-q', '-b', 'main'], dir);
  const rng = prng(seed);
  const names = Array.from({ length: urns }, (_, i) => `urn:bench:topic${String(i).padStart(3, '0')}:event`);
  const schemas = names.map(() => ({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }));
  const paths = names.map((_, i) => `schemas/s${i}.json`);
  // The registry lives in registry/, beside the code (README.md) most commits change.
  const at = (p) => `registry/${p}`;
  const manifest = () => JSON.stringify({ schemas: names.map((urn, i) => ({ urn, schema: paths[i] })) }, null, 2);
  const chunks = [];
  const blob = (path, text) => `M 100644 inline ${path}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  for (let c = 1; c <= commits; c++) {
    const files = [];
    if (c === 1) {
      files.push(blob(at('registry.json'), manifest()), blob('README.md', 'a repository\n'));
      paths.forEach((p, i) => files.push(blob(at(p), JSON.stringify(schemas[i], null, 2))));
    } else if (c > commits - quiet) {
      // A commit outside the registry.
      files.push(blob('README.md', `a repository, commit ${c}\n`));
    } else if (c % 100 === 0) {
      // A schema file moves: the URN is followed through its manifest.
      const i = Math.floor(rng() * urns);
      const from = paths[i];
      paths[i] = `schemas/moved/${c}-s${i}.json`;
      files.push(`D ${at(from)}\n`, blob(at(paths[i]), JSON.stringify(schemas[i], null, 2)), blob(at('registry.json'), manifest()));
    } else {
      const changes = 1 + Math.floor(rng() * 3);
      for (let k = 0; k < changes; k++) {
        const i = Math.floor(rng() * urns);
        const props = schemas[i].properties;
        const keys = Object.keys(props);
        if (rng() < 0.02 && keys.length > 1)
          props[keys[keys.length - 1]] = { type: 'integer' }; // a break, accepted once
        else props[`f${c}_${k}`] = { type: rng() < 0.5 ? 'string' : 'number' };
        files.push(blob(at(paths[i]), JSON.stringify(schemas[i], null, 2)));
      }
    }
    const when = 1767225600 + c * 3600;
    const message = `commit ${c}`;
    chunks.push(
      `commit refs/heads/main\nmark :${c}\ncommitter Bench <bench@example.invalid> ${when} +0000\ndata ${message.length}\n${message}\n` +
        (c > 1 ? `from :${c - 1}\n` : '') +
        files.join('') +
        '\n',
    );
  }
  must(['fast-import', '--quiet'], dir, chunks.join(''));
  must(['reset', '-q', '--hard', 'main'], dir);
  return { dir, urns, label: quiet > 0 ? `${commits} (${commits - quiet} in the registry)` : String(commits) };
}

/** Writes the process's peak RSS (KiB) to $BQ_RSS_FILE when it exits: required into the CLI's node. */
const RSS_HOOK = join(os.tmpdir(), `bqschema-bench-rss-${process.pid}.cjs`);
writeFileSync(
  RSS_HOOK,
  "process.on('exit', () => { if (process.env.BQ_RSS_FILE) require('fs').writeFileSync(process.env.BQ_RSS_FILE, String(process.resourceUsage().maxRSS)); });\n",
);

/** Runs the CLI to exit: wall ms, peak RSS (MiB), exit code. */
function timed(args, cwd) {
  args = [...args, '--registry', 'registry/registry.json'];
  const rssFile = join(os.tmpdir(), `bqschema-bench-rss-${process.pid}.txt`);
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', RSS_HOOK, BIN, ...args], {
    cwd,
    env: { ...ENV, BQ_RSS_FILE: rssFile },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`bqschema ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const rss = Number(readFileSync(rssFile, 'utf8')) / 1024;
  return { ms, rss, code: r.status, last: r.stdout.trimEnd().split('\n').pop() };
}

/** Starts `serve --history` and times it to its "listening" line; the peak RSS read from /proc then. */
function serveStartup(cwd) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, 'serve', '--history', '--port', '0', '--registry', 'registry/registry.json'], {
      cwd,
      env: ENV,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      err += chunk;
      const m = /listening on \S+ \((.*)\)/.exec(err);
      if (m === null) return;
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      let rss = NaN;
      try {
        rss = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
      } catch {
        // not Linux: no figure
      }
      child.kill('SIGTERM');
      resolve({ ms, rss, last: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${err}`)));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const small = Math.max(2, Math.round(o.commits / 4));
  const t0 = Date.now();
  // A quarter of the commits; all of them; all of them with only the quarter's registry changes
  // (the rest touch README.md): memory follows the versions kept, not the commits read.
  const repos = [generate(small, o.urns, 7), generate(o.commits, o.urns, 7), generate(o.commits, o.urns, 7, o.commits - small)];
  console.log(
    `generated ${repos.map((r) => r.label).join(', ')} commits over ${o.urns} URNs in ${((Date.now() - t0) / 1000).toFixed(1)} s; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const cases = [
    ['compat --transitive --against HEAD~1', (dir) => timed(['compat', '--transitive', '--against', 'HEAD~1'], dir)],
    ['compat --transitive (whole history)', (dir) => timed(['compat', '--transitive'], dir)],
    ['serve --history (to listening)', (dir) => serveStartup(dir)],
  ];
  const results = new Map();
  for (let round = 0; round < o.rounds; round++) {
    // Rotate the repositories' order each round, so load drifts hit all alike.
    const order = repos.map((_, i) => repos[(i + round) % repos.length]);
    for (const [name, run] of cases) {
      for (const repo of order) {
        const key = `${name}|${repo.label}`;
        const r = await run(repo.dir);
        if (!results.has(key)) results.set(key, { ms: [], rss: [], last: r.last });
        results.get(key).ms.push(r.ms);
        results.get(key).rss.push(r.rss);
      }
    }
  }
  console.log(
    `\n${o.rounds} round(s), medians; load average now ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const [name] of cases) {
    for (const repo of repos) {
      const r = results.get(`${name}|${repo.label}`);
      console.log(
        `${name.padEnd(38)} ${repo.label.padStart(26)} commits  ${(median(r.ms) / 1000).toFixed(2).padStart(6)} s  peak RSS ${median(r.rss).toFixed(0).padStart(4)} MiB`,
      );
    }
    const [a, b, c] = repos.map((repo) => results.get(`${name}|${repo.label}`));
    const ratio = (x, y, k) => (median(x[k]) / median(y[k])).toFixed(2);
    console.log(
      `${''.padEnd(38)} vs ${small}: all ${o.commits} time x${ratio(b, a, 'ms')} RSS x${ratio(b, a, 'rss')}; ${o.commits} quiet time x${ratio(c, a, 'ms')} RSS x${ratio(c, a, 'rss')}`,
    );
    console.log(`${''.padEnd(38)} said: ${b.last}`);
  }
  for (const r of repos) rmSync(r.dir, { recursive: true, force: true });
  rmSync(RSS_HOOK, { force: true });
}

await main();
