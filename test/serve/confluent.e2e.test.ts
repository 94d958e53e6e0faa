// `bqschema serve` where Confluent clients meet it: registration of the registered schema (what a
// serializer does on first send by default), Confluent's READONLY-mode answer to every other write
// (422, error code 42205), and the read endpoints clients and UIs call (GET /schemas, /schemas/types,
// /contexts, …/referencedby). The behaviour is Confluent's own, read in confluentinc/schema-registry:
// KafkaSchemaRegistry.registerOrForward looks the schema up under the subject before
// checkRegisterMode refuses a write in READONLY mode (OperationNotPermittedException, 42205, a
// RestConstraintViolationException: HTTP 422); SchemasResource.getSchemas reads subjectPrefix,
// offset and limit (a limit not from 1 to schema.search.max.limit, 1000, lists 1000);
// listContexts starts with the default context ".".
//
// BQ_SERVE_RUNS=<n> runs more generated schemas, BQ_SERVE_SEED=<n> another seed.
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { MapProvider } from '../../src/index.js';
import { buildSnapshot, createServer, schemaId, type RegistryServer } from '../../src/serve/index.js';
import { call, CONTENT_TYPE, manifest, registryDir, ROOT, serve, stop, type Reply, type Served } from '../helpers/serve.js';

const RUNS = Number(process.env['BQ_SERVE_RUNS'] ?? 100);
const SEED = Number(process.env['BQ_SERVE_SEED'] ?? 20250137);

const CREATED = 'urn:babel:orders:created';
const CANCELLED = 'urn:babel:orders:cancelled';
const ORDER = { order_id: 1042, customer_id: 'c-77', amount: 99.9, currency: 'EUR', coupon: null, lines: [{ sku: 'BOOK-1', quantity: 2 }] };
const enc = encodeURIComponent;

let served: Served;
/** The registered schemas as served: JSON text, by subject. */
const registered = new Map<string, string>();

function expectError(reply: Reply, status: number, code: number): void {
  expect(reply.headers['content-type']).toBe(CONTENT_TYPE);
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.error_code, reply.text).toBe(code);
}

beforeAll(async () => {
  served = await serve(['--registry', join(ROOT, 'registry.example.json')]);
  for (const subject of (await call(served.port, 'GET', '/subjects')).body as string[]) {
    registered.set(subject, (await call(served.port, 'GET', `/subjects/${enc(subject)}/versions/1`)).body.schema);
  }
});
afterAll(async () => {
  await stop(served);
});

describe('@kafkajs/confluent-schema-registry at its defaults', () => {
  it("registers the registered schema: the subject's id comes back, and encodes and decodes with it", async () => {
    // Nothing but the host: the client's default compatibility (BACKWARD, what serve reports) and retries.
    const registry = new SchemaRegistry({ host: `http://127.0.0.1:${served.port}` });
    const { id } = await registry.register({ type: SchemaType.JSON, schema: registered.get(CREATED)! }, { subject: CREATED });
    expect(id).toBe(schemaId(CREATED));
    const buffer = await registry.encode(id, ORDER);
    expect(buffer.readInt32BE(1)).toBe(id);
    expect(await registry.decode(buffer)).toEqual(ORDER);
    // The same schema written another way (keys reordered, spaces) is the same schema.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(registered.get(CANCELLED)!)).reverse()), null, 2);
    expect(reordered).not.toBe(registered.get(CANCELLED));
    expect((await registry.register({ type: SchemaType.JSON, schema: reordered }, { subject: CANCELLED })).id).toBe(schemaId(CANCELLED));
  });

  it("a changed schema, or any schema for a subject the registry lacks, is refused with Confluent's read-only answer", async () => {
    const registry = new SchemaRegistry({ host: `http://127.0.0.1:${served.port}` });
    const changed = JSON.stringify({ ...JSON.parse(registered.get(CREATED)!), required: ['order_id'] });
    await expect(registry.register({ type: SchemaType.JSON, schema: changed }, { subject: CREATED })).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(
        /Subject urn:babel:orders:created in context \. is in read-only mode: registering a schema other than the registered one is not served, .*git/,
      ),
    });
    await expect(
      registry.register({ type: SchemaType.JSON, schema: '{"type":"object"}' }, { subject: 'urn:babel:new' }),
    ).rejects.toMatchObject({ status: 422 });
  });
});

describe('POST /subjects/{subject}/versions', () => {
  const register = (subject: string, body: unknown): Promise<Reply> =>
    call(served.port, 'POST', `/subjects/${enc(subject)}/versions`, typeof body === 'string' ? body : JSON.stringify(body));

  it("the registered schema answers Confluent's RegisterSchemaResponse: id, version, schemaType, schema", async () => {
    for (const [subject, schema] of registered) {
      const r = await register(subject, { schemaType: 'JSON', schema, references: [] });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ id: schemaId(subject), version: 1, schemaType: 'JSON', schema });
    }
    // The id or version a Java client may send with it: its own are accepted, no other.
    const schema = registered.get(CREATED)!;
    const id = schemaId(CREATED);
    for (const extra of [{ id }, { id: -1 }, { version: -1 }, { version: 0 }, { version: 1, id }, { metadata: null, ruleSet: null }]) {
      expect((await register(CREATED, { schema, schemaType: 'JSON', ...extra })).status, JSON.stringify(extra)).toBe(200);
    }
    for (const extra of [
      { id: id + 1 },
      { version: 2 },
      { version: 1 },
      { references: [{ name: 'a', subject: CANCELLED, version: 1 }] },
      { metadata: { properties: { owner: 'x' } } },
      { ruleSet: { domainRules: [] } },
    ]) {
      expectError(await register(CREATED, { schema, schemaType: 'JSON', ...extra }), 422, 42205);
    }
  });

  it('any other schema is 422 / 42205 (Confluent in READONLY mode); a body that is no schema is 400 / 42201 first; a broken subject 50001', async () => {
    const r = await register(CREATED, { schema: '{"type":"string"}' });
    expectError(r, 422, 42205);
    expect(r.body.message).toMatch(/^Subject urn:babel:orders:created in context \. is in read-only mode: /);
    expectError(await register('urn:babel:unknown', { schema: registered.get(CREATED) }), 422, 42205);
    expectError(await register(CREATED, 'not json'), 400, 40001);
    expectError(await register(CREATED, { schema: '{"type":' }), 422, 42201);
    expectError(await register(CREATED, { schema: registered.get(CREATED), schemaType: 'AVRO' }), 422, 42201);
    const dir = registryDir({ 'registry.json': manifest([{ urn: 'urn:b', schema: 'b.json' }]), 'b.json': '{ "type": ' });
    const broken = await serve(['--registry', join(dir, 'registry.json')]);
    try {
      expectError(await call(broken.port, 'POST', '/subjects/urn%3Ab/versions', '{"schema":"{}"}'), 500, 50001);
      expectError(await call(broken.port, 'GET', '/schemas'), 500, 50001);
    } finally {
      await stop(broken);
    }
  });
});

describe('the read endpoints Confluent clients and UIs call', () => {
  const get = async (path: string): Promise<Reply> => call(served.port, 'GET', path);

  it("GET /schemas lists each subject's schema as its version 1 is served, in subject order; subjectPrefix, offset and limit", async () => {
    const subjects = [...registered.keys()];
    const versions = await Promise.all(subjects.map(async (s) => (await get(`/subjects/${enc(s)}/versions/1`)).body));
    const all = await get('/schemas');
    expect(all.status).toBe(200);
    expect(all.body).toEqual(versions);
    expect((await get('/schemas?subjectPrefix=urn%3Ababel%3Aorders%3A')).body.map((s: { subject: string }) => s.subject)).toEqual([
      'urn:babel:orders:cancelled',
      'urn:babel:orders:created',
    ]);
    expect((await get('/schemas?offset=1&limit=2')).body).toEqual(versions.slice(1, 3));
    expect((await get('/schemas?limit=0')).body).toEqual(versions);
    expect((await get('/schemas?limit=-1&deleted=true&latestOnly=true')).body).toEqual(versions);
    expect((await get('/schemas?offset=99')).body).toEqual([]);
    expect((await get('/schemas?subjectPrefix=nope')).body).toEqual([]);
    expectError(await get('/schemas?offset=one'), 400, 40001);
  });

  it('GET /schemas/types, /contexts, /mode and …/versions/{v}/referencedby', async () => {
    expect((await get('/schemas/types')).body).toEqual(['JSON']);
    expect((await get('/contexts')).body).toEqual(['.']);
    expect((await get('/contexts?contextPrefix=.')).body).toEqual(['.']);
    expect((await get('/contexts?contextPrefix=.other')).body).toEqual([]);
    expect((await get('/mode')).body).toEqual({ mode: 'READONLY' });
    for (const v of ['1', 'latest', '-1']) {
      const r = await get(`/subjects/${enc(CREATED)}/versions/${v}/referencedby`);
      expect([r.status, r.body]).toEqual([200, []]);
    }
    expectError(await get('/subjects/urn%3Ababel%3Anope/versions/1/referencedby'), 404, 40401);
    expectError(await get(`/subjects/${enc(CREATED)}/versions/2/referencedby`), 404, 40402);
    expectError(await get(`/subjects/${enc(CREATED)}/versions/abc/referencedby`), 422, 42202);
  });

  it("GET /schemas lists at most 1,000 (Confluent's limit), and pages through more", async () => {
    const schemas = Object.fromEntries(
      Array.from({ length: 1005 }, (_, i) => [`urn:many:${String(i).padStart(4, '0')}`, { type: 'integer', minimum: i }]),
    );
    const api: RegistryServer = createServer(buildSnapshot(new MapProvider(schemas, { onWarning: () => {} })));
    const { port } = await api.listen(0, '127.0.0.1');
    try {
      const first = (await call(port, 'GET', '/schemas')).body as Array<{ subject: string; schema: string }>;
      expect(first).toHaveLength(1000);
      expect((await call(port, 'GET', '/schemas?limit=5000')).body).toHaveLength(1000);
      const rest = (await call(port, 'GET', '/schemas?offset=1000')).body as Array<{ subject: string }>;
      expect([...first, ...rest].map((s) => s.subject)).toEqual(Object.keys(schemas));
      expect(JSON.parse(first[7]!.schema)).toEqual(schemas['urn:many:0007']);
    } finally {
      await api.close(0);
    }
  });
});

describe("registration decides by the schema's meaning, not its spelling", () => {
  it(`${RUNS} generated schemas: re-spelt, the registered id; changed, 42205`, { timeout: 120_000 }, async () => {
    const json = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.boolean(), fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 6 }), fc.constant(null)),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    const schemaArb = fc.dictionary(fc.constantFrom('title', 'description', 'x-a', 'x-b', 'default', 'examples', 'const'), json, {
      minKeys: 1,
      maxKeys: 5,
    });
    await fc.assert(
      fc.asyncProperty(schemaArb, fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (schema, seed) => {
        const api = createServer(buildSnapshot(new MapProvider({ 'urn:p': schema }, { onWarning: () => {} })));
        const { port } = await api.listen(0, '127.0.0.1');
        try {
          const text = respell(schema, seed);
          const same = await call(port, 'POST', '/subjects/urn%3Ap/versions', JSON.stringify({ schema: text }));
          expect(same.status, text).toBe(200);
          expect(same.body.id).toBe(schemaId('urn:p'));
          const changed = await call(
            port,
            'POST',
            '/subjects/urn%3Ap/versions',
            JSON.stringify({ schema: JSON.stringify({ ...schema, 'x-changed': seed }) }),
          );
          expect(changed.body.error_code).toBe(42205);
        } finally {
          await api.close(0);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

/** The same JSON value spelt another way: object keys in another order, whole numbers as `n.0`, other spaces. */
function respell(value: unknown, seed: number): string {
  let n = seed;
  const next = (): number => (n = (n * 1103515245 + 12345) % 2 ** 31);
  const walk = (v: unknown): string => {
    if (Array.isArray(v)) return `[ ${v.map(walk).join(' ,\n')} ]`;
    if (typeof v === 'number' && Number.isInteger(v) && next() % 2 === 0) return `${v}.0`;
    if (typeof v !== 'object' || v === null) return JSON.stringify(v);
    const keys = Object.keys(v).sort(() => (next() % 3) - 1);
    return `{${keys.map((k) => `${JSON.stringify(k)} :${walk((v as Record<string, unknown>)[k])}`).join(',\t')}}`;
  };
  return walk(value);
}
