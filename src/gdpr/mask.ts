import { firstCodePoint, isSchemaObject } from '../validator/index.js';
import { hasOwn, sensitiveCategory } from './paths.js';

const REDACTED = '***';

/** An own property of a schema object when it is itself a schema object (booleans carry no marker). */
function subSchema(schema: Record<string, unknown>, keyword: string): Record<string, unknown> | undefined {
  const v = hasOwn(schema, keyword) ? schema[keyword] : undefined;
  return isSchemaObject(v) ? v : undefined;
}

type Container = Record<string, unknown> | unknown[];

function put(target: Container, key: string | number, value: unknown): void {
  // An own "__proto__" key (JSON.parse makes one) must stay a key, not become the prototype.
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else (target as Record<string, unknown>)[key] = value;
}

function redact(value: unknown): string {
  return typeof value === 'string' ? firstCodePoint(value) + REDACTED : REDACTED;
}

interface Task {
  value: unknown;
  schema: Record<string, unknown>;
  target: Container;
  key: string | number;
}

/**
 * A copy of `value` with every value at an `x-gdpr-sensitive` node redacted, for safe logging
 * (one-way, not a crypto primitive). A marked string keeps its first code point then `***`; any
 * other marked value, object and array included, becomes `"***"`.
 * The input is never mutated. Objects and arrays the schema describes (through properties, items,
 * additionalProperties) are fresh copies of their own enumerable keys; below the schema's reach
 * nothing can be marked, so that data is shared by reference, not cloned: the cost follows the
 * schema, not the data, which may be nested far deeper than the call stack. The walk uses an
 * explicit stack for the same reason.
 */
export function mask(value: unknown, schema: unknown): unknown {
  if (!isSchemaObject(schema)) return value;
  const root: unknown[] = [value];
  const stack: Task[] = [{ value, schema, target: root, key: 0 }];
  while (stack.length > 0) {
    const { value: v, schema: s, target, key } = stack.pop()!;
    if (sensitiveCategory(s) !== undefined) {
      put(target, key, redact(v));
      continue;
    }
    if (Array.isArray(v)) {
      const items = subSchema(s, 'items');
      if (items === undefined) continue;
      const copy = v.slice();
      put(target, key, copy);
      for (let i = 0; i < copy.length; i++) stack.push({ value: copy[i], schema: items, target: copy, key: i });
    } else if (typeof v === 'object' && v !== null) {
      const props = subSchema(s, 'properties');
      const additional = subSchema(s, 'additionalProperties');
      if (props === undefined && additional === undefined) continue;
      const copy: Record<string, unknown> = {};
      put(target, key, copy);
      const src = v as Record<string, unknown>;
      for (const k of Object.keys(src)) {
        const child = src[k];
        put(copy, k, child);
        // A declared property is never additional, even when its own schema is a boolean.
        const sub = props !== undefined && hasOwn(props, k) ? props[k] : additional;
        if (isSchemaObject(sub)) stack.push({ value: child, schema: sub, target: copy, key: k });
      }
    }
  }
  return root[0];
}
