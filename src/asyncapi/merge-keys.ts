import { escapePointerToken, joinPointer } from '../validator/index.js';
import { catalogKeys, type CatalogEntry } from './build.js';
import type { AsyncApiIssue } from './validate.js';

/**
 * `<<` keys in the payload schemas, with their pointers in the document buildAsyncApi makes.
 * @asyncapi/parser reads every document, JSON included, as YAML with merge keys, so a property
 * named `<<` would be merged into the enclosing object: the catalog would silently show another
 * schema. The spec schema cannot see this, so it is checked here.
 * Iterative, and a value that refers back to one of its ancestors (a YAML alias cycle) is not
 * entered again, so the walk ends; validateAsyncApi reports the cycle itself.
 */
export function mergeKeyIssues(entries: readonly CatalogEntry[]): AsyncApiIssue[] {
  const keys = catalogKeys(entries.map((e) => e.urn));
  const issues: AsyncApiIssue[] = [];
  for (const { urn, schema } of entries) {
    const k = escapePointerToken(keys.get(urn)!);
    const onPath = new Set<object>();
    const stack: Array<{ value: unknown; pointer: string } | { leave: object }> = [
      { value: schema, pointer: `/channels/${k}/messages/${k}/payload/schema` },
    ];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      if ('leave' in cur) {
        onPath.delete(cur.leave);
        continue;
      }
      const { value, pointer } = cur;
      if (typeof value !== 'object' || value === null || onPath.has(value)) continue;
      onPath.add(value);
      stack.push({ leave: value });
      const keysOf = Object.keys(value);
      for (let i = keysOf.length - 1; i >= 0; i--) {
        const key = keysOf[i]!;
        const at = joinPointer(pointer, key);
        if (key === '<<') {
          issues.push({ pointer: at, urn, message: 'the key "<<" is read as a YAML merge key by AsyncAPI tools, which would merge its value into the enclosing object' });
        }
        stack.push({ value: (value as Record<string, unknown>)[key], pointer: at });
      }
    }
  }
  return issues;
}
