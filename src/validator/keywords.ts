import { joinPointer } from './pointer.js';
import type { LintIssue, SchemaWarning } from './types.js';

/** The ten keywords the contract enforces. */
export const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  'type', 'required', 'properties', 'additionalProperties', 'items',
  'enum', 'const', 'minLength', 'maxLength', 'minimum',
]);

/** Annotations never warn (nor does any keyword starting with `x-`). */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema', '$id', 'title', 'description', 'examples', 'default', '$comment',
]);

export const TYPE_NAMES: ReadonlySet<string> = new Set([
  'string', 'number', 'integer', 'boolean', 'object', 'array', 'null',
]);

export function isSchemaObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own-property test: data and schemas are read through own properties only (CLARIFICATIONS 5). */
const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * A `minLength`/`maxLength` bound as every SDK applies it: truncated toward zero; a non-number or
 * non-finite bound is ignored (`undefined`).
 */
export function lengthBound(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  return Math.trunc(v) + 0; // + 0 folds -0 into 0
}

/**
 * A `minimum` as applied: any number but NaN, `±Infinity` included (CLARIFICATIONS 13: compared
 * literally, so `Infinity` admits no finite number); anything else is ignored.
 */
export function minimumBound(v: unknown): number | undefined {
  return typeof v === 'number' && !Number.isNaN(v) ? v + 0 : undefined;
}

/** The parsed form of one schema (or sub-schema): only the constraints that take effect. */
export interface SchemaNode {
  /** RFC 6901 pointer of this node inside the root schema. */
  pointer: string;
  /** `false` for the `false` schema; `true` for `true`, `{}` and non-schemas (no constraint). */
  always?: boolean;
  types?: string[];
  required?: string[];
  properties?: Array<[name: string, node: SchemaNode]>;
  additional?: SchemaNode;
  items?: SchemaNode;
  enum?: unknown[];
  hasConst?: boolean;
  constValue?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
}

export interface ParseResult {
  root: SchemaNode;
  warnings: SchemaWarning[];
  lint: LintIssue[];
}

export class SchemaError extends Error {
  override name = 'SchemaError';
  /** Where the problem is, when it is one keyword (strict mode's malformed keyword). */
  readonly pointer: string | undefined;
  readonly keyword: string | undefined;

  constructor(message: string, where?: { pointer: string; keyword: string }) {
    super(message);
    this.pointer = where?.pointer;
    this.keyword = where?.keyword;
  }
}

/**
 * Walks a schema once: builds its node tree and collects its warnings, unsupported and malformed
 * (schema order); `lint` is the malformed ones in LintIssue form.
 */
export function parseSchema(schema: unknown): ParseResult {
  if (typeof schema !== 'boolean' && !isSchemaObject(schema)) {
    throw new SchemaError(`a schema must be an object or a boolean, got ${describe(schema)}`);
  }
  const warnings: SchemaWarning[] = [];
  try {
    const nan = assertJson(schema);
    const root = parseNode(schema, '', { warnings, nan });
    const lint: LintIssue[] = [];
    for (const w of warnings) if (w.kind === 'malformed') lint.push({ pointer: w.pointer, keyword: w.keyword, message: w.message! });
    return { root, warnings, lint };
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compile');
    throw err;
  }
}

/** What makes a value not JSON, or undefined when it is a JSON scalar or a plain object/array. */
function notJson(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
    case 'number': // NaN and ±Infinity are numbers here: CLARIFICATIONS 13 and 8 decide their fate
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

/**
 * Throws SchemaError unless `schema` is JSON data: only strings, numbers, booleans, null, plain
 * objects and arrays, no `undefined` (array holes included) and no cycle (a YAML alias can make
 * one). Shared sub-trees are fine. Returns whether a NaN is anywhere in it.
 */
function assertJson(schema: unknown): boolean {
  const fast = { budget: FAST_WALK_BUDGET, nan: false };
  if (fastJsonWalk(schema, 0, fast)) return fast.nan;
  return carefulJsonWalk(schema);
}

/** Past these, the fast walk gives up: a cycle, a deep schema, or a DAG whose paths are many. */
const FAST_WALK_DEPTH = 1000;
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
 */
function carefulJsonWalk(schema: unknown): boolean {
  const rootProblem = notJson(schema);
  if (rootProblem !== undefined) throw new SchemaError(`the schema is not JSON: ${rootProblem} at (the root)`);
  if (typeof schema !== 'object' || schema === null) return Number.isNaN(schema);
  let nan = false;
  const values: object[] = [schema];
  const parents: number[] = [-1];
  const keys: Array<string | number> = [''];
  const pointer = (id: number, last?: string | number): string => {
    const tokens: Array<string | number> = last === undefined ? [] : [last];
    for (let x = id; x > 0; x = parents[x]!) tokens.push(keys[x]!);
    return tokens.length === 0 ? '(the root)' : joinPointer('', ...tokens.reverse());
  };
  const fail = (id: number, key: string | number, c: unknown): never => {
    throw new SchemaError(`the schema is not JSON: ${notJson(c)} at ${pointer(id, key)}`);
  };
  const onPath = new Set<object>();
  const done = new Set<object>();
  // Frame ids; `~id` leaves a frame (takes its value off the path). A container with no container
  // inside (a leaf) cannot close a cycle, so it is never put on the path nor remembered.
  const stack: number[] = [0];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id < 0) {
      const v = values[~id]!;
      onPath.delete(v);
      done.add(v);
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
  return nan;
}

/** True when a NaN is anywhere in `value` (iterative: values nested deep do not overflow). */
function containsNaN(value: unknown): boolean {
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

const NAN_MESSAGE = 'contains NaN, which is not a JSON number';

interface ParseContext {
  readonly warnings: SchemaWarning[];
  /** Whether the schema has a NaN anywhere (most have none, and are then not searched for one). */
  readonly nan: boolean;
}

function parseNode(schema: unknown, pointer: string, ctx: ParseContext): SchemaNode {
  const { warnings } = ctx;
  // Null-prototype nodes: a polluted Object.prototype (say `minimum`) must not read as a constraint.
  const node: SchemaNode = Object.assign(Object.create(null) as SchemaNode, { pointer });
  if (schema === true || schema === false) return Object.assign(node, { always: schema });
  const s = schema as Record<string, unknown>;
  // Malformed: no effect on the verdict, but reported (CLARIFICATIONS 8).
  const bad = (keyword: string, message: string): void => {
    warnings.push({ kind: 'malformed', pointer, keyword, message });
  };
  for (const key of Object.keys(s)) {
    const value = s[key];
    switch (key) {
      case 'type': {
        const names = typeof value === 'string' ? [value] : value;
        if (!Array.isArray(names) || names.length === 0) {
          bad(key, `must be a type name or a non-empty array of type names, got ${describe(value)}`);
        } else {
          const unknown = names.filter((n) => typeof n !== 'string' || !TYPE_NAMES.has(n));
          if (unknown.length > 0) bad(key, `unknown type name ${unknown.map((n) => JSON.stringify(n)).join(', ')}`);
          else node.types = [...new Set(names as string[])];
        }
        break;
      }
      case 'required':
        if (!Array.isArray(value) || value.some((n) => typeof n !== 'string')) {
          bad(key, `must be an array of strings, got ${describe(value)}`);
        } else node.required = [...new Set(value as string[])];
        break;
      case 'properties':
        if (!isSchemaObject(value)) {
          bad(key, `must be an object mapping names to schemas, got ${describe(value)}`);
        } else {
          node.properties = [];
          for (const name of Object.keys(value)) {
            const sub = value[name];
            const p = joinPointer(pointer, 'properties', name);
            if (typeof sub !== 'boolean' && !isSchemaObject(sub)) {
              bad(key, `property ${JSON.stringify(name)} must be a schema (object or boolean), got ${describe(sub)}`);
              continue;
            }
            node.properties.push([name, parseNode(sub, p, ctx)]);
          }
        }
        break;
      case 'additionalProperties':
        if (typeof value !== 'boolean' && !isSchemaObject(value)) {
          bad(key, `must be a schema (object or boolean), got ${describe(value)}`);
        } else node.additional = parseNode(value, joinPointer(pointer, key), ctx);
        break;
      case 'items':
        if (Array.isArray(value)) {
          // The tuple form is outside the subset (CLARIFICATIONS 4): warned, never enforced.
          warnings.push({ kind: 'unsupported', pointer, keyword: key });
          if (ctx.nan && containsNaN(value)) bad(key, NAN_MESSAGE);
        } else if (typeof value !== 'boolean' && !isSchemaObject(value)) {
          bad(key, `must be a schema (object or boolean), got ${describe(value)}`);
        } else node.items = parseNode(value, joinPointer(pointer, key), ctx);
        break;
      case 'enum':
        if (!Array.isArray(value)) bad(key, `must be an array, got ${describe(value)}`);
        else if (ctx.nan && containsNaN(value)) bad(key, NAN_MESSAGE);
        else node.enum = value;
        break;
      case 'const':
        if (ctx.nan && containsNaN(value)) bad(key, NAN_MESSAGE);
        else {
          node.hasConst = true;
          node.constValue = value;
        }
        break;
      case 'minLength':
      case 'maxLength':
        // A non-finite length bound is ignored (the contract), and reported (CLARIFICATIONS 8).
        if (typeof value !== 'number' || !Number.isFinite(value)) bad(key, `must be a finite number, got ${describe(value)}`);
        else node[key] = lengthBound(value);
        break;
      case 'minimum':
        if (typeof value !== 'number' || Number.isNaN(value)) bad(key, `must be a number, got ${describe(value)}`);
        else node.minimum = minimumBound(value);
        break;
      default:
        if (!ANNOTATION_KEYWORDS.has(key) && !key.startsWith('x-')) warnings.push({ kind: 'unsupported', pointer, keyword: key });
        if (ctx.nan && containsNaN(value)) bad(key, NAN_MESSAGE);
    }
  }
  if (
    node.types === undefined && node.required === undefined && node.properties === undefined &&
    node.additional === undefined && node.items === undefined && node.enum === undefined &&
    !node.hasConst && node.minLength === undefined && node.maxLength === undefined && node.minimum === undefined
  ) {
    node.always = true;
  }
  return node;
}

/** A short description of a JSON value's type, for messages. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `the integer ${v}` : `the number ${v}`;
  return `${typeof v} ${String(v)}`;
}

/** The JSON type name of a value, `integer` for integral numbers. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  // A non-finite number is named as itself (`Infinity`, `NaN`): it is not a JSON number.
  if (t === 'number') return Number.isInteger(v) ? 'integer' : Number.isFinite(v) ? 'number' : String(v);
  return t;
}

export { hasOwn };
