// The GitHub Action's release: the tree a release tag points at, so that a workflow's
// `uses: babelqueue/bqschema@v<version>` runs bqschema at once, with no dev dependency installed and
// nothing compiled. The tree is the package as npm ships it (`npm pack` of this built checkout:
// dist/ with the bundled CLI and its code caches, bin/, package.json, README.md, ...), plus
// action.yml, the lockfile and the production dependencies it locks (`npm ci --omit=dev`:
// commander, jsonc-parser and yaml), which the runner downloads with the action. action.yml runs
// bin/bqschema.js from it; on any other ref (a branch, a commit of the source) it builds first.
//
// With --tag, the tree is committed as a child of HEAD and tagged (annotated), through a temporary
// index: the working tree, the index and every branch stay as they were, and nothing is pushed.
//
//   npm ci && npm run build
//   node scripts/action-release.js --out <new dir> [--tag [v<version>]] [--repo <git checkout>]
//   git push origin v<version>
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MARK = '//# bqschema: bundled into ../cli-bundle\n';

function fail(message) {
  process.stderr.write(`action-release: ${message}\n`);
  process.exit(1);
}

function run(cmd, args, cwd, env = process.env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) fail(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout.trim();
}

function parseArgs(argv) {
  const o = { out: undefined, tag: undefined, repo: root };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') o.out = argv[++i];
    else if (a === '--repo') o.repo = argv[++i];
    else if (a === '--tag') o.tag = argv[i + 1] !== undefined && !argv[i + 1].startsWith('--') ? argv[++i] : '';
    else fail(`unknown argument ${a}; usage: node scripts/action-release.js --out <new dir> [--tag [name]] [--repo <dir>]`);
  }
  if (o.out === undefined) fail('--out <dir> is required: a new (or empty) directory for the release tree');
  o.out = resolve(o.out);
  o.repo = resolve(o.repo);
  return o;
}

// npm's own environment under `npm run` describes this repository; the install must see only the tree.
function npmEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_(package_|lifecycle_|command$|config_local_prefix$)|^INIT_CWD$/i.test(k)) env[k] = v;
  }
  return env;
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const main = join(root, 'dist', 'cli', 'main.js');
  if (!existsSync(main) || !readFileSync(main, 'utf8').endsWith(MARK))
    fail('dist/ is not a full build (the bundled CLI is missing): run npm run build first');
  if (existsSync(o.out) && readdirSync(o.out).length > 0) fail(`${o.out} is not empty`);

  const tmp = mkdtempSync(join(tmpdir(), 'bqschema-action-release-'));
  try {
    // The package as npm ships it (its `files`), packed from the build as it is.
    const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], root, npmEnv()));
    run('tar', ['-xzf', join(tmp, packed[0].filename), '-C', tmp], tmp);
    const tree = join(tmp, 'package');
    cpSync(join(root, 'action.yml'), join(tree, 'action.yml'));
    cpSync(join(root, 'package-lock.json'), join(tree, 'package-lock.json'));
    run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], tree, npmEnv());
    const version = run(process.execPath, [join(tree, 'bin', 'bqschema.js'), '--version'], tree);
    if (version !== pkg.version) fail(`the release tree's bqschema --version says ${version}, not ${pkg.version}`);
    mkdirSync(o.out, { recursive: true });
    cpSync(tree, o.out, { recursive: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  process.stdout.write(`action-release: the release tree of bqschema ${pkg.version} is in ${o.out}\n`);
  if (o.tag === undefined) return;

  const tag = o.tag === '' ? `v${pkg.version}` : o.tag;
  const gitDir = run('git', ['rev-parse', '--absolute-git-dir'], o.repo);
  if (run('git', ['status', '--porcelain', '--untracked-files=no'], o.repo) !== '')
    fail(`${o.repo} has uncommitted changes: release a commit`);
  if (spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`], { cwd: o.repo }).status === 0)
    fail(`tag ${tag} exists already`);
  const head = run('git', ['rev-parse', 'HEAD'], o.repo);
  const indexDir = mkdtempSync(join(tmpdir(), 'bqschema-action-index-'));
  try {
    const env = { ...process.env, GIT_INDEX_FILE: join(indexDir, 'index') };
    const git = (...args) => run('git', [`--git-dir=${gitDir}`, `--work-tree=${o.out}`, ...args], o.out, env);
    git('add', '--all', '--force', '.');
    const treeId = git('write-tree');
    const message = `bqschema ${pkg.version}: the GitHub Action's release\n\nThe package as npm ships it (built from ${head}), action.yml and its production dependencies,\nso that uses: babelqueue/bqschema@${tag} runs without installing dev dependencies or compiling.`;
    const commit = git('commit-tree', treeId, '-p', head, '-m', message);
    git('tag', '-a', tag, commit, '-m', `bqschema ${pkg.version}`);
    process.stdout.write(
      `action-release: tagged ${tag} (${commit}, a child of ${head.slice(0, 12)}); push it with: git push origin ${tag}\n`,
    );
  } finally {
    rmSync(indexDir, { recursive: true, force: true });
  }
}

main();
