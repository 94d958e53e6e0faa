import { SchemaError } from './errors.js';
import { MAX_DEPTH } from './limits.js';
import { joinPointer } from './pointer.js';

/*
 * Checks on a schema as a JSON document, before its keywords are read: that it is JSON at all,
 * where a NaN is, and whether it nests deeper than MAX_DEPTH.
 */

/** What makes a value not JSON, or undefined when it is a JSON scalar or a plain object/array. */
function notJson(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
    case 'number': // NaN and ±Infinity are numbers here: docs/contract.md §13 and §8 decide their fate
    case 'boolean':
      return undefined;
    case 'object': {
      if (v === null) return undefined;
      const proto = Object.getPrototypeOf(v);
      if (Array.isArray(v) ? proto === Array.prototype : proto === Object.prototype || proto === null) return undefined;
      const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
      return `an instance of ${typeof name === 'string' && name !== '' ? name : 'a class'}`;
    }
    default:
      return typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`;
  }
}

/** What assertJson found in a schema that is JSON. */
export interface JsonShape {
  /** Whether a NaN is anywhere in it. */
  nan: boolean;
  /** Whether it nests deeper than MAX_DEPTH objects and arrays (its root at level 1). */
  deep: boolean;
}

/**
 * Throws SchemaError unless `schema` is JSON data: only strings, numbers, booleans, null, plain
 * objects and arrays, no `undefined` (array holes included) and no cycle (a YAML alias can make
 * one). Shared sub-trees are fine, and are measured as deep as the deepest place they are used.
 */
export function assertJson(schema: unknown): JsonShape {
  const fast = { budget: FAST_WALK_BUDGET, nan: false };
  if (fastJsonWalk(schema, 0, fast)) return { nan: fast.nan, deep: false };
  return carefulJsonWalk(schema);
}

/**
 * Past these, the fast walk gives up: a cycle, a schema deeper than MAX_DEPTH (its recursion is
 * that deep at most, safe in any thread), or a DAG whose paths are many.
 */
const FAST_WALK_DEPTH = MAX_DEPTH;
const FAST_WALK_BUDGET = 1_000_000;

/**
 * The common case, cheaply: recursion with no bookkeeping. True when `v` is JSON; false when the
 * walk met a problem or gave up, and the careful walk must decide (and name the pointer).
 */
function fastJsonWalk(v: unknown, depth: number, state: { budget: number; nan: boolean }): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      if (v !== v) state.nan = true;
      return true;
    case 'object': {
      if (v === null) return true;
      if (--state.budget < 0 || depth >= FAST_WALK_DEPTH || notJson(v) !== undefined) return false;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!fastJsonWalk(v[i], depth + 1, state)) return false;
      } else {
        for (const k of Object.keys(v)) if (!fastJsonWalk((v as Record<string, unknown>)[k], depth + 1, state)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * Iterative, with cycle detection and shared sub-trees walked once; throws naming the pointer.
 * Containers are kept in a table (value, parent, key), so a pointer is built only for a problem.
 * Each container's height (its levels, itself at 1) is worked out as the walk leaves it, so a
 * shared sub-tree counts as deep as it is wherever it is used.
 */
function carefulJsonWalk(schema: unknown): JsonShape {
  const rootProblem = notJson(schema);
  if (rootProblem !== undefined) throw new SchemaError(`the schema is not JSON: ${rootProblem} at (the root)`);
  if (typeof schema !== 'object' || schema === null) return { nan: Number.isNaN(schema), deep: false };
  let nan = false;
  const values: object[] = [schema];
  const parents: number[] = [-1];
  const keys: Array<string | number> = [''];
  const pointer = (id: number, last?: string | number): string => {
    const tokens: Array<string | number> = last === undefined ? [] : [last];
    for (let x = id; x > 0; x = parents[x]!) tokens.push(keys[x]!);
    // Token by token: a path may be deeper than a call takes arguments.
    return tokens.length === 0 ? '(the root)' : tokens.reverse().reduce<string>((p, t) => joinPointer(p, t), '');
  };
  const fail = (id: number, key: string | number, c: unknown): never => {
    throw new SchemaError(`the schema is not JSON: ${notJson(c)} at ${pointer(id, key)}`);
  };
  const onPath = new Set<object>();
  // Each container left, by its height. A container with no container inside (a leaf) cannot
  // close a cycle, so it is never put on the path nor remembered: its height is 1.
  const done = new Map<object, number>();
  const height = (c: unknown): number => (typeof c === 'object' && c !== null ? (done.get(c) ?? 1) : 0);
  // Frame ids; `~id` leaves a frame (takes its value off the path).
  const stack: number[] = [0];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id < 0) {
      const v = values[~id]!;
      onPath.delete(v);
      let h = 0;
      for (const c of Array.isArray(v) ? v : Object.values(v)) h = Math.max(h, height(c));
      done.set(v, h + 1);
      continue;
    }
    const v = values[id]!;
    if (done.has(v)) continue;
    if (onPath.has(v)) throw new SchemaError(`the schema is not JSON: it refers to itself at ${pointer(id)}`);
    const mark = stack.length;
    stack.push(~id);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c: unknown = v[i];
        if (typeof c === 'object') {
          if (c === null) continue;
          if (notJson(c) !== undefined) fail(id, i, c);
          stack.push(values.push(c) - 1);
          parents.push(id);
          keys.push(i);
        } else if (typeof c === 'number') {
          if (c !== c) nan = true;
        } else if (typeof c !== 'string' && typeof c !== 'boolean') fail(id, i, c);
      }
    } else {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const c = o[k];
        if (typeof c === 'object') {
          if (c === null) continue;
          if (notJson(c) !== undefined) fail(id, k, c);
          stack.push(values.push(c) - 1);
          parents.push(id);
          keys.push(k);
        } else if (typeof c === 'number') {
          if (c !== c) nan = true;
        } else if (typeof c !== 'string' && typeof c !== 'boolean') fail(id, k, c);
      }
    }
    if (stack.length === mark + 1) stack.pop();
    else onPath.add(v);
  }
  return { nan, deep: height(schema) > MAX_DEPTH };
}

/** True when a NaN is anywhere in `value` (iterative: values nested deep do not overflow). */
export function containsNaN(value: unknown): boolean {
  const stack: unknown[] = [value];
  const seen = new Set<object>(); // shared sub-trees (YAML aliases) are searched once
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return true;
    } else if (typeof v === 'object' && v !== null && !seen.has(v)) {
      seen.add(v);
      if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push(v[i]);
      else for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}
