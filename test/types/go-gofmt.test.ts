/*
 * `bqschema types --lang go` writes its file as gofmt writes it (docs/types.md, "Go"), whatever the
 * text a registry puts in its doc comments. gofmt rewrites a doc comment by go/doc/comment's rules
 * (an indented line is a code block or a list item, `# x` and a lone capitalised line are headings,
 * link definitions move to the end, blank lines collapse) and moves any `// +build` line to the top
 * of the file: descriptions, deprecation reasons, owners and URNs are drawn from pieces that
 * trigger each rule, and gofmt -l must name no generated file. The text must still be there (every
 * word of it, in a comment) and never leak out of its comments (the code is the same as for the
 * same registry with plain text). A fixed seed in `npm test`; BQ_GOFMT_RUNS=<registries> for more,
 * BQ_GOFMT_SEED=<seed> for another draw. gofmt comes with golang-go.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateGo, type TypesEntry } from '../../src/types/index.js';

const RUNS = Number(process.env.BQ_GOFMT_RUNS ?? 60);
const SEED = Number(process.env.BQ_GOFMT_SEED ?? 19_119);

const work = mkdtempSync(join(tmpdir(), 'bq-gofmt-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The generated files gofmt would rewrite (gofmt -l), each with the start of gofmt -d on it. */
function notGofmtClean(sources: readonly string[]): string[] {
  const dir = mkdtempSync(join(work, 'batch-'));
  const files = sources.map((src, i) => {
    writeFileSync(join(dir, `f${i}.go`), src);
    return `f${i}.go`;
  });
  const r = spawnSync('gofmt', ['-l', ...files], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw new Error(`gofmt is needed: apt-get install golang-go (${r.error.message})`);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .filter((f) => f !== '')
    .map((f) => `${f}:\n${spawnSync('gofmt', ['-d', f], { cwd: dir, encoding: 'utf8' }).stdout.slice(0, 1500)}`);
}

/** Pieces of a line that go/doc/comment and gofmt read as more than text. */
const PIECES = [
  '- item',
  '* star item',
  '+ plus item',
  '• dot item',
  '1. first',
  '2) second',
  '10. tenth',
  '-no space',
  '# Heading',
  '#',
  '#nospace',
  'Old Style Heading',
  'Section 2',
  "Bob's Notes",
  'A.B Heading',
  'func main() {',
  '}',
  '} else {',
  'continued \\',
  '[spec]: https://example.com/spec',
  '[other]: http://example.com',
  '[bad]: ftp:/nope',
  'see [spec] and [other].',
  '[spec]',
  '+build ignore',
  '+build',
  '+buildx',
  'go:generate echo',
  'line 12',
  'export F',
  '*/ end',
  '`tick`',
  'https://example.com/a_b?c=d',
  'Deprecated: old',
  'plain words here.',
  'ÜBER Größe',
  'x\u00a0y',
  '\u00a0',
  '\u3000- wide item',
  'a\tb',
  "``quoted''",
  "it'''s",
  '```fence```',
  '`````',
  'x````y``',
  "see http://x.test/a''b(c)''.",
  "[os]'' [a/b.C]`` [Foo]''",
  "[spec]``''",
  'ab``cd',
];

const INDENT = fc.constantFrom('', '', '', ' ', '  ', '    ', '\t', '\u3000', '\u00a0');
const lineArb = fc
  .tuple(INDENT, fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PIECES) }, fc.string({ maxLength: 8 })))
  .map(([i, s]) => i + s);
const textArb = fc
  .tuple(
    fc.array(fc.oneof({ weight: 3, arbitrary: lineArb }, fc.constant('')), { minLength: 1, maxLength: 9 }),
    fc.constantFrom('\n', '\r\n', '\u2028'),
  )
  .map(([lines, br]) => lines.join(br));

interface Texts {
  description: string;
  nested: string;
  property: string;
  reason: string;
  owner: string;
  deprecated: boolean;
  open: boolean;
  alias: boolean;
}

const textsArb: fc.Arbitrary<Texts> = fc.record({
  description: textArb,
  nested: textArb,
  property: textArb,
  reason: textArb,
  owner: textArb,
  deprecated: fc.boolean(),
  open: fc.boolean(),
  alias: fc.boolean(),
});

/** A registry whose every doc comment holds the drawn texts: a URN's struct (or alias) and enum, a nested struct, a property. */
function registry(t: Texts): TypesEntry[] {
  const nested = { type: 'object', description: t.nested, properties: { x: { type: 'string', description: t.property } } };
  const schema = t.alias
    ? { type: 'object', description: t.property, additionalProperties: nested }
    : {
        type: 'object',
        properties: { n: nested, k: { enum: ['a', 'b'], description: t.property } },
        ...(t.open ? {} : { additionalProperties: false }),
      };
  const first: TypesEntry = { urn: 'urn:x:doc', schema, owner: t.owner, description: t.description };
  if (t.deprecated) Object.assign(first, { status: 'deprecated', deprecated: { reason: t.reason, replacement: 'urn:x:enum' } });
  return [
    first,
    { urn: 'urn:x:enum', schema: { enum: ['p', 'q'] }, description: t.description, status: 'deprecated', deprecated: { reason: t.reason } },
  ];
}

const plain = (t: Texts): Texts => ({ ...t, description: 'x', nested: 'x', property: 'x', reason: 'x', owner: 'x' });
const code = (src: string): string[] => src.split('\n').filter((l) => !/^\s*\/\//.test(l));
const comments = (src: string): string =>
  src
    .split('\n')
    .filter((l) => /^\s*\/\//.test(l))
    .join('\n');

describe('the Go file is as gofmt writes it', { timeout: Math.max(60_000, RUNS * 2_000) }, () => {
  it('doc comments laid out as gofmt lays them out: an indented line, a list, headings, link definitions, a +build line', () => {
    const src = generateGo([
      {
        urn: 'urn:x:a',
        schema: { type: 'object', properties: { s: { type: 'string', description: '+build ignore' } } },
        description: 'Intro:\n  indented code\nafter\n\nNotes\n\nthe end.\n[spec]: https://example.com/spec\n\n  - one\n  - two',
      },
    ]);
    expect(src).toContain(
      [
        '// A is the data of urn:x:a.',
        '// Intro:',
        '//',
        '//\tindented code',
        '//',
        '// after',
        '//',
        '// # Notes',
        '//',
        '// the end.',
        '// [spec]: https://example.com/spec',
        '//',
        '//   - one',
        '//   - two',
        '//',
        '// Open: properties it does not declare are allowed, and kept in Extra.',
        'type A struct {',
        '\t// \\u002bbuild ignore',
      ].join('\n'),
    );
    expect(notGofmtClean([src])).toEqual([]);
  });

  it('no doubled blank line between declarations (a URN whose data is an alias, the last one, none at all)', () => {
    const srcs = [
      generateGo([
        { urn: 'urn:x:m', schema: { type: 'object', additionalProperties: { type: 'string' } } },
        { urn: 'urn:x:s', schema: { type: 'object', properties: { a: { type: 'string' } } } },
        { urn: 'urn:x:t', schema: true },
      ]),
      generateGo([]),
    ];
    for (const src of srcs) expect(src).not.toContain('\n\n\n');
    expect(notGofmtClean(srcs)).toEqual([]);
  });

  it(`random doc texts (${RUNS} registries, seed ${SEED}): gofmt -l names no file, every word is kept in a comment, and the code is that of plain text`, () => {
    const drawn = fc.sample(textsArb, { seed: SEED, numRuns: RUNS });
    const sources = drawn.map((t) => generateGo(registry(t)));
    expect(notGofmtClean(sources)).toEqual([]);
    drawn.forEach((t, i) => {
      const src = sources[i]!;
      expect(code(src), `registry ${i} (seed ${SEED})`).toEqual(code(generateGo(registry(plain(t)))));
      const said = comments(src);
      const texts = [t.description, t.nested, t.property, t.owner, ...(t.deprecated ? [t.reason] : [])];
      for (const word of texts.join(' ').match(/[\p{L}\p{Nd}]+/gu) ?? [])
        expect(said, `registry ${i} (seed ${SEED}): ${word}`).toContain(word);
    });
  });
});
