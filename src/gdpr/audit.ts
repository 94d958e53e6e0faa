import { byCodeUnits, sensitiveCategory, SKIP, walkSchema } from './paths.js';

/*
 * A substring match on property names, case-insensitive: `customer_email`, `billingAddress` and
 * `dateOfBirth` match. The `[-_]?` variants also catch camelCase (`creditCard`, `nationalId`).
 * One alternation of literals with single optional characters and no nested quantifier: V8 runs
 * it in time linear in the name's length.
 */
export const DEFAULT_PII_PATTERN =
  /email|e[-_]?mail|mail|ssn|phone|msisdn|tckn|national[-_]?id|passport|iban|credit[-_]?card|card[-_]?number|cvv|address|birth|dob/i;

/** Builds the case-insensitive pattern given as `--pattern RE`; an invalid or empty one throws. */
export function parsePiiPattern(source: string): RegExp {
  if (source === '') throw new SyntaxError('the PII pattern is empty: it would match every property name');
  try {
    return new RegExp(source, 'i');
  } catch (err) {
    throw new SyntaxError(`invalid PII pattern ${JSON.stringify(source)}: ${(err as Error).message}`);
  }
}

export interface UnmarkedField {
  urn: string;
  /** The leaf's path in the gdpr path syntax (see paths.ts). */
  path: string;
}

/**
 * PII-named fields left without `x-gdpr-sensitive`, sorted by URN then path.
 * - Only leaves are reported: a node with no walkable sub-schema. A container's name still counts:
 *   the leaves under a PII-named container (`address.street`, `emails[]`) are reported in its
 *   place, because its leaves are where the personal data sits. A container that declares no
 *   sub-schema (`address: {type: "object"}`) is its own leaf, or free-form PII would pass unseen.
 * - A marked node covers its whole subtree: nothing under it is reported.
 * - The root has no name, so it matches only through its properties.
 */
export function audit(
  schemas: ReadonlyArray<{ urn: string; schema: unknown }>,
  pattern: RegExp = DEFAULT_PII_PATTERN,
): UnmarkedField[] {
  // A g or y flag would make test() depend on lastIndex left by the previous call.
  const re = pattern.global || pattern.sticky ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')) : pattern;
  const out: UnmarkedField[] = [];
  for (const { urn, schema } of schemas) {
    walkSchema(schema, false, ({ node, path, name, leaf, state: named }) => {
      if (sensitiveCategory(node) !== undefined) return SKIP;
      const pii = named || (name !== undefined && re.test(name));
      if (leaf && pii) out.push({ urn, path });
      return pii;
    });
  }
  return out.sort((a, b) => byCodeUnits(a.urn, b.urn) || byCodeUnits(a.path, b.path));
}
