import { describe, expect, it } from 'vitest';
import { InvalidPayloadError as SdkError, MapProvider as SdkProvider, validate as sdkValidate } from '../../src/babelqueue-node/index.js';
import { InvalidPayloadError, MapProvider, validate } from '../../src/index.js';

/* One class for data that fails its URN's schema, whichever entry threw it. */

const SCHEMA = { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } };

describe('InvalidPayloadError', () => {
  it('is the same class in the package entry and in bqschema/babelqueue-node', () => {
    expect(SdkError).toBe(InvalidPayloadError);
  });

  it("from the SDK schema module: the SDK's violation and message, and the guard's code and violations", async () => {
    const err = await sdkValidate(new SdkProvider({ 'urn:t': SCHEMA }), 'urn:t', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidPayloadError);
    expect(err).toMatchObject({
      name: 'InvalidPayloadError',
      code: 'BQ_INVALID_PAYLOAD',
      urn: 'urn:t',
      violation: 'order_id: missing_required',
    });
    expect((err as InvalidPayloadError).message).toBe(
      'Message data for "urn:t" does not match its URN schema: order_id: missing_required.',
    );
    expect((err as InvalidPayloadError).violations.map((v) => v.keyword)).toEqual(['required']);
  });

  it('from the guard: its own message and every violation, and no SDK wording', () => {
    let err: unknown;
    try {
      validate(new MapProvider({ 'urn:t': SCHEMA }), 'urn:t', { order_id: 'x' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidPayloadError);
    expect(err).toMatchObject({ code: 'BQ_INVALID_PAYLOAD', urn: 'urn:t' });
    expect((err as InvalidPayloadError).violation).toBeUndefined();
    expect((err as InvalidPayloadError).message).toMatch(/^data for urn:t is invalid: \/order_id /);
  });
});
