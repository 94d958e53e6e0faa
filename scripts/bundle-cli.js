// Bundles the CLI (dist/cli, as tsc wrote it) into dist/cli-bundle/: CommonJS chunks, one per
// command, loaded when that command runs, so a run reads a handful of files instead of ~50 modules
// and never starts node's ES module loader. The library entry (dist/index.js) is not bundled. Then
// it makes a V8 code cache for each chunk (bin/load-bundle.js) by running the CLI on the example
// registry in a child process and saving what was compiled. The bundle is marked as made from this
// build by a last line added to dist/cli/main.js; the next `tsc` rewrites that file without it, and
// bin/bqschema.js then runs the modules tsc wrote instead of a stale bundle. (File times cannot say
// this: npm does not keep them when it installs a package.)
//   node scripts/bundle-cli.js     (part of `npm run build`)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'cli-bundle');
export const MARK = '//# bqschema: bundled into ../cli-bundle\n';

// Commander requires node:child_process (and with it net, dgram, streams) when it loads, only to
// run executable subcommands, which bqschema has none of: the bundle requires it on first use.
const CHILD_PROCESS = "const childProcess = require('node:child_process');";
const lazyChildProcess = {
  name: 'bqschema-lazy-child-process',
  transform(code, id) {
    if (!/[\\/]commander[\\/]lib[\\/]command\.js$/.test(id)) return null;
    if (!code.includes(CHILD_PROCESS)) throw new Error(`${id}: no \`${CHILD_PROCESS}\` to make lazy (commander changed?)`);
    return code.replace(CHILD_PROCESS, "const childProcess = { get spawn() { return require('node:child_process').spawn; } };");
  },
};

// node:crypto costs ~3 ms to load and most runs never hash: `compat` and `types` import it through
// modules they use for other things (exceptions, atomic writes). The bundle gets it on first call.
// Only functions are wrapped; importing any other name from node:crypto fails the build.
const LAZY_CRYPTO = '\0bqschema-lazy-crypto';
const CRYPTO_FUNCTIONS = ['createHash', 'randomBytes'];
const lazyCrypto = {
  name: 'bqschema-lazy-crypto',
  resolveId(id, importer) {
    if (id !== 'node:crypto' && id !== 'crypto') return null;
    // The wrappers' own require is the real module.
    return importer === LAZY_CRYPTO ? { id: 'node:crypto', external: true } : LAZY_CRYPTO;
  },
  load(id) {
    if (id !== LAZY_CRYPTO) return null;
    const fns = CRYPTO_FUNCTIONS.map((f) => `export function ${f}(...args) { return (crypto ??= require('node:crypto')).${f}(...args); }`);
    return ['let crypto;', ...fns].join('\n');
  },
};

// The AsyncAPI validator (dist/asyncapi/generated/spec-validator.cjs, ~0.7 MB) stays one file the
// library and the bundle share: the package ships it once. The library loads it with import(); the
// bundle has no import(), so it requires it (the same relative path from dist/asyncapi and from
// dist/cli-bundle), once, on first use.
const SPEC_IMPORT = "import('./generated/spec-validator.cjs')";
const SPEC_PATH = '../asyncapi/generated/spec-validator.cjs';
const sharedSpecValidator = {
  name: 'bqschema-shared-spec-validator',
  transform(code, id) {
    if (!/[\\/]dist[\\/]asyncapi[\\/]validate\.js$/.test(id)) return null;
    if (!code.includes(SPEC_IMPORT)) throw new Error(`${id}: no \`${SPEC_IMPORT}\` to share (validate.ts changed?)`);
    return code.replace(SPEC_IMPORT, `Promise.resolve().then(() => ({ default: require('${SPEC_PATH}') }))`);
  },
};

async function bundle() {
  const { build } = await import('rolldown');
  // yaml and jsonc-parser stay packages (loaded on first need through createRequire).
  const external = (id) =>
    id === SPEC_PATH ||
    (!['node:crypto', 'crypto', LAZY_CRYPTO].includes(id) &&
      (id.startsWith('node:') || builtinModules.includes(id) || /^(yaml|jsonc-parser)(\/|$)/.test(id)));
  rmSync(out, { recursive: true, force: true });
  // The shared module's cache too: the training below makes one only if a trained command loads it.
  rmSync(join(out, `${SPEC_PATH}.cache`), { force: true });
  await build({
    cwd: root,
    // The worker is an entry of its own, next to the chunk that starts it (new URL('./validate-worker.js')).
    input: { main: 'dist/cli/main.js', 'validate-worker': 'dist/cli/workers/validate-worker.js' },
    platform: 'node',
    external,
    plugins: [lazyChildProcess, lazyCrypto, sharedSpecValidator],
    // strict: the modules were ES modules, which are strict; CommonJS output is not unless told.
    // Comments: only legal ones are kept (JSDoc was ~120 KB of the package); whitespace goes
    // too (~100 KB), names and code are kept as written (no compress, no mangle: what runs is what was tested).
    output: {
      dir: out,
      format: 'cjs',
      strict: true,
      entryFileNames: '[name].js',
      chunkFileNames: '[name].js',
      comments: { legal: true, annotation: false, jsdoc: false },
      minify: { compress: false, mangle: false },
    },
    logLevel: 'warn',
  });
  // The chunks are CommonJS in a "type": "module" package.
  writeFileSync(join(out, 'package.json'), '{\n  "type": "commonjs"\n}\n');
  for (const name of readdirSync(out).filter((f) => f.endsWith('.js'))) {
    const file = join(out, name);
    const source = readFileSync(file, 'utf8');
    // bin/load-bundle.js runs chunks in a vm.Script, which has no ES module loader for import().
    if (/\bimport\(/.test(source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''))) throw new Error(`${name}: a chunk has a dynamic import()`);
    // The tag that ties a code cache to this source.
    appendFileSync(file, `\n//# bqschema-cache ${createHash('sha256').update(source).digest('hex').slice(0, 32)}\n`);
  }
  // V8 flags are part of what a cache is checked against: the caches are made by a plain `node`
  // (no NODE_OPTIONS such as --max-old-space-size from the build's environment), as a user runs it.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const trained = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--train'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (trained.status !== 0) throw new Error(`making the code cache failed:\n${trained.stderr}`);
  const main = join(root, 'dist', 'cli', 'main.js');
  if (!readFileSync(main, 'utf8').endsWith(MARK)) appendFileSync(main, MARK);
}

/**
 * Runs the bundled CLI through bin/load-bundle.js on the example registry the way CI runs it on every
 * pull request (check, validate and compat, in the Action's formats: GitHub annotations on stdout and
 * a markdown job summary beside them, and the text and JSON a terminal or a script reads), then
 * saves the code cache of every chunk those runs loaded. Only these commands get caches: a cache
 * saves a command ~20-35 ms of compiling but weighs about as much as its chunk's source, and the
 * package's size budget (2.75 MB installed) pays for the commands every pull request waits on;
 * gdpr, export-asyncapi, types, catalog, serve, init, conformance and --help compile from source
 * (bin/load-bundle.js runs a chunk without a cache file as require() would). Output is discarded;
 * a command's exit code does not matter here, only what it compiled.
 */
async function train() {
  const { loadBundled, saveCodeCache } = createRequire(import.meta.url)('../bin/load-bundle.js');
  const { main } = loadBundled('main.js');
  const reg = ['-r', 'registry.example.json'];
  const tmp = mkdtempSync(join(tmpdir(), 'bqschema-train-'));
  const summary = (name) => ['--report', `markdown=${join(tmp, `${name}.md`)}`];
  const runs = [
    ['check', ...reg],
    ['check', ...reg, '--format', 'github', ...summary('check')],
    ['validate', ...reg, 'examples/messages'],
    ['validate', ...reg, '--strict', '--format', 'github', ...summary('validate'), 'examples/messages'],
    ['validate', ...reg, '--format', 'json', 'examples/messages/valid'],
    ['compat', 'examples/compat/orders-created.v1.json', 'examples/compat/orders-created.next.json'],
    ['compat', 'examples/compat/orders-created.v1.json', 'examples/compat/orders-created.breaking.json'],
    [
      'compat',
      '--format',
      'github',
      ...summary('compat'),
      'examples/compat/orders-created.v1.json',
      'examples/compat/orders-created.breaking.json',
    ],
  ];
  try {
    for (const argv of runs) await main(argv);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const saved = saveCodeCache();
  if (!saved.some((f) => f.endsWith('main.js'))) throw new Error('no code cache was saved');
  process.exitCode = 0;
}

if (process.argv[2] === '--train') await train();
else await bundle();
