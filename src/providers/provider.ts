import type { CompiledSchema } from '../validator/index.js';

/** Answers one question: what is the compiled schema for this URN's data? `undefined`: none registered. */
export interface Provider {
  schemaFor(urn: string): CompiledSchema | undefined;
}
