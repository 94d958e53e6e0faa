import { isPiiName, piiMatcher, type PiiMatcher } from './pii.js';
import { byCodeUnits, isReviewedNotSensitive, sensitiveCategory, SKIP, walkSchema } from '../validator/sensitive-paths.js';

export interface UnmarkedField {
  urn: string;
  /** The leaf's path in the gdpr path syntax (src/validator/sensitive-paths.ts). */
  path: string;
}

/**
 * PII-named fields left without `x-gdpr-sensitive`, sorted by URN then path. `matcher` tells
 * whether a property name looks personal: `isPiiName` by default; a RegExp tests the whole name.
 * - Only leaves are reported: a node with no walkable sub-schema. A container's name still counts:
 *   the leaves under a PII-named container (`address.street`, `emails[]`) are reported in its
 *   place, because its leaves are where the personal data sits. A container that declares no
 *   sub-schema (`address: {type: "object"}`) is its own leaf, or free-form PII would pass unseen.
 * - A marked node covers its whole subtree: nothing under it is reported.
 * - `x-gdpr-sensitive: false` is a reviewed opt-out for that field: it is not reported, and its
 *   name is not passed down; a leaf below with a personal name of its own is still reported.
 * - The root has no name, so it matches only through its properties.
 */
export function audit(schemas: ReadonlyArray<{ urn: string; schema: unknown }>, matcher: PiiMatcher | RegExp = isPiiName): UnmarkedField[] {
  const looksPersonal = typeof matcher === 'function' ? matcher : piiMatcher(matcher);
  const out: UnmarkedField[] = [];
  for (const { urn, schema } of schemas) {
    walkSchema(schema, false, ({ node, path, name, leaf, state: named }) => {
      if (sensitiveCategory(node) !== undefined) return SKIP;
      if (isReviewedNotSensitive(node)) return false;
      const pii = named || (name !== undefined && looksPersonal(name));
      if (leaf && pii) out.push({ urn, path });
      return pii;
    });
  }
  return out.sort((a, b) => byCodeUnits(a.urn, b.urn) || byCodeUnits(a.path, b.path));
}
