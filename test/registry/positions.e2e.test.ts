import { afterAll, describe, expect, it } from 'vitest';
import { locateJson, SourcePositions } from '../../src/registry/positions.js';
import { bq, expectExit, removeTempTrees, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

const at = (text: string, tokens: string[]): string => text.slice(locateJson(text, tokens)).slice(0, 6);

describe('locateJson', () => {
  const text = '{"a": {"b\\"c": [1, {"x": "y"}], "d/e": 2}, // note\n "z": /* c */ [ ], "n": null,}';

  it('finds objects, arrays, escaped keys and scalars', () => {
    expect(locateJson(text, [])).toBe(0);
    expect(at(text, ['a'])).toBe('{"b\\"c');
    expect(at(text, ['a', 'b"c'])).toBe('[1, {"');
    expect(at(text, ['a', 'b"c', '0'])).toBe('1, {"x');
    expect(at(text, ['a', 'b"c', '1', 'x'])).toBe('"y"}],');
    expect(at(text, ['a', 'd/e'])).toBe('2}, //');
    expect(at(text, ['n'])).toBe('null,}');
  });

  it('skips comments and trailing commas (JSONC)', () => {
    expect(at(text, ['z'])).toBe('[ ], "');
  });

  it('falls back to the deepest existing ancestor', () => {
    expect(at(text, ['a', 'missing'])).toBe('{"b\\"c');
    expect(at(text, ['z', '0'])).toBe('[ ], "');
    expect(locateJson(text, ['nope', 'deeper'])).toBe(0);
  });

  it('does not take a string value for a key', () => {
    const t = '{"k": "a", "a": 5}';
    expect(at(t, ['a'])).toBe('5}');
  });

  it('handles a document nested 100,000 levels deep without recursion', () => {
    const deep = '{"x": ' + '['.repeat(100_000) + ']'.repeat(100_000) + ', "y": 1}';
    expect(at(deep, ['y'])).toBe('1}');
    expect(locateJson(deep, Array.from({ length: 50_000 }, () => '0').concat([]))).toBe(0);
    const path = ['x', ...Array.from({ length: 99_999 }, () => '0')];
    expect(locateJson(deep, path)).toBe(6 + 99_999);
  });

  it('gives line and column through SourcePositions, with an NDJSON line offset', () => {
    const p = new SourcePositions('{\n  "a": {\n    "b": 1\n  }\n}', 'json', 10);
    expect(p.of('/a/b')).toEqual({ line: 13, col: 10 });
    expect(p.of('/a/missing')).toEqual({ line: 12, col: 8 });
  });
});

describe('deeply nested input through the CLI', () => {
  const deepData = '['.repeat(100_000) + ']'.repeat(100_000);
  const dir = tempTree({
    'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t', schema: 's.json' }] }),
    's.json': JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }),
    'deep.json': `{"job":"urn:t","data":{"a":${deepData}}}`,
    'deep.ndjson': `{"job":"urn:t","data":{"a":${deepData}}}\n`,
    'deep-broken.json': `{"job":"urn:t","data":{"a":${'['.repeat(100_000)}}`,
    'deep.yaml': `a: ${deepData}\n`,
  });

  it('validate --format github places the violation without crashing', async () => {
    const r = await bq(['validate', '--registry', `${dir}/registry.json`, '--format', 'github', `${dir}/deep.json`, `${dir}/deep.ndjson`]);
    expectExit(r, 1);
    expect(r.stdout).toContain('deep.json,line=1,col=28,title=invalid data::urn:t: /a must be string, got array');
    expect(r.stdout).toContain('deep.ndjson,line=1,col=28,title=invalid data::urn:t: /a must be string, got array');
  });

  it('a malformed document nested 100,000 levels deep is a one-line error placed where it breaks', async () => {
    const r = await bq(['validate', '--registry', `${dir}/registry.json`, `${dir}/deep-broken.json`]);
    expectExit(r, 1);
    expect(r.stdout).toMatch(/deep-broken\.json:1:100028 +invalid JSON: value expected/);
  });

  it('a YAML schema nested too deeply is a schema problem that fails compat in one line of output', async () => {
    const r = await bq(['compat', `${dir}/deep.yaml`, `${dir}/deep.yaml`]);
    expectExit(r, 1);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').filter((l) => l.includes('nested deeper than 512 levels'))).toHaveLength(2);
    // Placed where level 513 opens: `a: ` then 512 brackets.
    expect(r.stdout).toMatch(
      /deep\.yaml:1:515: the document is nested deeper than 512 levels \(objects and arrays\), the most bqschema reads from YAML or JSONC; flatten it/,
    );
  });
});
