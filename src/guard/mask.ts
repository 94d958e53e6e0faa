import { mask as maskBySchema } from '../validator/mask.js';
import { sensitivePaths as pathsOf, type SensitivePath } from '../validator/sensitive-paths.js';
import type { AsyncProvider, Provider } from '../providers/index.js';
import type { CompiledSchema } from '../validator/index.js';
import { schemaOf, UnknownUrnError } from './guard.js';

/*
 * Masking for logs, in the service: the same core as `bqschema gdpr --mask` (src/validator/mask.ts), so
 * the same values are redacted, and the same fail-closed rules. A URN without a schema throws
 * (UnknownUrnError): its data cannot be masked, so none of it may be logged.
 */

export type { SensitivePath };

/** A schema as given, or compiled (compile()'s result, which keeps the schema it was given). */
function schemaDocument(schema: CompiledSchema | unknown): unknown {
  const c = schema as Partial<CompiledSchema> | null;
  return c !== null && typeof c === 'object' && typeof c.isValid === 'function' && typeof c.validate === 'function' ? c.schema : schema;
}

/**
 * Every node a schema marks `x-gdpr-sensitive`, sorted by path: `{path, category}` as the BabelQueue
 * SDKs' `sensitivePaths` give it (`profile.full_name`, `addresses[].line`, `""` for the root;
 * category `""` for `true`). Also walks `additionalProperties` (`extra.*`), and escapes `.`, `[`,
 * `]`, `*` and `\` in property names (docs/library.md).
 */
export function sensitivePaths(schema: CompiledSchema | unknown): SensitivePath[] {
  return pathsOf(schemaDocument(schema));
}

/**
 * A copy of `data` with every `x-gdpr-sensitive` value redacted (a string keeps its first code
 * point then `***`; any other value becomes `"***"`), by the schema given (as written or compiled).
 * Data of a shape the schema does not describe, below a mark, is redacted whole. Never mutates.
 */
export function maskWith(schema: CompiledSchema | unknown, data: unknown): unknown {
  return maskBySchema(data, schemaDocument(schema));
}

/** `data` masked by the schema the provider holds for `urn`; no schema throws UnknownUrnError. */
export function mask(provider: Provider, urn: string, data: unknown): unknown {
  const schema = schemaOf(provider.schemaFor(urn), urn, true);
  if (schema === undefined) throw new UnknownUrnError(urn, 'mask');
  return maskBySchema(data, schema.schema);
}

/** `mask` for a provider that may answer asynchronously (HttpProvider). */
export async function maskAsync(provider: AsyncProvider, urn: string, data: unknown): Promise<unknown> {
  const schema = schemaOf(await provider.schemaFor(urn), urn, false);
  if (schema === undefined) throw new UnknownUrnError(urn, 'mask');
  return maskBySchema(data, schema.schema);
}
