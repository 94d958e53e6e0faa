import { describe, expect, it } from 'vitest';
import { InvalidPayloadError, MapProvider, typed, UnknownUrnError, check, type TypedEnvelope } from '../../src/index.js';
import { generateTypes } from '../../src/types/index.js';
import { exampleEntries } from '../helpers/example-registry.js';
import { typeCheck } from '../helpers/tsc.js';

interface M {
  'urn:t:a': { id: number; tag?: 'x' | 'y' };
  'urn:t:b': { name: string };
}

const provider = new MapProvider({
  'urn:t:a': {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'integer', minimum: 1 }, tag: { enum: ['x', 'y'] } },
    additionalProperties: false,
  },
  'urn:t:b': { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
});

describe('typed<M>(provider) at run time: the untyped verdicts, bound to a provider', () => {
  const guard = typed<M>(provider);

  it('check and validate are check and validate', () => {
    expect(guard.check('urn:t:a', { id: 0 })).toEqual(check(provider, 'urn:t:a', { id: 0 }));
    expect(guard.check('urn:t:a', { id: 0 })).toHaveLength(1);
    expect(guard.check('urn:t:a', { id: 1, tag: 'x' })).toEqual([]);
    expect(() => guard.validate('urn:t:a', { id: 0 })).toThrow(InvalidPayloadError);
    expect(() => guard.validate('urn:t:b', { name: 'n' })).not.toThrow();
  });

  it('wrap passes a valid envelope itself, and rejects invalid data without calling the handler', async () => {
    const seen: unknown[] = [];
    const handler = guard.wrap((envelope: TypedEnvelope<M>, extra: number) => {
      seen.push(envelope);
      return envelope.job === 'urn:t:a' ? envelope.data.id + extra : envelope.data.name.length + extra;
    });
    const ok = { job: 'urn:t:a', data: { id: 2 }, meta: { schema_version: 1 } };
    await expect(handler(ok, 10)).resolves.toBe(12);
    expect(seen[0]).toBe(ok);
    await expect(handler({ job: 'urn:t:a', data: { id: 2, extra: 1 } }, 0)).rejects.toThrow(InvalidPayloadError);
    expect(seen).toHaveLength(1);
  });

  it('wrap sets job from the urn alias, so the discriminant names the validated URN', async () => {
    let got: TypedEnvelope<M> | undefined;
    const handler = guard.wrap((envelope) => {
      got = envelope;
    });
    const wire = { job: '  ', urn: 'urn:t:b', data: { name: 'n' } };
    await handler(wire);
    expect(got).toEqual({ job: 'urn:t:b', urn: 'urn:t:b', data: { name: 'n' } });
    expect(wire.job).toBe('  '); // the wire envelope is not changed
  });

  it('wrap refuses a URN without a schema (its data has no type) and envelope errors as wrap does', async () => {
    const handler = guard.wrap(() => 'called');
    await expect(handler({ job: 'urn:t:unknown', data: {} })).rejects.toThrow(UnknownUrnError);
    await expect(handler({ job: 'urn:t:unknown', data: {} })).rejects.toMatchObject({ code: 'BQ_UNKNOWN_URN', urn: 'urn:t:unknown' });
    await expect(handler({ data: {} })).rejects.toMatchObject({ code: 'BQ_INVALID_ENVELOPE' });
  });

  it('wrap rejects a URN whose provider answer is null (no schema) too, never calling the handler unvalidated', async () => {
    const answersNull = { schemaFor: (urn: string) => provider.schemaFor(urn) ?? null };
    let called = false;
    const handler = typed<M>(answersNull, { unknownUrn: 'reject' }).wrap(() => {
      called = true;
    });
    await expect(handler({ job: 'urn:t:unknown', data: { id: 'not checked' } })).rejects.toThrow(UnknownUrnError);
    expect(called).toBe(false);
  });

  it("unknownUrn can only be 'reject' in the typed guard; identity warnings reach onWarning as in wrap", async () => {
    expect(() => typed<M>(provider, { unknownUrn: 'pass' as never })).toThrow(/^typed\(\): unknownUrn must be 'reject'/);
    const warnings: string[] = [];
    const handler = typed<M>(provider, { onWarning: (w) => warnings.push(w) }).wrap((envelope) => envelope.job);
    await expect(handler({ job: 'urn:t:b', urn: 'urn:t:a', data: { name: 'n' } })).resolves.toBe('urn:t:b');
    expect(warnings).toHaveLength(1);
  });
});

describe('typed<BqMessages>(provider) at compile time', () => {
  // Every line that must not compile ends with `// error`; every other line must.
  const usage = `
import { MapProvider, typed, check } from '../src/index.js';
const guard = typed<BqMessages>(new MapProvider({}));
guard.check('urn:babel:orders:cancelled', { order_id: 1, reason: 'out_of_stock' });
guard.check('urn:babel:orders:cancelled', { order_id: 1, reason: 'out_of_stock', note: 'n' });
guard.check('urn:babel:orders:cancelled', { order_id: 1, reason: 'lost' }); // error
guard.check('urn:babel:orders:cancelled', { order_id: 1 }); // error
guard.check('urn:babel:orders:cancelled', { order_id: 1, reason: 'out_of_stock', nte: 'n' }); // error
guard.check('urn:babel:orders:canceled', { order_id: 1, reason: 'out_of_stock' }); // error
guard.validate('urn:babel:payments:captured', { payment_id: 'p-123456', order_id: 7, amount: 1, currency: 'EUR', extra: [1] });
guard.validate('urn:babel:payments:captured', { payment_id: 7, order_id: 7, amount: 1, currency: 'EUR' }); // error
check(new MapProvider({}), 'urn:anything', { untyped: true });
const consume = guard.wrap(async (envelope, attempt: number) => {
  switch (envelope.job) {
    case 'urn:babel:orders:created':
      return envelope.data.lines.map((l) => l.sku.length + l.quantity + attempt);
    case 'urn:babel:users:registered':
      return envelope.data.email.length;
    case 'urn:babel:orders:cancelled':
      return envelope.data.lines; // error
    default:
      return envelope.data.card_last4?.length;
  }
});
void consume({ job: 'urn:babel:orders:created' }, 1);
void consume({}); // error
const noMap = typed(new MapProvider({}));
noMap.check('urn:babel:orders:cancelled', {}); // error
`;

  it('narrows data by URN literal, catches typos in URNs and fields, and leaves the untyped API as it was', () => {
    const source = generateTypes(exampleEntries()) + usage;
    const lines = source.split('\n');
    const expected = lines.flatMap((l, i) => (l.endsWith('// error') ? [i + 1] : []));
    const diagnostics = typeCheck({ 'test/__typed_usage.ts': source });
    const got = [...new Set(diagnostics.map((d) => d.line))];
    expect(got, diagnostics.map((d) => `${d.line}: ${lines[d.line - 1]?.trim()} — ${d.message}`).join('\n')).toEqual(expected);
    expect(expected).toHaveLength(8);
  });
});
