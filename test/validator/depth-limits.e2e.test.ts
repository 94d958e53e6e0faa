// One verdict at the edges: a deep schema and deep data get the same answer, or the same one-line
// error, through every path a message can take: compile()'s generated code, the interpreter it
// falls back to where code generation is refused (in this process, and the built library under
// `node --disallow-code-generation-from-strings`), a module `bqschema compile` wrote (imported
// under that flag), the library's check() over a MapProvider, and the CLI's validate with one
// thread and with worker threads (BQSCHEMA_TEST_TASK_SIZE=1,1 hands every file to a task, so the
// workers judge most of them). Worker threads have a stack about four times the main thread's, so
// a limit left to the stack gave --jobs 1 and --jobs 3 different verdicts; MAX_DEPTH is counted.
// Depths are tried at the limit (L-1, L, L+1 levels) and far past it (2,000; 100,000).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as jsoncParser from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standaloneModule } from '../../src/compile/module.js';
import { check, MapProvider } from '../../src/index.js';
import { scanJson } from '../../src/registry/depth.js';
import { parseText, ParseFailure } from '../../src/registry/parse.js';
import { preview } from '../../src/validator/compile.js';
import { compile, MAX_DEPTH, parseSchema, SchemaError, type Violation } from '../../src/validator/index.js';
import { interpret } from '../../src/validator/interpret.js';
import { DEEP_DOCUMENT_MESSAGE, DEEP_SCHEMA_MESSAGE } from '../../src/validator/limits.js';
import { bq, expectExit, expectOneLineError, ROOT } from '../helpers/cli.js';

const L = MAX_DEPTH;
// Generated cases: a fixed seed in `npm test`; BQ_DEPTH_SEED / BQ_DEPTH_RUNS explore more.
const SEED = Number(process.env.BQ_DEPTH_SEED ?? 35);
const RUNS = Number(process.env.BQ_DEPTH_RUNS ?? 40);
const SCAN_RUNS = Number(process.env.BQ_DEPTH_RUNS ?? 0) * 500 || 20_000;

/** How many objects and arrays deep a value nests (its root at 1, a scalar 0), without recursion. */
function levels(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    max = Math.max(max, d);
    for (const c of Object.values(v)) stack.push([c, d + 1]);
  }
  return max;
}

/*
 * A chain: `n` wrappers of one kind around a leaf schema that wants a string of at least two
 * characters. Its data is `n` containers of the matching kind around a string. Every URN's schema
 * is `{type: object, properties: {v: <chain>}}` (two levels more), and a message's data `{v: …}`.
 */
type Shape = 'items' | 'properties' | 'additionalProperties' | 'const';
const SHAPES: readonly Shape[] = ['items', 'properties', 'additionalProperties', 'const'];
const LEAF = { type: 'string', minLength: 2 };
/** Levels of schema per wrapper. */
const STEP: Record<Exclude<Shape, 'const'>, number> = { items: 1, properties: 2, additionalProperties: 1 };

function wrap(shape: Exclude<Shape, 'const'>, inner: unknown): unknown {
  if (shape === 'items') return { type: 'array', items: inner };
  if (shape === 'properties') return { type: 'object', required: ['a'], properties: { a: inner } };
  return { type: 'object', additionalProperties: inner };
}

/** Data `depth` containers deep around `leaf` (JSON text), as the chain of `shape` reads it. */
function dataText(shape: Shape, depth: number, leaf: string): string {
  if (shape === 'items' || shape === 'const') return '['.repeat(depth) + leaf + ']'.repeat(depth);
  const key = shape === 'properties' ? 'a' : 'k';
  return `{"${key}":`.repeat(depth) + leaf + '}'.repeat(depth);
}

/** A URN's schema exactly `total` levels deep, and how deep its chain's data goes. */
function schemaOf(shape: Shape, total: number): { schema: unknown; depth: number } {
  if (shape === 'const') {
    // {type, properties: {v: {const: X}}}: X starts at level 4.
    const depth = total - 3;
    return { schema: { type: 'object', properties: { v: { const: JSON.parse(dataText('const', depth, '"ab"')) } } }, depth };
  }
  const room = total - 2 - levels(LEAF);
  const n = Math.floor(room / STEP[shape]);
  let chain: unknown = LEAF;
  // A spare level (a two-level wrapper that does not fit) goes on the leaf as an enum of strings.
  if (room % STEP[shape] === 1) chain = { ...LEAF, enum: ['ab', 'xy', 'a'] };
  for (let i = 0; i < n; i++) chain = wrap(shape, chain);
  return { schema: { type: 'object', properties: { v: chain } }, depth: n };
}

/** A schema `total` levels deep as JSON text, built without recursion (JSON.stringify recurses). */
function deepSchemaText(shape: Exclude<Shape, 'const'>, total: number): string {
  const n = Math.floor((total - 3) / STEP[shape]);
  const open =
    shape === 'items'
      ? '{"type":"array","items":'
      : shape === 'properties'
        ? '{"type":"object","required":["a"],"properties":{"a":'
        : '{"type":"object","additionalProperties":';
  const close = shape === 'properties' ? '}}' : '}';
  const text = '{"type":"object","properties":{"v":' + open.repeat(n) + JSON.stringify(LEAF) + close.repeat(n) + '}}';
  return text;
}

interface Verdict {
  valid: boolean;
  violations: Array<Pick<Violation, 'instancePath' | 'schemaPath' | 'keyword' | 'message'>>;
}
type Answer = Verdict | { error: string };

const strip = (vs: readonly Violation[]): Verdict['violations'] =>
  vs.map(({ instancePath, schemaPath, keyword, message }) => ({ instancePath, schemaPath, keyword, message }));

type Form = { isValid(d: unknown): boolean; validate(d: unknown): Violation[] } | { error: string };
const forms = new WeakMap<object, { generated: Form; walked: Form }>();

/** A schema's two forms, made once: compile()'s generated code, and the interpreter over the tree parseSchema gives (what compile() walks where code generation is refused). */
function formsOf(schema: unknown): { generated: Form; walked: Form } {
  const key = schema as object;
  let f = forms.get(key);
  if (f !== undefined) return f;
  const refusal = (err: unknown): Form => {
    if (!(err instanceof SchemaError)) throw err;
    return { error: err.message };
  };
  let generated: Form;
  let walked: Form;
  try {
    generated = compile(schema, { onWarning: () => {} });
  } catch (err) {
    generated = refusal(err);
  }
  try {
    walked = interpret(parseSchema(schema).root, preview, new Map());
  } catch (err) {
    walked = refusal(err);
  }
  forms.set(key, (f = { generated, walked }));
  return f;
}

const answer = (form: Form, data: unknown): Answer =>
  'error' in form ? form : { valid: form.isValid(data), violations: strip(form.validate(data)) };
/** compile()'s generated code on `data`, or its refusal. */
const generated = (schema: unknown, data: unknown): Answer => answer(formsOf(schema).generated, data);
/** The interpreter on `data`, or parseSchema's refusal. */
const walked = (schema: unknown, data: unknown): Answer => answer(formsOf(schema).walked, data);

describe('the limit, in this process: compile(), the interpreter and the module writer agree', () => {
  for (const shape of SHAPES) {
    for (const total of [L - 1, L, L + 1, 2_000]) {
      it(`${shape}, a schema of ${total} levels`, () => {
        const { schema, depth } = schemaOf(shape, total);
        expect(levels(schema)).toBe(total);
        const texts = [depth - 1, depth, depth + 1, 2_000, 100_000].flatMap((d) =>
          d < 0 ? [] : [dataText(shape, d, '"ab"'), dataText(shape, d, '"a"')],
        );
        for (const text of texts) {
          const data = { v: JSON.parse(text) as unknown };
          const g = generated(schema, data);
          expect(walked(schema, data)).toEqual(g);
          if (total > L) expect(g).toEqual({ error: DEEP_SCHEMA_MESSAGE });
          else expect('valid' in g).toBe(true);
        }
        if (total > L) expect(() => standaloneModule([{ urn: 'urn:t:x', schema }])).toThrow(`urn:t:x: ${DEEP_SCHEMA_MESSAGE}`);
        else expect(() => standaloneModule([{ urn: 'urn:t:x', schema }])).not.toThrow();
      });
    }
  }

  it('a schema 100,000 levels deep is refused with the same message, by each', () => {
    const schema = JSON.parse(deepSchemaText('items', 100_000)) as unknown;
    expect(generated(schema, {})).toEqual({ error: DEEP_SCHEMA_MESSAGE });
    expect(walked(schema, {})).toEqual({ error: DEEP_SCHEMA_MESSAGE });
    expect(() => standaloneModule([{ urn: 'urn:t:x', schema }])).toThrow(`urn:t:x: ${DEEP_SCHEMA_MESSAGE}`);
  });

  it('a shared sub-tree counts as deep as the deepest place it is used (YAML aliases make such schemas)', () => {
    // 300 levels, used once near the root and once under 250 more: 552 levels in all.
    let shared: unknown = LEAF;
    for (let i = 0; i < 299; i++) shared = { items: shared };
    let under: unknown = shared;
    for (let i = 0; i < 250; i++) under = { items: under };
    const schema = { properties: { a: shared, b: under } };
    expect(levels(schema)).toBe(552);
    expect(generated(schema, {})).toEqual({ error: DEEP_SCHEMA_MESSAGE });
    // In either order of the keys (the walk meets the shallow use first, or the deep one).
    expect(generated({ properties: { b: under, a: shared } }, {})).toEqual({ error: DEEP_SCHEMA_MESSAGE });
    // One sub-tree reached by 1,024 paths, under a chain: measured once, refused past the limit
    // and judged within it.
    let dag: unknown = LEAF;
    for (let i = 0; i < 10; i++) dag = { properties: { x: dag, y: dag } };
    const under2 = (n: number): unknown => {
      let s: unknown = dag;
      for (let i = 0; i < n; i++) s = { items: s };
      return s;
    };
    expect(levels(under2(491))).toBe(L);
    expect(generated(under2(492), 1)).toEqual({ error: DEEP_SCHEMA_MESSAGE });
    expect(walked(under2(492), 1)).toEqual({ error: DEEP_SCHEMA_MESSAGE });
    const within = under2(491);
    const data = JSON.parse('['.repeat(491) + '{"x":{"y":"ab"}}' + ']'.repeat(491)) as unknown;
    expect(generated(within, data)).toMatchObject({ valid: true });
    expect(walked(within, data)).toEqual(generated(within, data));
  });

  it('on generated chains around the limit: one verdict, or one refusal', () => {
    const wrapper = fc.constantFrom<Exclude<Shape, 'const'>>('items', 'properties', 'additionalProperties');
    fc.assert(
      fc.property(
        fc.array(wrapper, { minLength: 200, maxLength: 300 }),
        fc.integer({ min: -6, max: 6 }),
        fc.integer({ min: 0, max: 3 }),
        (kinds, shift, cut) => {
          // Wrappers until the schema is L + shift levels deep (or the kinds run out).
          let chain: unknown = LEAF;
          let depth = levels(LEAF) + 2;
          const used: typeof kinds = [];
          for (let i = 0; depth + STEP[kinds[i % kinds.length]!] <= L + shift; i++) {
            const k = kinds[i % kinds.length]!;
            chain = wrap(k, chain);
            depth += STEP[k];
            used.unshift(k);
          }
          const schema = { type: 'object', properties: { v: chain } };
          // Data that follows the chain for all but `cut` of its steps, then a string.
          let text = cut % 2 === 0 ? '"ab"' : '"a"';
          for (const k of used.slice(0, Math.max(0, used.length - cut)).reverse())
            text = k === 'items' ? `[${text}]` : `{"${k === 'properties' ? 'a' : 'k'}":${text}}`;
          const data = { v: JSON.parse(text) as unknown };
          const g = generated(schema, data);
          expect(walked(schema, data)).toEqual(g);
          expect('error' in g).toBe(levels(schema) > L);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe("a JSON text's first syntax error is found at any depth, as jsonc-parser finds it", () => {
  it('on generated near-JSON texts, strict and JSONC', () => {
    const piece = fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"b\\"',
      '1',
      '-',
      '1.',
      '1e',
      '0x1',
      'true',
      'nul',
      'null',
      ' ',
      '\n',
      '//c\n',
      '/*c*/',
      '/*',
      '"\\u12"',
      '"\\q"',
      '"\u0001"',
      '@',
      '1.5',
      '"',
      "'a'",
      '\t',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 16 }).map((a) => a.join('')),
        fc.boolean(),
        (text, strict) => {
          const errors: jsoncParser.ParseError[] = [];
          jsoncParser.parse(text, errors, { allowTrailingComma: !strict, disallowComments: strict, allowEmptyContent: false });
          const first = errors[0];
          const got = scanJson(jsoncParser, text, strict).error;
          expect(got).toEqual(first === undefined ? undefined : { code: first.error, offset: first.offset });
        },
      ),
      { numRuns: SCAN_RUNS, seed: SEED },
    );
  });

  it('in a text 100,000 levels deep, placed where it breaks', () => {
    const text = '{"a":' + '['.repeat(100_000) + '}';
    expect(() => parseText(text, 'm.json')).toThrow(new ParseFailure('m.json', 1, 100_006, 'invalid JSON: value expected'));
    // A valid one parses (JSON.parse does not recurse): data has no depth limit.
    expect(levels(parseText('['.repeat(100_000) + ']'.repeat(100_000), 'm.json'))).toBe(100_000);
  });

  it('JSONC and YAML deeper than the limit are refused where level L + 1 opens; at the limit they parse', () => {
    const jsonc = (n: number): string => '{"a": '.repeat(n) + '1' + '}'.repeat(n);
    const flow = (n: number): string => '{a: '.repeat(n) + '1' + '}'.repeat(n);
    const block = (n: number): string => Array.from({ length: n }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' 1\n';
    const seqPairs = (n: number): string => '[a: '.repeat(n) + '1' + ']'.repeat(n); // each `a: x` in [ ] is a mapping: two levels
    expect(levels(parseText(jsonc(L), 'x.jsonc'))).toBe(L);
    expect(levels(parseText(flow(L), 'x.yaml'))).toBe(L);
    expect(levels(parseText(block(L), 'x.yaml'))).toBe(L);
    expect(levels(parseText(seqPairs(L / 2), 'x.yaml'))).toBe(L);
    expect(() => parseText(jsonc(L + 1), 'x.jsonc')).toThrow(new ParseFailure('x.jsonc', 1, 6 * L + 1, DEEP_DOCUMENT_MESSAGE));
    expect(() => parseText(flow(L + 1), 'x.yaml')).toThrow(new ParseFailure('x.yaml', 1, 4 * L + 1, DEEP_DOCUMENT_MESSAGE));
    expect(() => parseText(block(L + 1), 'x.yaml')).toThrow(new ParseFailure('x.yaml', L + 1, L + 1, DEEP_DOCUMENT_MESSAGE));
    expect(() => parseText(seqPairs(L / 2 + 1), 'x.yaml')).toThrow(ParseFailure);
    // Two branches past the limit: the first in the text is named.
    expect(() => parseText(`x: ${flow(L)}\ny: ${flow(L)}\n`, 'x.yaml')).toThrow(
      new ParseFailure('x.yaml', 1, 4 * L, DEEP_DOCUMENT_MESSAGE),
    );
    expect(() => parseText(`{"x": ${jsonc(L)}, "y": ${jsonc(L)}}`, 'x.jsonc')).toThrow(
      new ParseFailure('x.jsonc', 1, 6 * L + 1, DEEP_DOCUMENT_MESSAGE),
    );
    for (const [text, file] of [
      [jsonc(100_000), 'x.jsonc'],
      [flow(100_000), 'x.yaml'],
      ['['.repeat(100_000), 'x.yaml'],
    ] as const) {
      expect(() => parseText(text, file)).toThrow(DEEP_DOCUMENT_MESSAGE);
    }
  });
});

describe(
  'every path a message takes gives one verdict (CLI with any --jobs, library, interpreter, compiled module)',
  { timeout: 240_000 },
  () => {
    let work = '';
    interface Message {
      file: string;
      urn: string;
      text: string;
      schema: unknown;
      schemaText: string;
    }
    const messages: Message[] = [];
    const refused: string[] = [];

    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'bq-depth-'));
      mkdirSync(join(work, 'm'));
      mkdirSync(join(work, 's'));
      const entries: Array<{ urn: string; schema: string }> = [];
      const within: Array<{ urn: string; schema: string }> = [];
      const add = (urn: string, schemaText: string, ok: boolean): void => {
        const file = `s/${urn.replace(/:/g, '-')}.json`;
        writeFileSync(join(work, file), schemaText);
        entries.push({ urn, schema: file });
        if (ok) within.push({ urn, schema: file });
      };
      const message = (urn: string, schemaText: string, schema: unknown, dataText: string): void => {
        const file = `m/${String(messages.length).padStart(4, '0')}.json`;
        const text = `{"job":${JSON.stringify(urn)},"data":{"v":${dataText}}}`;
        writeFileSync(join(work, file), text);
        messages.push({ file, urn, text, schema, schemaText });
      };
      // The edge itself (L levels) for every shape; past it, by one level for every shape and by
      // 2,000 and 100,000 for one (the unit tests above try every shape at L - 1 and 2,000).
      for (const shape of SHAPES) {
        for (const total of [L]) {
          const urn = `urn:t:${shape}:${total}`;
          const { schema, depth } = schemaOf(shape, total);
          const text = JSON.stringify(schema);
          add(urn, text, true);
          for (const d of [depth - 1, depth, depth + 1, 2_000, 100_000]) {
            // Past the chain's depth the leaf sits below where the schema stops (a container where
            // it wants a string), so both leaves get one verdict: the deepest take one leaf.
            for (const leaf of d > depth + 1 ? ['"ab"'] : ['"ab"', '"a"']) message(urn, text, schema, dataText(shape, d, leaf));
          }
        }
        if (shape === 'const') continue;
        for (const total of shape === 'items' ? [L + 1, 2_000, 100_000] : [L + 1]) {
          const urn = `urn:t:${shape}:${total}`;
          const text = total === L + 1 ? JSON.stringify(schemaOf(shape, total).schema) : deepSchemaText(shape, total);
          add(urn, text, false);
          refused.push(urn);
          message(urn, text, JSON.parse(text), dataText(shape, 3, '"ab"'));
        }
      }
      writeFileSync(join(work, 'registry.json'), JSON.stringify({ schemas: entries }));
      writeFileSync(join(work, 'within.json'), JSON.stringify({ schemas: within }));
      // `bqschema/standalone` resolves through this checkout's package.json exports, as in a project.
      mkdirSync(join(work, 'node_modules'));
      symlinkSync(ROOT, join(work, 'node_modules', 'bqschema'));
      writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    });
    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    let answers: Answer[] | undefined;
    /** What the library says of each message (its verdict, or its schema's refusal), worked out once. */
    function library(): Answer[] {
      if (answers !== undefined) return answers;
      const providers = new Map<string, MapProvider | string>();
      answers = messages.map((m) => {
        const data = (JSON.parse(m.text) as { data: unknown }).data;
        let provider = providers.get(m.urn);
        if (provider === undefined) {
          try {
            provider = new MapProvider({ [m.urn]: m.schema }, { onWarning: () => {} });
          } catch (err) {
            if (!(err instanceof SchemaError)) throw err;
            provider = err.message.replace(`schema for ${m.urn}: `, '');
          }
          providers.set(m.urn, provider);
        }
        const g = generated(m.schema, data);
        expect(walked(m.schema, data), m.file).toEqual(g);
        if (typeof provider === 'string') {
          expect(g, m.file).toEqual({ error: provider });
          return g;
        }
        const violations = check(provider, m.urn, data);
        expect(g, m.file).toEqual({ valid: violations.length === 0, violations: strip(violations) });
        return g;
      });
      return answers;
    }

    it('the generated code, the interpreter and check(): one verdict per message, one refusal per deep schema', () => {
      const answers = library();
      expect(answers.filter((a) => 'error' in a)).toHaveLength(refused.length);
      for (const a of answers) if ('error' in a) expect(a.error).toBe(DEEP_SCHEMA_MESSAGE);
      // The cases hold both verdicts at every shape and depth class.
      expect(answers.some((a) => 'valid' in a && a.valid)).toBe(true);
      expect(answers.some((a) => 'valid' in a && !a.valid)).toBe(true);
    });

    it("validate --jobs 1, 3 and the default: the library's verdicts, byte for byte the same output", async () => {
      const answers = library();
      let one: string | undefined;
      // With tiny tasks, --jobs 3's two workers judge most files, this thread the rest: what --jobs 2
      // would show (a worker's stack beside the main thread's), with one more worker. The default is
      // one thread for whole files, read through the plan the threads use.
      for (const jobs of [['--jobs', '1'], ['--jobs', '3'], []]) {
        const r = await bq(['validate', '-f', 'json', '-r', 'registry.json', ...jobs, 'm'], {
          cwd: work,
          env: { BQSCHEMA_TEST_TASK_SIZE: '1,1' },
        });
        expectExit(r, 1);
        expect(r.stderr).toBe('');
        if (one === undefined) one = r.stdout;
        else expect(r.stdout, `validate ${jobs.join(' ')}`).toBe(one);
        const results = (
          JSON.parse(r.stdout) as { results: Array<{ file: string; status: string; violations: Verdict['violations']; error?: string }> }
        ).results;
        expect(results.map((x) => x.file)).toEqual(messages.map((m) => m.file));
        results.forEach((x, i) => {
          const a = answers[i]!;
          if ('error' in a) {
            expect(x.status).toBe('error');
            expect(x.error).toBe(`schema for ${messages[i]!.urn} (s/${messages[i]!.urn.replace(/:/g, '-')}.json): ${a.error}`);
          } else {
            expect(x.status, x.file).toBe(a.valid ? 'valid' : 'invalid');
            expect(
              x.violations.map(({ instancePath, schemaPath, keyword, message }) => ({ instancePath, schemaPath, keyword, message })),
              x.file,
            ).toEqual(a.violations);
          }
        });
      }
    });

    it('the built library where code generation is refused, and a module bqschema compile wrote: the same verdicts and refusals', async () => {
      const answers = library();
      // compile refuses the registry with a deep schema in one line, and writes nothing.
      const bad = await bq(['compile', '-r', 'registry.json', '-o', 'all.js'], { cwd: work });
      expectOneLineError(
        bad,
        new RegExp(`^bqschema: schema for urn:t:\\S+ \\(s/\\S+\\.json\\): ${DEEP_SCHEMA_MESSAGE.replace(/[()]/g, '\\$&')}$`),
        1,
      );
      expect(existsSync(join(work, 'all.js'))).toBe(false);
      const good = await bq(['compile', '-r', 'within.json', '-o', 'within.js'], { cwd: work });
      expectExit(good, 0);

      // Schemas travel as text: JSON.stringify recurses, and the deepest is 100,000 levels.
      writeFileSync(
        join(work, 'cases.json'),
        JSON.stringify(messages.map((m) => ({ urn: m.urn, text: m.text, schemaText: m.schemaText }))),
      );
      const script = `
      import { readFileSync } from 'node:fs';
      import { compile } from 'bqschema';
      let evalRefused = false;
      try { new Function('return 1'); } catch { evalRefused = true; }
      const { validators } = await import('./within.js');
      const strip = (vs) => vs.map(({ instancePath, schemaPath, keyword, message }) => ({ instancePath, schemaPath, keyword, message }));
      const out = JSON.parse(readFileSync('cases.json', 'utf8')).map(({ urn, text, schemaText }) => {
        const data = JSON.parse(text).data;
        const schema = JSON.parse(schemaText);
        let walked;
        try {
          const c = compile(schema, { onWarning: () => {} });
          walked = { valid: c.isValid(data), violations: strip(c.validate(data)) };
        } catch (err) {
          walked = { error: err.name + ': ' + err.message };
        }
        const v = validators.get(urn);
        const module = v === undefined ? null : { valid: v.isValid(data), violations: strip(v.validate(data)) };
        return { walked, module };
      });
      process.stdout.write(JSON.stringify({ evalRefused, out }));
    `;
      const r = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
        cwd: work,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const got = JSON.parse(r.stdout) as { evalRefused: boolean; out: Array<{ walked: Answer; module: Verdict | null }> };
      expect(got.evalRefused).toBe(true); // the flag really refused code generation: compile() walked the tree
      got.out.forEach((o, i) => {
        const a = answers[i]!;
        const what = messages[i]!.file;
        if ('error' in a) {
          expect(o.walked, what).toEqual({ error: `SchemaError: ${a.error}` });
          expect(o.module, what).toBeNull();
        } else {
          expect(o.walked, what).toEqual(a);
          expect(o.module, what).toEqual(a);
        }
      });
    });

    it('YAML and JSONC: a schema or a message past the limit is the same one-line error in every thread', async () => {
      const dir = join(work, 'yaml');
      mkdirSync(join(dir, 'm'), { recursive: true });
      const flow = (n: number): string => '{a: '.repeat(n) + '"ab"' + '}'.repeat(n);
      writeFileSync(join(dir, 'ok.yaml'), 'type: object\n');
      writeFileSync(join(dir, 'deep.yaml'), `properties: {v: ${flow(L)}}\n`); // level L + 1 opens at line 1, col 16 + 4 (L - 2)
      writeFileSync(join(dir, 'deep.jsonc'), '{"properties": {"v": ' + '{"a": '.repeat(L) + '1' + '}'.repeat(L) + '}}');
      writeFileSync(
        join(dir, 'registry.yaml'),
        'schemas:\n  - {urn: "urn:t:ok", schema: ok.yaml}\n  - {urn: "urn:t:deep", schema: deep.yaml}\n  - {urn: "urn:t:deepc", schema: deep.jsonc}\n',
      );
      for (let i = 0; i < 4; i++) {
        writeFileSync(join(dir, 'm', `${i}a.yaml`), `job: urn:t:ok\ndata: {v: ${flow(L)}}\n`);
        writeFileSync(join(dir, 'm', `${i}b.json`), '{"job":"urn:t:deep","data":{}}');
        writeFileSync(join(dir, 'm', `${i}c.json`), '{"job":"urn:t:deepc","data":{}}');
        writeFileSync(join(dir, 'm', `${i}d.yaml`), `job: urn:t:ok\ndata: {v: ${flow(L - 3)}}\n`);
      }
      const files = ['0a', '0b', '0c', '0d', '1a', '1b', '1c', '1d', '2a', '2b', '2c', '2d', '3a', '3b', '3c', '3d'].map((n) =>
        join('m', n.endsWith('a') || n.endsWith('d') ? `${n}.yaml` : `${n}.json`),
      );
      let one: string | undefined;
      for (const jobs of ['1', '3']) {
        const r = await bq(['validate', '-f', 'json', '-r', 'registry.yaml', '--jobs', jobs, ...files], {
          cwd: dir,
          env: { BQSCHEMA_TEST_TASK_SIZE: '1,1' },
        });
        expectExit(r, 1);
        if (one === undefined) one = r.stdout;
        else expect(r.stdout).toBe(one);
      }
      const results = (JSON.parse(one!) as { results: Array<{ status: string; error?: string; line?: number; col?: number }> }).results;
      expect(results.map((x) => x.status)).toEqual(Array.from({ length: 4 }, () => ['error', 'error', 'error', 'valid']).flat());
      expect(results[0]!.error).toBe(DEEP_DOCUMENT_MESSAGE);
      expect([results[0]!.line, results[0]!.col]).toEqual([2, 11 + 4 * (L - 2)]);
      expect(results[1]!.error).toBe(`schema file for urn:t:deep is malformed: deep.yaml:1:${17 + 4 * (L - 2)}: ${DEEP_DOCUMENT_MESSAGE}`);
      expect(results[2]!.error).toBe(
        `schema file for urn:t:deepc is malformed: deep.jsonc:1:${22 + 6 * (L - 2)}: ${DEEP_DOCUMENT_MESSAGE}`,
      );
      expect(readFileSync(join(dir, 'deep.yaml'), 'utf8')).toBe(`properties: {v: ${flow(L)}}\n`); // inputs untouched
    });
  },
);
