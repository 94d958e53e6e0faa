import type { CompiledSchema } from '../validator/index.js';

/** What a provider answers for one URN: the compiled schema, or `undefined`/`null` for "none registered". */
export type SchemaAnswer = CompiledSchema | null | undefined;

/**
 * Answers one question: what is the compiled schema for this URN's data? `undefined` or `null`: none
 * registered (the data is not validated). A load failure throws, and is not cached.
 */
export interface Provider {
  schemaFor(urn: string): SchemaAnswer;
}

/**
 * A provider that may look schemas up asynchronously (HTTP, Redis, …): `schemaFor` returns the
 * answer or a promise of it. Every `Provider` is one. Use it with `checkAsync`, `validateAsync`,
 * `validateEnvelopeAsync` and `wrap`.
 */
export interface AsyncProvider {
  schemaFor(urn: string): SchemaAnswer | PromiseLike<SchemaAnswer>;
}
