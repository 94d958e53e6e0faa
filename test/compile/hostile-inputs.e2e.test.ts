// Hostile inputs for `compile`: hostile registries and -o targets. Every failure is one line on
// stderr with its exit code, and nothing is written: not the target, not a temporary file, nothing
// in the repository.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CYCLIC_SCHEMA_YAML,
  describeOutputTargets,
  expectRun,
  guardRepo,
  hostileRegistry,
  listing,
  refusedOpens,
  removeTrees,
  ROOT,
  run,
  tree,
} from '../helpers/hostile.js';

afterAll(removeTrees);

describeOutputTargets('compile', (manifest) => ['compile', '-r', manifest]);

const one = (urn: string, file: string): string => JSON.stringify({ schemas: [{ urn, schema: file }] });

describe('compile: hostile registries', { timeout: 60_000 }, () => {
  guardRepo();

  it('no registry: exit 2, one line, nothing written', async () => {
    const dir = tree({});
    const r = await run(['compile', '-o', 'v.js'], { cwd: dir });
    expectRun(r, 2, /^bqschema: no registry/);
    expect(listing(dir)).toEqual([]);
    const given = await run(['compile', '-r', 'missing.json', '-o', 'v.js'], { cwd: dir });
    expectRun(given, 2, /^bqschema: .*missing\.json/);
    expect(listing(dir)).toEqual([]);
  });

  it('refuses /dev/zero, an outside FIFO and ../../etc/shadow before opening them, and writes nothing', async () => {
    const { dir, outsideFifo } = hostileRegistry();
    const before = listing(dir);
    const r = await run(['compile', '-o', 'v.js'], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
    expectRun(r, 1, /^bqschema: schema file for urn:hostile:zero is outside the registry directory: \/dev\/zero/);
    expect(refusedOpens(r, outsideFifo)).toEqual([]);
    expect(listing(dir)).toEqual(before);
  });

  it('a malformed keyword, a schema that is not JSON, self-referencing YAML and a 2,000-level schema: exit 1, one line naming the URN', async () => {
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < 2000; i++) deep = { type: 'object', properties: { a: deep } };
    const dir = tree({
      'm/registry.json': one('urn:test:bad', 'bad.json'),
      'm/bad.json': '{"type":"object","required":"id"}',
      'n/registry.json': one('urn:test:text', 'text.json'),
      'n/text.json': '{"type": "object",',
      'y/registry.json': one('urn:test:cyc', 'cyc.yaml'),
      'y/cyc.yaml': CYCLIC_SCHEMA_YAML,
      'd/registry.json': one('urn:test:deep', 'deep.json'),
      'd/deep.json': JSON.stringify(deep),
    });
    const before = listing(dir);
    const cases: Array<[string, RegExp]> = [
      ['m', /^bqschema: .*urn:test:bad.*required/],
      ['n', /^bqschema: schema file for urn:test:text is malformed: .*text\.json/],
      ['y', /^bqschema: schema file for urn:test:cyc is malformed: .*the alias \*p refers to a node that contains it/],
      [
        'd',
        /^bqschema: schema for urn:test:deep \(d\/deep\.json\): the schema is nested deeper than 512 levels \(objects and arrays\), the most bqschema reads; flatten it$/,
      ],
    ];
    for (const [sub, line] of cases) {
      const r = await run(['compile', '-r', join(sub, 'registry.json'), '-o', join(sub, 'v.js')], { cwd: dir });
      expectRun(r, 1, line);
      expect(r.stdout).toBe('');
    }
    expect(listing(dir)).toEqual(before);
  });

  it('-o in a directory that does not exist: exit 2, one line', async () => {
    const dir = tree({ 'registry.json': one('urn:test:a', 'a.json'), 'a.json': '{"type":"object"}' });
    const r = await run(['compile', '-o', 'no/such/v.js'], { cwd: dir });
    expectRun(r, 2, /^bqschema: cannot write no\/such\/v\.js: the directory .* does not exist; nothing was written$/);
    expect(listing(dir)).toEqual(['a.json', 'registry.json']);
  });

  it('hostile URNs and property names are literals in the module: it imports and validates them', async () => {
    const urns = ['urn:"q\'\n</script>\u2028*/`${x}`', '__proto__', 'urn:\\u0041'];
    const schema = { type: 'object', required: ['"); throw 1; ("', '\u2029'], properties: { '*/': { enum: ['`${1}`', '\\', '\n'] } } };
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: urns.map((urn, i) => ({ urn, schema: `s${i}.json` })) }),
      ...Object.fromEntries(urns.map((_, i) => [`s${i}.json`, JSON.stringify(schema)])),
    });
    const r = await run(['compile', '-o', 'v.mjs'], { cwd: dir });
    expectRun(r, 0);
    // Installed, as a project has it: the module imports bqschema/standalone.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'bqschema'));
    const script = `import { validators } from ${JSON.stringify(join(dir, 'v.mjs'))};
      console.log(JSON.stringify([[...validators.keys()], [...validators.values()].map((v) => v.validate({ '*/': 'x' }).map((e) => e.message))]));`;
    const child = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    const [keys, messages] = JSON.parse(child.stdout) as [string[], string[][]];
    expect(keys).toEqual(urns);
    for (const m of messages)
      expect(m).toEqual([
        'must have required property "\\"); throw 1; (\\""',
        'must have required property "\u2029"',
        'must be one of "`${1}`", "\\\\", "\\n"',
      ]);
    expect(readFileSync(join(dir, 'v.mjs'), 'utf8')).not.toContain('\u2028');
  });
});
