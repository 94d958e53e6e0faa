import { hasOwn, isSchemaObject, joinPointer } from '../validator/index.js';
import type { Change } from './compare.js';
import type { CompatLevel } from './levels.js';
import { ruleMessage } from './rules.js';

/*
 * Tombstones the manifest keeps: a URN's `retired` names were removed from its schema for good.
 * Data written with them still exists, so declaring one again (it is not declared where compat
 * compares from) is `property-resurrected`, with no history needed: a break by the registry's rules,
 * not shown by a payload (the old schema of that name is not at hand).
 */

/** Whether `schema` declares `name` at its top level. */
const declares = (schema: unknown, name: string): boolean =>
  isSchemaObject(schema) && hasOwn(schema, 'properties') && isSchemaObject(schema.properties) && hasOwn(schema.properties, name);

/** The retired names the new schema declares again (the old one, when given, not declaring them). */
export function retiredChanges(
  retired: readonly string[] | undefined,
  oldSchema: unknown,
  newSchema: unknown,
  level: CompatLevel,
): Change[] {
  if (retired === undefined) return [];
  const breaking = level === 'backward' || level === 'full';
  return retired
    .filter((name) => declares(newSchema, name) && !declares(oldSchema, name))
    .map((name): Change => ({
      rule: 'property-resurrected',
      breaking,
      path: joinPointer('/properties', name),
      subject: name,
      message: `${ruleMessage('property-resurrected', undefined, undefined, name)} (it is retired in the manifest)`,
      ...(breaking ? { witness: null, witnessReason: 'policy' as const } : {}),
    }));
}
