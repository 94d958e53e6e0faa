import { describe, expect, it, vi } from 'vitest';
import {
  check,
  EnvelopeError,
  InvalidPayloadError,
  MapProvider,
  readEnvelope,
  UnknownUrnError,
  validate,
  validateEnvelope,
  validateEnvelopeAsync,
  wrap,
  type Provider,
} from '../../src/index.js';

const provider = new MapProvider({
  'urn:babel:orders:created': {
    type: 'object',
    required: ['order_id'],
    properties: { order_id: { type: 'integer', minimum: 1 } },
    additionalProperties: false,
  },
});
const URN = 'urn:babel:orders:created';

describe('check', () => {
  it('returns [] for valid data and for a URN with no schema (opt-in)', () => {
    expect(check(provider, URN, { order_id: 1 })).toEqual([]);
    expect(check(provider, 'urn:babel:unregistered', { anything: true })).toEqual([]);
  });
  it('returns every violation otherwise', () => {
    const v = check(provider, URN, { order_id: 0, extra: 1 });
    expect(v.map((x) => [x.instancePath, x.keyword])).toEqual([
      ['/order_id', 'minimum'],
      ['/extra', 'additionalProperties'],
    ]);
  });
});

describe('validate', () => {
  it('throws InvalidPayloadError with urn, violations and code', () => {
    let err: unknown;
    try {
      validate(provider, URN, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidPayloadError);
    const e = err as InvalidPayloadError;
    expect(e.code).toBe('BQ_INVALID_PAYLOAD');
    expect(e.urn).toBe(URN);
    expect(e.violations).toHaveLength(1);
    expect(e.message).toContain('order_id');
  });
  it('does not throw for valid or unregistered data', () => {
    expect(() => validate(provider, URN, { order_id: 5 })).not.toThrow();
    expect(() => validate(provider, 'urn:none', 5)).not.toThrow();
  });
});

describe('validateEnvelope', () => {
  it('reads identity by the envelope rules, then validates data', () => {
    expect(() => validateEnvelope(provider, { urn: URN, data: { order_id: 2 } })).not.toThrow();
    expect(() => validateEnvelope(provider, { job: URN, data: { order_id: -1 } })).toThrow(InvalidPayloadError);
    expect(() => validateEnvelope(provider, { JOB: URN, data: {} })).toThrow(EnvelopeError);
  });
});

describe('readEnvelope', () => {
  it('reads own properties only', () => {
    const proto = { job: URN, data: {} };
    const env = Object.create(proto) as object;
    expect(() => readEnvelope(env)).toThrow(/no identity/);
  });
  it('names the URN on an error found after identity was read', () => {
    expect(() => readEnvelope({ job: URN, data: [] })).toThrow(expect.objectContaining({ reason: 'data is not an object', urn: URN }));
    expect(() => readEnvelope({ urn: URN, data: {}, meta: { schema_version: 2 } })).toThrow(expect.objectContaining({ urn: URN }));
    expect(() => readEnvelope({ data: {} })).toThrow(expect.objectContaining({ reason: 'no identity', urn: undefined }));
  });
  it('treats a missing data as not an object', () => {
    expect(() => readEnvelope({ job: URN })).toThrow(expect.objectContaining({ reason: 'data is not an object' }));
  });
  it('accepts schema_version 1 and an envelope without meta', () => {
    expect(readEnvelope({ job: URN, data: {}, meta: { schema_version: 1 } }).urn).toBe(URN);
    expect(readEnvelope({ job: URN, data: {} }).urn).toBe(URN);
    expect(() => readEnvelope({ job: URN, data: {}, meta: { schema_version: '1' } })).toThrow(/schema_version/);
  });
});

describe('wrap', () => {
  it('calls the handler with the envelope and extra arguments when valid', async () => {
    const handler = vi.fn(async (_env: unknown, ctx: string) => `done ${ctx}`);
    const wrapped = wrap(provider, handler);
    const env = { job: URN, data: { order_id: 3 } };
    await expect(wrapped(env, 'ctx')).resolves.toBe('done ctx');
    expect(handler).toHaveBeenCalledWith(env, 'ctx');
  });
  it('rejects invalid data with InvalidPayloadError without calling the handler', async () => {
    const handler = vi.fn();
    const wrapped = wrap(provider, handler);
    await expect(wrapped({ job: URN, data: { order_id: 'x' } })).rejects.toBeInstanceOf(InvalidPayloadError);
    await expect(wrapped({ data: {} })).rejects.toBeInstanceOf(EnvelopeError);
    expect(handler).not.toHaveBeenCalled();
  });
  it('lets provider errors propagate unchanged', async () => {
    const boom = new Error('registry unavailable');
    const failing: Provider = {
      schemaFor() {
        throw boom;
      },
    };
    const handler = vi.fn();
    await expect(wrap(failing, handler)({ job: URN, data: {} })).rejects.toBe(boom);
    expect(handler).not.toHaveBeenCalled();
  });
  it('passes a synchronous handler result through as a promise', async () => {
    await expect(wrap(provider, () => 42)({ job: 'urn:none', data: {} })).resolves.toBe(42);
  });
});

describe('unknownUrn: a URN without a schema passes unvalidated by default (opt-in), and is rejected when told', () => {
  // An asynchronous provider answering null, the other spelling of "no schema".
  const nullAsync = { schemaFor: async (urn: string) => (urn === URN ? provider.schemaFor(URN) : null) };
  const unknown = { job: 'urn:babel:orders:craeted', data: { anything: true } };

  it('wrap: the default and "pass" call the handler with the unvalidated envelope', async () => {
    for (const options of [{}, { unknownUrn: 'pass' as const }]) {
      const handler = vi.fn(() => 'handled');
      await expect(wrap(provider, handler, options)(unknown)).resolves.toBe('handled');
      expect(handler).toHaveBeenCalledWith(unknown);
    }
  });

  it('wrap with "reject": UnknownUrnError naming the URN, the handler never called; registered URNs are judged as before', async () => {
    for (const p of [provider, nullAsync]) {
      const handler = vi.fn(() => 'handled');
      const wrapped = wrap(p, handler, { unknownUrn: 'reject' });
      await expect(wrapped(unknown)).rejects.toBeInstanceOf(UnknownUrnError);
      await expect(wrapped(unknown)).rejects.toMatchObject({ code: 'BQ_UNKNOWN_URN', urn: 'urn:babel:orders:craeted' });
      expect(handler).not.toHaveBeenCalled();
      await expect(wrapped({ job: URN, data: { order_id: 0 } })).rejects.toBeInstanceOf(InvalidPayloadError);
      await expect(wrapped({ job: URN, data: { order_id: 1 } })).resolves.toBe('handled');
    }
  });

  it('validateEnvelope and validateEnvelopeAsync take the same option', async () => {
    expect(validateEnvelope(provider, unknown).urn).toBe(unknown.job);
    expect(() => validateEnvelope(provider, unknown, { unknownUrn: 'reject' })).toThrow(UnknownUrnError);
    await expect(validateEnvelopeAsync(nullAsync, unknown, { unknownUrn: 'reject' })).rejects.toBeInstanceOf(UnknownUrnError);
  });

  it('a value other than "pass" or "reject" is a TypeError when wrap is built, not a silent pass', () => {
    for (const bad of ['Reject', true, 'fail']) {
      expect(() => wrap(provider, () => 0, { unknownUrn: bad as never })).toThrow(/^unknownUrn must be 'pass' or 'reject', got /);
      expect(() => validateEnvelope(provider, unknown, { unknownUrn: bad as never })).toThrow(TypeError);
    }
  });
});
