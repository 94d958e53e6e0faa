import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { readManifest, STATUSES } from '../../src/registry/index.js';

// registry.schema.json is the editor's view of registry.json; readManifest is what bqschema enforces.
// Every manifest the reader refuses must also be refused by the editor schema.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schema = JSON.parse(readFileSync(join(root, 'registry.schema.json'), 'utf8')) as Record<string, unknown>;
// strict mode also rejects unknown keywords and ambiguous types in the schema itself.
const ajv = new Ajv({ allErrors: true, strict: true });
const isValid = ajv.compile(schema);

const entry = { urn: 'urn:babel:orders:created', schema: 'schemas/orders-created.json' };

describe('registry.schema.json', () => {
  it('is a draft-07 schema', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('accepts registry.example.json', () => {
    const example = JSON.parse(readFileSync(join(root, 'registry.example.json'), 'utf8'));
    expect(example.$schema).toBe('./registry.schema.json');
    expect(isValid(example), JSON.stringify(isValid.errors)).toBe(true);
  });

  const good: Record<string, unknown> = {
    'a minimal entry': { schemas: [entry] },
    'an empty list': { schemas: [] },
    'every optional key': {
      $schema: './node_modules/bqschema/registry.schema.json',
      schemas: [{ ...entry, owner: 'orders', status: 'deprecated', description: 'An order was placed.', id: 42 }],
    },
    'services, producers and consumers': {
      services: [
        { name: 'orders', team: '@acme/orders', contact: 'orders@acme.example', repository: 'https://github.com/acme/orders', 'x-tier': 1 },
        { name: 'billing' },
      ],
      schemas: [{ ...entry, producers: ['orders'], consumers: ['billing'] }],
    },
    'x- extension keys on the manifest and on entries': { 'x-team': { a: 1 }, schemas: [{ ...entry, 'x-since': 3 }] },
  };
  for (const [name, manifest] of Object.entries(good)) {
    it(`accepts ${name}`, () => {
      expect(isValid(manifest), JSON.stringify(isValid.errors)).toBe(true);
      expect(readManifest(manifest).issues).toEqual([]);
    });
  }

  // What bqschema itself refuses: the editor schema must refuse it too.
  const refusedByBoth: Record<string, unknown> = {
    'an array instead of an object': [entry],
    'no schemas': {},
    'schemas not an array': { schemas: { a: entry } },
    'an entry that is not an object': { schemas: ['urn:babel:orders:created'] },
    'an entry without urn': { schemas: [{ schema: entry.schema }] },
    'an empty urn': { schemas: [{ ...entry, urn: '' }] },
    'a blank urn': { schemas: [{ ...entry, urn: ' \t' }] },
    'a urn that is not a string': { schemas: [{ ...entry, urn: 42 }] },
    'an entry without schema': { schemas: [{ urn: entry.urn }] },
    'an empty schema path': { schemas: [{ ...entry, schema: '' }] },
    'a schema path that is not a string': { schemas: [{ ...entry, schema: ['a.json'] }] },
    'an owner that is not a string': { schemas: [{ ...entry, owner: 7 }] },
    'a status that is not a string': { schemas: [{ ...entry, status: null }] },
    'a description that is not a string': { schemas: [{ ...entry, description: { text: 'x' } }] },
    'an id that is not an integer': { schemas: [{ ...entry, id: 1.5 }] },
    'an id of 0': { schemas: [{ ...entry, id: 0 }] },
    'an id beyond 2^31-1': { schemas: [{ ...entry, id: 2147483648 }] },
    'an id given as a string': { schemas: [{ ...entry, id: '7' }] },
    'services that is not an array': { services: { orders: {} }, schemas: [entry] },
    'a service without a name': { services: [{ team: '@acme/orders' }], schemas: [entry] },
    'a service team that is not a string': { services: [{ name: 'orders', team: ['@a/b'] }], schemas: [entry] },
    'producers that is not an array of strings': { schemas: [{ ...entry, producers: 'orders' }] },
    'consumers with a number': { schemas: [{ ...entry, consumers: [7] }] },
  };
  for (const [name, manifest] of Object.entries(refusedByBoth)) {
    it(`refuses ${name}`, () => {
      expect(readManifest(manifest).issues.length).toBeGreaterThan(0);
      expect(isValid(manifest)).toBe(false);
    });
  }

  // Usable manifests with a slip: `check` reports them (not fatal for other commands), the editor flags them.
  const flaggedByBoth: Record<string, unknown> = {
    'an unknown key on an entry': { schemas: [{ ...entry, onwer: 'orders' }] },
    'an unknown top-level key': { schemas: [entry], version: 2 },
    '$schema that is not a string': { $schema: true, schemas: [entry] },
    'an unknown status': { schemas: [{ ...entry, status: 'retired' }] },
    'a URN not in URN syntax': { schemas: [{ ...entry, urn: 'orders created' }] },
    'a service name with markup': { services: [{ name: '<b>orders</b>' }], schemas: [entry] },
    'a service name of 101 characters': { services: [{ name: 'a'.repeat(101) }], schemas: [entry] },
    'an unknown key on a service': { services: [{ name: 'orders', tema: '@acme/orders' }], schemas: [entry] },
    'a consumer listed twice': { schemas: [{ ...entry, consumers: ['billing', 'billing'] }] },
  };
  for (const [name, manifest] of Object.entries(flaggedByBoth)) {
    it(`flags ${name}`, () => {
      const { issues: problems } = readManifest(manifest);
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.every((p) => !p.fatal)).toBe(true);
      expect(isValid(manifest)).toBe(false);
    });
  }

  // An unknown status: bqschema reads the manifest, `check` reports it, the editor flags it.
  it('flags a status outside active, deprecated, experimental, as check does', () => {
    const manifest = { schemas: [{ ...entry, status: 'retired' }] };
    const problems = readManifest(manifest).issues;
    expect(problems.map((p) => [p.pointer, p.fatal])).toEqual([['/schemas/0/status', false]]);
    expect(isValid(manifest)).toBe(false);
    const defs = schema.definitions as { entry: { properties: { status: { enum: string[] } } } };
    expect(defs.entry.properties.status.enum).toEqual(STATUSES);
    for (const status of STATUSES) expect(isValid({ schemas: [{ ...entry, status }] }), status).toBe(true);
  });

  it('names the offending entry and key in its errors', () => {
    expect(isValid({ schemas: [entry, { ...entry, urn: '', onwer: 'x' }] })).toBe(false);
    const errors = isValid.errors!.map((e) => `${e.instancePath} ${e.keyword}`);
    expect(errors).toContain('/schemas/1/urn minLength');
    expect(errors).toContain('/schemas/1 additionalProperties');
    expect(errors.every((e) => e.startsWith('/schemas/1'))).toBe(true);
  });

  it('describes deprecatedProperties as the manifest reader takes it: a property name to its deprecation', () => {
    const deprecatedProperties = {
      coupon: { since: '2026-01-31', sunset: '2026-06-30', replacement: 'discounts', reason: 'r', 'x-ticket': 1 },
    };
    expect(isValid({ schemas: [{ ...entry, deprecatedProperties }] })).toBe(true);
    expect(isValid({ schemas: [{ ...entry, deprecatedProperties: { coupon: { sunset: '30/06/2026' } } }] })).toBe(false);
    expect(isValid({ schemas: [{ ...entry, deprecatedProperties: { coupon: { sunst: '2026-06-30' } } }] })).toBe(false);
    expect(isValid({ schemas: [{ ...entry, deprecatedProperties: ['coupon'] }] })).toBe(false);
  });

  it('gives every property a title and a description for editor hovers', () => {
    const defs = schema.definitions as Record<string, { properties: Record<string, { title?: string; description?: string }> }>;
    const props = { ...(schema.properties as Record<string, { title?: string; description?: string }>), ...defs.entry!.properties };
    expect(Object.keys(props).sort()).toEqual([
      '$schema',
      'consumers',
      'deprecated',
      'deprecatedProperties',
      'description',
      'id',
      'owner',
      'producers',
      'retired',
      'schema',
      'schemas',
      'services',
      'status',
      'unenforced',
      'urn',
    ]);
    expect(Object.keys(defs.service!.properties).sort()).toEqual(['contact', 'name', 'repository', 'team']);
    for (const [key, p] of Object.entries({ ...props, ...defs.service!.properties })) {
      expect(p.title, key).toBeTruthy();
      expect(p.description, key).toBeTruthy();
    }
  });
});
