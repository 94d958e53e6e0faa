import { describe, expect, test } from 'vitest';
import YAML from 'yaml';
import { buildAsyncApi, catalogKeys, PAYLOAD_SCHEMA_FORMAT, validateAsyncApi, type CatalogEntry } from '../../src/asyncapi/index.js';
import { parsePointer } from '../../src/validator/index.js';

/** An example-like registry: annotations, x- keywords and GDPR markers everywhere. */
function exampleRegistry(): CatalogEntry[] {
  return [
    {
      urn: 'urn:babel:orders:created',
      owner: 'orders',
      status: 'active',
      description: 'An order was placed.',
      schema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: 'https://schemas.example.com/orders-created.json',
        title: 'Order created',
        description: 'Emitted once per order.',
        $comment: 'v1',
        type: 'object',
        required: ['order_id', 'amount'],
        properties: {
          order_id: { type: 'integer', minimum: 1, examples: [1042] },
          amount: { type: 'number', minimum: 0, default: 0 },
          customer_email: { type: 'string', maxLength: 254, 'x-gdpr-sensitive': 'email' },
          items: {
            type: 'array',
            items: { type: 'object', required: ['sku'], properties: { sku: { type: 'string', minLength: 1 } } },
          },
        },
        additionalProperties: false,
        'x-owner': 'orders',
      },
    },
    {
      urn: 'urn:babel:orders:cancelled',
      owner: 'orders',
      status: 'deprecated',
      schema: { type: 'object', properties: { order_id: { type: 'integer' }, reason: { enum: ['fraud', 'customer', null] } } },
    },
    {
      urn: 'urn:babel:customers:registered',
      owner: 'crm',
      schema: {
        title: 'Customer registered',
        type: 'object',
        properties: {
          name: { type: 'string', 'x-gdpr-sensitive': true },
          phone: { type: ['string', 'null'], 'x-gdpr-sensitive': 'phone' },
          address: { type: 'object', 'x-gdpr-sensitive': 'address', properties: { city: { type: 'string' } } },
        },
        additionalProperties: { type: 'string' },
      },
    },
    {
      urn: 'urn:babel:payments:captured',
      description: 'Money moved.',
      schema: { type: 'object', properties: { iban: { type: 'string', 'x-gdpr-sensitive': 'iban' }, cents: { const: 100 } } },
    },
  ];
}

/** URNs that are not valid map keys, two that sanitise alike, and a boolean schema. */
function awkwardRegistry(): CatalogEntry[] {
  return [
    { urn: 'urn:babel:a/b', schema: { type: 'object' } },
    { urn: 'urn:babel:a:b', schema: { type: 'object', properties: { x: { type: 'string' } } } },
    { urn: 'urn_babel_a_b_2', schema: { type: 'string' } },
    { urn: 'urn with spaces', schema: { type: 'integer' } },
    { urn: 'urn:ünïcødé', schema: { type: 'boolean' } },
    { urn: 'urn:emoji:😀', schema: { type: 'null' } },
    { urn: 'urn:babel:anything', schema: true },
    { urn: 'toString', schema: { type: 'number' } },
    { urn: 'urn:{param}~x', schema: {} },
  ];
}

const json = (doc: unknown): string => JSON.stringify(doc, null, 2);
const KEY = /^[A-Za-z0-9._-]+$/;

type Doc = { channels: Record<string, any>; operations: Record<string, any>; info: Record<string, unknown> };

/** Resolves a local `$ref` the RFC 6901 way (own properties only). */
function resolve(doc: unknown, ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  let cur: any = doc;
  for (const token of parsePointer(ref.slice(1))) {
    expect(Object.prototype.hasOwnProperty.call(cur, token), `${ref} at ${token}`).toBe(true);
    cur = cur[token];
  }
  return cur;
}

/** Every channel holds one message named after its URN, and its receive operation points at both. */
function expectWellFormed(doc: Doc, entries: CatalogEntry[]): void {
  const urns = entries.map((e) => e.urn).sort();
  expect(Object.keys(doc.channels)).toHaveLength(entries.length);
  expect(Object.keys(doc.operations)).toHaveLength(entries.length);
  const seen: string[] = [];
  for (const [key, channel] of Object.entries(doc.channels)) {
    expect(key).toMatch(KEY);
    const messageKeys = Object.keys(channel.messages);
    expect(messageKeys).toHaveLength(1);
    expect(messageKeys[0]).toMatch(KEY);
    const msg = channel.messages[messageKeys[0]!];
    expect(msg.name).toBe(channel.address);
    seen.push(channel.address);
    const entry = entries.find((e) => e.urn === channel.address)!;
    expect(msg.payload).toEqual({ schemaFormat: PAYLOAD_SCHEMA_FORMAT, schema: entry.schema });
    expect(msg.payload.schema).toBe(entry.schema);
    expect(msg.contentType).toBe('application/json');
    const ops = Object.values(doc.operations).filter((op) => resolve(doc, op.channel.$ref) === channel);
    expect(ops).toHaveLength(1);
    expect(ops[0].action).toBe('receive');
    expect(ops[0].messages.map((m: { $ref: string }) => resolve(doc, m.$ref))).toEqual([msg]);
    expect(resolve(doc, ops[0].messages[0].$ref)).toBe(msg);
  }
  expect(seen).toEqual(urns);
}

describe('buildAsyncApi', () => {
  test('the example registry: one channel, message and receive operation per URN, sorted by URN', () => {
    const entries = exampleRegistry();
    const pristine = structuredClone(entries);
    const doc = buildAsyncApi(entries) as Doc & Record<string, unknown>;
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.info.title).toBe('BabelQueue event catalog');
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.channels)).toEqual(
      ['urn:babel:customers:registered', 'urn:babel:orders:cancelled', 'urn:babel:orders:created', 'urn:babel:payments:captured'].map((u) =>
        u.replace(/:/g, '_'),
      ),
    );
    expectWellFormed(doc, entries);
    // The schemas are carried verbatim and left untouched.
    expect(entries).toEqual(pristine);

    const created = doc.channels.urn_babel_orders_created;
    expect(created.description).toBe('An order was placed.');
    const msg = created.messages.urn_babel_orders_created;
    expect(msg.title).toBe('Order created');
    expect(msg.description).toBe('An order was placed.');
    expect(msg.tags).toEqual([{ name: 'owner:orders' }, { name: 'status:active' }]);
    expect(msg['x-owner']).toBe('orders');
    expect(msg['x-status']).toBe('active');
    expect(msg.deprecated).toBeUndefined();
    expect(msg.payload.schema.properties.customer_email['x-gdpr-sensitive']).toBe('email');

    const cancelled = doc.channels.urn_babel_orders_cancelled.messages.urn_babel_orders_cancelled;
    expect(cancelled.title).toBe('urn:babel:orders:cancelled');
    expect(cancelled.deprecated).toBe(true);
    expect(cancelled.description).toBeUndefined();

    const payments = doc.channels.urn_babel_payments_captured.messages.urn_babel_payments_captured;
    expect(payments.tags).toBeUndefined();
    expect(payments['x-owner']).toBeUndefined();
  });

  test('awkward URNs get valid, distinct keys; collisions resolve by URN order', () => {
    const entries = awkwardRegistry();
    const doc = buildAsyncApi(entries) as Doc;
    expectWellFormed(doc, entries);
    const keys = catalogKeys(entries.map((e) => e.urn));
    // Already a valid key: kept. The two alike URNs: '/' sorts before ':', so a/b gets the base.
    expect(keys.get('urn_babel_a_b_2')).toBe('urn_babel_a_b_2');
    expect(keys.get('urn:babel:a/b')).toBe('urn_babel_a_b');
    expect(keys.get('urn:babel:a:b')).toBe('urn_babel_a_b_3');
    expect(keys.get('urn with spaces')).toBe('urn_with_spaces');
    expect(keys.get('urn:ünïcødé')).toBe('urn__n_c_d_');
    expect(keys.get('urn:emoji:😀')).toBe('urn_emoji__');
    expect(keys.get('toString')).toBe('toString_2');
    expect(new Set(keys.values()).size).toBe(entries.length);
  });

  test('the same registry gives byte-identical JSON whatever the input order', () => {
    const entries = [...exampleRegistry(), ...awkwardRegistry()];
    const first = json(buildAsyncApi(entries));
    expect(json(buildAsyncApi(entries))).toBe(first);
    expect(json(buildAsyncApi([...entries].reverse()))).toBe(first);
    const shuffled = [entries[3], entries[0], entries[7], entries[5], ...entries.filter((_, i) => ![3, 0, 7, 5].includes(i))];
    expect(json(buildAsyncApi(shuffled as CatalogEntry[]))).toBe(first);
  });

  test('title and version options; a URN given twice is refused', () => {
    const doc = buildAsyncApi(exampleRegistry(), { title: 'Shop events', version: '2.3.0' }) as Doc;
    expect(doc.info.title).toBe('Shop events');
    expect(doc.info.version).toBe('2.3.0');
    expect(() =>
      buildAsyncApi([
        { urn: 'u', schema: {} },
        { urn: 'u', schema: true },
      ]),
    ).toThrow(/given twice/);
  });
});

describe('validateAsyncApi', () => {
  test('the exported documents match the official AsyncAPI 3.0.0 schema', async () => {
    expect(await validateAsyncApi(buildAsyncApi(exampleRegistry()))).toEqual([]);
    expect(await validateAsyncApi(buildAsyncApi(awkwardRegistry()))).toEqual([]);
    expect(await validateAsyncApi(buildAsyncApi([]))).toEqual([]);
  });

  test('a broken document is reported with its pointer and URN', async () => {
    const doc = buildAsyncApi(exampleRegistry()) as Doc;
    doc.channels.urn_babel_orders_created.address = 42;
    doc.operations.urn_babel_payments_captured.action = 'publish';
    const issues = await validateAsyncApi(doc);
    expect(issues).toEqual([
      { pointer: '/channels/urn_babel_orders_created/address', message: expect.stringMatching(/string/), urn: 'urn:babel:orders:created' },
      {
        pointer: '/operations/urn_babel_payments_captured/action',
        message: expect.stringMatching(/receive/),
        urn: 'urn:babel:payments:captured',
      },
    ]);
  });

  test('an invalid payload schema is pinned to its URN; a document-level error has no URN', async () => {
    const entries = [{ urn: 'urn:bad', schema: { type: 'object', properties: { a: { type: 'strin' } } } }];
    const issues = await validateAsyncApi(buildAsyncApi(entries));
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(issue.pointer).toBe('/channels/urn_bad/messages/urn_bad/payload/schema/properties/a/type');
      expect(issue.urn).toBe('urn:bad');
    }
    const doc = buildAsyncApi([]) as Doc;
    delete doc.info.version;
    expect(await validateAsyncApi(doc)).toEqual([{ pointer: '/info', message: expect.stringMatching(/version/) }]);
  });
});

describe('@asyncapi/parser', () => {
  test('reports no error diagnostics on the JSON and the YAML rendering', async () => {
    // Imported here, not at the top: the parser is slow to load and only this test needs it.
    const { Parser } = await import('@asyncapi/parser');
    const entries = [...exampleRegistry(), ...awkwardRegistry()];
    const doc = buildAsyncApi(entries);
    const parser = new Parser();
    for (const text of [json(doc), YAML.stringify(doc)]) {
      const { document, diagnostics } = await parser.parse(text);
      expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
      expect(document).toBeDefined();
      expect(document!.channels().length).toBe(entries.length);
      expect(document!.operations().length).toBe(entries.length);
      expect(document!.messages().length).toBe(entries.length);
    }
  });
});
