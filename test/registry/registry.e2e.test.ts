import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirProvider } from '../../src/index.js';
import { closest, editDistance, parseText, readManifest, Registry, RegistryError } from '../../src/registry/index.js';
import { bq, expectExit, removeTempTrees, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

describe('readManifest: the manifest is held to the same rule as schemas', () => {
  it('an unknown entry key is reported with a did-you-mean; x- keys are allowed', () => {
    const { entries, issues: problems } = readManifest({ schemas: [{ urn: 'urn:t:a', schema: 'a.json', onwer: 'team', 'x-team': 1 }] });
    expect(entries).toHaveLength(1);
    expect(problems).toEqual([
      { pointer: '/schemas/0/onwer', urn: 'urn:t:a', fatal: false, message: 'entry 0: unknown key "onwer" (did you mean "owner"?)' },
    ]);
  });

  it('an unknown top-level key, a URN with surrounding whitespace or not in URN syntax, an unknown status', () => {
    const { issues: problems } = readManifest({
      schema: [],
      schemas: [
        { urn: ' urn:t:a', schema: 'a.json' },
        { urn: 'orders created', schema: 'b.json' },
        { urn: 'urn:t:c', schema: 'c.json', status: 'deprected' },
      ],
    });
    expect(problems.map((p) => [p.pointer, p.message])).toEqual([
      ['/schema', 'unknown key "schema" (did you mean "schemas"?); prefix your own keys with "x-"'],
      ['/schemas/0/urn', 'entry 0: the URN " urn:t:a" has surrounding whitespace'],
      ['/schemas/1/urn', 'entry 1: "orders created" is not in URN syntax (urn:<namespace>:<name>, no spaces)'],
      ['/schemas/2/status', 'entry 2: unknown status "deprected" (did you mean "deprecated"?); known: active, deprecated, experimental'],
    ]);
  });

  it('duplicate URNs and explicit ids are fatal; an id must be an integer from 1 to 2^31-1', () => {
    const { entries, issues: problems } = readManifest({
      schemas: [
        { urn: 'urn:t:a', schema: 'a.json', id: 7 },
        { urn: 'urn:t:b', schema: 'b.json', id: 7 },
        { urn: 'urn:t:a', schema: 'c.json' },
        { urn: 'urn:t:d', schema: 'd.json', id: 1.5 },
      ],
    });
    expect(entries.map((e) => e.urn)).toEqual(['urn:t:a', 'urn:t:b', 'urn:t:d']);
    expect(problems.filter((p) => p.fatal).map((p) => p.message)).toEqual([
      'entry 1: id 7 is also the id of entry 0',
      'URN urn:t:a is registered twice (entries 0 and 2)',
      'entry 3: "id" must be an integer from 1 to 2147483647',
    ]);
  });

  it('`__proto__` and `constructor` are ordinary keys in JSON, JSONC and YAML: reported, never dropped', () => {
    for (const [file, text] of [
      ['r.json', '{"schemas":[{"urn":"urn:t:a","schema":"a.json","__proto__":"x","constructor":"y"}]}'],
      ['r.jsonc', '// c\n{"schemas":[{"urn":"urn:t:a","schema":"a.json","__proto__":"x","constructor":"y",}]}'],
      ['r.yaml', 'schemas:\n  - urn: urn:t:a\n    schema: a.json\n    __proto__: x\n    constructor: y\n'],
    ] as const) {
      const value = parseText(text, file);
      const entry = (value as { schemas: object[] }).schemas[0]!;
      expect(Object.keys(entry), file).toEqual(['urn', 'schema', '__proto__', 'constructor']);
      expect(Object.getPrototypeOf(entry), file).toBe(Object.prototype);
      expect(
        readManifest(value).issues.map((p) => p.pointer),
        file,
      ).toEqual(['/schemas/0/__proto__', '/schemas/0/constructor']);
    }
  });
});

describe('parseText', () => {
  it('refuses a self-referencing YAML document at parse time, naming the file and the alias position', () => {
    const text = 'type: object\nproperties: &p\n  child:\n    type: object\n    properties: *p\n';
    expect(() => parseText(text, 's.yaml')).toThrow(
      's.yaml:5:17: invalid YAML: the alias *p refers to a node that contains it (a self-referencing document)',
    );
    // A shared (not self-referencing) anchor is fine.
    expect(parseText('a: &x {type: string}\nb: *x\n', 's.yaml')).toEqual({ a: { type: 'string' }, b: { type: 'string' } });
  });

  it("a JSONC repeated key keeps its last value, in the first key's place (as JSON.parse does)", () => {
    const text = '{"a": 1, "b": 2, "a": 3}';
    expect(JSON.stringify(parseText(text, 'x.jsonc'))).toBe(JSON.stringify(JSON.parse(text)));
  });
});

describe('Registry: reading files', () => {
  it('a self-referencing YAML schema is a RegistryError naming the URN and position, for the CLI and DirProvider alike', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:loop', schema: 'loop.yaml' }] }),
      'loop.yaml': 'type: object\nproperties: &p\n  child: {type: object, properties: *p}\n',
    });
    const provider = new DirProvider(join(dir, 'registry.json'));
    expect(() => provider.schemaFor('urn:t:loop')).toThrow(
      /schema file for urn:t:loop is malformed: .*loop\.yaml:3:\d+: invalid YAML: the alias \*p refers to a node that contains it/,
    );
    const r = await bq(['check', '--format', 'json'], { cwd: dir });
    expectExit(r, 1);
    expect(JSON.parse(r.stdout).errors[0]).toMatchObject({ urn: 'urn:t:loop', file: 'loop.yaml', line: 3 });
  });

  it('refuses a path outside the registry before opening it: a FIFO outside never hangs the run', () => {
    const dir = tempTree({
      'reg/registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:t:f', schema: '../fifo' },
          { urn: 'urn:t:g', schema: 'inner' },
        ],
      }),
    });
    execFileSync('mkfifo', [join(dir, 'fifo'), join(dir, 'reg', 'inner')]);
    const registry = Registry.workingTree(join(dir, 'reg', 'registry.json'));
    expect(() => registry.document('urn:t:f')).toThrow(expect.objectContaining({ kind: 'outside' }));
    // Inside the directory, a FIFO is opened without blocking and refused as not a regular file.
    expect(() => registry.document('urn:t:g')).toThrow(/schema file for urn:t:g is not a regular file: /);
  });

  it('a device is refused as not a regular file (never read: /dev/zero would never end)', () => {
    const dir = tempTree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:z', schema: 'zero' }] }) });
    symlinkSync('/dev/zero', join(dir, 'zero'));
    const registry = Registry.workingTree(join(dir, 'registry.json'), { allowOutsidePaths: true });
    expect(() => registry.document('urn:t:z')).toThrow(/is not a regular file/);
  });

  it('a symlink loop is unreadable, never treated as missing and then read', () => {
    const dir = tempTree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:l', schema: 'loop.json' }] }) });
    symlinkSync('loop.json', join(dir, 'loop.json'));
    const registry = Registry.workingTree(join(dir, 'registry.json'));
    expect(() => registry.document('urn:t:l')).toThrow(
      expect.objectContaining({ kind: 'unreadable', message: expect.stringMatching(/cannot be resolved: .*loop\.json: ELOOP/) }),
    );
  });

  it('a schema file that is not UTF-8 is malformed, naming the byte offset', () => {
    const dir = tempTree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:b', schema: 'b.json' }] }) });
    writeFileSync(join(dir, 'b.json'), Buffer.from([0x7b, 0x22, 0x61, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
    expect(() => Registry.workingTree(join(dir, 'registry.json')).document('urn:t:b')).toThrow(
      /schema file for urn:t:b is not valid UTF-8 \(byte offset 3\)/,
    );
  });

  it('a failure is not remembered: a fixed file loads on the next call', () => {
    const dir = tempTree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json' }] }) });
    const registry = Registry.workingTree(join(dir, 'registry.json'));
    expect(() => registry.compiled('urn:t:a')).toThrow(RegistryError);
    writeFileSync(join(dir, 'a.json'), '{"type":"object"}');
    expect(registry.compiled('urn:t:a')!.isValid({})).toBe(true);
  });
});

describe('did you mean', () => {
  it('suggests the closest candidate within a third of the word, else nothing', () => {
    expect(editDistance('craeted', 'created')).toBe(1); // a transposition is one edit
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closest('urn:babel:orders:craeted', ['urn:babel:orders:created', 'urn:babel:orders:cancelled'])).toBe(
      'urn:babel:orders:created',
    );
    expect(closest('owner', ['owner'])).toBeUndefined();
    expect(closest('zzzzzz', ['owner', 'status'])).toBeUndefined();
  });
});

describe('validate: --urn, --strict and directory walks', () => {
  const registry = JSON.stringify({ schemas: [{ urn: 'urn:babel:orders:created', schema: 'o.json' }] });

  it('an unregistered --urn is a usage error with a suggestion; nothing is skipped silently', async () => {
    const dir = tempTree({ 'registry.json': registry, 'o.json': '{"type":"object"}', 'data.json': '{}' });
    const r = await bq(['validate', '--urn', 'urn:babel:orders:craeted', 'data.json'], { cwd: dir });
    expectExit(r, 2);
    expect(r.stderr).toBe(
      'bqschema: --urn urn:babel:orders:craeted is not registered in registry.json (did you mean "urn:babel:orders:created"?)\n',
    );
    expect(r.stdout).toBe('');
  });

  it('--strict fails an unknown URN with the same suggestion', async () => {
    const dir = tempTree({
      'registry.json': registry,
      'o.json': '{"type":"object"}',
      'm.json': '{"job":"urn:babel:orders:craeted","data":{}}',
    });
    const [text, json] = await Promise.all([
      bq(['validate', '--strict', 'm.json'], { cwd: dir }),
      bq(['validate', '--strict', '--format', 'json', 'm.json'], { cwd: dir }),
    ]);
    expectExit(text, 1);
    expect(text.stdout).toContain('(no schema registered, --strict; did you mean "urn:babel:orders:created"?)');
    // Under --strict the message is an error (it cannot be judged), with the same suggestion.
    expect(JSON.parse(json.stdout).results[0]).toMatchObject({ status: 'error', suggestion: 'urn:babel:orders:created' });
  });

  it('a directory walk skips node_modules and dot-directories unless they are named', async () => {
    const message = '{"job":"urn:babel:orders:created","data":{}}';
    const dir = tempTree({
      'registry.json': registry,
      'o.json': '{"type":"object"}',
      'msgs/a.json': message,
      'msgs/node_modules/b.json': message,
      'msgs/.cache/c.json': message,
      'msgs/sub/d.json': message,
    });
    const [walked, named] = await Promise.all([
      bq(['validate', '--format', 'json', 'msgs'], { cwd: dir }),
      bq(['validate', '--format', 'json', 'msgs/node_modules', 'msgs/.cache'], { cwd: dir }),
    ]);
    expect((JSON.parse(walked.stdout).results as { file: string }[]).map((r) => r.file)).toEqual(['msgs/a.json', 'msgs/sub/d.json']);
    expect((JSON.parse(named.stdout).results as { file: string }[]).map((r) => r.file)).toEqual([
      'msgs/node_modules/b.json',
      'msgs/.cache/c.json',
    ]);
  });
});

describe('check: manifest problems are reported with file:line:col', () => {
  it('every manifest problem, with its position, in JSON output', async () => {
    const dir = tempTree({
      'registry.json': '{\n  "schemas": [\n    { "urn": "urn:t:a", "schema": "a.json", "onwer": "x", "status": "gone" }\n  ]\n}\n',
      'a.json': '{"type":"object"}',
    });
    mkdirSync(join(dir, 'sub'));
    const r = await bq(['check', '--format', 'json'], { cwd: join(dir, 'sub') });
    expectExit(r, 1);
    const errors = JSON.parse(r.stdout).errors as Array<{ pointer: string; line: number; col: number; message: string }>;
    // Each at its value on line 3.
    const line3 = '    { "urn": "urn:t:a", "schema": "a.json", "onwer": "x", "status": "gone" }';
    expect(errors.map(({ pointer, line, col }) => ({ pointer, line, col }))).toEqual([
      { pointer: '/schemas/0/onwer', line: 3, col: line3.indexOf('"x"') + 1 },
      { pointer: '/schemas/0/status', line: 3, col: line3.indexOf('"gone"') + 1 },
    ]);
    expect(errors[0]!.message).toMatch(/did you mean "owner"/);
  });

  it('--fail-on-unsupported makes an unsupported keyword an error', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json' }] }),
      'a.json': '{"type":"object","properties":{"s":{"type":"string","pattern":"^a"}}}',
    });
    const [plain, strict] = await Promise.all([bq(['check'], { cwd: dir }), bq(['check', '--fail-on-unsupported'], { cwd: dir })]);
    expectExit(plain, 0);
    expectExit(strict, 1);
    expect(strict.stdout).toMatch(/FAILED: 1 URN\(s\), 1 error\(s\), 0 warning\(s\)/);
  });
});

describe('a schema nested past the stack (20,000 levels)', () => {
  const n = 20_000;
  const deep = '{"type":"object","properties":{"a":'.repeat(n) + '{"type":"string"}' + '}}'.repeat(n);
  it('is an error of its URN and file in validate, check and compat, never a bare line or a crash', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:t:deep', schema: 'deep.json' },
          { urn: 'urn:t:ok', schema: 'ok.json' },
        ],
      }),
      'deep.json': deep,
      'ok.json': '{}',
      'm.ndjson': '{"job":"urn:t:deep","data":{}}\n{"job":"urn:t:ok","data":{}}\n',
    });
    const [validate, check, compat] = await Promise.all([
      bq(['validate', '--format', 'json', 'm.ndjson'], { cwd: dir }),
      bq(['check', '--format', 'json'], { cwd: dir }),
      bq(['compat', '--format', 'json', 'deep.json', 'ok.json'], { cwd: dir }),
    ]);
    for (const r of [validate, check, compat]) {
      expectExit(r, 1);
      expect(r.stderr).toBe('');
    }
    expect(JSON.parse(validate.stdout).results.map((x: { status: string }) => x.status)).toEqual(['error', 'valid']);
    expect(JSON.parse(check.stdout).errors).toEqual([
      expect.objectContaining({ urn: 'urn:t:deep', file: 'deep.json', message: expect.stringMatching(/nested deeper than 512 levels/) }),
    ]);
    expect(JSON.parse(compat.stdout).problems[0]).toMatchObject({
      side: 'old',
      message: expect.stringMatching(/nested deeper than 512 levels/),
    });
  });
});
