import { firstCodePoint, hasOwn, isSchemaObject } from './index.js';
import { hasMarker, Reach, type Shape } from './sensitive.js';

const REDACTED = '***';

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
 * What JSON.stringify writes for `v` under `key`: the result of its `toJSON` method when it has
 * one (a Date, a Mongoose document, a class with a custom form), else `v`. Masking works on that,
 * so that what the caller logs is what was masked.
 */
function asJson(v: unknown, key: string | number): unknown {
  if (typeof v !== 'object' || v === null) return v;
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function' ? (toJSON as (k: string) => unknown).call(v, String(key)) : v;
}

interface Task {
  value: unknown;
  /** The schemas that describe the value (src/validator/sensitive.ts: a set). */
  set: Array<Record<string, unknown>>;
  target: Container;
  key: string | number;
}

/**
 * A copy of `value` with every value at an `x-gdpr-sensitive` node redacted, for safe logging
 * (one-way, not a crypto primitive). A marked string keeps its first code point then `***`; any
 * other marked value, object and array included, becomes `"***"`.
 *
 * A marker is anything but `false` (`1`, `{}`, `"yes"` mask as `true` does), and a value is
 * described by every schema that applies to it, not only the ten keywords the validator enforces
 * (src/validator/sensitive.ts): a marker under `anyOf`/`oneOf`/`allOf`/`not`/`if`, a local
 * `$ref`, `patternProperties` or tuple `items` masks the values it may describe, whatever branch
 * or pattern the data would match.
 *
 * Fails closed: a value whose shape the schema does not describe, at a node below which something
 * is marked, is redacted whole as if it were marked, never passed through:
 * - an array, unless a `type` admits arrays and the node says what its items are, when a mark
 *   lies under the keywords of an object (`{"user": [{"phone": …}]}` against a schema whose
 *   `user.phone` is marked);
 * - an object, unless a `type` admits objects and the node says what its properties are, when a
 *   mark lies under the keywords of an array (`{"tags": {"0": …}}` where `tags[]` is marked);
 * - a string, number or boolean that no `type` admits, when a mark lies under the node.
 * Without a `type`, only the keywords say which shapes a node describes. `null` is kept: it
 * carries nothing. Data the schema leaves open (an undeclared key with no schema for it, array
 * items with no `items` schema where nothing else is marked) is not at any marked path and is kept.
 *
 * What is masked is what JSON.stringify writes: a value with a `toJSON` method (a Date, an ORM
 * document) is masked as its result, and the copies leave out function-valued properties (which
 * JSON leaves out too), so no copied `toJSON` can bring the original back.
 *
 * The input is never mutated. Objects and arrays the schema follows are fresh copies of their own
 * enumerable keys; below the schema's reach nothing can be marked, so that data is shared by
 * reference, not cloned: the cost follows the schema, not the data, which may be nested far deeper
 * than the call stack. The walk uses an explicit stack for the same reason, and descends the data
 * one level per step, so it ends even when the schema refers to itself.
 */
export function mask(value: unknown, schema: unknown): unknown {
  if (!isSchemaObject(schema)) return value;
  const reach = new Reach(schema);
  return maskIn(value, reach, reach.set([schema]));
}

/** What the data contains when it contains itself: JSON cannot write it, and masking would not end. */
const CYCLE = 'the data contains a cycle (an object or array that contains itself), so it is not JSON';

/** `mask` of a value that `set` describes (its schemas, read by `reach`). */
function maskIn(value: unknown, reach: Reach, set: Array<Record<string, unknown>>): unknown {
  const root: unknown[] = [value];
  const stack: Array<Task | { leave: object }> = [{ value, set, target: root, key: 0 }];
  // The containers being copied above the current one: data that contains itself is refused.
  const onPath = new Set<object>();
  while (stack.length > 0) {
    const task = stack.pop()!;
    if ('leave' in task) {
      onPath.delete(task.leave);
      continue;
    }
    const { value: given, set, target, key } = task;
    // JSON.stringify calls the root's toJSON with the key "".
    const v = asJson(given, target === root ? '' : key);
    if (reach.marked(set)) {
      put(target, key, redact(v));
      continue;
    }
    if (v !== given) put(target, key, v);
    if (typeof v !== 'object' || v === null) {
      if (v !== null && reach.marksUnder(set, 'any') && !reach.admits(set, typeof v as Shape)) put(target, key, redact(v));
      continue;
    }
    const array = Array.isArray(v);
    if (!reach.describes(set, array ? 'array' : 'object') && reach.marksUnder(set, array ? 'object' : 'array')) {
      put(target, key, redact(v));
      continue;
    }
    if (!reach.hasEdges(set, array ? 'array' : 'object')) continue;
    if (onPath.has(v)) throw new TypeError(CYCLE);
    onPath.add(v);
    stack.push({ leave: v });
    if (array) {
      const items = reach.forItems(set);
      const copy = (v as unknown[]).slice();
      put(target, key, copy);
      for (let i = 0; i < copy.length; i++) stack.push({ value: copy[i], set: items, target: copy, key: i });
      continue;
    }
    const copy: Record<string, unknown> = {};
    put(target, key, copy);
    const src = v as Record<string, unknown>;
    for (const k of Object.keys(src)) {
      const child = src[k];
      // JSON.stringify leaves functions out; a copied `toJSON` would replace the masked copy.
      if (typeof child === 'function') continue;
      put(copy, k, child);
      const sub = reach.forKey(set, k);
      // Past the work budget a set is empty and counts as marked: the value is masked.
      if (sub.length > 0 || reach.spent) stack.push({ value: child, set: sub, target: copy, key: k });
    }
  }
  return root[0];
}

/**
 * A copy of `value` (a message envelope, or bare data) with every value its schema marks masked:
 * an object with a `data` object has its data masked (the envelope's other keys kept, in their
 * place); anything else is masked as bare data.
 */
export function maskMessage(value: unknown, schema: unknown): unknown {
  if (isSchemaObject(value) && hasOwn(value, 'data') && isSchemaObject(value.data)) return withData(value, mask(value.data, schema));
  return mask(value, schema);
}

/** The envelope with `data` replaced: every other key kept, in its place. */
export function withData(envelope: Record<string, unknown>, data: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(envelope)) {
    // An own "__proto__" key (JSON.parse makes one) must stay a key, not become the prototype.
    Object.defineProperty(out, key, { value: key === 'data' ? data : envelope[key], enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The annotations that hold values of the data a schema node describes. */
const VALUE_ANNOTATIONS = ['examples', 'default'] as const;

/**
 * A copy of a schema document whose example values (`examples` entries and `default`, wherever
 * data can reach) are masked as data at that place would be: for showing a schema next to the
 * personal data it declares (the catalog). Everything else is kept; shared objects stay shared
 * (a cycle stays a cycle). A schema that marks nothing is returned as it is.
 */
export function maskAnnotations(schema: unknown): unknown {
  if (!isSchemaObject(schema) || !hasMarker(schema)) return schema;
  const reach = new Reach(schema);
  const at = reach.describedAt();
  const copies = new Map<object, Container>();
  const copyOf = (v: object): Container => {
    let c = copies.get(v);
    if (c === undefined) {
      c = Array.isArray(v) ? new Array<unknown>(v.length) : {};
      copies.set(v, c);
      stack.push(v);
    }
    return c;
  };
  const stack: object[] = [];
  const top = copyOf(schema);
  while (stack.length > 0) {
    const v = stack.pop()!;
    const c = copies.get(v)!;
    const described = isSchemaObject(v) ? at.get(v) : undefined;
    for (const k of Object.keys(v)) {
      let child = (v as Record<string, unknown>)[k];
      if (described !== undefined && (VALUE_ANNOTATIONS as readonly string[]).includes(k)) {
        const one = (x: unknown): unknown => {
          if (described.hidden) return redact(x);
          try {
            return maskIn(x, reach, described.set);
          } catch (err) {
            if (err instanceof TypeError) return REDACTED; // a value that contains itself: hidden whole
            throw err;
          }
        };
        child = k === 'examples' && Array.isArray(child) ? child.map(one) : one(child);
        put(c, k, child);
        continue;
      }
      put(c, k, typeof child === 'object' && child !== null ? copyOf(child) : child);
    }
  }
  return top;
}
