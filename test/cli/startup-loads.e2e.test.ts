import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/program.js';
import { commandModules } from '../helpers/commands.js';
import { bq, expectExit, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

// Every command loads only what it uses (behaviour, not timing): a module-load hook lists what a
// run of the built CLI loads, and the packages a command does not need must not be among them.

afterAll(removeTempTrees);

const hooks = tempTree({
  'hooks.mjs': `import { writeSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) writeSync(2, 'LOADED ' + url + '\\n');
  return next(url, context);
}
`,
  'register.mjs': `import { register } from 'node:module';
import Module from 'node:module';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';
register('./hooks.mjs', import.meta.url);
// CommonJS loads (bin/, yaml and jsonc-parser through createRequire), by resolved file.
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  const m = load.call(this, request, parent, ...rest);
  const file = Module.isBuiltin(request) ? request : Module._resolveFilename(request, parent);
  process.stderr.write((Module.isBuiltin(request) ? 'BUILTIN ' : 'REQUIRED ') + (Module.isBuiltin(request) ? file : pathToFileURL(file).href) + '\\n');
  return m;
};
// The bundled CLI's chunks are compiled by bin/load-bundle.js in a vm.Script: list them too,
// with whether a code cache was given and whether V8 took it.
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    if (options?.filename) {
      const cache = options.cachedData === undefined ? 'none' : this.cachedDataRejected ? 'rejected' : 'used';
      process.stderr.write('LOADED ' + pathToFileURL(options.filename).href + '\\nCACHE ' + cache + ' ' + options.filename + '\\n');
    }
  }
};
`,
});

const registry = tempTree({
  'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:order', schema: 'order.json', owner: 'orders', description: 'An order.' }] }),
  'order.json': JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer', 'x-gdpr-sensitive': true } } }),
  'msg.json': JSON.stringify({ job: 'urn:t:order', data: { id: 1 } }),
});

interface Loaded {
  packages: Set<string>;
  builtins: Set<string>;
  files: string[];
  /** Each bundled chunk compiled: whether its code cache was used, rejected or not there. */
  caches: Map<string, string>;
  code: number;
  stdout: string;
}

const runs = new Map<string, Promise<Loaded>>();
/**
 * The packages (and our own top-level modules) a run loads. A run is the same whichever test asks
 * (one registry, the same arguments and environment), so the tests that ask about the same run
 * share it: 18 runs instead of 36.
 */
function loaded(args: string[], nodeOptions = ''): Promise<Loaded> {
  const key = JSON.stringify([args, nodeOptions]);
  let run = runs.get(key);
  if (run === undefined) runs.set(key, (run = loadedBy(args, nodeOptions)));
  return run;
}

async function loadedBy(args: string[], nodeOptions: string): Promise<Loaded> {
  const r = await bq(args, { cwd: registry, env: { NODE_OPTIONS: `--import ${join(hooks, 'register.mjs')} ${nodeOptions}` } });
  const packages = new Set<string>();
  const builtins = new Set<string>();
  const files: string[] = [];
  const caches = new Map<string, string>();
  for (const line of r.stderr.split('\n')) {
    const cache = /^CACHE (\S+) (.*)$/.exec(line);
    if (cache) caches.set(cache[2]!.slice(ROOT.length), cache[1]!);
    const builtin = /^BUILTIN (.*)$/.exec(line);
    if (builtin) builtins.add(builtin[1]!.replace(/^node:/, ''));
    const m = /^(?:LOADED|REQUIRED) (.*)$/.exec(line);
    if (!m) continue;
    const what = m[1]!;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(what)?.[1];
    if (pkg !== undefined) packages.add(pkg);
    if (what.startsWith('file://') && !what.includes('/node_modules/')) files.push(what.slice(`file://${ROOT}`.length));
  }
  return { packages, builtins, files, caches, code: r.code, stdout: r.stdout };
}

describe('each command loads only what it uses', () => {
  it('--version reads package.json and loads no package and no other module of ours', async () => {
    const r = await loaded(['--version']);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect([...r.packages]).toEqual([]);
    expect([...new Set(r.files)].sort()).toEqual(['bin/bqschema.js', 'bin/load-bundle.js', 'dist/cli-bundle/main.js']);
  });

  const commands: Array<[string, string[]]> = [
    ['validate', ['validate', '-r', 'registry.json', 'msg.json']],
    ['check', ['check', '-r', 'registry.json']],
    ['compat', ['compat', 'order.json', 'order.json']],
    ['gdpr', ['gdpr', '-r', 'registry.json']],
    ['export-asyncapi (JSON)', ['export-asyncapi', '-r', 'registry.json']],
    ['types', ['types', '-r', 'registry.json']],
  ];
  for (const [name, args] of commands) {
    it(`${name} on a JSON registry loads neither yaml nor jsonc-parser (nor chalk, which is gone)`, async () => {
      const r = await loaded(args);
      expect(r.code, name).toBe(0);
      for (const pkg of ['yaml', 'jsonc-parser', 'chalk', '@asyncapi/specs', 'ajv'])
        expect(r.packages.has(pkg), `${name} loaded ${pkg}`).toBe(false);
    });
  }

  it('export-asyncapi loads yaml when it writes YAML, and only then', async () => {
    const r = await loaded(['export-asyncapi', '-r', 'registry.json', '--doc-format', 'yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^asyncapi: 3\.0\.0$/m);
    expect(r.packages.has('yaml')).toBe(true);
  });

  it('--help of a command loads commander and none of the command modules', async () => {
    const r = await loaded(['check', '--help']);
    expect(r.code).toBe(0);
    expect([...r.packages].filter((p) => p !== 'commander')).toEqual([]);
    expect(r.files.some((f) => /check/.test(f))).toBe(false);
  });
});

describe('colour without chalk', () => {
  const args = ['validate', '-r', 'registry.example.json', 'examples/messages'];
  const esc = /\u001b\[/;

  it('a pipe gets no colour; FORCE_COLOR turns it on, FORCE_COLOR=0 does not, and NO_COLOR always wins', async () => {
    const [plain, forced, zero, both] = await Promise.all([
      bq(args, { env: { NO_COLOR: undefined, FORCE_COLOR: undefined } }),
      bq(args, { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } }),
      bq(args, { env: { NO_COLOR: undefined, FORCE_COLOR: '0' } }),
      bq(args, { env: { NO_COLOR: '1', FORCE_COLOR: '1' } }),
    ]);
    for (const r of [plain, forced, zero, both]) expectExit(r, 1);
    expect(plain.stdout).not.toMatch(esc);
    expect(zero.stdout).not.toMatch(esc);
    expect(both.stdout).not.toMatch(esc);
    // The same escapes chalk wrote at level 1: bold 1/22, dim 2/22, red 31/39, green 32/39, yellow 33/39.
    expect(forced.stdout).toContain('\u001b[32m✓ valid\u001b[39m');
    expect(forced.stdout).toContain('\u001b[31m✗ invalid\u001b[39m');
    expect(forced.stdout).toMatch(/\u001b\[1mexamples\/messages\/valid\/order-created\.json\u001b\[22m/);
    expect(forced.stdout).toContain('\u001b[31mFAILED\u001b[39m');
    // Without the escapes it is the plain output, byte for byte.
    expect(forced.stdout.replace(/\u001b\[\d+m/g, '')).toBe(plain.stdout);
  });
});

describe('the bundled CLI and its code cache (bin/load-bundle.js)', () => {
  const runs: Array<[string, string[]]> = [
    ['validate', ['validate', '-r', 'registry.json', 'msg.json']],
    ['check', ['check', '-r', 'registry.json']],
    ['export-asyncapi', ['export-asyncapi', '-r', 'registry.json']],
  ];

  // The commands CI runs on every pull request, in the Action's formats (annotations on stdout, the
  // markdown job summary beside them): every chunk they load comes with a cache.
  const ciRuns: Array<[string, string[]]> = [
    ['validate', ['validate', '-r', 'registry.json', 'msg.json']],
    [
      'validate --format github',
      ['validate', '-r', 'registry.json', '--strict', '--format', 'github', '--report', 'markdown=summary.md', 'msg.json'],
    ],
    ['check', ['check', '-r', 'registry.json']],
    ['check --format github', ['check', '-r', 'registry.json', '--format', 'github', '--report', 'markdown=summary.md']],
    ['compat', ['compat', 'order.json', 'order.json']],
    ['compat --format github', ['compat', '--format', 'github', '--report', 'markdown=summary.md', 'order.json', 'order.json']],
  ];

  it('runs every chunk check, validate and compat load from the code cache the build made for it', async () => {
    for (const [name, args] of ciRuns) {
      const r = await loaded(args);
      expect(r.code, name).toBe(0);
      expect(r.caches.size, name).toBeGreaterThan(3);
      for (const [chunk, cache] of r.caches) expect(`${chunk}: ${cache}`, name).toBe(`${chunk}: used`);
    }
  });

  it('gives the other commands no cache of their own: their chunks, and the AsyncAPI validator, compile from source (the 2.75 MB budget)', async () => {
    const own: Array<[string, string[], string[]]> = [
      [
        'export-asyncapi',
        ['export-asyncapi', '-r', 'registry.json'],
        ['dist/cli-bundle/export-asyncapi.js', 'dist/asyncapi/generated/spec-validator.cjs'],
      ],
      ['gdpr', ['gdpr', '-r', 'registry.json'], ['dist/cli-bundle/gdpr.js', 'dist/cli-bundle/sensitive-paths.js']],
      ['types', ['types', '-r', 'registry.json'], ['dist/cli-bundle/types.js']],
    ];
    for (const [name, args, chunks] of own) {
      const r = await loaded(args);
      expect(r.code, name).toBe(0);
      for (const chunk of chunks) expect(`${chunk}: ${r.caches.get(chunk)}`, name).toBe(`${chunk}: none`);
      // What they share with check, validate and compat is still read from its cache.
      expect(r.caches.get('dist/cli-bundle/main.js'), name).toBe('used');
      expect(r.caches.get('dist/cli-bundle/program.js'), name).toBe('used');
    }
  });

  it('a cache V8 rejects (other V8 flags) is ignored: the same output, each chunk compiled from source', async () => {
    for (const [name, args] of runs) {
      const [cached, rejected] = await Promise.all([loaded(args), loaded(args, '--stack-trace-limit=11')]);
      expect(rejected.code, name).toBe(0);
      // The first chunk's cache is tried and rejected; the rest are not read.
      const states = [...rejected.caches.values()];
      expect(states[0], name).toBe('rejected');
      expect(new Set(states.slice(1)), name).toEqual(new Set(['none']));
      expect(rejected.stdout, name).toBe(cached.stdout);
      expect([...rejected.caches.keys()].sort(), name).toEqual([...cached.caches.keys()].sort());
    }
  });

  it('node:crypto loads only where a run hashes: not for validate, compat, gdpr, types or export-asyncapi to stdout', async () => {
    const runs: string[][] = [
      ['validate', '-r', 'registry.json', 'msg.json'],
      ['compat', 'order.json', 'order.json'],
      ['gdpr', '-r', 'registry.json'],
      ['types', '-r', 'registry.json'],
      ['export-asyncapi', '-r', 'registry.json'],
    ];
    for (const args of runs) {
      const r = await loaded(args);
      expect(r.code, args[0]).toBe(0);
      expect(r.builtins.has('crypto'), args[0]).toBe(false);
    }
    // check derives schema ids with SHA-256: there it loads, through the same lazy wrapper.
    const check = await loaded(['check', '-r', 'registry.json']);
    expect(check.code).toBe(0);
    expect(check.builtins.has('crypto')).toBe(true);
  });

  it('the message reader (inputs) and the envelope rules (guard) load only where messages are read', async () => {
    // The envelope rules are src/guard/envelope.ts, a chunk of their own, which the runtime guard's
    // chunk (guard) loads too.
    const chunks = (r: Loaded) => ['inputs', 'guard', 'envelope'].filter((c) => r.files.includes(`dist/cli-bundle/${c}.js`));
    const [gdpr, mask, compat, catalog, catalogMessages] = await Promise.all([
      loaded(['gdpr', '-r', 'registry.json']),
      loaded(['gdpr', '-r', 'registry.json', '--mask', 'msg.json']),
      loaded(['compat', 'order.json', 'order.json']),
      loaded(['catalog', '-r', 'registry.json', '--no-history']),
      loaded(['catalog', '-r', 'registry.json', '--no-history', '--messages', 'msg.json']),
    ]);
    for (const r of [gdpr, mask, compat, catalog, catalogMessages]) expect(r.code).toBe(0);
    expect(chunks(gdpr)).toEqual([]);
    // --mask reads envelopes with the rules alone, not the whole runtime guard.
    expect(chunks(mask)).toEqual(['inputs', 'envelope']);
    // compat's corpus judge (src/compat/evidence.ts) imports the small envelope module statically;
    // the message reader loads only with --corpus.
    expect(chunks(compat)).toEqual(['envelope']);
    expect(chunks(catalog)).toEqual([]);
    expect(chunks(catalogMessages)).toEqual(['inputs', 'guard', 'envelope']);
    // catalog judges schema changes only for the history.
    expect(catalog.files.some((f) => /\/compat[^/]*\.js$/.test(f))).toBe(false);
  });

  it('validate loads neither node:child_process nor a command module it does not run', async () => {
    const r = await loaded(['validate', '-r', 'registry.json', 'msg.json']);
    expect(r.code).toBe(0);
    expect(r.builtins.has('child_process')).toBe(false);
    // Every other command's chunk: the module its handler imports (a chunk is named by its module).
    const modules = commandModules();
    expect([...modules.keys()]).toEqual(COMMANDS.map((c) => c.name));
    const others = [...modules].filter(([name]) => name !== 'validate').map(([, module]) => module);
    for (const other of others) {
      expect(existsSync(join(ROOT, 'dist', 'cli-bundle', `${other}.js`)), `${other}: no such chunk`).toBe(true);
      expect(r.files, other).not.toContain(`dist/cli-bundle/${other}.js`);
    }
  });
});

describe('a code cache made from another source is not used', () => {
  it('a chunk whose tag differs from its cache file runs without the cache, with the same output', () => {
    // A copy of the built package, with one cache file's tag changed.
    const copy = tempTree({});
    for (const d of ['bin', 'dist']) cpSync(join(ROOT, d), join(copy, d), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    const cacheFile = join(copy, 'dist', 'cli-bundle', 'check.js.cache');
    const bytes = readFileSync(cacheFile);
    bytes[0] = bytes[0] === 0x30 ? 0x31 : 0x30; // the first hex digit of the tag
    writeFileSync(cacheFile, bytes);
    const run = (bin: string) =>
      spawnSync(process.execPath, [bin, 'check', '-r', 'registry.json'], {
        cwd: registry,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: `--import ${join(hooks, 'register.mjs')}` },
      });
    const [mine, theirs] = [run(join(copy, 'bin', 'bqschema.js')), run(join(ROOT, 'bin', 'bqschema.js'))];
    expect(mine.status).toBe(0);
    expect(mine.stdout).toBe(theirs.stdout);
    const state = (stderr: string, chunk: string) => new RegExp(`^CACHE (\\S+) .*/dist/cli-bundle/${chunk}$`, 'm').exec(stderr)?.[1];
    expect(state(mine.stderr, 'check.js')).toBe('none');
    expect(state(theirs.stderr, 'check.js')).toBe('used');
    expect(state(mine.stderr, 'main.js')).toBe('used');
  });
});
