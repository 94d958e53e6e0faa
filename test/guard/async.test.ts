import { describe, expect, it, vi } from 'vitest';
import {
  check,
  checkAsync,
  compile,
  InvalidPayloadError,
  MapProvider,
  RegistryError,
  validate,
  validateAsync,
  validateEnvelope,
  validateEnvelopeAsync,
  wrap,
  type AsyncProvider,
  type Provider,
} from '../../src/index.js';

const URN = 'urn:babel:orders:created';
const schema = compile({ type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } });
const delay = <T>(v: T): Promise<T> => new Promise((r) => setTimeout(() => r(v), 1));
const asyncProvider: AsyncProvider = { schemaFor: (urn) => delay(urn === URN ? schema : undefined) };

describe('async providers', () => {
  it('checkAsync and validateAsync wait for the schema', async () => {
    await expect(checkAsync(asyncProvider, URN, { order_id: 1 })).resolves.toEqual([]);
    expect((await checkAsync(asyncProvider, URN, {})).map((v) => v.keyword)).toEqual(['required']);
    await expect(validateAsync(asyncProvider, URN, { order_id: 'x' })).rejects.toBeInstanceOf(InvalidPayloadError);
    await expect(validateAsync(asyncProvider, 'urn:none', 5)).resolves.toBeUndefined();
  });

  it('they accept a synchronous provider too', async () => {
    const sync = new MapProvider({ [URN]: { required: ['a'] } });
    expect(await checkAsync(sync, URN, {})).toHaveLength(1);
    await expect(validateEnvelopeAsync(sync, { job: URN, data: { a: 1 } })).resolves.toMatchObject({ urn: URN });
  });

  it('wrap accepts either kind', async () => {
    const handler = vi.fn(() => 'ok');
    const wrapped = wrap(asyncProvider, handler);
    await expect(wrapped({ job: URN, data: { order_id: 2 } })).resolves.toBe('ok');
    await expect(wrapped({ job: URN, data: {} })).rejects.toBeInstanceOf(InvalidPayloadError);
    expect(handler).toHaveBeenCalledOnce();
  });

  it('an async load failure propagates unchanged and the handler is not called', async () => {
    const boom = new Error('registry unreachable');
    const handler = vi.fn();
    await expect(wrap({ schemaFor: () => Promise.reject(boom) }, handler)({ job: URN, data: {} })).rejects.toBe(boom);
    await expect(
      checkAsync(
        {
          schemaFor: () => {
            throw boom;
          },
        },
        URN,
        {},
      ),
    ).rejects.toBe(boom);
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('null and undefined both mean none', () => {
  const none: Provider = { schemaFor: () => null };
  it('in every entry point', async () => {
    expect(check(none, URN, 5)).toEqual([]);
    expect(() => validate(none, URN, 5)).not.toThrow();
    expect(validateEnvelope(none, { job: URN, data: {} }).urn).toBe(URN);
    expect(await checkAsync({ schemaFor: async () => null }, URN, 5)).toEqual([]);
    expect(await checkAsync({ schemaFor: async () => undefined }, URN, 5)).toEqual([]);
    await expect(wrap(none, () => 'ran')({ job: URN, data: {} })).resolves.toBe('ran');
  });
});

describe('an answer that is not a compiled schema is a RegistryError naming the URN', () => {
  const answers: Array<[string, unknown]> = [
    ['a raw schema object', { type: 'object' }],
    ['a number', 5],
    ['an object whose isValid is not a function', { isValid: true, validate: () => [] }],
    ['false', false],
  ];
  it.each(answers)('%s (sync and async)', async (_name, answer) => {
    const sync = { schemaFor: () => answer } as unknown as Provider;
    expect(() => check(sync, URN, {})).toThrow(RegistryError);
    expect(() => check(sync, URN, {})).toThrow(`not a compiled schema for ${URN}`);
    const err = await checkAsync({ schemaFor: async () => answer } as unknown as AsyncProvider, URN, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect((err as RegistryError).urn).toBe(URN);
    await expect(wrap(sync, () => 1)({ job: URN, data: {} })).rejects.toBeInstanceOf(RegistryError);
  });

  it('a promise given to the synchronous API says which function to use', () => {
    const p = asyncProvider as unknown as Provider;
    expect(() => check(p, URN, {})).toThrow(RegistryError);
    expect(() => check(p, URN, {})).toThrow(/answered a promise for urn:babel:orders:created: use checkAsync/);
  });
});
