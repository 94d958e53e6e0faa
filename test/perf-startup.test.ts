import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, removeTempTrees, ROOT, tempTree } from './helpers/cli.js';

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
register('./hooks.mjs', import.meta.url);
// yaml and jsonc-parser are required through createRequire: list CommonJS loads too.
const load = Module._load;
Module._load = function (request, ...rest) {
  const m = load.call(this, request, ...rest);
  process.stderr.write('REQUIRED ' + request + '\\n');
  return m;
};
`,
});

const registry = tempTree({
  'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:order', schema: 'order.json', owner: 'orders', description: 'An order.' }] }),
  'order.json': JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer', 'x-gdpr-sensitive': true } } }),
  'msg.json': JSON.stringify({ job: 'urn:t:order', data: { id: 1 } }),
});

/** The packages (and our own top-level modules) a run loads. */
async function loaded(args: string[]): Promise<{ packages: Set<string>; files: string[]; code: number; stdout: string }> {
  const r = await bq(args, { cwd: registry, env: { NODE_OPTIONS: `--import ${join(hooks, 'register.mjs')}` } });
  const packages = new Set<string>();
  const files: string[] = [];
  for (const line of r.stderr.split('\n')) {
    const m = /^(?:LOADED|REQUIRED) (.*)$/.exec(line);
    if (!m) continue;
    const what = m[1]!;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(what)?.[1] ?? (/^[a-z@][^:./]*$/.test(what) ? what : undefined);
    if (pkg !== undefined) packages.add(pkg);
    if (what.startsWith('file://') && !what.includes('/node_modules/')) files.push(what.slice(`file://${ROOT}`.length));
  }
  return { packages, files, code: r.code, stdout: r.stdout };
}

describe('each command loads only what it uses', () => {
  it('--version reads package.json and loads no package and no other module of ours', async () => {
    const r = await loaded(['--version']);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect([...r.packages]).toEqual([]);
    expect(r.files).toHaveLength(2); // bin/bqschema.js and the CLI's main module
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
      for (const pkg of ['yaml', 'jsonc-parser', 'chalk', '@asyncapi/specs', 'ajv']) expect(r.packages.has(pkg), `${name} loaded ${pkg}`).toBe(false);
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
