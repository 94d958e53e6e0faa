/**
 * JSON equality with numbers compared by value (`1` equals `1.0`, `-0` equals `0`), booleans,
 * strings and null by identity, arrays in order and objects by key set (own keys only).
 * Iterative, so data nested 100,000 levels deep cannot overflow the stack.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const stack: unknown[] = [a, b];
  while (stack.length > 0) {
    const y = stack.pop();
    const x = stack.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    const xa = Array.isArray(x);
    if (xa !== Array.isArray(y)) return false;
    if (xa) {
      const xs = x as unknown[];
      const ys = y as unknown[];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) stack.push(xs[i], ys[i]);
    } else {
      const xo = x as Record<string, unknown>;
      const yo = y as Record<string, unknown>;
      const keys = Object.keys(xo);
      if (keys.length !== Object.keys(yo).length) return false;
      for (const k of keys) {
        if (!Object.prototype.hasOwnProperty.call(yo, k)) return false;
        stack.push(xo[k], yo[k]);
      }
    }
  }
  return true;
}

type Frame = { readonly v: unknown[] | Record<string, unknown>; readonly keys: string[] | null; i: number };

/** The key of a non-container value: every token ends itself, so concatenations cannot collide. */
function scalarKey(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return 's' + v.length + ':' + v;
    // `+ 0` folds -0 into 0; String() of a double is exact, so 1 and 1.0 share a key.
    case 'number':
      return 'd' + String(v + 0) + ';';
    case 'boolean':
      return v ? 't' : 'f';
    case 'undefined':
      return 'u';
    case 'bigint':
      return 'b' + String(v) + ';';
    default:
      // null; functions and symbols match no JSON value (they are never told apart from each other).
      return v === null ? 'n' : '?';
  }
}

/**
 * A string key with `canonicalKey(a) === canonicalKey(b)` exactly when `jsonEqual(a, b)`, for JSON
 * values (`±Infinity` included): own keys sorted, `-0` as `0`, arrays in order. The one exception
 * is `NaN`, which jsonEqual never finds equal but which has a key like any number. It lets `enum`
 * and compat's value sets be hash lookups instead of pairwise comparisons. Iterative, so data
 * nested 100,000 levels deep cannot overflow the stack.
 */
export function canonicalKey(value: unknown): string {
  return keyOf(value, 0);
}

/** Recursion is the fast way for the shallow values that are the norm; deep ones go iterative. */
const RECURSION_LIMIT = 200;

function keyOf(v: unknown, depth: number): string {
  if (typeof v !== 'object' || v === null) return scalarKey(v);
  if (depth >= RECURSION_LIMIT) return deepKey(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += keyOf(v[i], depth + 1);
    return out + ']';
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out += k.length + ':' + k + keyOf(o[k], depth + 1);
  }
  return out + '}';
}

/** What canonicalKey and refuseCycle throw for a value that refers to itself (JSON.stringify throws too). */
const CYCLE_MESSAGE = 'the data contains a cycle (an object or array that contains itself), so it is not JSON';

/**
 * The same key as keyOf, with an explicit stack. A cycle makes the walk infinitely deep, so it
 * always reaches here (past RECURSION_LIMIT); only here are the containers on the path tracked,
 * so shallow data pays nothing for it.
 */
function deepKey(value: object): string {
  let out = '';
  const frames: Frame[] = [];
  const onPath = new Set<object>();
  const enter = (c: object): void => {
    if (onPath.has(c)) throw new TypeError(CYCLE_MESSAGE);
    onPath.add(c);
  };
  let v: unknown = value;
  for (;;) {
    if (typeof v === 'object' && v !== null) {
      if (Array.isArray(v)) {
        if (v.length > 0) {
          out += '[';
          enter(v);
          frames.push({ v, keys: null, i: 0 });
          v = v[0];
          continue;
        }
        out += '[]';
      } else {
        const o = v as Record<string, unknown>;
        const keys = Object.keys(o).sort();
        if (keys.length > 0) {
          out += '{' + keys[0]!.length + ':' + keys[0];
          enter(o);
          frames.push({ v: o, keys, i: 0 });
          v = o[keys[0]!];
          continue;
        }
        out += '{}';
      }
    } else {
      out += scalarKey(v);
    }
    // Move to the next sibling, closing every container that is done.
    for (;;) {
      const f = frames[frames.length - 1];
      if (f === undefined) return out;
      const i = ++f.i;
      if (f.keys === null) {
        const a = f.v as unknown[];
        if (i < a.length) {
          v = a[i];
          break;
        }
        out += ']';
      } else {
        if (i < f.keys.length) {
          const k = f.keys[i]!;
          out += k.length + ':' + k;
          v = (f.v as Record<string, unknown>)[k];
          break;
        }
        out += '}';
      }
      onPath.delete(frames.pop()!.v);
    }
  }
}

/**
 * Throws TypeError (CYCLE_MESSAGE) when `value` contains a cycle, else returns false. The compiled
 * code calls it only when an enum or const of objects has already rejected a value: jsonEqual,
 * bounded by the schema's acyclic value, ends on a cyclic one (never equal), so the verdict is
 * known, and only then is the value walked (canonicalKey meets any cycle). Valid data never pays.
 */
export function refuseCycle(value: unknown): false {
  if (typeof value === 'object' && value !== null) canonicalKey(value);
  return false;
}
