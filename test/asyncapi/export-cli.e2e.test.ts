import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { toYaml } from '../../src/cli/commands/export-asyncapi.js';
import { writeFileAtomic } from '../../src/cli/write.js';
import { parseText } from '../../src/registry/parse.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, ROOT, tempTree, type CliResult } from '../helpers/cli.js';

// `bqschema export-asyncapi` end to end: the example registry, and test/fixtures/asyncapi/awkward
// (URNs with `/`, spaces, non-ASCII and emoji, two that sanitise to the same key, `toString`, a
// boolean schema, YAML-1.1-isms such as `on`, `yes` and `2024-01-01` as keys and values).

const FIX = join(ROOT, 'test', 'fixtures', 'asyncapi');
const EXAMPLE = join(ROOT, 'registry.example.json');
const AWKWARD = join(FIX, 'awkward', 'registry.json');
const INVALID = join(FIX, 'invalid', 'registry.json');

const exportTo = (registry: string, args: string[] = []): Promise<CliResult> => bq(['export-asyncapi', '--registry', registry, ...args]);

afterAll(removeTempTrees);

interface Manifest {
  schemas: Array<{ urn: string; schema: string; owner?: string; status?: string; description?: string }>;
}

/** The registry's schemas as the files hold them, by URN. */
function sourceSchemas(registry: string): Map<string, unknown> {
  const manifest = JSON.parse(readFileSync(registry, 'utf8')) as Manifest;
  const dir = join(registry, '..');
  return new Map(manifest.schemas.map((e) => [e.urn, parseText(readFileSync(join(dir, e.schema), 'utf8'), e.schema)]));
}

/** Drops the `x-parser-*` annotations @asyncapi/parser adds to the schemas it reads. */
function withoutParserKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutParserKeys);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !k.startsWith('x-parser-'))
      .map(([k, x]) => [k, withoutParserKeys(x)]),
  );
}

const onlyFile = (dir: string): string[] => readdirSync(dir).sort();

/** Runs one after another: every export loads the AsyncAPI spec schema, and the machine may be busy. */
async function inTurn(runs: Array<() => Promise<CliResult>>): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const run of runs) results.push(await run());
  return results;
}

describe('export-asyncapi: output', { timeout: 180_000 }, () => {
  const dir = tempTree({});
  const out = (name: string): string => join(dir, name);
  const titled = ['--title', 'Awkward events', '--doc-version', '2.1.0'];
  let runs: Record<'stdout' | 'json' | 'yml' | 'yml2' | 'forced' | 'awJson' | 'awYaml', CliResult>;

  beforeAll(async () => {
    const [stdout, json, yml, yml2, forced, awJson, awYaml] = await inTurn([
      () => exportTo(EXAMPLE),
      () => exportTo(EXAMPLE, ['-o', out('example.json')]),
      () => exportTo(EXAMPLE, ['-o', out('example.yml')]),
      () => exportTo(EXAMPLE, ['-o', out('again.YAML')]),
      () => exportTo(EXAMPLE, ['-o', out('forced.yaml'), '--doc-format', 'json']),
      () => exportTo(AWKWARD, ['-o', out('awkward.json'), ...titled]),
      () => exportTo(AWKWARD, ['-o', out('awkward.out'), '--doc-format', 'yaml', ...titled]),
    ]);
    runs = { stdout: stdout!, json: json!, yml: yml!, yml2: yml2!, forced: forced!, awJson: awJson!, awYaml: awYaml! };
  }, 300_000);

  it('every export succeeds and leaves only its own file', () => {
    for (const r of Object.values(runs)) expectExit(r, 0);
    expect(runs.json.stdout).toBe(`Wrote ${out('example.json')}: AsyncAPI 3.0.0, JSON, 4 channels\n`);
    expect(runs.yml.stdout).toBe(`Wrote ${out('example.yml')}: AsyncAPI 3.0.0, YAML, 4 channels\n`);
    expect(onlyFile(dir)).toEqual(['again.YAML', 'awkward.json', 'awkward.out', 'example.json', 'example.yml', 'forced.yaml']);
  });

  it('stdout and -o give the same bytes; separate runs are byte-identical; JSON is 2-space with a final newline', () => {
    const written = readFileSync(out('example.json'), 'utf8');
    expect(runs.stdout.stdout).toBe(written);
    expect(written).toBe(JSON.stringify(JSON.parse(written), null, 2) + '\n');
    expect(readFileSync(out('again.YAML'), 'utf8')).toBe(readFileSync(out('example.yml'), 'utf8'));
  });

  it('the example registry: sorted by URN, one channel and operation each, with the manifest metadata', () => {
    const doc = JSON.parse(runs.stdout.stdout);
    expect(doc.asyncapi).toBe('3.0.0');
    expect([doc.info.title, doc.info.version]).toEqual(['BabelQueue event catalog', '1.0.0']);
    const urns = ['urn:babel:orders:cancelled', 'urn:babel:orders:created', 'urn:babel:payments:captured', 'urn:babel:users:registered'];
    expect(Object.values(doc.channels).map((c: any) => c.address)).toEqual(urns);
    expect(Object.keys(doc.operations)).toEqual(Object.keys(doc.channels));
    const users = doc.channels.urn_babel_users_registered;
    expect(users.description).toBe('A user completed sign-up. Carries personal data.');
    expect(users.messages.urn_babel_users_registered.tags).toEqual([{ name: 'owner:identity' }, { name: 'status:active' }]);
    expect(users.messages.urn_babel_users_registered.payload.schema).toEqual(sourceSchemas(EXAMPLE).get('urn:babel:users:registered'));
  });

  it('YAML by the -o extension or --doc-format yaml; --doc-format json wins over a .yaml extension', () => {
    const json = JSON.parse(runs.stdout.stdout);
    const yaml = readFileSync(out('example.yml'), 'utf8');
    expect(yaml.startsWith('asyncapi: 3.0.0\n')).toBe(true);
    expect(YAML.parse(yaml)).toEqual(json);
    expect(readFileSync(out('forced.yaml'), 'utf8')).toBe(runs.stdout.stdout);
    expect(readFileSync(out('awkward.out'), 'utf8').startsWith('asyncapi: 3.0.0\n')).toBe(true);
  });

  it('awkward URNs get distinct valid keys; YAML-1.1-isms read back as the same JSON under YAML 1.1 and 1.2', () => {
    const doc = JSON.parse(readFileSync(out('awkward.json'), 'utf8'));
    const yaml = readFileSync(out('awkward.out'), 'utf8');
    expect([doc.info.title, doc.info.version]).toEqual(['Awkward events', '2.1.0']);
    expect(Object.entries(doc.channels).map(([k, c]: [string, any]) => [k, c.address])).toEqual([
      ['toString_2', 'toString'],
      ['urn_with_spaces', 'urn with spaces'],
      ['urn_babel_a_b', 'urn:babel:a/b'],
      ['urn_babel_a_b_2', 'urn:babel:a:b'],
      ['urn__n_c_d___', 'urn:ünïcødé:😀'],
    ]);
    expect(YAML.parse(yaml)).toEqual(doc);
    expect(YAML.parse(yaml, { version: '1.1' })).toEqual(doc);
    // The strings YAML 1.1 would turn into booleans, dates and numbers are quoted.
    for (const quoted of [
      '"on":',
      '- "yes"',
      '- "1_000"',
      '- "2001-12-14t21:59:43.10-05:00"',
      'title: "2024-01-01"',
      'x-owner: "yes"',
      'description: "on"',
    ]) {
      expect(yaml).toContain(quoted);
    }
    // No anchors: a schema that shares an object through a YAML alias is written out in full.
    expect(yaml).not.toMatch(/[&*]a\d/);
  });

  it('@asyncapi/parser reads the written JSON and YAML files with no error diagnostics', async () => {
    // Imported here: the parser is slow to load and only this test needs it.
    const { Parser } = await import('@asyncapi/parser');
    const parser = new Parser();
    const files = [
      [EXAMPLE, 'example.json'],
      [EXAMPLE, 'example.yml'],
      [AWKWARD, 'awkward.json'],
      [AWKWARD, 'awkward.out'],
    ] as const;
    for (const [registry, name] of files) {
      const { document, diagnostics } = await parser.parse(readFileSync(out(name), 'utf8'));
      expect(
        diagnostics.filter((d) => d.severity === 0),
        name,
      ).toEqual([]);
      const schemas = sourceSchemas(registry);
      expect(document!.channels().length, name).toBe(schemas.size);
      expect(document!.operations().length, name).toBe(schemas.size);
      // What the tool reads is what the registry holds.
      for (const message of document!.messages().all()) {
        const payload = message.payload()!.json() as { schema: unknown };
        expect(withoutParserKeys(payload.schema), `${name} ${message.name()}`).toEqual(schemas.get(message.name()!));
      }
    }
  });
});

describe('export-asyncapi: failures', { timeout: 180_000 }, () => {
  // typo.json's `"maximum": "ten"` is an unsupported keyword to bqschema (a warning), but the AsyncAPI
  // document's JSON Schema requires a number there: the export's own gate catches it.
  it('an invalid document is not written: exit 1, one line naming the schema file, line, column, URN and pointer', async () => {
    const dir = tempTree({ 'catalog.json': 'previous contents\n' });
    const target = join(dir, 'catalog.json');
    const r = await exportTo(INVALID, ['-o', target]);
    expectExit(r, 1);
    expect(r.stdout).toBe('');
    const lines = r.stderr
      .trimEnd()
      .split('\n')
      .filter((l) => !l.startsWith('bqschema: warning:'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^bqschema: .*invalid\/schemas\/typo\.json:4:46: urn:test:bad\/typo: \/properties\/amount\/maximum: must be number; the AsyncAPI document was not written$/,
      ),
    ]);
    expect(readFileSync(target, 'utf8')).toBe('previous contents\n');
    expect(onlyFile(dir)).toEqual(['catalog.json']);
  });

  it('a "<<" key, which AsyncAPI tools would read as a YAML merge key, fails the export', async () => {
    const dir = tempTree({
      'registry.json': '{"schemas":[{"urn":"urn:merge","schema":"m.json"}]}',
      'm.json': '{"type":"object","properties":{"<<":{"type":"string"}}}',
    });
    const r = await exportTo(join(dir, 'registry.json'), ['-o', join(dir, 'out.json')]);
    expectExit(r, 1);
    expect(r.stderr).toMatch(/^bqschema: .*m\.json:1:37: urn:merge: \/properties\/<<: the key "<<" is read as a YAML merge key/);
    expect(onlyFile(dir)).toEqual(['m.json', 'registry.json']);
  });

  it('-o into a missing directory, or onto a directory: exit 2, one line, nothing left behind', async () => {
    const dir = tempTree({ 'taken.json/inside': 'x' });
    const [missing, onDir] = await inTurn([
      () => exportTo(EXAMPLE, ['-o', join(dir, 'nope', 'catalog.json')]),
      () => exportTo(EXAMPLE, ['-o', join(dir, 'taken.json')]),
    ]);
    expectOneLineError(missing, /^bqschema: cannot write .*nope\/catalog\.json: the directory .*nope does not exist; nothing was written$/);
    expectOneLineError(onDir, /^bqschema: cannot write .*taken\.json: it is a directory; nothing was written$/);
    expect(onlyFile(dir)).toEqual(['taken.json']);
    expect(onlyFile(join(dir, 'taken.json'))).toEqual(['inside']);
  });

  it('a schema file that cannot be loaded: exit 1 (a broken registry), one line; no registry: exit 2', async () => {
    const dir = tempTree({
      'registry.json': '{"schemas":[{"urn":"urn:a","schema":"a.json"},{"urn":"urn:b","schema":"b.yaml"}]}',
      'a.json': '{}',
      'b.yaml': 'type: object\nproperties: [\n',
    });
    const [malformed, missing] = await inTurn([
      () => exportTo(join(dir, 'registry.json'), ['-o', join(dir, 'out.json')]),
      () => bq(['export-asyncapi', '--registry', join(dir, 'nothing.json')]),
    ]);
    expectOneLineError(malformed, /^bqschema: schema file for urn:b is malformed: .*b\.yaml:\d+:\d+: invalid YAML/, 1);
    expectOneLineError(missing, /^bqschema: registry manifest not found/);
    expect(onlyFile(dir)).toEqual(['a.json', 'b.yaml', 'registry.json']);
  });
});

describe('writeFileAtomic', () => {
  it('replaces a file whole, keeps its permissions and leaves no temporary file', () => {
    const dir = tempTree({ 'out.txt': 'old' });
    const target = join(dir, 'out.txt');
    chmodSync(target, 0o640);
    writeFileAtomic(target, 'new ünïcødé 😀');
    expect(readFileSync(target, 'utf8')).toBe('new ünïcødé 😀');
    expect(statSync(target).mode & 0o777).toBe(0o640);
    writeFileAtomic(join(dir, 'fresh.txt'), '');
    expect(readFileSync(join(dir, 'fresh.txt'), 'utf8')).toBe('');
    expect(onlyFile(dir)).toEqual(['fresh.txt', 'out.txt']);
  });

  it('a failing rename removes the temporary file and leaves the target untouched', () => {
    const dir = tempTree({});
    mkdirSync(join(dir, 'target'));
    writeFileSync(join(dir, 'target', 'keep'), 'kept');
    expect(() => writeFileAtomic(join(dir, 'target'), 'data')).toThrow();
    expect(onlyFile(dir)).toEqual(['target']);
    expect(readFileSync(join(dir, 'target', 'keep'), 'utf8')).toBe('kept');
  });
});

describe('toYaml', () => {
  it('quotes every string YAML 1.1 or 1.2 would read as something else, and reads back as the same JSON', () => {
    const tricky = [
      'yes',
      'No',
      'on',
      'OFF',
      'y',
      '~',
      'null',
      '',
      '012',
      '0o17',
      '0x1F',
      '1_000',
      '1e3',
      '.inf',
      '-.NaN',
      '12:30:00',
      '2024-01-01',
      '2001-12-14t21:59:43.10-05:00',
      '<<',
      '=',
      '- x',
      'a: b',
      '#c',
      '!t',
      '&a',
      '*a',
      '%p',
      '@',
      '`',
      ' x',
      'x ',
      '"',
      "'",
      'ok',
    ];
    const doc = {
      keys: Object.fromEntries(tricky.map((s) => [s, s])),
      list: tricky,
      multi: 'a\n  b\n',
      n: [0, -1, 1.5, 1e21, 12345678901234567000],
    };
    const text = toYaml(doc);
    expect(YAML.parse(text)).toEqual(doc);
    expect(YAML.parse(text, { version: '1.1' })).toEqual(doc);
    expect(text).toContain('- ok\n');
    expect(text).toContain('"<<": "<<"');
  });
});
