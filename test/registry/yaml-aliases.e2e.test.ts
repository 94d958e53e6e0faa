// YAML aliases cost time linear in the document and add at most a stated number of values
// (DEFAULT_MAX_YAML_EXPANSION, BQSCHEMA_MAX_YAML_EXPANSION in the CLI, maxYamlExpansion for
// DirProvider): a file past it is refused in one line naming the file, the place and the limit.
// Before, the yaml package found each alias's anchor by a scan of the document (12,000 aliases
// in 48 KB: 14 s), and 99 aliases of a 20,000-property anchor passed its per-anchor count and
// expanded downstream past 2 minutes in check and catalog. Speed: `npm run bench:scale`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { registryLimits } from '../../src/cli/registry.js';
import { UsageError } from '../../src/cli/errors.js';
import { DirProvider } from '../../src/index.js';
import { DEFAULT_MAX_YAML_EXPANSION, ParseFailure, parseText } from '../../src/registry/index.js';
import { FIXTURES } from '../helpers/cli.js';
import { expectRun, guardRepo, listing, removeTrees, run, tree } from '../helpers/hostile.js';

afterAll(removeTrees);

const parse = (text: string, options = {}): unknown => parseText(text, 'f.yaml', 'yaml', options);
const problem = (text: string, options = {}): string => {
  try {
    parse(text, options);
  } catch (err) {
    if (err instanceof ParseFailure) return err.message;
    throw err;
  }
  return 'parsed';
};

/** One anchor of `size` values (a mapping of size - 1 ... keys and values) and `aliases` aliases of it. */
function anchorAndAliases(properties: number, aliases: number): { text: string; size: number } {
  let text = 'def: &d\n';
  for (let i = 0; i < properties; i++) text += `  p${i}: x\n`;
  text += 'uses:\n';
  for (let i = 0; i < aliases; i++) text += `  - *d\n`;
  // The mapping, and a key and a value per property.
  return { text, size: 1 + 2 * properties };
}

/** The objects of a value in first-visit order, each named by the index it was first met at: equal when two values share alike. */
function sharing(value: unknown): number[] {
  const ids = new Map<object, number>();
  const out: number[] = [];
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    const known = ids.get(v);
    out.push(known ?? ids.size);
    if (known !== undefined) return;
    ids.set(v, ids.size);
    for (const x of Object.values(v)) visit(x);
  };
  visit(value);
  return out;
}

describe('the value: what the yaml package builds, in one walk', () => {
  it("random documents with anchors and aliases parse to the package's value, shared alike (property)", () => {
    // BQ_YAML_RUNS=5000 for a longer run; BQ_YAML_SEED=<seed> replays a failure.
    const runs = Number(process.env.BQ_YAML_RUNS ?? 300);
    const scalar = fc.oneof(
      fc.constantFrom(
        null,
        true,
        false,
        0,
        -0,
        1.5,
        -7,
        1e21,
        '',
        '1',
        'true',
        'null',
        '~',
        '<<',
        'a: b',
        '- x',
        '*a',
        '&b',
        '#',
        'é😀',
        '\u2028',
      ),
      fc.string({ maxLength: 4 }),
      fc.integer(),
      fc.double({ noNaN: true }),
    );
    const key = fc.oneof(
      fc.constantFrom('a', 'b', '1', 'true', 'null', '~', '', '__proto__', 'constructor', '<<', 'x y'),
      fc.string({ maxLength: 3 }),
    );
    fc.assert(
      fc.property(
        fc.letrec((tie) => ({
          v: fc.oneof({ depthSize: 'small' }, scalar, tie('arr'), tie('obj')),
          arr: fc.array(tie('v'), { maxLength: 4 }),
          obj: fc.dictionary(key, tie('v'), { maxKeys: 4 }),
        })).v,
        fc.array(fc.nat(), { maxLength: 6 }),
        (base, picks) => {
          // Share some containers of the value at other places, so the writer makes anchors and aliases.
          const containers: object[] = [];
          const collect = (v: unknown): void => {
            if (typeof v !== 'object' || v === null) return;
            containers.push(v);
            for (const x of Object.values(v)) collect(x);
          };
          collect(base);
          const value = { base, shared: picks.map((p) => (containers.length === 0 ? null : containers[p % containers.length])) };
          const text = YAML.stringify(value);
          const doc = YAML.parseDocument(text, { uniqueKeys: false });
          const expected = doc.toJS({ maxAliasCount: -1 });
          const got = parse(text, { uniqueKeys: true, maxYamlExpansion: Number.MAX_SAFE_INTEGER });
          expect(got).toEqual(expected);
          expect(sharing(got)).toEqual(sharing(expected));
        },
      ),
      { numRuns: runs, seed: Number(process.env.BQ_YAML_SEED ?? 8_35) },
    );
  });

  it.each([
    ['a YAML 1.1 merge key through an alias', '%YAML 1.1\n---\nbase: &b {p: 1, q: 2}\nitem:\n  <<: *b\n  q: 3\n'],
    ['a typed collection (!!set) holding an alias', 'a: &a x\ns: !!set {? *a , y}\n'],
    ['a collection as a key, an alias inside it', 'a: &a [1]\n? [*a]\n: v\n'],
    ['an alias as a key', 'k: &k name\n*k : v\n'],
    ['a YAML 1.1 timestamp behind an alias', '%YAML 1.1\n---\nt: &t 2001-12-14\nu: *t\n'],
    ['an empty document', ''],
  ])("%s: the package's value", (_what, text) => {
    const expected = YAML.parseDocument(text, { uniqueKeys: false, logLevel: 'error' }).toJS({ maxAliasCount: -1 });
    expect(parse(text)).toEqual(expected);
  });

  it('a repeated key keeps its last value without uniqueKeys (message data), as toJS does', () => {
    expect(parse('a: 1\nb: 2\na: &x {c: 3}\nd: *x\n')).toEqual({ a: { c: 3 }, b: 2, d: { c: 3 } });
  });
});

describe('the limit', () => {
  it('counts an alias as a copy of what it names, exactly: the limit passes, one less refuses at the last alias', () => {
    const { text, size } = anchorAndAliases(10, 7);
    expect(parse(text, { maxYamlExpansion: 7 * size })).toMatchObject({ uses: Array(7).fill(expect.objectContaining({ p9: 'x' })) });
    expect(problem(text, { maxYamlExpansion: 7 * size - 1 })).toBe(
      `f.yaml:19:5: invalid YAML: its aliases expand it past ${7 * size - 1} values (the limit), here at *d; write the repeated part out, or raise the limit with BQSCHEMA_MAX_YAML_EXPANSION`,
    );
    expect(problem('a: &a 1\nb: *a\n', { maxYamlExpansion: 0 })).toMatch(/^f\.yaml:2:4: invalid YAML: its aliases expand it past 0 values/);
  });

  it('aliases inside an anchor multiply: billion laughs stops at the alias that passes the default', () => {
    const text = readFileSync(join(FIXTURES, 'bomb', 'laughs.yaml'), 'utf8');
    // a: 10 values; b: 9 × 10 added (its own size 91); c: 9 × 91; d: 9 × 820; e: 9 × 7,381 = 74,718 in all;
    // the first *e (66,430 values) in f passes 100,000.
    expect(problem(text)).toBe(
      `f.yaml:7:8: invalid YAML: its aliases expand it past ${DEFAULT_MAX_YAML_EXPANSION} values (the limit), here at *e; write the repeated part out, or raise the limit with BQSCHEMA_MAX_YAML_EXPANSION`,
    );
    expect(problem(text.split('\n').slice(0, 6).join('\n') + '\n', { maxYamlExpansion: 74_718 })).toBe('parsed');
    expect(problem(text.split('\n').slice(0, 6).join('\n') + '\n', { maxYamlExpansion: 74_717 })).toMatch(/^f\.yaml:6:\d+: .*here at \*d/);
  });

  it('a cycle and an alias without its anchor are refused at the alias', () => {
    expect(problem('a: &a\n  b: [1, *a]\n')).toBe(
      'f.yaml:2:10: invalid YAML: the alias *a refers to a node that contains it (a self-referencing document)',
    );
    expect(problem('a: *nowhere\n')).toBe('f.yaml:1:4: invalid YAML: the alias *nowhere has no anchor &nowhere before it');
    expect(problem('a: *later\nb: &later 1\n')).toBe('f.yaml:1:4: invalid YAML: the alias *later has no anchor &later before it');
  });

  it('counts through merge keys and keys too', () => {
    const { text, size } = anchorAndAliases(20, 0);
    const merged = `%YAML 1.1\n---\n${text}m1:\n  <<: *d\nm2:\n  <<: *d\n`;
    expect(problem(merged, { maxYamlExpansion: 2 * size })).toBe('parsed');
    expect(problem(merged, { maxYamlExpansion: 2 * size - 1 })).toMatch(/^f\.yaml:\d+:\d+: invalid YAML: its aliases expand it past/);
  });
});

describe('through the CLI and DirProvider (hostile input)', { timeout: 60_000 }, () => {
  guardRepo();
  // The shape: 99 aliases of one large anchor, as a schema's properties.
  const bomb = (properties = 2_000): string => {
    let s = 'x-defs: &big\n';
    for (let i = 0; i < properties; i++) s += `  p${i}: {type: string}\n`;
    s += 'type: object\nproperties:\n';
    for (let i = 0; i < 99; i++) s += `  a${i}: {type: object, properties: *big}\n`;
    return s;
  };
  const registry = { 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:bomb', schema: 'bomb.yaml' }] }) };
  // The anchor holds 1 + 2,000 × (key 1 + mapping 3): 8,001 values; the 13th alias (a12) passes 100,000.
  const where = 'bomb.yaml:2016:35';
  const said = `schema file for urn:t:bomb is malformed: ${where}: invalid YAML: its aliases expand it past 100000 values (the limit), here at *big; write the repeated part out, or raise the limit with BQSCHEMA_MAX_YAML_EXPANSION`;

  it('check reports it at the alias, catalog and types stop in one line; nothing is written', async () => {
    const dir = tree({ ...registry, 'bomb.yaml': bomb() });
    const before = listing(dir);
    const [check, catalog, types] = await Promise.all([
      run(['check', '--format', 'json'], { cwd: dir }),
      run(['catalog', '-o', 'c.html'], { cwd: dir }),
      run(['types'], { cwd: dir }),
    ]);
    expectRun(check, 1);
    expect(JSON.parse(check.stdout).errors).toEqual([
      expect.objectContaining({ rule: 'schema', urn: 'urn:t:bomb', file: 'bomb.yaml', line: 2016, col: 35, message: said }),
    ]);
    expectRun(catalog, 1, new RegExp(`^bqschema: ${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expectRun(types, 1, /^bqschema: .*bomb\.yaml:2016:35: invalid YAML: its aliases expand it past 100000 values/);
    expect(listing(dir)).toEqual(before);
  });

  it('BQSCHEMA_MAX_YAML_EXPANSION raises the limit for every command; a value that is not a number is a usage error', async () => {
    // 300 properties: 1,201 values a copy, 118,899 added by the 99 aliases (the 84th, a83, passes 100,000).
    const dir = tree({ ...registry, 'bomb.yaml': bomb(300) });
    const byDefault = await run(['check'], { cwd: dir });
    expectRun(byDefault, 1);
    expect(byDefault.stdout).toContain('bomb.yaml:387:35: invalid YAML: its aliases expand it past 100000 values');
    const env = { BQSCHEMA_MAX_YAML_EXPANSION: String(99 * 1_201) };
    const [check, compat] = await Promise.all([
      run(['check'], { cwd: dir, env }),
      run(['compat', 'bomb.yaml', 'bomb.yaml'], { cwd: dir, env }),
    ]);
    expectRun(check, 0);
    expect(check.stdout).toMatch(/^OK: 1 URN\(s\), 0 error\(s\)/m);
    expectRun(compat, 0);
    const tight = await run(['compat', 'bomb.yaml', 'bomb.yaml'], {
      cwd: dir,
      env: { BQSCHEMA_MAX_YAML_EXPANSION: String(99 * 1_201 - 1) },
    });
    expectRun(tight, 1);
    expect(tight.stdout).toContain('bomb.yaml:402:35: invalid YAML: its aliases expand it past 118898 values (the limit), here at *big');
    // The CLI's usage error, once; the value is read by registryLimits, whose refusals follow.
    expectRun(
      await run(['check'], { cwd: dir, env: { BQSCHEMA_MAX_YAML_EXPANSION: 'lots' } }),
      2,
      /^bqschema: BQSCHEMA_MAX_YAML_EXPANSION must be a whole number of values \(default 100000\), got "lots"/,
    );
    for (const bad of ['-1', '1e6', '1.5']) {
      let err: unknown;
      try {
        registryLimits({ BQSCHEMA_MAX_YAML_EXPANSION: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(UsageError); // exit 2, as the CLI's run above shows
      expect((err as Error).message).toBe(`BQSCHEMA_MAX_YAML_EXPANSION must be a whole number of values (default 100000), got "${bad}"`);
    }
  });

  it('DirProvider: the URN fails to load past maxYamlExpansion (default 100,000), and loads within it', () => {
    const dir = tree({ ...registry, 'bomb.yaml': bomb() });
    expect(() => new DirProvider(join(dir, 'registry.json')).schemaFor('urn:t:bomb')).toThrow(
      /bomb\.yaml:2016:35: invalid YAML: its aliases expand it past 100000 values/,
    );
    const small = tree({ ...registry, 'bomb.yaml': bomb(300) });
    expect(() => new DirProvider(join(small, 'registry.json')).schemaFor('urn:t:bomb')).toThrow(
      /bomb\.yaml:387:35: invalid YAML: its aliases expand it past 100000 values/,
    );
    const raised = new DirProvider(join(small, 'registry.json'), { maxYamlExpansion: 99 * 1_201 }).schemaFor('urn:t:bomb');
    expect(raised?.isValid({ a98: { p299: 'x' } })).toBe(true);
    expect(raised?.isValid({ a98: { p299: 1 } })).toBe(false);
  });
});
