// A key repeated in one object of a registry file (the manifest, a schema; JSON, JSONC or YAML) is
// an error naming the key and both places, in every command and in DirProvider: last-wins would
// silently drop what the first one said (two `required` lists: check said OK, data missing the
// first list's field validated, and the generated type made it optional). Message data keeps
// JSON.parse's last-wins, as every SDK reads it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DirProvider, RegistryError } from '../../src/index.js';
import { jsonc, ParseFailure, parseText, readSchemaFile, Registry, type TextFormat } from '../../src/registry/index.js';
import { jsonRepeatsKey } from '../../src/registry/parse.js';
import { expectRun, guardRepo, listing, removeTrees, run, tree } from '../helpers/hostile.js';

afterAll(removeTrees);

/** 1-based line and column of the nth (0-based) occurrence of `needle` in an ASCII text. */
function place(text: string, needle: string, nth = 0): string {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  if (at === -1) throw new Error(`${needle} #${nth} not in the text`);
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

/** The one-line problem for `key` repeated in `text` (its first and second occurrences). */
function repeated(file: string, text: string, key: string, needle = `"${key}"`): string {
  return `${file}:${place(text, needle, 1)}: the key "${key}" appears twice in one object (first at line ${place(text, needle, 0)}); remove one`;
}
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// A schema whose two `required` lists would leave only the second in force.
const SCHEMA: Record<TextFormat, { file: string; text: string; needle: string }> = {
  json: {
    file: 's.json',
    text: '{\n  "type": "object",\n  "required": ["id"],\n  "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},\n  "required": ["n"]\n}\n',
    needle: '"required"',
  },
  jsonc: {
    file: 's.jsonc',
    text: '// orders\n{\n  "type": "object",\n  "required": ["id"], // the key\n  "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},\n  "required": ["n"],\n}\n',
    needle: '"required"',
  },
  yaml: {
    file: 's.yaml',
    text: 'type: object\nrequired: [id]\nproperties:\n  id: {type: string}\n  n: {type: integer}\nrequired: [n]\n',
    needle: 'required:',
  },
};

// A manifest entry that names two schema files: which one is meant would be silent.
const MANIFEST: Record<TextFormat, { file: string; text: string; needle: string }> = {
  json: {
    file: 'registry.json',
    text: '{\n  "schemas": [\n    {"urn": "urn:t:a", "schema": "a.json", "schema": "b.json"}\n  ]\n}\n',
    needle: '"schema"',
  },
  jsonc: {
    file: 'registry.jsonc',
    text: '{\n  // one entry\n  "schemas": [\n    {"urn": "urn:t:a", "schema": "a.json", "schema": "b.json",},\n  ],\n}\n',
    needle: '"schema"',
  },
  yaml: { file: 'registry.yaml', text: 'schemas:\n  - urn: urn:t:a\n    schema: a.json\n    schema: b.json\n', needle: 'schema:' },
};

const FORMATS: TextFormat[] = ['json', 'jsonc', 'yaml'];
const GOOD = JSON.stringify({ type: 'object', properties: { id: { type: 'string' } } });

describe('parseText: a repeated key with uniqueKeys', () => {
  it.each(FORMATS)('%s: one ParseFailure at the second key, naming the first', (format) => {
    const { file, text, needle } = SCHEMA[format];
    const failure = (() => {
      try {
        parseText(text, file, format, { uniqueKeys: true });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(ParseFailure);
    expect((failure as ParseFailure).message).toBe(repeated(file, text, 'required', needle));
    // Without it (message data), the last one holds, as JSON.parse has it.
    expect(parseText(text, file, format)).toMatchObject({ required: ['n'] });
  });

  it('keys are compared as the object sees them: escapes, YAML scalars of any type, __proto__', () => {
    expect(() => parseText('{"a": 1, "\\u0061": 2}', 'f.json', 'json', { uniqueKeys: true })).toThrow(
      'f.json:1:10: the key "a" appears twice in one object (first at line 1:2)',
    );
    expect(() => parseText('1: x\n"1": y\n', 'f.yaml', 'yaml', { uniqueKeys: true })).toThrow('f.yaml:2:1: the key "1" appears twice');
    // A YAML key names the property its author wrote (its source text): `~` and `null` are two.
    expect(() => parseText('~: x\n"~": y\n', 'f.yaml', 'yaml', { uniqueKeys: true })).toThrow('f.yaml:2:1: the key "~" appears twice');
    expect(parseText('~: x\nnull: y\n', 'f.yaml', 'yaml', { uniqueKeys: true })).toEqual({ '~': 'x', null: 'y' });
    expect(() => parseText('{"__proto__": {}, "x": [{"__proto__": 1, "__proto__": 2}]}', 'f.jsonc', 'jsonc', { uniqueKeys: true })).toThrow(
      'f.jsonc:1:42: the key "__proto__" appears twice in one object (first at line 1:26)',
    );
    // The same key in different objects, and equal strings as values, are no repeat.
    const text = '{"a": {"a": "a"}, "b": ["a", {"a": 1}], "c": "\\"a\\": 1"}';
    for (const format of FORMATS) expect(parseText(text, `f.${format}`, format, { uniqueKeys: true })).toEqual(JSON.parse(text));
  });

  it('a long or multi-line key is shown on one short line', () => {
    const key = `${'k'.repeat(200)}\n`;
    const text = JSON.stringify({ [key]: 1 }).replace('}', `, ${JSON.stringify(key)}: 2}`);
    expect(() => parseText(text, 'f.json', 'json', { uniqueKeys: true })).toThrow(/the key "k{57}\.\.\." appears twice/);
  });

  // JSON texts the generator writes, repeats injected: the first repeat in the text (the one a
  // reader meets first) is named, in JSON, JSONC and YAML alike (JSON is YAML), at the same place.
  it('names the first repeat in the text, the same in every format (property)', () => {
    // BQ_DUPKEYS_RUNS=5000 for a longer run; BQ_DUPKEYS_SEED=<seed> replays a failure.
    const runs = Number(process.env.BQ_DUPKEYS_RUNS ?? 300);
    const key = fc.constantFrom('a', 'b', 'required', '__proto__', 'é', '\\"', 'x y');
    // Objects are lists of members, so a key can repeat (fc's objects could not hold one twice).
    type Gen = number | string | boolean | null | Gen[] | { members: Array<[string, Gen]> };
    const generated = fc.letrec<{ v: Gen; arr: Gen[]; obj: { members: Array<[string, Gen]> } }>((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.constantFrom<Gen>(1, 'a', null, true, '"a":', 2.5), tie('arr'), tie('obj')),
      arr: fc.array(tie('v'), { maxLength: 3 }),
      obj: fc.array(fc.tuple(key, tie('v')), { maxLength: 4 }).map((members) => ({ members })),
    })).v;
    /** JSON text of a generated value, its members as generated, indented or on one line. */
    const write = (v: Gen, indent: string | undefined, depth = 0): string => {
      const nl = indent === undefined ? '' : `\n${indent.repeat(depth + 1)}`;
      const end = indent === undefined ? '' : `\n${indent.repeat(depth)}`;
      if (Array.isArray(v)) return v.length === 0 ? '[]' : `[${v.map((x) => `${nl}${write(x, indent, depth + 1)}`).join(',')}${end}]`;
      if (v !== null && typeof v === 'object') {
        return v.members.length === 0
          ? '{}'
          : `{${v.members.map(([k, x]) => `${nl}${JSON.stringify(k)}: ${write(x, indent, depth + 1)}`).join(',')}${end}}`;
      }
      return JSON.stringify(v);
    };
    /** Reference: every repeat (second key's offset, first's), from jsonc-parser's tree; the earliest second. */
    const reference = (text: string): { key: string; first: number; second: number } | undefined => {
      let best: { key: string; first: number; second: number } | undefined;
      const visit = (n: ReturnType<ReturnType<typeof jsonc>['parseTree']>): void => {
        if (n === undefined) return;
        if (n.type === 'object') {
          const seen = new Map<string, number>();
          for (const p of n.children ?? []) {
            const k = p.children![0]!;
            const first = seen.get(k.value as string);
            if (first === undefined) seen.set(k.value as string, k.offset);
            else if (best === undefined || k.offset < best.second) best = { key: k.value as string, first, second: k.offset };
            visit(p.children![1]);
          }
        } else for (const c of n.children ?? []) visit(c);
      };
      visit(jsonc().parseTree(text));
      return best;
    };
    fc.assert(
      fc.property(generated, fc.constantFrom(undefined, '  ', '\t'), (v, indent) => {
        const text = write(v, indent);
        const want = reference(text);
        expect(jsonRepeatsKey(text, JSON.parse(text))).toBe(want !== undefined);
        for (const format of FORMATS) {
          let got: string | undefined;
          try {
            expect(parseText(text, `f.${format}`, format, { uniqueKeys: true })).toEqual(JSON.parse(text));
          } catch (err) {
            if (!(err instanceof ParseFailure)) throw err;
            got = err.message;
          }
          const expected =
            want === undefined
              ? undefined
              : (() => {
                  const at = (offset: number): string => {
                    const lines = text.slice(0, offset).split('\n');
                    return `${lines.length}:${[...lines[lines.length - 1]!].length + 1}`;
                  };
                  const shown = JSON.stringify(want.key);
                  return `f.${format}:${at(want.second)}: the key ${shown} appears twice in one object (first at line ${at(want.first)}); remove one`;
                })();
          expect(got, `${format}: ${text}`).toBe(expected);
        }
      }),
      { numRuns: runs, seed: Number(process.env.BQ_DUPKEYS_SEED ?? 35_2) },
    );
  });
});

describe('the registry and DirProvider refuse it (fail static)', () => {
  it.each(FORMATS)('a %s schema: that URN is unusable, every time it is asked for; the others load', (format) => {
    const { file, text, needle } = SCHEMA[format];
    const dir = tree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:t:dup', schema: file },
          { urn: 'urn:t:ok', schema: 'ok.json' },
        ],
      }),
      [file]: text,
      'ok.json': GOOD,
    });
    const provider = new DirProvider(join(dir, 'registry.json'));
    for (let i = 0; i < 2; i++) {
      let err: unknown;
      try {
        provider.schemaFor('urn:t:dup');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RegistryError);
      expect((err as RegistryError).kind).toBe('malformed');
      expect((err as RegistryError).message).toContain(
        repeated(join(dir, file).replace(`${process.cwd()}/`, ''), text, 'required', needle),
      );
      expect((err as RegistryError).position).toEqual({
        line: Number(place(text, needle, 1).split(':')[0]),
        col: Number(place(text, needle, 1).split(':')[1]),
      });
    }
    expect(provider.schemaFor('urn:t:ok')?.isValid({ id: 'x' })).toBe(true);
    expect(() => readSchemaFile(join(dir, file))).toThrow(/the key "required" appears twice in one object/);
  });

  it.each(FORMATS)('a %s manifest: the provider is not made', (format) => {
    const { file, text, needle } = MANIFEST[format];
    const dir = tree({ [file]: text, 'a.json': GOOD, 'b.json': GOOD });
    expect(() => new DirProvider(join(dir, file))).toThrow(
      new RegExp(
        `${escape(file)}:${place(text, needle, 1)}: the key "schema" appears twice in one object \\(first at line ${place(text, needle, 0)}\\); remove one$`,
      ),
    );
    expect(() => Registry.workingTree(join(dir, file))).toThrow(RegistryError);
  });
});

/*
 * Every command reads the manifest and the schema files through Registry (src/registry/registry.ts),
 * whose parseText picks the format from the file's name with uniqueKeys on; compat's file mode
 * through readSchemaFile. So the format decides only what parseText finds, the command only how it
 * says it: every command runs on one format (JSON, the one a stray JSON.parse would read last-wins),
 * and each format runs through check (its place, line and column), validate, and compat's own reader.
 */
const EVERY_COMMAND: TextFormat = 'json';

describe('every command (hostile input)', { timeout: 120_000 }, () => {
  guardRepo();

  /** Runs, then checks that the directory holds exactly what it held, byte for byte. */
  async function unchanged(dir: string, args: string[], env: Record<string, string> = {}): Promise<Awaited<ReturnType<typeof run>>> {
    const files = listing(dir);
    const bytes = files.map((f) => {
      try {
        return readFileSync(join(dir, f)).toString('base64');
      } catch {
        return '(dir)';
      }
    });
    const r = await run(args, { cwd: dir, env });
    expect(listing(dir)).toEqual(files);
    expect(
      files.map((f) => {
        try {
          return readFileSync(join(dir, f)).toString('base64');
        } catch {
          return '(dir)';
        }
      }),
    ).toEqual(bytes);
    return r;
  }

  it.each(FORMATS)(
    'a %s manifest: one line naming the key and both places, exit 1; check reports it as its manifest finding',
    async (format) => {
      const { file, text, needle } = MANIFEST[format];
      const dir = tree({ [file]: text, 'a.json': GOOD, 'b.json': GOOD, 'm.json': '{"job": "urn:t:a", "data": {}}' });
      const line = new RegExp(`^bqschema: ${escape(repeated(file, text, 'schema', needle))}$`);
      const commands = [
        ['validate', 'm.json'],
        ...(format === EVERY_COMMAND
          ? [
              ['types'],
              ['gdpr'],
              ['export-asyncapi'],
              ['compile'],
              ['catalog', '-o', 'c.html'],
              ['compat', '--against', 'HEAD'],
              ['serve', '--port', '0'],
            ]
          : []),
      ];
      const runs = await Promise.all(commands.map((c) => unchanged(dir, c)));
      runs.forEach((r, i) => {
        expect(r.stdout, commands[i]!.join(' ')).toBe('');
        expectRun(r, 1, line);
      });
      const check = await unchanged(dir, ['check', '--format', 'json']);
      expectRun(check, 1);
      const [finding] = JSON.parse(check.stdout).errors as Array<{
        rule: string;
        file: string;
        line: number;
        col: number;
        message: string;
      }>;
      expect(finding).toMatchObject({
        rule: 'manifest',
        file,
        line: Number(place(text, needle, 1).split(':')[0]),
        col: Number(place(text, needle, 1).split(':')[1]),
      });
      expect(finding!.message).toBe(repeated(file, text, 'schema', needle));
    },
  );

  it.each(FORMATS)(
    'a %s schema: check reports it at its place (rule schema), validate errors the message, compat refuses; with JSON, the rest stop in one line',
    async (format) => {
      const { file, text, needle } = SCHEMA[format];
      // The message lacks the first list's "id": with last-wins it was valid.
      const dir = tree({
        'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:dup', schema: file }] }),
        [file]: text,
        'ok.json': GOOD,
        'm.json': '{"job": "urn:t:dup", "data": {"n": 1}}',
      });
      const problem = repeated(file, text, 'required', needle);
      const [second] = [place(text, needle, 1).split(':').map(Number)];

      const check = await unchanged(dir, ['check', '--format', 'json']);
      expectRun(check, 1);
      const errors = JSON.parse(check.stdout).errors as Array<{
        rule: string;
        urn: string;
        file: string;
        line: number;
        col: number;
        message: string;
      }>;
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ rule: 'schema', urn: 'urn:t:dup', file, line: second![0], col: second![1] });
      expect(errors[0]!.message).toBe(`schema file for urn:t:dup is malformed: ${problem}`);
      if (format === EVERY_COMMAND) {
        const annotations = await unchanged(dir, ['check', '--format', 'github']);
        expect(annotations.stdout).toContain(`::error file=${file},line=${second![0]},col=${second![1]}`);
      }

      const validate = await unchanged(dir, ['validate', 'm.json']);
      expectRun(validate, 1);
      expect(validate.stderr).toBe('');
      expect(validate.stdout).toContain(`! error  m.json  urn:t:dup\n    schema file for urn:t:dup is malformed: ${problem}\n`);

      const compat = await unchanged(dir, ['compat', 'ok.json', file]);
      expectRun(compat, 1);
      expect(compat.stdout).toContain(`schema file is malformed: ${problem}`);

      const line = new RegExp(`^bqschema: schema file for urn:t:dup is malformed: ${escape(problem)}$`);
      const commands =
        format === EVERY_COMMAND
          ? [['types'], ['types', '--lang', 'go'], ['gdpr'], ['export-asyncapi'], ['compile'], ['catalog', '-o', 'c.html']]
          : [];
      const runs = await Promise.all(commands.map((c) => unchanged(dir, c)));
      runs.forEach((r, i) => {
        expect(r.stdout, commands[i]!.join(' ')).toBe('');
        expectRun(r, 1, line);
      });
    },
  );

  it('compat --against a commit whose schema repeats a key: that side is a schema problem, exit 1', async () => {
    const { file, text, needle } = SCHEMA.yaml;
    const dir = tree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:dup', schema: file }] }), [file]: text });
    const env = {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
    };
    const git = (...args: string[]): void => void execFileSync('git', args, { cwd: dir, env: { ...process.env, ...env }, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'c');
    const r = await unchanged(dir, ['compat', '--against', 'HEAD']);
    expectRun(r, 1);
    expect(r.stdout).toContain(`the key "required" appears twice in one object (first at line ${place(text, needle, 0)}); remove one`);
    expect(r.stdout).toContain(`HEAD:${file}:${place(text, needle, 1)}`);
  });

  it("messages keep JSON.parse's last-wins: a repeated key in data is judged by its last value", async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:n', schema: 's.json' }] }),
      's.json': JSON.stringify({ type: 'object', properties: { n: { type: 'integer' } } }),
      'last-ok.json': '{"job": "urn:t:n", "data": {"n": "x", "n": 1}}',
      'last-bad.json': '{"job": "urn:t:n", "data": {"n": 1, "n": "x"}}',
    });
    const ok = await unchanged(dir, ['validate', 'last-ok.json']);
    expectRun(ok, 0);
    const bad = await unchanged(dir, ['validate', 'last-bad.json']);
    expectRun(bad, 1);
    expect(bad.stdout).toMatch(/✗ invalid +last-bad\.json/);
  });
});
