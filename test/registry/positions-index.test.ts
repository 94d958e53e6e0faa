// SourcePositions costs time linear in the text and the lookups: its first lookup scans the text
// (locateJson, lineCol) and keeps nothing; from the second on, an index built once answers
// (LineIndex, JsonIndex; YAML mappings index their keys once). Before, every lookup rescanned the
// file: 16,000 unknown keywords took check 30 s. These tests hold the index to the scan's answers
// on texts nobody wrote; speed is shown by `npm run bench:scale`.
import fc from 'fast-check';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { lineCol } from '../../src/registry/parse.js';
import { LineIndex, locateJson, SourcePositions } from '../../src/registry/positions.js';
import { joinPointer, parsePointer } from '../../src/validator/index.js';

// BQ_POSITIONS_RUNS=3000 for a longer run; BQ_POSITIONS_SEED=<seed> replays a failure.
const RUNS = Number(process.env.BQ_POSITIONS_RUNS ?? 200);
const SEED = Number(process.env.BQ_POSITIONS_SEED ?? 16_000);

type Gen = number | string | boolean | null | Gen[] | { members: Array<[string, Gen]> };

const key = fc.oneof(
  fc.constantFrom('a', 'b', '', '0', '01', 'x/y', 'm~n', 'é', '😀', '"q"', 'a\\b', '\u2028', '__proto__'),
  fc.string({ maxLength: 3 }),
);
const scalar = fc.oneof(fc.constantFrom<Gen>(1, -2.5e10, 'a', '😀😀', '\ud800', 'x\ny', null, true, '//', '/*', '"'), fc.integer());
const generated = fc.letrec<{ v: Gen; arr: Gen[]; obj: { members: Array<[string, Gen]> } }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, scalar, tie('arr'), tie('obj')),
  arr: fc.array(tie('v'), { maxLength: 4 }),
  // Members as a list: a key may repeat (the first is the one located).
  obj: fc.array(fc.tuple(key, tie('v')), { maxLength: 4 }).map((members) => ({ members })),
}));

/** What goes between tokens: whitespace, and in JSONC comments (with slashes and stars inside). */
const gap = (jsonc: boolean): fc.Arbitrary<string> =>
  fc
    .array(fc.constantFrom(...['', ' ', '\n', '\t', '\r\n', '  \n    ', ...(jsonc ? ['// c "x": [\n', '/* {"a": 1} */', '/**/'] : [])]), {
      maxLength: 2,
    })
    .map((g) => g.join(''));

/** Writes a generated value with the gaps given (cycled), and a trailing comma sometimes (JSONC). */
function write(v: Gen, gaps: string[], jsonc: boolean): string {
  let i = 0;
  const g = (): string => (gaps.length === 0 ? '' : gaps[i++ % gaps.length]!);
  const out = (x: Gen): string => {
    if (Array.isArray(x))
      return `[${g()}${x.map((e) => `${out(e)}${g()}`).join(`,${g()}`)}${jsonc && x.length > 0 && i % 3 === 0 ? ',' : ''}]`;
    if (x !== null && typeof x === 'object') {
      return `{${g()}${x.members.map(([k, e]) => `${JSON.stringify(k)}${g()}:${g()}${out(e)}${g()}`).join(`,${g()}`)}${jsonc && x.members.length > 0 && i % 3 === 0 ? ',' : ''}}`;
    }
    return JSON.stringify(x);
  };
  return `${g()}${out(v)}${g()}`;
}

/** Every pointer the value has, and some it lacks (a missing key, an index past the end, `01`). */
function pointers(v: Gen): string[] {
  const out: string[] = [];
  const walk = (x: Gen, at: string): void => {
    out.push(at, joinPointer(at, 'missing'));
    if (Array.isArray(x)) {
      out.push(joinPointer(at, String(x.length)), joinPointer(at, '01'));
      x.forEach((e, i) => walk(e, joinPointer(at, String(i))));
    } else if (x !== null && typeof x === 'object') for (const [k, e] of x.members) walk(e, joinPointer(at, k));
  };
  walk(v, '');
  return out;
}

/** The scan's answer: locateJson, then lineCol. */
const scanned = (text: string, pointer: string) => lineCol(text, locateJson(text, parsePointer(pointer)));

describe("the index gives the scan's answers", () => {
  it.each([false, true])(
    'JSON (jsonc: %s): every pointer, present or missing, in any order, after the first lookup (property)',
    (jsonc) => {
      fc.assert(
        fc.property(generated.v, fc.array(gap(jsonc), { maxLength: 6 }), fc.nat(), (v, gaps, shift) => {
          const text = write(v, gaps, jsonc);
          const all = pointers(v);
          // Start anywhere in the list: the first lookup scans, every later one uses the index.
          const order = all.map((_, i) => all[(i + shift) % all.length]!);
          const positions = new SourcePositions(text, jsonc ? 'jsonc' : 'json');
          for (const p of [...order, ...order]) expect(positions.of(p), `${p} in ${JSON.stringify(text)}`).toEqual(scanned(text, p));
        }),
        { numRuns: RUNS, seed: SEED },
      );
    },
  );

  it("LineIndex gives lineCol's line and column at every offset: lines, surrogate pairs, lone halves (property)", () => {
    const unit = fc.constantFrom('a', '\n', '\r', '😀', '\ud800', '\udc00', '\u2028', 'é');
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 40 }).map((u) => u.join('')),
        (text) => {
          const index = new LineIndex(text);
          for (let offset = 0; offset <= text.length + 1; offset++) expect(index.of(offset)).toEqual(lineCol(text, offset));
        },
      ),
      { numRuns: RUNS * 5, seed: SEED },
    );
  });

  it("YAML: every pointer gives what the document's getIn gave, key by key (property)", () => {
    /** The previous lookup: the deepest prefix of the pointer that getIn finds, else the document. */
    const reference = (doc: YAML.Document.Parsed, text: string, pointer: string) => {
      const tokens = parsePointer(pointer);
      for (let n = tokens.length; n >= 0; n--) {
        const node = n === 0 ? doc.contents : doc.getIn(tokens.slice(0, n), true);
        if (YAML.isNode(node) && node.range) return lineCol(text, node.range[0]);
      }
      return lineCol(text, 0);
    };
    fc.assert(
      fc.property(generated.v, fc.nat(), fc.boolean(), (v, shift, flow) => {
        // As a JS value (the last of a repeated key holds) written by the package: block or flow style.
        const value = JSON.parse(write(v, [], false)) as unknown;
        const text = YAML.stringify(value, { collectionStyle: flow ? 'flow' : 'block' });
        const doc = YAML.parseDocument(text, { uniqueKeys: false });
        // getIn told a sequence's index `01` from `1` by Number(); a pointer never has one.
        const all = pointers(v).filter((p) => !p.split('/').includes('01'));
        const positions = new SourcePositions(text, 'yaml');
        for (let i = 0; i < all.length; i++) {
          const p = all[(i + shift) % all.length]!;
          expect(positions.of(p), `${p} in ${JSON.stringify(text)}`).toEqual(reference(doc, text, p));
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('what a lookup answers', () => {
  it('a repeated key: the first one, in the scan and in the index alike', () => {
    const text = '{"a": 1, "a": {"b": 2}}';
    const positions = new SourcePositions(text, 'json');
    expect(positions.of('/a/b')).toEqual({ line: 1, col: 7 });
    expect(positions.of('/a/b')).toEqual({ line: 1, col: 7 });
    expect(lineCol(text, locateJson(text, ['a', 'b']))).toEqual({ line: 1, col: 7 });
  });

  it("an NDJSON line's offset is added on both paths", () => {
    const positions = new SourcePositions('{"a": [1, {"b": 2}]}', 'json', 41);
    expect(positions.of('/a/1/b')).toEqual({ line: 42, col: 17 });
    expect(positions.of('/a/0')).toEqual({ line: 42, col: 8 });
    expect(positions.of('/a/1/b')).toEqual({ line: 42, col: 17 });
  });

  it('YAML: a number, boolean or null key is found by its property name, its source text, as the parsed object has it', () => {
    const positions = new SourcePositions('1: one\ntrue: yes\n~: nothing\nlist: [a, b]\n', 'yaml');
    expect(positions.of('/1')).toEqual({ line: 1, col: 4 });
    expect(positions.of('/true')).toEqual({ line: 2, col: 7 });
    expect(positions.of('/~0')).toEqual({ line: 3, col: 4 });
    expect(positions.of('/list/1')).toEqual({ line: 4, col: 11 });
  });

  it('20,000 lookups in a 20,000-member object each find their member', () => {
    const members = Array.from({ length: 20_000 }, (_, i) => `  "k${i}": {"type": "string", "typx": ${i}}`);
    const text = `{\n${members.join(',\n')}\n}`;
    const positions = new SourcePositions(text, 'json');
    for (let i = 0; i < 20_000; i += 1)
      expect(positions.of(`/k${i}/typx`)).toEqual({ line: i + 2, col: members[i]!.lastIndexOf(': ') + 3 });
  });
});
