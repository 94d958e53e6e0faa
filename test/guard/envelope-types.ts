// Compiled by test/guard/envelope-types.test.ts (never run): the library's wire-envelope typing.
import {
  check,
  checkAsync,
  MapProvider,
  validateEnvelope,
  validateSchema,
  wrap,
  type AsyncProvider,
  type Envelope,
  type Provider,
} from '../../src/index.js';

const provider = new MapProvider({});

// The example: an unannotated handler sees the wire envelope, `data` as a record.
export const handle = wrap(provider, async (envelope) => envelope.data.order_id);

interface Order {
  order_id: number;
}
// Annotated with Envelope<Order>, `data` is typed and the wrapped function takes Envelope<Order>.
export const typed = wrap(provider, (envelope: Envelope<Order>, attempt: number) => envelope.data.order_id + attempt);
export const run: Promise<number> = typed({ job: 'urn:a', data: { order_id: 1 }, meta: { schema_version: 1 }, attempts: 0 }, 1);

// @ts-expect-error data must be an object
export const bad1: Envelope = { job: 'urn:a', data: 5 };
// @ts-expect-error schema_version can only be 1
export const bad2: Envelope = { job: 'urn:a', data: {}, meta: { schema_version: 2 } };
// @ts-expect-error job is a string
export const bad3: Envelope = { job: 5, data: {} };
// @ts-expect-error the typed handler wants an Order
typed({ job: 'urn:a', data: { order_id: 'x' } }, 1);

// Unknown envelope keys (trace_id, dead_letter, …) are allowed.
validateEnvelope(provider, { job: 'urn:a', data: {}, trace_id: 't' });
// The contract's Node name for the producer guard.
validateSchema(provider, 'urn:a', {});

// A sync provider is an AsyncProvider; an async one is not a sync Provider.
const asyncProvider: AsyncProvider = { schemaFor: async () => undefined };
export const fromSync: AsyncProvider = provider;
void checkAsync(asyncProvider, 'urn:a', {});
wrap(asyncProvider, () => 1);
// @ts-expect-error check needs a synchronous provider
check(asyncProvider, 'urn:a', {});
// null means none
export const nullProvider: Provider = { schemaFor: () => null };
