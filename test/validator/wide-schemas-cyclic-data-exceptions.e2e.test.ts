// A schema too wide for one
// function, cyclic data against enum/const, exception paths that keep an enum value's JSON type,
// repeated keys in an exceptions file.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/index.js';
import { schemaFingerprint as fingerprintOf } from '../../src/compat/index.js';
import { expectRun, guardRepo, removeTrees, ROOT, run, tree } from '../helpers/hostile.js';

afterAll(removeTrees);

guardRepo();

function wide(n: number): { type: string; properties: Record<string, unknown> } {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) properties[`p${i}`] = { type: 'null' };
  return { type: 'object', properties };
}

/*
 * One generated function checking every property of a wide object gets a frame that grows with the
 * width (a register per local), and a frame larger than the stack overflows it: with node's default
 * stack (984 KB) that took more than 100,000 properties (160,000 did). The tests below run with a
 * smaller stack, where a frame that grows with the width overflows at a smaller width, and the
 * functions of at most FUNCTION_BUDGET nodes that compile splits it into do not: built with the
 * split turned off (FUNCTION_BUDGET = Infinity), the CLI under --stack-size=100 fails validate
 * (internal error: Maximum call stack size exceeded) from 20,000 properties on, and compile in a
 * thread with a 0.4 MB stack from 30,000 on; the widths used are twice that, and pass.
 */
describe('a schema wider than one function can hold (item 6)', { timeout: 120_000 }, () => {
  it('40,000 properties under a 100 KB stack: check says OK and validate judges both messages (before: isValid overflowed the stack)', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:wide', schema: 'wide.json' }] }),
      'wide.json': JSON.stringify(wide(40_000)),
      'ok.json': '{"job":"urn:test:wide","data":{"p0":null,"p39999":null}}',
      'bad.json': '{"job":"urn:test:wide","data":{"p0":null,"p39999":1}}',
    });
    const small = { cwd: dir, timeoutMs: 100_000, nodeFlags: ['--stack-size=100'] };
    const check = await run(['check'], small);
    expectRun(check, 0);
    // One run judges both (each line names its file): the schema is compiled once, not twice.
    const both = await run(['validate', 'ok.json', 'bad.json'], small);
    expectRun(both, 1);
    expect(both.stdout).toMatch(/^✓ valid +ok\.json +urn:test:wide$/m);
    expect(both.stdout).toMatch(/^✗ invalid +bad\.json +urn:test:wide\n +\/p39999 +must be null, got integer$/m);
    expect(both.stdout).toMatch(/^FAILED: 2 messages: 1 valid, 1 invalid, 0 skipped, 0 errors$/m);
  });

  it('compile splits the checks: isValid and validate agree on either end of 60,000 properties, in a thread with a 0.4 MB stack', async () => {
    // The built library, in a worker thread: a thread's stack size can be chosen, this process's cannot.
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.url).then(({ compile }) => {
        const properties = {};
        for (let i = 0; i < workerData.n; i++) properties['p' + i] = { type: 'null' };
        const c = compile({ type: 'object', properties }, { onWarning() {} });
        const last = 'p' + (workerData.n - 1);
        parentPort.postMessage([
          c.isValid({ p0: null, [last]: null }),
          c.isValid({ p0: null, [last]: 1 }),
          c.isValid({ p0: 'x' }),
          c.validate({ p0: 'x', [last]: 1 }).map((v) => v.instancePath),
        ]);
      });`;
    const url = pathToFileURL(join(ROOT, 'dist', 'index.js')).href;
    const worker = new Worker(source, { eval: true, workerData: { url, n: 60_000 }, resourceLimits: { stackSizeMb: 0.4 } });
    const verdicts = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(verdicts).toEqual([true, false, false, ['/p0', '/p59999']]);
  });

  it('compile in this process: isValid and validate agree on either end of 2,000 properties (four functions)', () => {
    const c = compile(wide(2_000), { onWarning() {} });
    expect(c.isValid({ p0: null, p1999: null })).toBe(true);
    expect(c.isValid({ p0: null, p1999: 1 })).toBe(false);
    expect(c.isValid({ p0: 'x' })).toBe(false);
    expect(c.validate({ p0: 'x', p1999: 1 }).map((v) => v.instancePath)).toEqual(['/p0', '/p1999']);
  });
});

describe('cyclic data against enum and const (item 7)', { timeout: 30_000 }, () => {
  const cyclic = (): Record<string, unknown> => {
    const d: Record<string, unknown> = { a: 1 };
    d.self = d;
    return d;
  };
  const nine = Array.from({ length: 9 }, (_, i) => ({ a: i }));
  const wrap = (v: unknown): unknown => ({ x: v });
  const bare = (v: unknown): unknown => v;
  it.each([
    ['an enum of 9 objects (a hash lookup)', { enum: nine }, bare, nine[8]],
    ['an enum of 3 objects', { enum: nine.slice(0, 3) }, bare, nine[2]],
    ['a const object', { const: { a: 1, self: { a: 1 } } }, bare, { a: 1, self: { a: 1 } }],
    ['a nested enum of 9 objects', { properties: { x: { enum: nine } } }, wrap, nine[0]],
  ])('%s: isValid and validate throw TypeError naming the cycle, promptly', (_name, schema, at, allowed) => {
    const c = compile(schema);
    expect(() => c.isValid(at(cyclic()))).toThrow(
      new TypeError('the data contains a cycle (an object or array that contains itself), so it is not JSON'),
    );
    expect(() => c.validate(at(cyclic()))).toThrow(TypeError);
    // Acyclic data keeps its verdicts.
    expect(c.isValid(at(allowed))).toBe(true);
    expect(c.isValid(at({ a: 99 }))).toBe(false);
    expect(c.validate(at({ a: 99 }))).toHaveLength(1);
  });
});

const URN = 'urn:test:x';
const NOW = { BQSCHEMA_NOW: '2026-06-01' };
const schemaWith = (values: unknown[]): unknown => ({ type: 'object', properties: { x: { enum: values } } });

function exceptionsYaml(path: string, old: unknown): string {
  return [
    'exceptions:',
    `  - urn: ${URN}`,
    '    rule: enum-value-removed',
    `    path: '${path.replace(/'/g, "''")}'`,
    `    fingerprint: "${fingerprintOf(old)}"`,
    '    reason: reviewed',
    '    owner: team',
    '    expires: "2099-01-01"',
    '',
  ].join('\n');
}

describe("exception paths keep an enum value's JSON type (item 8)", { timeout: 60_000 }, () => {
  // A number and null (typeof 'object', the odd one in JavaScript): a boolean takes the number's
  // way through compat's exception paths (JSON.stringify of the value, JSON.parse of the string).
  it.each([
    [1, '1', 'a'],
    [null, 'null', 'a'],
  ])('an exception for removing %j does not excuse removing %j', async (value, lookalike, other) => {
    const old = schemaWith([value, lookalike, other]);
    const dir = tree({
      'old.json': JSON.stringify(old),
      'no-value.json': JSON.stringify(schemaWith([lookalike, other])),
      'no-string.json': JSON.stringify(schemaWith([value, other])),
      'ex.yaml': exceptionsYaml(`/properties/x/enum/${JSON.stringify(value)}`, old),
      'ex-string.yaml': exceptionsYaml(`/properties/x/enum/"${lookalike}"`, old),
    });
    const args = (next: string, ex: string): string[] => ['compat', 'old.json', next, '--urn', URN, '--exceptions', ex];
    // The reviewed removal is excused...
    expectRun(await run(args('no-value.json', 'ex.yaml'), { cwd: dir, env: NOW }), 0);
    // ...the look-alike string's is not, and the unused exception says how to name the string.
    const r = await run(args('no-string.json', 'ex.yaml'), { cwd: dir, env: NOW });
    expectRun(r, 1);
    expect(r.stdout).toContain(`enum value ${JSON.stringify(lookalike)} removed`);
    expect(r.stdout).toContain(`for the string ${JSON.stringify(lookalike)}, the path is /properties/x/enum/"${lookalike}"`);
    // The string is named quoted, and that names only the string.
    expectRun(await run(args('no-string.json', 'ex-string.yaml'), { cwd: dir, env: NOW }), 0);
    expectRun(await run(args('no-value.json', 'ex-string.yaml'), { cwd: dir, env: NOW }), 1);
  });

  it('a string that does not read as JSON keeps its bare path (old files keep working)', async () => {
    const old = schemaWith(['USD', 'TRY']);
    const dir = tree({
      'old.json': JSON.stringify(old),
      'new.json': JSON.stringify(schemaWith(['USD'])),
      'ex.yaml': exceptionsYaml('/properties/x/enum/TRY', old),
    });
    expectRun(await run(['compat', 'old.json', 'new.json', '--urn', URN, '--exceptions', 'ex.yaml'], { cwd: dir, env: NOW }), 0);
  });
});

describe('a repeated key in an exceptions file (item 12)', { timeout: 60_000 }, () => {
  const old = schemaWith(['USD', 'TRY']);
  const entry = {
    urn: URN,
    rule: 'enum-value-removed',
    path: '/properties/x/enum/TRY',
    fingerprint: fingerprintOf(old),
    reason: 'reviewed',
    owner: 'team',
    expires: '2020-01-01',
  };
  const json = JSON.stringify({ exceptions: [entry] }, null, 2).replace(
    '"expires": "2020-01-01"',
    '"expires": "2020-01-01",\n      "expires": "2099-01-01"',
  );
  const yaml = exceptionsYaml('/properties/x/enum/TRY', old).replace(
    '    expires: "2099-01-01"\n',
    '    expires: "2020-01-01"\n    expires: "2099-01-01"\n',
  );
  it.each([
    ['YAML', 'ex.yaml', yaml, 9, 5],
    ['JSON', 'ex.json', json, 11, 7],
    ['JSONC', 'ex.jsonc', `// reviewed\n${json}`, 12, 7],
  ])(
    '%s: exit 1, one line naming file:line:col, the key and its first place (before: the last expires held)',
    async (_f, name, text, line, col) => {
      const dir = tree({ 'old.json': JSON.stringify(old), 'new.json': JSON.stringify(schemaWith(['USD'])), [name]: text });
      const r = await run(['compat', 'old.json', 'new.json', '--urn', URN, '--exceptions', name], { cwd: dir, env: NOW });
      expectRun(
        r,
        1,
        new RegExp(
          `^bqschema: ${name.replace('.', '\\.')}:${line}:${col}: the key "expires" appears twice in one object \\(first at line ${line - 1}:${col}\\); remove one$`,
        ),
      );
    },
  );
});
