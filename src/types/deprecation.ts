import type { Deprecation } from '../registry/deprecation.js';
import { hasOwn, isSchemaObject } from '../validator/index.js';

/**
 * What every language's generated code says of a deprecated URN (plain text; each language's
 * comment or string builder escapes it): since when, its sunset, why, and what replaces it.
 * Starts in lower case, after the language's own marker (`Deprecated: `, `@deprecated `).
 */
export function urnDeprecation(entry: { status?: string; deprecated?: Deprecation }): string | undefined {
  if (entry.status !== 'deprecated') return undefined;
  const d = entry.deprecated ?? {};
  const dates = [d.since === undefined ? '' : `since ${d.since}`, d.sunset === undefined ? '' : `sunset ${d.sunset}`]
    .filter((x) => x !== '')
    .join(', ');
  return `the registry deprecates this URN${dates === '' ? '' : ` (${dates})`}${d.reason === undefined ? '' : `: ${d.reason}`}${d.replacement === undefined ? '' : `; use ${d.replacement}`}.`;
}

/** Whether a schema object carries the 2019-09 annotation `"deprecated": true` (documentation only). */
export const deprecatedInSchema = (raw: unknown): boolean => isSchemaObject(raw) && hasOwn(raw, 'deprecated') && raw.deprecated === true;

/** The doc line of a property (or object) a schema marks deprecated. */
export const SCHEMA_DEPRECATED = 'the schema marks it deprecated (an annotation: it is validated as before).';
