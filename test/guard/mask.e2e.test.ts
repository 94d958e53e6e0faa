// Sensitive paths and masking in the library, with the SDKs' shape and the CLI's
// fail-closed rules. The Node SDK's sensitivePaths cases (BabelQueue/babelqueue-node
// test/gdpr/gdpr.test.ts) are ported as data below; the library's mask gives what `bqschema gdpr --mask`
// prints for every example message; a property test shows no marked value survives any shape.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compile,
  DirProvider,
  MapProvider,
  mask,
  maskAsync,
  maskWith,
  readEnvelope,
  sensitivePaths,
  UnknownUrnError,
} from '../../src/index.js';
import { build, markedPaths, schemaArb, toJsonSchema } from '../helpers/gdpr-shapes.js';

// Properties run from a fixed seed in `npm test`; BQ_FC_SEED=<seed> draws others (or replays one).
const FC_SEED = Number(process.env.BQ_FC_SEED ?? 38149);

const ROOT = join(import.meta.dirname, '..', '..');

/** The Node SDK's sensitivePaths cases, as data: schema, expected paths (same order). */
const SDK_CASES: Array<{ name: string; schema: Record<string, unknown>; paths: Array<{ path: string; category: string }> }> = [
  {
    name: 'nested objects, array items, sorted, category',
    schema: {
      type: 'object',
      properties: {
        email: { type: 'string', 'x-gdpr-sensitive': 'email' },
        profile: { type: 'object', properties: { full_name: { type: 'string', 'x-gdpr-sensitive': true }, age: { type: 'integer' } } },
        addresses: {
          type: 'array',
          items: { type: 'object', properties: { line: { type: 'string', 'x-gdpr-sensitive': true }, city: { type: 'string' } } },
        },
      },
    },
    paths: [
      { path: 'addresses[].line', category: '' },
      { path: 'email', category: 'email' },
      { path: 'profile.full_name', category: '' },
    ],
  },
  { name: 'a root mark is the empty path', schema: { type: 'string', 'x-gdpr-sensitive': true }, paths: [{ path: '', category: '' }] },
  {
    name: 'false is not a mark',
    schema: { type: 'object', properties: { a: { 'x-gdpr-sensitive': false }, d: { type: 'string' } } },
    paths: [],
  },
];

describe("sensitivePaths: the SDKs' shape", () => {
  for (const c of SDK_CASES) {
    it(c.name, () => {
      expect(sensitivePaths(c.schema)).toEqual(c.paths);
      // A compiled schema gives the same list (it keeps the schema it was given).
      expect(sensitivePaths(compile(c.schema, { onWarning: () => {} }))).toEqual(c.paths);
    });
  }

  it('where bqschema differs by design: additionalProperties is walked, special characters escaped', () => {
    const schema = {
      type: 'object',
      properties: { 'e.mail': { 'x-gdpr-sensitive': 'email' }, extra: { additionalProperties: { 'x-gdpr-sensitive': true } } },
    };
    expect(sensitivePaths(schema)).toEqual([
      { path: 'e\\.mail', category: 'email' },
      { path: 'extra.*', category: '' },
    ]);
  });

  it('where bqschema differs by design: a malformed marker ("", 1) marks its node, with no category (masking fails closed)', () => {
    const schema = {
      type: 'object',
      properties: { a: { 'x-gdpr-sensitive': false }, b: { 'x-gdpr-sensitive': '' }, c: { 'x-gdpr-sensitive': 1 }, d: { type: 'string' } },
    };
    expect(sensitivePaths(schema)).toEqual([
      { path: 'b', category: '' },
      { path: 'c', category: '' },
    ]);
    expect(maskWith(schema, { a: 'ab', b: 'bc', c: 'cd', d: 'de' })).toEqual({ a: 'ab', b: 'b***', c: 'c***', d: 'de' });
  });

  it("x-gdpr-sensitive never changes a verdict (the SDK's validation-neutral case)", () => {
    const bare = compile({ type: 'string', minLength: 3 });
    const marked = compile({ type: 'string', minLength: 3, 'x-gdpr-sensitive': 'email' });
    for (const v of ['ab', 'abcd', 1]) expect(marked.validate(v)).toEqual(bare.validate(v));
  });
});

describe('mask(provider, urn, data)', () => {
  const schema = {
    type: 'object',
    properties: {
      email: { type: 'string', 'x-gdpr-sensitive': 'email' },
      tags: { type: 'array', items: { type: 'string', 'x-gdpr-sensitive': true } },
      id: { type: 'integer' },
    },
  };
  const provider = new MapProvider({ 'urn:t:user': schema });

  it('redacts marked values, keeps the rest, never mutates', () => {
    const data = { email: 'ada@example.com', tags: ['vip', 'beta'], id: 7 };
    const copy = structuredClone(data);
    expect(mask(provider, 'urn:t:user', data)).toEqual({ email: 'a***', tags: ['v***', 'b***'], id: 7 });
    expect(data).toEqual(copy);
    expect(maskWith(schema, data)).toEqual(mask(provider, 'urn:t:user', data));
    expect(maskWith(compile(schema), data)).toEqual(mask(provider, 'urn:t:user', data));
  });

  it('fails closed: a shape the schema does not describe is redacted whole; a URN without a schema throws', async () => {
    expect(mask(provider, 'urn:t:user', { tags: { 0: 'SECRET' }, email: ['SECRET'] })).toEqual({ tags: '***', email: '***' });
    expect(() => mask(provider, 'urn:t:nope', { email: 'x' })).toThrow(UnknownUrnError);
    expect(() => mask(provider, 'urn:t:nope', {})).toThrow(
      'no schema is registered for urn:t:nope, so its data cannot be masked: none of it may be logged',
    );
    const slow = { schemaFor: async (urn: string) => provider.schemaFor(urn) };
    await expect(maskAsync(slow, 'urn:t:user', { email: 'bob@x' })).resolves.toEqual({ email: 'b***' });
    await expect(maskAsync(slow, 'urn:t:nope', {})).rejects.toBeInstanceOf(UnknownUrnError);
    // The synchronous form refuses a promise, as check does.
    expect(() => mask(slow as never, 'urn:t:user', {})).toThrow(/answered a promise/);
  });

  it('gives what `bqschema gdpr --mask` prints, for every example message', () => {
    const registry = new DirProvider(join(ROOT, 'registry.example.json'));
    const dir = join(ROOT, 'examples', 'messages', 'valid');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(2);
    let masked = 0;
    for (const f of files) {
      const envelope = readEnvelope(JSON.parse(readFileSync(join(dir, f), 'utf8'))); // job, else urn
      const cli = spawnSync(
        process.execPath,
        [join(ROOT, 'bin', 'bqschema.js'), 'gdpr', '-r', 'registry.example.json', '--mask', join(dir, f)],
        { cwd: ROOT, encoding: 'utf8' },
      );
      expect(cli.status, cli.stderr).toBe(0);
      const fromCli = (JSON.parse(cli.stdout) as { data: unknown }).data;
      expect(mask(registry, envelope.urn, envelope.data), f).toEqual(fromCli);
      if (JSON.stringify(fromCli) !== JSON.stringify(envelope.data)) masked++;
    }
    expect(masked).toBeGreaterThan(0);
  });

  it('property: no marked string survives, whatever the shape of the data (1,000 runs)', () => {
    let secrets = 0;
    fc.assert(
      fc.property(
        schemaArb(4),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 40 }),
        fc.jsonValue({ maxDepth: 2 }),
        (tree, choices, noise) => {
          const p = new MapProvider({ 'urn:p': toJsonSchema(tree) });
          markedPaths(tree).forEach((path, n) => {
            const secret = `SECRET-${n}-zz`;
            const out = JSON.stringify(mask(p, 'urn:p', build(path, secret, choices.slice(n % choices.length).concat(choices), noise)));
            secrets++;
            if (out.includes(secret.slice(1))) throw new Error(`leaked ${secret}: ${out}`);
          });
        },
      ),
      { numRuns: 1000, seed: FC_SEED },
    );
    expect(secrets).toBeGreaterThan(500);
  });
});
