import type { Deprecation } from '../registry/deprecation.js';
import type { CompiledSchema } from '../validator/index.js';

/** What a provider answers for one URN: the compiled schema, or `undefined`/`null` for "none registered". */
export type SchemaAnswer = CompiledSchema | null | undefined;

/**
 * Answers one question: what is the compiled schema for this URN's data? `undefined` or `null`: none
 * registered (the data is not validated). A load failure throws, and is not cached.
 */
export interface Provider {
  schemaFor(urn: string): SchemaAnswer;
  /** Whether the registry deprecates the URN: its deprecation (`{}` when it gives no dates), else undefined. Optional. */
  deprecation?(urn: string): Deprecation | undefined;
}

/**
 * A provider that may look schemas up asynchronously (HTTP, Redis, …): `schemaFor` returns the
 * answer or a promise of it. Every `Provider` is one. Use it with `checkAsync`, `validateAsync`,
 * `validateEnvelopeAsync` and `wrap`.
 */
export interface AsyncProvider {
  schemaFor(urn: string): SchemaAnswer | PromiseLike<SchemaAnswer>;
  /** As `Provider.deprecation`: answered from what the provider holds, never fetched. */
  deprecation?(urn: string): Deprecation | undefined;
}
