import { sensitiveCategory } from '../validator/sensitive-paths.js';
import { hasOwn, isSchemaObject, parseSchema, SchemaError, type SchemaNode } from '../validator/index.js';
import { deprecatedInSchema, SCHEMA_DEPRECATED } from './deprecation.js';
import type { TypesEntry } from './generate.js';
import { uniqueName } from './names.js';

export { uniqueName };

/** An own property of a schema object, or undefined. */
export const ownValue = (o: unknown, key: string): unknown => (isSchemaObject(o) && hasOwn(o, key) ? o[key] : undefined);

/**
 * The doc lines of a node for the Go and Python outputs (plain text; each language's comment
 * builder escapes it): its description, the constraints its type cannot hold, its PII category.
 * `values`: also list enum/const values (Go, whose types cannot; Python says them in Literal).
 */
export function constraintNotes(n: SchemaNode, raw: unknown, values: boolean): string[] {
  const out: string[] = [];
  // First, so that Go's doc reads it as its Deprecated: paragraph.
  if (deprecatedInSchema(raw)) out.push(`Deprecated: ${SCHEMA_DEPRECATED}`);
  const d = ownValue(raw, 'description');
  if (typeof d === 'string' && d !== '') out.push(d);
  const checks: string[] = [];
  if (n.minLength !== undefined) checks.push(`minLength ${n.minLength}`);
  if (n.maxLength !== undefined) checks.push(`maxLength ${n.maxLength}`);
  if (n.minimum !== undefined) checks.push(`minimum ${n.minimum}`);
  if (values && n.enum !== undefined) checks.push(`one of ${n.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (values && n.hasConst) checks.push(`equal to ${JSON.stringify(n.constValue)}`);
  if (checks.length > 0) out.push(`Checked at run time only: ${checks.join(', ')}.`);
  const pii = sensitiveCategory(raw);
  if (pii !== undefined) out.push(`Sensitive (x-gdpr-sensitive)${pii === '' ? '' : `: ${pii}`}.`);
  return out;
}

/** An entry's schema tree, as the validator reads it; a schema it cannot read is a SchemaError naming the URN. */
export function rootOf(entry: TypesEntry): SchemaNode {
  try {
    return parseSchema(entry.schema).root;
  } catch (err) {
    if (err instanceof SchemaError) throw new SchemaError(`${entry.urn}: ${err.message}`);
    throw err;
  }
}

/**
 * The values of an `enum`/`const` that admits strings only (in order, without repeats), for the
 * outputs that give it an enum type of its own; undefined for any other node (no enum, an empty
 * one, a value that is not a string, or a `type` that excludes strings: those keep their mapping).
 */
export function stringEnum(n: SchemaNode): string[] | undefined {
  if (n.always !== undefined) return undefined;
  const listed = n.enum ?? (n.hasConst ? [n.constValue] : undefined);
  if (listed === undefined || listed.length === 0 || !listed.every((v): v is string => typeof v === 'string')) return undefined;
  if (n.types !== undefined && !n.types.includes('string')) return undefined;
  return [...new Set(listed)];
}

/** An identifier per enum value, unique among `taken` (which gets them): `ident(value)`, then `_2`, `_3`, …. */
export function memberNames(
  values: readonly string[],
  ident: (value: string) => string,
  taken: Set<string>,
): Array<[value: string, name: string]> {
  return values.map((v) => [v, uniqueName(taken, ident(v))]);
}
