import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  EnvelopeError,
  IDENTITY_WARNING_CODE,
  InvalidPayloadError,
  MapProvider,
  readEnvelope,
  validate,
  validateEnvelope,
  validateEnvelopeAsync,
  validateSchema,
  wrap,
  type Envelope,
} from '../../src/index.js';

const URN = 'urn:babel:orders:created';
const provider = new MapProvider({ [URN]: { type: 'object', required: ['order_id'] } }, { onWarning: () => {} });
const SECRET = 'SECRET-4111111111111111';

afterEach(() => vi.restoreAllMocks());

/** Every message text the guard produced for one envelope: error message, warnings, onWarning calls. */
async function textsOf(envelope: unknown): Promise<string[]> {
  const texts: string[] = [];
  const onWarning = (message: string): void => void texts.push(message);
  try {
    texts.push(...readEnvelope(envelope).warnings);
  } catch (err) {
    texts.push((err as Error).message, ...((err as EnvelopeError).warnings ?? []));
  }
  for (const run of [
    () => validateEnvelope(provider, envelope as Envelope, { onWarning }),
    () => validateEnvelopeAsync(provider, envelope as Envelope, { onWarning }),
    () => wrap(provider, () => undefined, { onWarning })(envelope as Envelope),
  ]) {
    try {
      await run();
    } catch (err) {
      texts.push((err as Error).message);
    }
  }
  return texts;
}

describe('identity warnings reach library callers', () => {
  it('validateEnvelope returns {urn, data, warnings} and calls onWarning with the URN', () => {
    const seen: Array<[string, string | undefined]> = [];
    const read = validateEnvelope(
      provider,
      { job: URN, urn: 'urn:other', data: { order_id: 1 } },
      { onWarning: (m, u) => seen.push([m, u]) },
    );
    expect(read).toEqual({ urn: URN, data: { order_id: 1 }, warnings: ['both "job" and "urn" are set: "job" wins and "urn" is dropped'] });
    expect(seen).toEqual([['both "job" and "urn" are set: "job" wins and "urn" is dropped', URN]]);
  });

  it('wrap reports a non-string job, then runs the handler with the alias URN', async () => {
    const seen: Array<[string, string | undefined]> = [];
    const handler = vi.fn(() => 'ran');
    const wrapped = wrap(provider, handler, { onWarning: (m, u) => seen.push([m, u]) });
    await expect(wrapped({ job: 7 as unknown as string, urn: URN, data: { order_id: 1 } })).resolves.toBe('ran');
    expect(seen).toEqual([['"job" is not a string (number) and is ignored', URN]]);
    expect(handler).toHaveBeenCalledOnce();
  });

  it('warnings raised before an EnvelopeError are reported too, without a URN', async () => {
    const seen: Array<[string, string | undefined]> = [];
    const wrapped = wrap(provider, () => 1, { onWarning: (m, u) => seen.push([m, u]) });
    await expect(wrapped({ job: null as unknown as string, data: {} })).rejects.toMatchObject({ reason: 'no identity' });
    expect(seen).toEqual([['"job" is not a string (null) and is ignored', undefined]]);
  });

  it('a clean envelope reports nothing', async () => {
    const onWarning = vi.fn();
    await wrap(provider, () => 1, { onWarning })({ job: URN, data: { order_id: 1 } });
    expect(validateEnvelope(provider, { urn: URN, data: { order_id: 1 } }, { onWarning }).warnings).toEqual([]);
    expect(onWarning).not.toHaveBeenCalled();
  });

  it('without onWarning they go to process.emitWarning with their code, each distinct text once', async () => {
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const urn = `urn:babel:once:${Date.now()}`;
    const wrapped = wrap(provider, () => 1);
    for (let i = 0; i < 3; i++) await wrapped({ job: urn, urn: 'urn:x', data: {} });
    expect(emit).toHaveBeenCalledTimes(1);
    expect(emit).toHaveBeenCalledWith(`envelope for ${urn}: both "job" and "urn" are set: "job" wins and "urn" is dropped`, {
      code: IDENTITY_WARNING_CODE,
    });
  });

  it('validateEnvelope still throws InvalidPayloadError after reporting', () => {
    const onWarning = vi.fn();
    expect(() => validateEnvelope(provider, { job: URN, urn: 'u', data: {} }, { onWarning })).toThrow(InvalidPayloadError);
    expect(onWarning).toHaveBeenCalledOnce();
  });
});

describe('no message ever quotes a value from the envelope', () => {
  const cases: Array<[string, unknown]> = [
    ['schema_version string', { job: URN, data: { order_id: 1 }, meta: { schema_version: SECRET } }],
    ['schema_version object', { job: URN, data: {}, meta: { schema_version: { k: SECRET } } }],
    ['schema_version number', { job: URN, data: {}, meta: { schema_version: 4111111111111111 } }],
    ['dropped urn', { job: URN, urn: SECRET, data: { order_id: 1 } }],
    ['non-string job', { job: { card: SECRET }, urn: URN, data: { order_id: 1 } }],
    ['job array and no identity', { job: [SECRET], data: {} }],
    ['data a string', { job: URN, data: SECRET }],
    ['data an array', { job: URN, data: [SECRET] }],
    ['envelope a string', SECRET],
    ['envelope an array', [SECRET]],
    ['blank urn and secret elsewhere', { urn: ' ', data: { card: SECRET } }],
  ];
  it.each(cases)('%s', async (_name, envelope) => {
    const texts = await textsOf(envelope);
    expect(texts.length).toBeGreaterThan(0);
    for (const t of texts) {
      expect(t).not.toContain('SECRET');
      expect(t).not.toContain('4111111111111111');
    }
  });
  it('describes the shape instead', () => {
    expect(() => readEnvelope({ job: URN, data: {}, meta: { schema_version: SECRET } })).toThrow(
      'meta.schema_version is a string; only 1 is known',
    );
    expect(() => readEnvelope({ job: URN, data: {}, meta: { schema_version: 2 } })).toThrow(
      'meta.schema_version is a number other than 1; only 1 is known',
    );
    expect(() => readEnvelope({ job: URN, data: SECRET })).toThrow('"data" must be a JSON object, got a string');
    expect(() => readEnvelope(SECRET)).toThrow('the envelope is not a JSON object (it is a string)');
  });
});

it('validateSchema is the contract name of validate', () => {
  expect(validateSchema).toBe(validate);
  expect(() => validateSchema(provider, URN, {})).toThrow(InvalidPayloadError);
});
