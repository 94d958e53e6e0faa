import { firstCodePoint, isSchemaObject } from '../validator/index.js';
import { Reach, type Shape } from '../validator/sensitive.js';

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
  const root: unknown[] = [value];
  const stack: Task[] = [{ value, set: reach.set([schema]), target: root, key: 0 }];
  while (stack.length > 0) {
    const { value: given, set, target, key } = stack.pop()!;
    // JSON.stringify calls the root's toJSON with the key "".
    const v = asJson(given, target === root ? '' : key);
    if (reach.marked(set)) {
      put(target, key, redact(v));
      continue;
    }
    if (v !== given) put(target, key, v);
    if (Array.isArray(v)) {
      if (!reach.describes(set, 'array') && reach.marksUnder(set, 'object')) {
        put(target, key, redact(v));
        continue;
      }
      if (!reach.hasEdges(set, 'array')) continue;
      const items = reach.forItems(set);
      const copy = v.slice();
      put(target, key, copy);
      for (let i = 0; i < copy.length; i++) stack.push({ value: copy[i], set: items, target: copy, key: i });
    } else if (typeof v === 'object' && v !== null) {
      if (!reach.describes(set, 'object') && reach.marksUnder(set, 'array')) {
        put(target, key, redact(v));
        continue;
      }
      if (!reach.hasEdges(set, 'object')) continue;
      const copy: Record<string, unknown> = {};
      put(target, key, copy);
      const src = v as Record<string, unknown>;
      for (const k of Object.keys(src)) {
        const child = src[k];
        // JSON.stringify leaves functions out; a copied `toJSON` would replace the masked copy.
        if (typeof child === 'function') continue;
        put(copy, k, child);
        const sub = reach.forKey(set, k);
        if (sub.length > 0) stack.push({ value: child, set: sub, target: copy, key: k });
      }
    } else if (v !== null && reach.marksUnder(set, 'any') && !reach.admits(set, typeof v as Shape)) {
      put(target, key, redact(v));
    }
  }
  return root[0];
}
