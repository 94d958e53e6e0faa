// The real Confluent client against a spawned `bqschema serve` on the example registry.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { schemaId } from '../../src/serve/index.js';
import { ROOT, serve, stop, type Served } from '../helpers/serve.js';

// Each id is derived from its URN alone (the example manifest gives no explicit ids).
const CANCELLED = 'urn:babel:orders:cancelled';
const CREATED = 'urn:babel:orders:created';
const PAYMENTS = 'urn:babel:payments:captured';
const USERS = 'urn:babel:users:registered';
const ID = { cancelled: schemaId(CANCELLED), created: schemaId(CREATED), payments: schemaId(PAYMENTS), users: schemaId(USERS) };

const ORDER = { order_id: 1042, customer_id: 'c-77', amount: 99.9, currency: 'EUR', coupon: null, lines: [{ sku: 'BOOK-1', quantity: 2 }] };

let served: Served;
let registry: SchemaRegistry;

beforeAll(async () => {
  served = await serve(['--registry', join(ROOT, 'registry.example.json')]);
  // No retries: an error answer should fail the test at once.
  registry = new SchemaRegistry({ host: `http://127.0.0.1:${served.port}`, retry: { retries: 0 } });
});
afterAll(async () => {
  await stop(served);
});

describe('@kafkajs/confluent-schema-registry against bqschema serve', () => {
  it('gets the latest schema id of a subject', async () => {
    expect(await registry.getLatestSchemaId(CREATED)).toBe(ID.created);
    expect(await registry.getLatestSchemaId(CANCELLED)).toBe(ID.cancelled);
    expect(await registry.getRegistryId(CREATED, 1)).toBe(ID.created);
  });

  it('gets a schema by id', async () => {
    const schema = await registry.getSchema(ID.created);
    expect(schema).toBeDefined();
  });

  it('encodes a valid payload in the Confluent wire format and decodes it back equal', async () => {
    const id = await registry.getLatestSchemaId(CREATED);
    const buffer = await registry.encode(id, ORDER);
    expect(buffer[0]).toBe(0); // magic byte
    expect(buffer.readInt32BE(1)).toBe(id);
    expect(JSON.parse(buffer.subarray(5).toString('utf8'))).toEqual(ORDER);
    expect(await registry.decode(buffer)).toEqual(ORDER);
  });

  it('validates with the schema it fetched: a payload the registered schema refuses does not encode', async () => {
    await expect(registry.encode(ID.created, { ...ORDER, currency: 'GBP' })).rejects.toThrow(/invalid payload/);
    await expect(registry.encode(ID.created, { ...ORDER, lines: [{ sku: 'X', quantity: 0 }] })).rejects.toThrow(/invalid payload/);
    const { order_id: _omitted, ...noId } = ORDER;
    await expect(registry.encode(ID.created, noId)).rejects.toThrow(/invalid payload/);
  });

  it('serves a YAML-written schema the client can use', async () => {
    const payload = { order_id: 7, reason: 'out_of_stock' };
    expect(await registry.decode(await registry.encode(ID.cancelled, payload))).toEqual(payload);
    await expect(registry.encode(ID.cancelled, { order_id: 7, reason: 'bored' })).rejects.toThrow(/invalid payload/);
  });

  it('finds the id of a registered schema posted to the subject', async () => {
    const schema = JSON.stringify(await (await fetch(`http://127.0.0.1:${served.port}/schemas/ids/${ID.created}/schema`)).json());
    expect(await registry.getRegistryIdBySchema(CREATED, { type: SchemaType.JSON, schema })).toBe(ID.created);
    await expect(registry.getRegistryIdBySchema(CREATED, { type: SchemaType.JSON, schema: '{"type":"string"}' })).rejects.toThrow(
      /Schema not found/,
    );
  });

  it('reports an unknown subject as a 404 with the registry message', async () => {
    await expect(registry.getLatestSchemaId('urn:babel:nope')).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining("Subject 'urn:babel:nope' not found."),
    });
  });

  it('serves x-gdpr-sensitive annotations and formats intact: a client told about them validates with them', async () => {
    // The client's ajv runs in strict mode, which refuses unknown keywords and formats: declare the
    // annotation, and leave `format` unenforced as bqschema does (the setup the README shows).
    const client = new SchemaRegistry(
      { host: `http://127.0.0.1:${served.port}`, retry: { retries: 0 } },
      { [SchemaType.JSON]: { keywords: ['x-gdpr-sensitive'], validateFormats: false } },
    );
    const id = await client.getLatestSchemaId(USERS);
    expect(id).toBe(ID.users);
    const user = { user_id: 'u-1', email: 'ada@example.com', locale: 'en' };
    expect(await client.decode(await client.encode(id, user))).toEqual(user);
    await expect(client.encode(id, { ...user, email: 'a' })).rejects.toThrow(/invalid payload/);

    const payment = {
      payment_id: 'pay-0001',
      order_id: 1,
      amount: 12.5,
      currency: 'TRY',
      card_last4: '4242',
      captured_at: '2026-01-02T03:04:05Z',
    };
    const paymentId = await client.getLatestSchemaId(PAYMENTS);
    expect(paymentId).toBe(ID.payments);
    expect(await client.decode(await client.encode(paymentId, payment))).toEqual(payment);
    await expect(client.encode(paymentId, { ...payment, card_last4: '42' })).rejects.toThrow(/invalid payload/);
  });
});
