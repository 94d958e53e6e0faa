// No output replaces an input: every command that writes a file (-o, --report, --out) refuses,
// before anything is written, a target that is a file the run reads (the registry manifest, a
// schema file, an input message, compat's exceptions file and two schema files, a corpus file, a
// conformance suite's file), or a file another output of the run names, however the path is spelt
// (./, sub/.., absolute, a symlink, a hard link). One line, exit 2, and the directory unchanged.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.js';
import { protectFile, protectInputs } from '../../src/cli/protect.js';
import { writeFileAtomic } from '../../src/cli/write.js';
import { bq, expectOneLineError, removeTempTrees, tempTree, type CliResult } from '../helpers/cli.js';

afterAll(removeTempTrees);

const SCHEMA_A = JSON.stringify({
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer' }, email: { type: 'string', 'x-gdpr-sensitive': true } },
});
const MESSAGE = JSON.stringify({ job: 'urn:t:a', data: { id: 1 } });

/** A registry of two URNs, messages, compat's inputs and a conformance suite, with links to some of them. */
function fixture(): string {
  const dir = tempTree({
    'registry.json': JSON.stringify({
      schemas: [
        { urn: 'urn:t:a', schema: 'schemas/a.json' },
        { urn: 'urn:t:b', schema: 'schemas/b.yaml' },
      ],
    }),
    'schemas/a.json': SCHEMA_A,
    'schemas/b.yaml': 'type: object\nproperties:\n  n: { type: integer }\n',
    'one.json': MESSAGE,
    'messages/m1.json': MESSAGE,
    'messages/lines.ndjson': `${MESSAGE}\n${MESSAGE}\n`,
    'old.json': SCHEMA_A,
    'new.json': JSON.stringify({ ...JSON.parse(SCHEMA_A), required: ['id', 'email'] }),
    'exc.yaml': 'exceptions: []\n',
    'corpus1.ndjson': `${MESSAGE}\n`,
    'corpus/c.ndjson': `${MESSAGE}\n`,
    // A copy of the shipped suite: one that would run none of its cases is refused before any output is.
    'suite/manifest.json': readFileSync('conformance/manifest.json', 'utf8'),
    'suite/CONFORMANCE_VERSION': readFileSync('conformance/CONFORMANCE_VERSION', 'utf8'),
    'sub/keep': 'kept',
  });
  symlinkSync('registry.json', join(dir, 'link-manifest.json'));
  linkSync(join(dir, 'registry.json'), join(dir, 'hard-manifest.json'));
  linkSync(join(dir, 'schemas/a.json'), join(dir, 'hard-schema.json'));
  return dir;
}

/** Every entry of a tree: its kind, inode and bytes (a symlink's target), so any change, added file or replaced inode shows. */
function snapshot(dir: string): string[] {
  const rows: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      const rel = relative(dir, p);
      if (st.isSymbolicLink()) rows.push(`${rel} -> ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        rows.push(`${rel}/`);
        walk(p);
      } else rows.push(`${rel} ${st.ino} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return rows;
}

/** Each command that writes a file, with the output aimed at T. */
const COMMANDS: Record<string, (t: string) => string[]> = {
  validate: (t) => ['validate', 'one.json', 'messages', '--report', `json=${t}`],
  check: (t) => ['check', '--report', `sarif=${t}`],
  gdpr: (t) => ['gdpr', '--report', `json=${t}`],
  'gdpr --require': (t) => ['gdpr', '--require', '--report', `junit=${t}`],
  compat: (t) => [
    'compat',
    'old.json',
    'new.json',
    '--urn',
    'urn:t:a',
    '--exceptions',
    'exc.yaml',
    '--corpus',
    'corpus1.ndjson',
    'corpus',
    '--report',
    `markdown=${t}`,
  ],
  types: (t) => ['types', '-o', t],
  compile: (t) => ['compile', '-o', t],
  catalog: (t) => ['catalog', '--no-history', '--messages', 'one.json', 'messages', '-o', t],
  'export-asyncapi': (t) => ['export-asyncapi', '-o', t],
  // The adapter is never started: the results file is refused first.
  conformance: (t) => ['conformance', '--impl', 'exit 3', '--suite', 'suite', '--out', t],
};

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function refused(args: string[], target: string, why: RegExp, cwd = fixture()): Promise<CliResult> {
  const before = snapshot(cwd);
  const r = await bq(args, { cwd });
  expectOneLineError(r, new RegExp(`^bqschema: refusing to write ${esc(target)}: ${why.source}; choose another path$`));
  expect(r.stdout).toBe('');
  expect(snapshot(cwd)).toEqual(before);
  return r;
}

const MANIFEST = /it is the registry manifest \(registry\.json\)/;

describe.concurrent('no output replaces a file the run reads', () => {
  // Every command against the registry's files: the manifest and a schema file (YAML). compat's two
  // files and conformance read no registry, and still never replace the one here. A hard link to a
  // schema file is refused by the identity every command's guard compares (src/cli/protect.ts), so
  // one command shows it; the spellings of the manifest below show it for two more.
  for (const [name, args] of Object.entries(COMMANDS)) {
    it(`${name}: the registry manifest and a schema file are refused${name === 'validate' ? ', and a hard link to a schema file' : ''}`, async () => {
      await refused(args('registry.json'), 'registry.json', MANIFEST);
      await refused(args('schemas/b.yaml'), 'schemas/b.yaml', /it is the schema file of urn:t:b \(schemas\/b\.yaml\)/);
      if (name === 'validate')
        await refused(args('hard-schema.json'), 'hard-schema.json', /it is the schema file of urn:t:a \(schemas\/a\.json\)/);
    });
  }

  // The manifest however it is spelt, through one gate's --report; one command's -o compares the same
  // identity, shown by the two links (a symlink resolves by real path, a hard link by inode).
  it('check: ./registry.json, sub/../registry.json, its absolute path, a symlink and a hard link to it are the manifest', async () => {
    const dir = fixture();
    for (const t of ['./registry.json', 'sub/../registry.json', join(dir, 'registry.json'), 'link-manifest.json', 'hard-manifest.json']) {
      await refused(COMMANDS.check!(t), t, MANIFEST, dir);
    }
  });
  it('types: a symlink and a hard link to the manifest are the manifest', async () => {
    const dir = fixture();
    for (const t of ['link-manifest.json', 'hard-manifest.json']) await refused(COMMANDS.types!(t), t, MANIFEST, dir);
  });

  it('validate: a message file named on the command line, and any file its directory walk reads, existing or new', async () => {
    const inDir = /it is in messages, an input directory whose \*\.json, \*\.ndjson and \*\.jsonl files this run reads/;
    await refused(COMMANDS.validate!('one.json'), 'one.json', /it is an input message file \(one\.json\)/);
    await refused(COMMANDS.validate!('messages/m1.json'), 'messages/m1.json', inDir);
    await refused(COMMANDS.validate!('messages/lines.ndjson'), 'messages/lines.ndjson', inDir);
    await refused(COMMANDS.validate!('messages/new.JSONL'), 'messages/new.JSONL', inDir);
  });

  it('catalog: an example message file and a file in an example message directory', async () => {
    await refused(COMMANDS.catalog!('one.json'), 'one.json', /it is an example message file \(one\.json\)/);
    await refused(
      COMMANDS.catalog!('messages/next.json'),
      'messages/next.json',
      /it is in messages, an example message directory whose \*\.json, \*\.ndjson and \*\.jsonl files this run reads/,
    );
  });

  it('compat: the old and the new schema file, the exceptions file, a corpus file and a file in a corpus directory', async () => {
    await refused(COMMANDS.compat!('old.json'), 'old.json', /it is the old schema file \(old\.json\)/);
    await refused(COMMANDS.compat!('./new.json'), './new.json', /it is the new schema file \(new\.json\)/);
    await refused(COMMANDS.compat!('exc.yaml'), 'exc.yaml', /it is the exceptions file \(exc\.yaml\)/);
    await refused(COMMANDS.compat!('corpus1.ndjson'), 'corpus1.ndjson', /it is a corpus file \(corpus1\.ndjson\)/);
    await refused(
      COMMANDS.compat!('corpus/more.json'),
      'corpus/more.json',
      /it is in corpus, a corpus directory whose \*\.json, \*\.ndjson and \*\.jsonl files this run reads/,
    );
  });

  it('compat --against: the registry found in the work tree, its schema files and the default exceptions file', async () => {
    const dir = fixture();
    writeFileSync(join(dir, 'bqschema-exceptions.yaml'), 'exceptions: []\n');
    const git = (...a: string[]): void => void execFileSync('git', a, { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
    const against = (t: string): string[] => ['compat', '--against', 'HEAD', '--report', `json=${t}`];
    await refused(against('registry.json'), 'registry.json', MANIFEST, dir);
    await refused(against('schemas/a.json'), 'schemas/a.json', /it is the schema file of urn:t:a \(schemas\/a\.json\)/, dir);
    await refused(
      against('bqschema-exceptions.yaml'),
      'bqschema-exceptions.yaml',
      /it is the exceptions file \(bqschema-exceptions\.yaml\)/,
      dir,
    );
  });

  it("conformance: the suite's own files", async () => {
    await refused(
      COMMANDS.conformance!('suite/manifest.json'),
      'suite/manifest.json',
      /it is the suite's manifest\.json \(suite\/manifest\.json\)/,
    );
    // --suite may name the manifest itself: its directory's files are the suite's still.
    await refused(
      ['conformance', '--impl', 'exit 3', '--suite', 'suite/manifest.json', '--out', 'suite/CONFORMANCE_VERSION'],
      'suite/CONFORMANCE_VERSION',
      /it is the suite's CONFORMANCE_VERSION \(suite\/CONFORMANCE_VERSION\)/,
    );
  });

  it('a manifest that does not parse is still the manifest: check reports it, and writes no report over it', async () => {
    const dir = fixture();
    writeFileSync(join(dir, 'registry.json'), '{ "schemas": [');
    await refused(COMMANDS.check!('registry.json'), 'registry.json', MANIFEST, dir);
  });

  // Two outputs of one run that name one file: whichever way it is spelt, the second is refused. The
  // spellings resolve through one identity (src/cli/protect.ts) whatever the command: validate tries
  // every one, the other gates the hardest (a hard link) to show their --report files are claimed.
  for (const [name, args, spellings] of [
    ['validate', ['validate', 'one.json'], 'all'],
    ['check', ['check'], 'hard link'],
    ['compat', ['compat', 'old.json', 'new.json'], 'hard link'],
    ['gdpr --require', ['gdpr', '--require'], 'hard link'],
  ] as const) {
    it(`${name}: two --report files that resolve to one file are refused, nothing written`, async () => {
      const dir = fixture();
      writeFileSync(join(dir, 'r.json'), 'previous');
      symlinkSync('r.json', join(dir, 'r-link.json'));
      linkSync(join(dir, 'r.json'), join(dir, 'r-hard.json'));
      const all = ['r.json', './r.json', 'sub/../r.json', join(dir, 'r.json'), 'r-link.json', 'r-hard.json', 'fresh.json'];
      for (const second of spellings === 'all' ? all : ['r-hard.json']) {
        const first = second === 'fresh.json' ? 'sub/../fresh.json' : 'r.json';
        const before = snapshot(dir);
        const r = await bq([...args, '--report', `json=${first}`, '--report', `sarif=${second}`], { cwd: dir });
        expectOneLineError(
          r,
          new RegExp(
            `^bqschema: refusing to write ${esc(second)}: --report sarif=${esc(second)} and --report json=${esc(first)} name the same file; give each output a file of its own$`,
          ),
        );
        expect(r.stdout).toBe('');
        expect(snapshot(dir)).toEqual(before);
      }
    });
  }

  it('what no input is stays writable: a report beside the messages under a name the walk skips, in a dot-directory, and two distinct reports', async () => {
    const dir = fixture();
    mkdirSync(join(dir, 'messages/.reports'));
    const r = await bq(
      [
        'validate',
        'messages',
        '--report',
        'sarif=messages/r.sarif',
        '--report',
        'json=messages/.reports/r.json',
        '--report',
        'junit=r.xml',
      ],
      { cwd: dir },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const f of ['messages/r.sarif', 'messages/.reports/r.json', 'r.xml']) expect(existsSync(join(dir, f)), f).toBe(true);
    const types = await bq(['types', '-o', 'schemas/types.ts'], { cwd: dir });
    expect(types.code, types.stderr).toBe(0);
    expect(readFileSync(join(dir, 'schemas/types.ts'), 'utf8')).toMatch(/urn:t:a/);
  });
});

describe('the guard behind every writer', () => {
  it('writeFileAtomic refuses a protected file even when no output was claimed, and a second write of one file in a run', () => {
    const dir = tempTree({ 'in.json': 'input', 'walked/m.json': 'x' });
    protectFile(join(dir, 'in.json'), 'a test input (in.json)');
    protectInputs([join(dir, 'walked')], 'a test file', 'a test directory');
    expect(() => writeFileAtomic(join(dir, 'in.json'), 'out')).toThrow(UsageError);
    expect(() => writeFileAtomic(join(dir, 'in.json'), 'out')).toThrow(/: it is a test input \(in\.json\); choose another path$/);
    expect(() => writeFileAtomic(join(dir, 'walked', 'new.ndjson'), 'out')).toThrow(/it is in .*walked, a test directory whose/);
    expect(readFileSync(join(dir, 'in.json'), 'utf8')).toBe('input');
    writeFileAtomic(join(dir, 'out.json'), 'one');
    expect(() => writeFileAtomic(join(dir, '.', 'out.json'), 'two')).toThrow(
      /this run has written it already; give each output a file of its own$/,
    );
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('one');
    expect(readdirSync(dir).sort()).toEqual(['in.json', 'out.json', 'walked']);
  });
});
