import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published package as a user gets it: `npm pack` the repository, install the tarball the way
// the README says, in a project a team shares through git, then run the CLI, import the library and
// compile against its types in that project. One pack and one install serve every test: each costs
// more CPU than all the tests that read their result.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const block = /## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
const lines = block.trimEnd().split('\n');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Under `npm test` the environment describes this repository (npm_config_local_prefix, npm_package_*):
// a child npm must see only the temp project.
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)|^INIT_CWD$/i.test(key)) continue;
    env[key] = value;
  }
  env.NO_COLOR = '1';
  return env;
}

function run(cmd: string, args: string[], cwd: string): Run {
  const r = spawnSync(cmd, args, { cwd, env: childEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function must(r: Run, what: string): string {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

// npm under `npm test` describes this repository (npm_config_local_prefix, npm_package_*): the
// projects must see only themselves. Each machine gets an npm cache of its own, empty at first.
function machineEnv(cache: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_|^INIT_CWD$/i.test(k)) e[k] = v;
  return {
    ...e,
    npm_config_cache: cache,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    NO_COLOR: '1',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
}

function sh(script: string, cwd: string, cache: string): { code: number | null; out: string } {
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd,
    env: machineEnv(cache),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : [relative(root, join(dir, d.name)).split('\\').join('/')],
  );
}

function walkAbs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walkAbs(join(dir, d.name)) : [join(dir, d.name)]));
}

let work = '';
let project = '';
let entries: string[] = [];
let tarball = '';
let first: { code: number | null; out: string } | undefined;

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'index.js')) || !existsSync(join(root, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/ is not built: run `npm run build` first (`npm test` does)');
  }
  work = mkdtempSync(join(tmpdir(), 'bq-pack-'));
  // The README's first line (clone bqschema from GitHub, npm ci, npm pack) needs the network, so
  // this checkout's build is packed in its place, to the same file; every other line runs verbatim
  // in bash. The first line's result: a clone named bqschema holding the packed tarball.
  expect(lines[0]).toBe('git clone https://github.com/babelqueue/bqschema && (cd bqschema && npm ci && npm pack)');
  mkdirSync(join(work, 'bqschema'));
  // --ignore-scripts: pack what is built, do not rebuild under the other test files' feet.
  const packed = JSON.parse(
    must(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', join(work, 'bqschema')], root), 'npm pack'),
  ) as [{ filename: string }];
  tarball = join(work, 'bqschema', packed[0].filename);
  expect(tarball).toBe(join(work, 'bqschema', `bqschema-${pkg.version}.tgz`));
  entries = must(run('tar', ['-tzf', tarball], work), 'tar -tzf')
    .split('\n')
    .filter((l) => l !== '');
  // The team's project: a git repository with a package.json, next to the clone.
  project = join(work, 'your-project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'your-project', version: '1.0.0', private: true }, null, 2)}\n`);
  writeFileSync(join(project, '.gitignore'), 'node_modules/\n');
  expect(sh('git init -q && git add -A && git commit -qm project', project, join(work, 'cache-a')).code).toBe(0);
  // Every other line of the README, verbatim, from the directory holding both.
  first = sh(lines.slice(1).join('\n'), work, join(work, 'cache-a'));
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the README's install, shared through git", () => {
  it('runs as written: bqschema installed, init scaffolds, check passes', () => {
    expect(first!.code, first!.out).toBe(0);
    expect(first!.out).toMatch(/created registry\.json/);
    expect(first!.out).toMatch(/^OK: 1 URN\(s\), 0 error\(s\), 0 warning\(s\)/m);
    const manifest = JSON.parse(readFileSync(join(work, 'your-project', 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies.bqschema).toBe(`file:vendor/bqschema-${pkg.version}.tgz`);
  });

  it("survives a teammate's (or CI's) npm ci: a fresh clone on another machine, with an empty npm cache and no clone of bqschema", () => {
    // What the README had git add, committed; the rest of the work tree stays on the first machine.
    expect(sh('git commit -qm "add bqschema"', project, join(work, 'cache-a')).code).toBe(0);
    const other = join(work, 'other-machine');
    mkdirSync(other);
    expect(sh(`git clone -q ${JSON.stringify(project)} project`, other, join(work, 'cache-b')).code).toBe(0);
    const clone = join(other, 'project');
    expect(existsSync(join(clone, 'node_modules'))).toBe(false);
    const cache = join(work, 'cache-b');
    expect(existsSync(cache)).toBe(false); // nothing cached on this machine yet
    const ci = sh('npm ci --loglevel=error', clone, cache);
    expect(ci.code, ci.out).toBe(0);
    const version = sh('npx --no-install bqschema --version', clone, cache);
    expect(version.out.trim()).toBe(pkg.version);
    // The same package the first machine installed: the lockfile's checksum held.
    const lock = JSON.parse(readFileSync(join(clone, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; integrity?: string }>;
    };
    expect(lock.packages['node_modules/bqschema']!.resolved).toBe(`file:vendor/bqschema-${pkg.version}.tgz`);
    expect(lock.packages['node_modules/bqschema']!.integrity).toMatch(/^sha512-/);
    expect(readFileSync(join(clone, 'node_modules', 'bqschema', 'package.json'), 'utf8')).toBe(
      readFileSync(join(project, 'node_modules', 'bqschema', 'package.json'), 'utf8'),
    );
  });
});

describe('the npm tarball', () => {
  it('holds the entry points, the CLI, the editor schema and the docs', () => {
    for (const f of [
      'package/package.json',
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/cli/main.js',
      'package/bin/bqschema.js',
      'package/README.md',
      'package/LICENSE',
      'package/registry.schema.json',
    ]) {
      expect(entries, f).toContain(f);
    }
  });

  it('holds no tests, sources, fixtures, examples, benchmarks or scripts', () => {
    const unwanted = entries.filter(
      (f) =>
        /^package\/(test|bench|examples|src|scripts|docs|\.ci|node_modules)\//.test(f) ||
        /fixture/i.test(f) ||
        /\.test\.|\.spec\.|\.tgz$|\.map$/.test(f),
    );
    expect(unwanted).toEqual([]);
    expect(entries.every((f) => f.startsWith('package/'))).toBe(true);
  });

  it('installs in at most 2.75 MB, with the AsyncAPI validator once', () => {
    const installed = join(project, 'node_modules', 'bqschema');
    const files = walkAbs(installed);
    // du -sb, as the issue measured it (directories count too); the file sizes where du is missing.
    const du = spawnSync('du', ['-sb', installed], { encoding: 'utf8' });
    const bytes = du.status === 0 ? Number(du.stdout.split('\t')[0]) : files.reduce((n, f) => n + statSync(f).size, 0);
    expect(bytes, `installed size ${bytes} B`).toBeLessThanOrEqual(2_750_000);
    // The generated validator is the largest module; a second copy (e.g. inlined by the bundler) would
    // double it. Matching on the spec's definition URLs it embeds finds it whatever the file is called.
    const copies = files.filter((f) => /\.c?js$/.test(f) && readFileSync(f, 'utf8').includes('asyncapi.com/definitions/3.0.0/'));
    expect(copies.map((f) => relative(installed, f))).toEqual(['dist/asyncapi/generated/spec-validator.cjs']);
  });

  it('ships exactly the build of src/ (no stale modules, none missing)', () => {
    // dist/cli-bundle is the CLI bundled from that build (scripts/bundle-cli.js), checked below; the
    // CLI's own modules ship only inside it, except dist/cli/main.js (bin reads its marker). The
    // generated AsyncAPI validator is CommonJS (.cjs) so the library and the bundle share one copy.
    const shipped = entries
      .filter((f) => f.startsWith('package/dist/') && !f.startsWith('package/dist/cli-bundle/') && /\.c?js$/.test(f))
      .map((f) => f.slice('package/dist/'.length).replace(/\.c?js$/, ''));
    const sources = walk(join(root, 'src'))
      .filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f.endsWith('.cjs') || (f.endsWith('.cts') && !f.endsWith('.d.cts')))
      .map((f) => f.slice('src/'.length).replace(/\.(ts|cjs|cts)$/, ''))
      // Modules only the CLI uses ship inside its bundle alone (docs/ARCHITECTURE.md): the unbundled
      // copies would be dead weight. What the library entries and serve's worker
      // load from dist/ ships.
      .filter((f) => !/^(cli|catalog|compile|types|report|validate)\//.test(f) || f === 'cli/main')
      // Each gate's Report builder and views (check/compat/gdpr report.ts, view-*.ts, compat's
      // verdict.ts and words.ts) serve only the CLI's renderers, gdpr --mask's masker and splicer
      // only the CLI, and so do `bqschema conformance`'s runner and line-protocol adapter (the
      // `bqschema/conformance` entry is the provider kit).
      .filter(
        (f) =>
          !/^(check|compat|gdpr)\/(report|view-[a-z]+)$/.test(f) &&
          !/^compat\/(verdict|words)$/.test(f) &&
          !/^gdpr\/(masker|splice)$/.test(f) &&
          !/^conformance\/(runner|line-impl)$/.test(f),
      )
      // `bqschema services` and check's service rules (src/services/index.ts, src/check/service-rules.ts) are the CLI's alone.
      .filter((f) => f !== 'services/index' && f !== 'check/service-rules')
      // Reading a git ref (compat --against, the catalog's history) is the CLI's alone.
      .filter((f) => !/^registry\/(git|at-ref|history|versions)$/.test(f) && f !== 'compat/transitive')
      .filter((f) => !/^asyncapi\/[^/]+$/.test(f));
    expect(shipped.sort(), 'dist/ is out of date with src/: rm -rf dist && npm run build').toEqual(sources.sort());
  });

  it('ships the declarations the entries reach, and only those: every relative import in them resolves to a shipped file', () => {
    const shipped = new Set(entries.filter((f) => /\.d\.c?ts$/.test(f)).map((f) => f.slice('package/'.length)));
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: unknown;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    const starts = new Set<string>();
    const walkTypes = (v: unknown, key?: string): void => {
      if (typeof v === 'string') {
        if (key === 'types') starts.add(v.replace(/^\.\//, ''));
      } else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walkTypes(x, k);
    };
    walkTypes(manifest.exports);
    for (const map of Object.values(manifest.typesVersions))
      for (const targets of Object.values(map)) for (const t of targets) starts.add(t.replace(/^\.\//, ''));
    const reached = new Set<string>();
    const queue = [...starts];
    const unresolved: string[] = [];
    for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
      if (reached.has(f)) continue;
      reached.add(f);
      expect(shipped.has(f), `${f} is named but not shipped`).toBe(true);
      const text = readFileSync(join(project, 'node_modules', 'bqschema', f), 'utf8');
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = join(dirname(f), m[1]!)
          .replace(/\.js$/, '.d.ts')
          .replace(/\.cjs$/, '.d.cts');
        if (shipped.has(target)) queue.push(target);
        else unresolved.push(`${f}: ${m[1]}`);
      }
    }
    expect(unresolved).toEqual([]);
    // tsc writes one per module; those of modules only the CLI or internals use would ship for nothing.
    expect([...shipped].filter((f) => !reached.has(f)).sort()).toEqual([]);
  });

  it('ships the bundled CLI (CommonJS, with its code cache) with its worker entry, and bin starts from it', () => {
    const files = [
      'package/bin/package.json',
      'package/bin/load-bundle.js',
      'package/dist/cli-bundle/package.json',
      'package/dist/cli-bundle/main.js',
      'package/dist/cli-bundle/main.js.cache',
      'package/dist/cli-bundle/validate.js.cache',
      'package/dist/cli-bundle/validate-worker.js',
    ];
    for (const f of files) expect(entries, f).toContain(f);
    expect(readFileSync(join(root, 'bin', 'bqschema.js'), 'utf8')).toContain("require('./load-bundle.js').loadBundled('main.js')");
  });
});

describe('the installed package', () => {
  it('runs `bqschema --version` through its bin', () => {
    // The bin link npm made (the README's lines and the teammate's clone above go through npx).
    const out = must(run(join(project, 'node_modules', '.bin', 'bqschema'), ['--version'], project), 'bqschema --version');
    expect(out.trim()).toBe(pkg.version);
  });

  it('runs the bundled CLI: the shipped dist/cli/main.js carries the mark bin/bqschema.js looks for', () => {
    const installed = join(project, 'node_modules', 'bqschema');
    const mark = /\n(\/\/# bqschema: bundled into \.\.\/cli-bundle\n)$/.exec(
      readFileSync(join(installed, 'dist', 'cli', 'main.js'), 'utf8'),
    )?.[1];
    expect(mark, 'dist/ is not what `npm run build` leaves: rm -rf dist && npm run build').toBeDefined();
    expect(readFileSync(join(installed, 'bin', 'bqschema.js'), 'utf8')).toContain(
      "const MARK = '//# bqschema: bundled into ../cli-bundle\\n';",
    );
  });

  it('brings its runtime dependencies: validate reads a YAML schema and fails bad data', () => {
    mkdirSync(join(project, 'reg'));
    writeFileSync(
      join(project, 'reg', 'registry.json'),
      JSON.stringify({ $schema: '../node_modules/bqschema/registry.schema.json', schemas: [{ urn: 'urn:t:order', schema: 'order.yaml' }] }),
    );
    writeFileSync(join(project, 'reg', 'order.yaml'), 'type: object\nrequired: [id]\nproperties:\n  id: {type: integer, minimum: 1}\n');
    writeFileSync(join(project, 'bad.json'), JSON.stringify({ job: 'urn:t:order', data: { id: 0 } }));
    writeFileSync(join(project, 'good.json'), JSON.stringify({ job: 'urn:t:order', data: { id: 3 } }));

    // The bin link npm made, as npx runs it.
    const bin = join(project, 'node_modules', '.bin', 'bqschema');
    const bad = run(bin, ['validate', '--registry', 'reg/registry.json', 'bad.json'], project);
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toContain('/id');
    expect(bad.stdout).toContain('FAILED');
    const good = run(bin, ['validate', '--registry', 'reg/registry.json', 'good.json'], project);
    expect(good.code, good.stderr).toBe(0);
    // The $schema path above resolves to the shipped editor schema.
    expect(existsSync(join(project, 'node_modules', 'bqschema', 'registry.schema.json'))).toBe(true);
  });

  it('is importable as an ES module and gives real verdicts', () => {
    writeFileSync(
      join(project, 'consumer.mjs'),
      `import { check, wrap, MapProvider } from 'bqschema';
const provider = new MapProvider({ 'urn:t:order': { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } } });
const bad = check(provider, 'urn:t:order', { id: 0 });
const good = check(provider, 'urn:t:order', { id: 5 });
const handler = wrap(provider, async (env) => 'handled ' + env.data.id);
const handled = await handler({ job: 'urn:t:order', data: { id: 7 } });
let rejected = 'not rejected';
try { await handler({ job: 'urn:t:order', data: {} }); } catch (e) { rejected = e.code; }
console.log(JSON.stringify({ bad: bad.map((v) => [v.instancePath, v.keyword]), good, handled, rejected }));
`,
    );
    const out = must(run(process.execPath, ['consumer.mjs'], project), 'node consumer.mjs');
    expect(JSON.parse(out)).toEqual({ bad: [['/id', 'minimum']], good: [], handled: 'handled 7', rejected: 'BQ_INVALID_PAYLOAD' });
  });

  it('is requirable from CommonJS: the same verdicts, no warning; an older Node is told to use import()', () => {
    writeFileSync(
      join(project, 'consumer.cjs'),
      `const { check, MapProvider } = require('bqschema');
const { runProviderSuite } = require('bqschema/conformance');
const esm = import('bqschema');
const provider = new MapProvider({ 'urn:t:order': { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } } });
esm.then((m) => console.log(JSON.stringify({
  bad: check(provider, 'urn:t:order', { id: 0 }).map((v) => [v.instancePath, v.keyword]),
  same: m.check === check && m.MapProvider === MapProvider,
  suite: typeof runProviderSuite,
})));
`,
    );
    const r = run(process.execPath, ['consumer.cjs'], project);
    expect(r.stderr).toBe(''); // require of an ES module under node_modules warns nothing
    expect(JSON.parse(r.stdout)).toEqual({ bad: [['/id', 'minimum']], same: true, suite: 'function' });
    // Node < 20.19 has no require of ES modules; this flag gives the same refusal.
    const old = run(process.execPath, ['--no-experimental-require-module', '-e', "require('bqschema')"], project);
    expect(old.code).toBe(1);
    expect(old.stderr).toMatch(
      /bqschema is an ES module and this Node \(v[\d.]+\) cannot require\(\) one: use Node >= 20\.19, or `const bqschema = await import\('bqschema'\)`/,
    );
  });

  it('bqschema compile writes a module that imports bqschema/standalone from the install and runs without code generation; the browser condition gets dist/browser.js', () => {
    mkdirSync(join(project, 'sreg'));
    writeFileSync(join(project, 'sreg', 'registry.json'), JSON.stringify({ schemas: [{ urn: 'urn:t:order', schema: 'order.json' }] }));
    writeFileSync(
      join(project, 'sreg', 'order.json'),
      JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1 } } }),
    );
    must(
      run(
        join(project, 'node_modules', '.bin', 'bqschema'),
        ['compile', '--registry', 'sreg/registry.json', '-o', 'validators.mjs'],
        project,
      ),
      'bqschema compile',
    );
    writeFileSync(
      join(project, 'standalone.mjs'),
      `import { check } from 'bqschema';
import { provider } from './validators.mjs';
let refused = false;
try { new Function('return 1'); } catch { refused = true; }
console.log(JSON.stringify({ refused, bad: check(provider, 'urn:t:order', { id: 0 }).map((v) => [v.instancePath, v.keyword]), good: check(provider, 'urn:t:order', { id: 2 }) }));
`,
    );
    const r = run(process.execPath, ['--disallow-code-generation-from-strings', 'standalone.mjs'], project);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ refused: true, bad: [['/id', 'minimum']], good: [] });
    const browser = run(
      process.execPath,
      [
        '--conditions=browser',
        '--input-type=module',
        '-e',
        "const m = await import('bqschema'); console.log(import.meta.resolve('bqschema').endsWith('/dist/browser.js'), typeof m.check, typeof m.DirProvider)",
      ],
      project,
    );
    expect([browser.stderr, browser.stdout.trim()]).toEqual(['', 'true function undefined']);
  });

  it('@arethetypeswrong/cli and publint find no problem in the packed tarball (node10, node16 from CJS and ESM, bundler)', () => {
    const attw = run(
      process.execPath,
      [join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js'), tarball, '--format', 'json'],
      work,
    );
    const problems = (JSON.parse(attw.stdout) as { analysis: { problems: unknown[] } }).analysis.problems;
    expect(problems).toEqual([]);
    const publint = run(
      process.execPath,
      [join(root, 'node_modules', 'publint', 'src', 'cli.js'), '--strict', join(project, 'node_modules', 'bqschema')],
      work,
    );
    expect(publint.stdout + publint.stderr).toMatch(/All good!/);
    expect(publint.code).toBe(0);
  }, 120_000);

  describe('types: every moduleResolution a TypeScript project may use, from ES modules and CommonJS, skipLibCheck off', () => {
    // No @types/node: the library's declarations must stand on their own; skipLibCheck is off so the
    // shipped .d.ts and .d.cts files are checked too (TS1542 in node16 was found so).
    // Each consumer uses every entry, a class as a type, an interface and a generic type, and ends
    // with one deliberate type error: that exactly it is reported proves the types were read (an
    // unresolved module would be `any`, and pass).
    const esm = `import { check, wrap, MapProvider, type Envelope, type Provider, type Violation } from 'bqschema';
import { runProviderSuite, type ProviderFactory } from 'bqschema/conformance';
import { define, STANDALONE_RUNTIME } from 'bqschema/standalone';
import * as node from 'bqschema/babelqueue-node';
const provider: Provider = new MapProvider({ 'urn:t:order': { type: 'object', required: ['id'] } });
const map: MapProvider = new MapProvider({});
const v: Violation[] = check(provider, 'urn:t:order', { id: 0 });
const where: string | undefined = v[0]?.instancePath;
const handler: (env: Envelope<{ id: number }>) => Promise<number> = wrap(provider, async (env: Envelope<{ id: number }>) => env.data.id);
const factory: ProviderFactory | undefined = undefined;
const dropIn: node.InvalidPayloadError | undefined = undefined;
export { map, where, handler, factory, dropIn, runProviderSuite, define, STANDALONE_RUNTIME };
export const bad: number = check(provider, 'urn:t:order', {});
`;
    const cjs = `import { check, MapProvider, type Envelope, type Violation } from 'bqschema';
import bq = require('bqschema');
import conformance = require('bqschema/conformance');
import standalone = require('bqschema/standalone');
import node = require('bqschema/babelqueue-node');
const map: MapProvider = new MapProvider({ 'urn:t:order': { type: 'object', required: ['id'] } });
const v: Violation[] = check(map, 'urn:t:order', { id: 0 });
const w: bq.Violation[] = bq.check(new bq.MapProvider({}), 'urn:t:order', {});
const e: Envelope<{ id: number }> | undefined = undefined;
const f: conformance.ProviderFactory | undefined = undefined;
const n: node.InvalidPayloadError | undefined = undefined;
const runtime: number = standalone.STANDALONE_RUNTIME;
export { v, w, e, f, n, runtime };
export const bad: number = bq.check(map, 'urn:t:order', {});
`;
    // module node18 is node16's resolution with import attributes allowed, which neither the consumers
    // nor the declarations use: what node18 would report, node16 reports, so node16 stands for both.
    const modes: Array<[string, Record<string, string>, string[]]> = [
      ['node16', { module: 'node16' }, ['esm.mts', 'cjs.cts']],
      ['nodenext', { module: 'nodenext' }, ['esm.mts', 'cjs.cts']],
      ['bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['esm.mts']],
      ['bundler (module preserve)', { module: 'preserve', moduleResolution: 'bundler' }, ['esm.mts', 'cjs.cts']],
      ['node10', { module: 'commonjs', moduleResolution: 'node10' }, ['cjs.cts']],
    ];
    const results = new Map<string, string[]>();
    /** Errors tsc reported before it named a project (a config it could not read). */
    const unplaced: string[] = [];
    beforeAll(async () => {
      const dir = join(project, 'ts');
      mkdirSync(dir);
      writeFileSync(join(dir, 'esm.mts'), esm);
      writeFileSync(join(dir, 'cjs.cts'), cjs);
      // One `tsc --build` checks the six projects, each its own program with its own module
      // resolution, in one process: six `tsc -p` processes would each load TypeScript and the
      // default library again. --verbose names each project before its errors.
      const configOf = new Map<string, string>();
      for (const [name, options, files] of modes) {
        const config = `tsconfig.${name.replace(/\W+/g, '-')}.json`;
        const compilerOptions = {
          ...options,
          target: 'es2022',
          lib: ['es2022'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        };
        writeFileSync(join(dir, config), JSON.stringify({ compilerOptions, files }));
        configOf.set(join(dir, config), name);
      }
      const out = await new Promise<string>((done, fail) => {
        execFile(
          process.execPath,
          [tsc, '--build', '--verbose', '--pretty', 'false', ...configOf.keys()],
          { cwd: dir, env: childEnv(), maxBuffer: 64 * 1024 * 1024 },
          (err, stdout, stderr) => {
            if (err !== null && typeof err.code !== 'number') fail(err);
            else done(stdout + stderr);
          },
        );
      });
      let current: string[] = unplaced;
      for (const l of out.split('\n')) {
        const building = / - Building project '([^']+)'\.\.\.$/.exec(l);
        if (building !== null) {
          const name = configOf.get(building[1]!);
          if (name === undefined) throw new Error(`tsc built a project the test did not write: ${l}`);
          current = [];
          results.set(name, current);
        } else if (/ error TS\d+/.test(l)) current.push(l);
      }
      for (const errors of results.values()) errors.sort();
    }, 240_000);

    for (const [name, , files] of modes) {
      it(`${name}: the consumers compile against the shipped declarations, and only the deliberate error is reported`, () => {
        const line = (text: string): number => text.split('\n').findIndex((l) => l.startsWith('export const bad')) + 1;
        const expected = [...files].sort().map((f) => {
          const at = `${f.replace('.', '\\.')}\\(${line(f === 'esm.mts' ? esm : cjs)},14\\)`;
          return expect.stringMatching(
            new RegExp(`^${at}: error TS2322: Type '(bq\\.)?Violation\\[\\]' is not assignable to type 'number'`),
          );
        });
        expect(unplaced).toEqual([]);
        expect(results.get(name)).toEqual(expected);
      });
    }
  });
});

describe('the output schemas are part of the package exports', () => {
  it('import (with type json) and require both reach every schemas/output/*.json, equal to the file', () => {
    const names = readdirSync(join(root, 'schemas', 'output'))
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(names.length).toBeGreaterThanOrEqual(5);
    writeFileSync(
      join(project, 'schemas.mjs'),
      `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const out = {};
for (const name of ${JSON.stringify(names)}) {
  const spec = 'bqschema/schemas/output/' + name;
  const { default: imported } = await import(spec, { with: { type: 'json' } });
  out[name] = { imported, required: require(spec), resolved: import.meta.resolve(spec) };
}
console.log(JSON.stringify(out));
`,
    );
    const r = run(process.execPath, ['schemas.mjs'], project);
    expect(r.stderr).toBe('');
    const got = JSON.parse(r.stdout) as Record<string, { imported: unknown; required: unknown; resolved: string }>;
    for (const name of names) {
      const file = JSON.parse(readFileSync(join(root, 'schemas', 'output', name), 'utf8'));
      expect(got[name]!.imported, name).toEqual(file);
      expect(got[name]!.required, name).toEqual(file);
      expect(got[name]!.resolved, name).toMatch(new RegExp(`/node_modules/bqschema/schemas/output/${name.replace('.', '\\.')}$`));
    }
    // The pattern opens that folder alone: the rest of the package stays behind its entries.
    const closed = run(process.execPath, ['-e', "require('bqschema/dist/check/index.js')"], project);
    expect(closed.stderr).toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });
});
