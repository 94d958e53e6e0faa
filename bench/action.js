// The GitHub Action's time to its first check, counted from the moment the runner has downloaded
// the action (actions/setup-node, before it, takes the same time either way and is left out):
//   - a ref that is not a release (the source at --ref, default HEAD, as `git archive` gives it,
//     which is what the runner downloads for a branch or a commit of main): action.yml installs
//     every dependency (npm ci), compiles (npm run build), then checks;
//   - a release tag's tree (scripts/action-release.js of this build): it checks at once.
// The run step of the action.yml in each tree runs the way the runner runs it (bash --noprofile
// --norc -eo pipefail, the inputs as environment variables, GITHUB_ACTION_PATH set), with
// `command: check` in a workspace `bqschema init` scaffolded; every round starts from an empty npm
// cache (npm_config_cache in a new directory), as on a fresh runner, so the npm registry's speed
// from this machine is part of the source's figure.
//
//   npm run bench:action [-- --rounds N --ref <git ref>]
//
// Run `npm run build` first (the release tree is made from dist/ as it is).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { ROOT } from './data.js';

function parseArgs(argv) {
  const o = { rounds: 1, ref: 'HEAD' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') o.rounds = Number(argv[++i]);
    else if (argv[i] === '--ref') o.ref = argv[++i];
    else throw new Error(`unknown option ${argv[i]}`);
  }
  if (!Number.isInteger(o.rounds) || o.rounds < 1) throw new Error('--rounds needs a positive integer');
  return o;
}

// npm's environment under `npm run` describes this repository: the runs must see only their trees.
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_(package_|lifecycle_|command$|config_local_prefix$)|^INIT_CWD$/i.test(k)) env[k] = v;
  }
  return env;
}

function must(cmd, args, cwd, env = cleanEnv()) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Runs action.yml's run step from `actionPath` with `command: check` in `workspace`; wall ms. */
function firstCheck(actionPath, workspace, cache) {
  const action = YAML.parse(readFileSync(join(actionPath, 'action.yml'), 'utf8'));
  const step = action.runs.steps.find((s) => s.id === 'run');
  const env = { ...cleanEnv(), GITHUB_ACTION_PATH: actionPath, npm_config_cache: cache, NO_COLOR: '1' };
  for (const [key, expr] of Object.entries(step.env)) {
    const name = /^\$\{\{\s*inputs\.([\w-]+)\s*\}\}$/.exec(expr)[1];
    env[key] = name === 'command' ? 'check' : (action.inputs[name].default ?? '');
  }
  const t = process.hrtime.bigint();
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
    cwd: workspace,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0 || !/OK: 1 URN\(s\)/.test(r.stdout))
    throw new Error(`the first check failed (${r.status}):\n${r.stdout}\n${r.stderr.slice(-2000)}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

function main() {
  const o = parseArgs(process.argv.slice(2));
  const tmp = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-action-'));
  try {
    const commit = must('git', ['rev-parse', '--short=12', o.ref], ROOT).trim();
    console.log(
      `bqschema Action benchmark: node ${process.version}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    const workspace = join(tmp, 'workspace');
    mkdirSync(workspace);
    must(process.execPath, [join(ROOT, 'bin', 'bqschema.js'), 'init'], workspace);
    const release = join(tmp, 'release');
    must(process.execPath, [join(ROOT, 'scripts', 'action-release.js'), '--out', release], ROOT);

    const sides = [
      [
        `source at ${o.ref} (${commit}): npm ci, build, check`,
        () => {
          const dir = mkdtempSync(join(tmp, 'source-'));
          must('sh', ['-c', `git archive ${commit} | tar -x -C '${dir}'`], ROOT);
          return dir;
        },
      ],
      ['release tree (scripts/action-release.js): check', () => release],
    ];
    const times = sides.map(() => []);
    for (let r = 0; r < o.rounds; r++) {
      for (let k = 0; k < sides.length; k++) {
        const i = (k + r) % sides.length;
        const dir = sides[i][1]();
        const cache = mkdtempSync(join(tmp, 'npm-cache-'));
        times[i].push(firstCheck(dir, workspace, cache));
        rmSync(cache, { recursive: true, force: true });
        if (dir !== release) rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`\nTime to the first check (wall, median of ${o.rounds} round(s), an empty npm cache each):`);
    sides.forEach(([label], i) =>
      console.log(`  ${label.padEnd(62)} ${seconds(median(times[i])).padStart(8)}   (${times[i].map(seconds).join(', ')})`),
    );
    console.log(`  ratio ${(median(times[0]) / median(times[1])).toFixed(0)}×`);
    console.log(
      `\nload average at the end ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main();
