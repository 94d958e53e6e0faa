import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DirProvider, MapProvider, RegistryError, WARNING_CODE } from '../../src/index.js';
import { readManifest } from '../../src/registry/index.js';

const dirs: string[] = [];
function registry(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bq-prov-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  vi.restoreAllMocks();
});

const manifest = (entries: unknown[]): string => JSON.stringify({ schemas: entries });

describe('MapProvider', () => {
  it('compiles eagerly and answers per URN, undefined for unknown URNs', () => {
    const p = new MapProvider({ 'urn:a': { type: 'object', required: ['x'] } });
    expect(p.schemaFor('urn:a')!.isValid({ x: 1 })).toBe(true);
    expect(p.schemaFor('urn:a')!.isValid({})).toBe(false);
    expect(p.schemaFor('urn:b')).toBeUndefined();
    expect(p.schemaFor('constructor')).toBeUndefined();
  });

  it('collects every warning with its URN and sends it to onWarning', () => {
    const seen: string[] = [];
    const p = new MapProvider(
      { 'urn:a': { pattern: 'x', properties: { b: { format: 'email' } } }, 'urn:b': { maximum: 1 } },
      { onWarning: (_w, message) => seen.push(message) },
    );
    expect(p.warnings).toEqual([
      { kind: 'unsupported', pointer: '', keyword: 'pattern', urn: 'urn:a' },
      { kind: 'unsupported', pointer: '/properties/b', keyword: 'format', urn: 'urn:a' },
      { kind: 'unsupported', pointer: '', keyword: 'maximum', urn: 'urn:b' },
    ]);
    expect(seen).toHaveLength(3);
    expect(seen[0]).toContain('urn:a');
  });

  it('falls back to process.emitWarning with the contract code, once per distinct message', () => {
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const schemas = { 'urn:emit-once-test': { multipleOf: 2 } };
    new MapProvider(schemas);
    new MapProvider(schemas);
    const calls = spy.mock.calls.filter((c) => String(c[0]).includes('urn:emit-once-test'));
    expect(calls).toHaveLength(1);
    expect(calls[0]![1]).toMatchObject({ code: WARNING_CODE });
    // A second provider still has its complete list.
    expect(new MapProvider(schemas, { onWarning: () => {} }).warnings).toHaveLength(1);
  });

  it('fromJson parses raw text and names the URN when it is not JSON', () => {
    const p = MapProvider.fromJson({ 'urn:a': '{"type":"string"}' });
    expect(p.schemaFor('urn:a')!.isValid('x')).toBe(true);
    expect(() => MapProvider.fromJson({ 'urn:bad': '{nope' })).toThrow(/urn:bad/);
  });
});

describe('readManifest', () => {
  it('reports every problem without throwing', () => {
    const { entries, issues: problems } = readManifest({
      schemas: [
        { urn: 'urn:a', schema: 'a.json' },
        { urn: '', schema: 'b.json' },
        { urn: 'urn:c' },
        { urn: 'urn:a', schema: 'again.json' },
        'nope',
        { urn: 'urn:d', schema: 'd.json', owner: 5 },
      ],
    });
    expect(entries.map((e) => e.urn)).toEqual(['urn:a', 'urn:d']);
    const fatal = problems.filter((p) => p.fatal);
    expect(fatal.map((p) => p.pointer)).toEqual([
      '/schemas/1/urn',
      '/schemas/2/schema',
      '/schemas/3/urn',
      '/schemas/4',
      '/schemas/5/owner',
    ]);
    expect(fatal[2]!.message).toMatch(/registered twice/);
    // `urn:a` has no name part after its namespace: reported (by check), but not fatal.
    expect(problems.filter((p) => !p.fatal).map((p) => p.message)).toContainEqual(expect.stringMatching(/"urn:a" is not in URN syntax/));
  });
  it('needs an object with a schemas array', () => {
    expect(readManifest([]).issues[0]!.message).toMatch(/object/);
    expect(readManifest({}).issues[0]!.message).toMatch(/schemas/);
  });
});

describe('DirProvider', () => {
  it('reads the manifest once and loads schemas lazily, relative to the manifest, cached', () => {
    const dir = registry({
      'registry.json': manifest([
        { urn: 'urn:a', schema: 'schemas/a.json', owner: 'team' },
        { urn: 'urn:b', schema: 'schemas/missing.json' },
      ]),
      'schemas/a.json': '{"type":"object","required":["id"]}',
    });
    const p = new DirProvider(join(dir, 'registry.json'));
    expect(p.urns()).toEqual(['urn:a', 'urn:b']);
    expect(p.entry('urn:a')!.owner).toBe('team');
    const a = p.schemaFor('urn:a')!;
    expect(a.isValid({ id: 1 })).toBe(true);
    expect(p.schemaFor('urn:a')).toBe(a);
    // The file is not read again once cached.
    rmSync(join(dir, 'schemas/a.json'));
    expect(p.schemaFor('urn:a')).toBe(a);
    expect(p.schemaFor('urn:unknown')).toBeUndefined();
  });

  it('a missing or malformed schema file throws naming the URN and the file, every time it is asked for', () => {
    const dir = registry({
      'registry.json': manifest([
        { urn: 'urn:gone', schema: 'gone.json' },
        { urn: 'urn:bad', schema: 'bad.json' },
      ]),
      'bad.json': '{"type": ',
    });
    const p = new DirProvider(join(dir, 'registry.json'));
    for (let i = 0; i < 2; i++) {
      expect(() => p.schemaFor('urn:gone')).toThrow(RegistryError);
      expect(() => p.schemaFor('urn:gone')).toThrow(/urn:gone.*gone\.json/);
    }
    expect(() => p.schemaFor('urn:bad')).toThrow(/urn:bad.*bad\.json/);
    // A transient failure: once the file appears, the consumer's retry succeeds.
    writeFileSync(join(dir, 'gone.json'), '{"type":"object"}');
    expect(p.schemaFor('urn:gone')!.isValid({})).toBe(true);
  });

  it('refuses a schema path outside the manifest directory, lexically or through a symlink, without reading it', () => {
    const outside = registry({ 'secret.json': '{"type":"object"}' });
    const dir = registry({
      'registry.json': manifest([
        { urn: 'urn:up', schema: '../' + join(outside.split('/').pop()!, 'secret.json') },
        { urn: 'urn:abs', schema: join(outside, 'secret.json') },
        { urn: 'urn:link', schema: 'link.json' },
      ]),
    });
    symlinkSync(join(outside, 'secret.json'), join(dir, 'link.json'));
    const p = new DirProvider(join(dir, 'registry.json'));
    for (const urn of ['urn:up', 'urn:abs', 'urn:link']) {
      let err: unknown;
      try {
        p.schemaFor(urn);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RegistryError);
      expect((err as RegistryError).kind).toBe('outside');
      expect((err as Error).message).toContain(urn);
    }
    const opted = new DirProvider(join(dir, 'registry.json'), { allowOutsidePaths: true });
    expect(opted.schemaFor('urn:link')!.isValid({})).toBe(true);
  });

  it('throws at construction on a malformed manifest, naming the problem', () => {
    const cases: Array<[string, RegExp]> = [
      ['{not json', /registry\.json/],
      ['{"nope": []}', /no "schemas" array/],
      [manifest([{ urn: 'urn:a' }]), /"schema"/],
      [manifest([{ schema: 'a.json' }]), /"urn"/],
      [
        manifest([
          { urn: 'urn:a', schema: 'a.json' },
          { urn: 'urn:a', schema: 'b.json' },
        ]),
        /twice/,
      ],
    ];
    for (const [text, message] of cases) {
      const dir = registry({ 'registry.json': text });
      expect(() => new DirProvider(join(dir, 'registry.json'))).toThrow(message);
    }
    expect(() => new DirProvider(join(tmpdir(), 'no-such-dir-bq', 'registry.json'))).toThrow(/not found/);
  });

  it('accepts a BOM and reports warnings of loaded schemas with their URN', () => {
    const dir = registry({
      'registry.json': '\uFEFF' + manifest([{ urn: 'urn:w', schema: 'w.json' }]),
      'w.json': '\uFEFF{"pattern":"x"}',
    });
    const seen: unknown[] = [];
    const p = new DirProvider(join(dir, 'registry.json'), { onWarning: (w) => seen.push(w) });
    expect(p.warnings).toEqual([]);
    p.schemaFor('urn:w');
    expect(p.warnings).toEqual([{ kind: 'unsupported', pointer: '', keyword: 'pattern', urn: 'urn:w' }]);
    expect(seen).toEqual(p.warnings);
  });
});

describe('strict providers (docs/contract.md §8)', () => {
  const typo = { type: 'object', required: 'id', properties: { id: { type: 'integr' } } };
  it('MapProvider: a malformed keyword is a warning of kind malformed, or with strict a SchemaError naming the URN', () => {
    const warnings: Array<{ kind?: string; keyword: string }> = [];
    const lenient = new MapProvider({ 'urn:t:typo': typo }, { onWarning: (w) => warnings.push(w) });
    expect(lenient.schemaFor('urn:t:typo')!.isValid({})).toBe(true);
    expect(warnings.map((w) => [w.kind, w.keyword])).toEqual([
      ['malformed', 'required'],
      ['malformed', 'type'],
    ]);
    expect(() => new MapProvider({ 'urn:t:typo': typo }, { strict: true, onWarning: () => {} })).toThrow(
      /^schema for urn:t:typo: .*(required|type)/,
    );
  });
});
