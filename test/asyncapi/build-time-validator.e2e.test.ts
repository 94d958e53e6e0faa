import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildAsyncApi, validateAsyncApi } from '../../src/asyncapi/index.js';
import specValidatorFactory from '../../src/asyncapi/generated/spec-validator.cjs';
import { codePointLength, jsonEqual } from '../../src/validator/index.js';
import { ROOT } from '../helpers/cli.js';

// export-asyncapi checks its document with ajv standalone code generated at build time
// (scripts/build-asyncapi-validator.js), not with ajv at run time.

const GENERATED = join(ROOT, 'src', 'asyncapi', 'generated', 'spec-validator.cjs');
const specValidator = specValidatorFactory({ jsonEqual, codePointLength });
const require = createRequire(import.meta.url);

type Validator = ((doc: unknown) => boolean) & { errors?: unknown[] | null };

/** The validator validate.ts compiled at run time before: ajv with the same options. */
function runtimeValidator(): Validator {
  const Ajv = require('ajv').default as new (o: object) => { compile(s: object): Validator };
  const schema = (require('@asyncapi/specs') as { schemas: Record<string, object> }).schemas['3.0.0']!;
  return new Ajv({ strict: false, allErrors: true, meta: false, validateSchema: false, validateFormats: false }).compile(schema);
}

function baseDoc(): Record<string, any> {
  return buildAsyncApi([
    { urn: 'urn:a', owner: 'team', status: 'active', schema: { type: 'object', properties: { id: { type: 'integer' } } } },
    { urn: 'urn:b', schema: true },
  ]);
}

/** Documents that reach every keyword the generated code hands to our helpers, and then some. */
function documents(): Array<[string, unknown]> {
  const emoji = (n: number): string => '😀'.repeat(n);
  const withExchange = (name: string): unknown => {
    const doc = baseDoc();
    doc.channels.urn_a.bindings = { amqp: { is: 'routingKey', exchange: { name, type: 'topic' } } };
    return doc;
  };
  const withBinding = (bindings: unknown): unknown => {
    const doc = baseDoc();
    doc.channels.urn_a.bindings = bindings;
    return doc;
  };
  const mutate = (f: (d: Record<string, any>) => void): unknown => {
    const d = baseDoc();
    f(d);
    return d;
  };
  return [
    ['the built document', baseDoc()],
    ['duplicate info tags (uniqueItems)', mutate((d) => (d.info.tags = [{ name: 'x' }, { name: 'x' }]))],
    [
      'equal tags with keys in another order',
      mutate(
        (d) =>
          (d.info.tags = [
            { name: 'x', description: 'y' },
            { description: 'y', name: 'x' },
          ]),
      ),
    ],
    ['distinct tags', mutate((d) => (d.info.tags = [{ name: 'x' }, { name: 'y' }]))],
    ['duplicate message tags', mutate((d) => (d.channels.urn_a.messages.urn_a.tags = [{ name: 'owner:team' }, { name: 'owner:team' }]))],
    ['exchange name of 200 astral code points (400 UTF-16 units)', withExchange(emoji(200))],
    ['exchange name of 255 astral code points', withExchange(emoji(255))],
    ['exchange name of 256 astral code points', withExchange(emoji(256))],
    ['exchange name of 256 lone surrogates', withExchange('\ud83d'.repeat(256))],
    ['wrong version', mutate((d) => (d.asyncapi = '2.6.0'))],
    ['no info', mutate((d) => delete d.info)],
    ['an operation without action', mutate((d) => delete d.operations.urn_a.action)],
    ['an unknown top-level key', mutate((d) => (d.unknown = 1))],
    ['a number as address', mutate((d) => (d.channels.urn_b.address = 5))],
    ['not an object', 'asyncapi'],
    // What reads the schema constants the build script cuts down: enum values and types in errors,
    // property names for additionalProperties.
    ['an operation action outside its enum', mutate((d) => (d.operations.urn_a.action = 'publish'))],
    ['a binding version outside its enum', withBinding({ amqp: { is: 'routingKey', bindingVersion: '9.9.9' } })],
    ['a server with known keys only', mutate((d) => (d.servers = { s1: { host: 'h:1', protocol: 'kafka', title: 't', tags: [] } }))],
    ['a server with an unknown key', mutate((d) => (d.servers = { s1: { host: 'h:1', protocol: 'kafka', nope: 1, 'x-ext': 2 } }))],
    [
      'a server with a key from Object.prototype',
      mutate((d) => (d.servers = { s1: { host: 'h:1', protocol: 'kafka', toString: 1, constructor: 2 } })),
    ],
    [
      'a userPassword scheme of the wrong type',
      mutate((d) => (d.components = { securitySchemes: { up: { type: 'userPassword', description: 5, extra: 1 } } })),
    ],
    ['a channel address that is an array', mutate((d) => (d.channels.urn_b.address = ['x']))],
  ];
}

describe('the generated AsyncAPI 3.0.0 validator', () => {
  test('agrees with ajv compiling the spec at run time, errors included', () => {
    const runtime = runtimeValidator();
    const keywords = new Set<string>();
    for (const [what, doc] of documents()) {
      const expected = runtime(doc);
      const expectedErrors = structuredClone(runtime.errors ?? null);
      expect(specValidator(doc), what).toBe(expected);
      expect(specValidator.errors ?? null, what).toEqual(expectedErrors);
      for (const e of (specValidator.errors ?? []) as Array<{ keyword: string }>) keywords.add(e.keyword);
    }
    // The documents reach errors whose params come from the embedded schema constants.
    for (const k of ['enum', 'type', 'additionalProperties']) expect(keywords, k).toContain(k);
  });

  test('string lengths count code points, and uniqueItems compares JSON values', () => {
    const verdicts = Object.fromEntries(documents().map(([what, doc]) => [what, specValidator(doc)]));
    expect(verdicts).toMatchObject({
      'the built document': true,
      'duplicate info tags (uniqueItems)': false,
      'equal tags with keys in another order': false,
      'distinct tags': true,
      'exchange name of 200 astral code points (400 UTF-16 units)': true,
      'exchange name of 255 astral code points': true,
      'exchange name of 256 astral code points': false,
      'exchange name of 256 lone surrogates': false,
    });
  });

  test('validateAsyncApi reports through it', async () => {
    const [doc] = documents()
      .find(([w]) => w.startsWith('duplicate info'))!
      .slice(1);
    expect(await validateAsyncApi(doc)).toEqual([
      { pointer: '/info/tags', message: 'must NOT have duplicate items (items ## 0 and 1 are identical)' },
    ]);
  });

  test('needs nothing from ajv or @asyncapi/specs at run time', () => {
    const text = readFileSync(GENERATED, 'utf8');
    // It imports nothing: the two helpers are the factory's argument.
    expect(text.replace(/^\/\/.*$/gm, '')).not.toMatch(/\brequire\(|\bimport\b/);
    // (minified: the factory's parameter has a one-letter name)
    expect(text.replace(/^\/\/.*$/gm, '').match(/\b(?:jsonEqual|codePointLength)\b/g)).toEqual(['jsonEqual', 'codePointLength']);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(Object.keys(pkg.dependencies!)).not.toContain('ajv');
    expect(Object.keys(pkg.dependencies!)).not.toContain('@asyncapi/specs');
    expect(pkg.scripts!.build).toMatch(
      /^node scripts\/build-asyncapi-validator\.js && tsc .* && node scripts\/build-asyncapi-validator\.js --dist /,
    );
  });

  test('ships once: the library and the CLI bundle load the same file', () => {
    const dist = join(ROOT, 'dist');
    expect(readFileSync(join(dist, 'asyncapi', 'generated', 'spec-validator.cjs'), 'utf8')).toBe(readFileSync(GENERATED, 'utf8'));
    expect(existsSync(join(dist, 'asyncapi', 'generated', 'spec-validator.js'))).toBe(false);
    const bundle = readdirSync(join(dist, 'cli-bundle')).filter((f) => f.endsWith('.js'));
    const sharing = bundle.filter((f) =>
      readFileSync(join(dist, 'cli-bundle', f), 'utf8').includes('require("../asyncapi/generated/spec-validator.cjs")'),
    );
    expect(sharing).toEqual(['export-asyncapi.js']);
    for (const f of bundle) expect(readFileSync(join(dist, 'cli-bundle', f), 'utf8'), f).not.toContain('asyncapi.com/definitions/3.0.0/');
  });

  test('the committed module is what the build script generates from the installed spec', () => {
    expect(existsSync(GENERATED)).toBe(true);
    const r = spawnSync(process.execPath, ['scripts/build-asyncapi-validator.js', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);
});
