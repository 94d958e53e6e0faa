import { firstCodePoint, isSchemaObject } from '../validator/index.js';
import { hasOwn, sensitiveCategory, subSchemas, type Edge } from './paths.js';

const REDACTED = '***';

/** The keywords a value of each shape cannot follow: a marked node under one of them is out of its reach. */
const ARRAY_CANNOT_FOLLOW: readonly Edge[] = ['properties', 'additionalProperties'];
const OBJECT_CANNOT_FOLLOW: readonly Edge[] = ['items'];
const SCALAR_CANNOT_FOLLOW: readonly Edge[] = ['properties', 'items', 'additionalProperties'];

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

/**
 * The schema nodes from which a marked node can be reached (marked nodes included), over the
 * walked keywords. One pass over the schema graph, then one backwards from the marked nodes:
 * linear in the schema, and a node is visited once, so a self-referencing schema (a YAML alias
 * cycle) terminates.
 */
function nodesHoldingMarks(root: Record<string, unknown>): Set<object> {
  const parents = new Map<object, object[]>();
  const seen = new Set<object>([root]);
  const marked: object[] = [];
  const stack: Array<Record<string, unknown>> = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (sensitiveCategory(node) !== undefined) {
      marked.push(node); // everything below is redacted with it
      continue;
    }
    for (const { node: child } of subSchemas(node)) {
      if (child === true) continue;
      const list = parents.get(child);
      if (list === undefined) parents.set(child, [node]);
      else list.push(node);
      if (!seen.has(child)) {
        seen.add(child);
        stack.push(child);
      }
    }
  }
  const holding = new Set<object>(marked);
  while (marked.length > 0) {
    for (const parent of parents.get(marked.pop()!) ?? []) {
      if (!holding.has(parent)) {
        holding.add(parent);
        marked.push(parent);
      }
    }
  }
  return holding;
}

/**
 * The JSON shapes a node's own `type` admits (`integer` counts as `number`), or undefined when it
 * declares none (or a malformed one).
 */
function declaredShapes(s: Record<string, unknown>): ReadonlySet<string> | undefined {
  const t = hasOwn(s, 'type') ? s.type : undefined;
  const list = typeof t === 'string' ? [t] : Array.isArray(t) && t.every((x) => typeof x === 'string') ? (t as string[]) : undefined;
  return list === undefined ? undefined : new Set(list.map((x) => (x === 'integer' ? 'number' : x)));
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
 *
 * Fails closed: a value whose shape the schema does not describe, at a node below which something
 * is marked, is redacted whole as if it were marked, never passed through:
 * - an array, unless the node's `type` admits arrays and it has an `items` schema, when a mark
 *   lies under `properties`/`additionalProperties` (`{"user": [{"phone": …}]}` against a schema
 *   whose `user.phone` is marked);
 * - an object, unless `type` admits objects and it has `properties`/`additionalProperties`, when
 *   a mark lies under `items` (`{"tags": {"0": …}}` where `tags[]` is marked);
 * - a string, number or boolean that `type` does not admit, when a mark lies under the node.
 * Without a `type`, only the keywords say which shapes a node describes. `null` is kept: it
 * carries nothing. Data the schema leaves open (an undeclared key with no
 * `additionalProperties` schema, array items with no `items` schema where nothing else is marked)
 * is not at any marked path and is kept.
 *
 * The input is never mutated. Objects and arrays the schema follows are fresh copies of their own
 * enumerable keys; below the schema's reach nothing can be marked, so that data is shared by
 * reference, not cloned: the cost follows the schema, not the data, which may be nested far deeper
 * than the call stack. The walk uses an explicit stack for the same reason, and descends the data
 * one level per step, so it ends even when the schema refers to itself.
 */
export function mask(value: unknown, schema: unknown): unknown {
  if (!isSchemaObject(schema)) return value;
  let holding: Set<object> | undefined;
  /** Whether a marked node lies under `s` through one of `edges` (computed on first need). */
  const marksUnder = (s: Record<string, unknown>, edges: readonly Edge[]): boolean => {
    const subs = subSchemas(s).filter((sub) => sub.node !== true && edges.includes(sub.edge));
    if (subs.length === 0) return false; // the common case, a leaf: no graph needed
    holding ??= nodesHoldingMarks(schema);
    return subs.some((sub) => holding!.has(sub.node as object));
  };
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
      const described = items !== undefined && declaredShapes(s)?.has('array') === true;
      if (!described && marksUnder(s, ARRAY_CANNOT_FOLLOW)) {
        put(target, key, redact(v));
        continue;
      }
      if (items === undefined) continue;
      const copy = v.slice();
      put(target, key, copy);
      for (let i = 0; i < copy.length; i++) stack.push({ value: copy[i], schema: items, target: copy, key: i });
    } else if (typeof v === 'object' && v !== null) {
      const props = subSchema(s, 'properties');
      const additional = subSchema(s, 'additionalProperties');
      const described = (props !== undefined || additional !== undefined) && declaredShapes(s)?.has('object') === true;
      if (!described && marksUnder(s, OBJECT_CANNOT_FOLLOW)) {
        put(target, key, redact(v));
        continue;
      }
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
    } else if (v !== null && marksUnder(s, SCALAR_CANNOT_FOLLOW) && declaredShapes(s)?.has(typeof v) !== true) {
      put(target, key, redact(v));
    }
  }
  return root[0];
}
