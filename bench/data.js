// Deterministic test data for the CLI benchmarks: a registry, envelope files and NDJSON streams.
import { createWriteStream, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const URN = 'urn:babel:orders:created';

/** mulberry32: a small seeded PRNG so every run validates the same bytes. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CURRENCIES = ['USD', 'EUR', 'TRY'];
const INVALID_RATE = 0.03;

// Each breaks the orders:created schema in a different way (all are invalid for both validators).
const BREAKS = [
  (d) => {
    d.order_id = 0;
  },
  (d) => {
    d.currency = 'GBP';
  },
  (d) => {
    d.lines[0].sku = 'X';
  },
  (d) => {
    d.lines[0].gift = true;
  },
  (d) => {
    delete d.customer_id;
  },
  (d) => {
    d.lines[0].quantity = 1.5;
  },
  (d) => {
    d.coupon = 42;
  },
  (d) => {
    d.extra = 'x';
  },
];

/** Envelope generator: `next()` returns [jsonText, isInvalid]. */
export function envelopes(seed) {
  const rnd = prng(seed);
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  let n = 0;
  return () => {
    n++;
    const lines = [];
    for (let i = rnd() < 0.7 ? 1 : 2; i > 0; i--) lines.push({ sku: `SKU-${int(100, 99999)}`, quantity: int(1, 9) });
    const data = {
      order_id: n,
      customer_id: `c-${int(1, 999999)}`,
      amount: int(0, 99999) / 100,
      currency: CURRENCIES[int(0, 2)],
      lines,
    };
    if (rnd() < 0.2) data.coupon = rnd() < 0.5 ? `SAVE${int(5, 50)}` : null;
    const invalid = rnd() < INVALID_RATE;
    if (invalid) BREAKS[int(0, BREAKS.length - 1)](data);
    const env = {
      job: URN,
      data,
      meta: { id: `m-${n}`, schema_version: 1 },
      attempts: 0,
    };
    return [JSON.stringify(env), invalid];
  };
}

/** The envelope schema ajv-cli checks: the registry's data schema under properties.data. */
export function envelopeSchema(dataSchema) {
  const { $schema, examples, ...data } = dataSchema; // $schema only belongs at the root
  void $schema;
  void examples;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    required: ['job', 'data'],
    properties: {
      job: { const: URN },
      data,
      meta: { type: 'object', properties: { schema_version: { const: 1 } } },
    },
  };
}

export function setupRegistry(dir) {
  cpSync(join(ROOT, 'examples', 'schemas'), join(dir, 'examples', 'schemas'), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8'));
  delete manifest.$schema;
  const registry = join(dir, 'registry.json');
  writeFileSync(registry, JSON.stringify(manifest, null, 2));
  const entry = manifest.schemas.find((e) => e.urn === URN);
  const dataSchema = JSON.parse(readFileSync(join(dir, entry.schema), 'utf8'));
  const envSchema = join(dir, 'envelope-schema.json');
  writeFileSync(envSchema, JSON.stringify(envelopeSchema(dataSchema), null, 2));
  return { registry, envSchema };
}

export function writeFiles(dir, count) {
  mkdirSync(dir);
  const next = envelopes(1);
  let invalid = 0;
  const width = String(count).length;
  for (let i = 0; i < count; i++) {
    const [text, bad] = next();
    if (bad) invalid++;
    writeFileSync(join(dir, `msg-${String(i).padStart(width, '0')}.json`), text + '\n');
  }
  return invalid;
}

/** Streams `count` lines to disk in batches, respecting backpressure (the 1M-line file is ~200 MB). */
export async function writeNdjson(file, count, seed) {
  const out = createWriteStream(file);
  const next = envelopes(seed);
  let invalid = 0;
  let batch = [];
  for (let i = 0; i < count; i++) {
    const [text, bad] = next();
    if (bad) invalid++;
    batch.push(text);
    if (batch.length === 2000 || i === count - 1) {
      if (!out.write(batch.join('\n') + '\n')) await once(out, 'drain');
      batch = [];
    }
  }
  out.end();
  await once(out, 'finish');
  return invalid;
}
