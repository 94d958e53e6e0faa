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

/** A `minimum` as applied: any finite number; anything else is ignored. */
export function minimumBound(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
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
}

/** Walks a schema once: builds its node tree, collects unsupported-keyword warnings and lint. */
export function parseSchema(schema: unknown): ParseResult {
  if (typeof schema !== 'boolean' && !isSchemaObject(schema)) {
    throw new SchemaError(`a schema must be an object or a boolean, got ${describe(schema)}`);
  }
  const warnings: SchemaWarning[] = [];
  const lint: LintIssue[] = [];
  try {
    const root = parseNode(schema, '', warnings, lint);
    return { root, warnings, lint };
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compile');
    throw err;
  }
}

function parseNode(schema: unknown, pointer: string, warnings: SchemaWarning[], lint: LintIssue[]): SchemaNode {
  // Null-prototype nodes: a polluted Object.prototype (say `minimum`) must not read as a constraint.
  const node: SchemaNode = Object.assign(Object.create(null) as SchemaNode, { pointer });
  if (schema === true || schema === false) return Object.assign(node, { always: schema });
  const s = schema as Record<string, unknown>;
  const bad = (keyword: string, message: string): void => {
    lint.push({ pointer, keyword, message });
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
            node.properties.push([name, parseNode(sub, p, warnings, lint)]);
          }
        }
        break;
      case 'additionalProperties':
        if (typeof value !== 'boolean' && !isSchemaObject(value)) {
          bad(key, `must be a schema (object or boolean), got ${describe(value)}`);
        } else node.additional = parseNode(value, joinPointer(pointer, key), warnings, lint);
        break;
      case 'items':
        if (Array.isArray(value)) {
          // The tuple form is outside the subset (CLARIFICATIONS 4): warned, never enforced.
          warnings.push({ pointer, keyword: key });
        } else if (typeof value !== 'boolean' && !isSchemaObject(value)) {
          bad(key, `must be a schema (object or boolean), got ${describe(value)}`);
        } else node.items = parseNode(value, joinPointer(pointer, key), warnings, lint);
        break;
      case 'enum':
        if (!Array.isArray(value)) bad(key, `must be an array, got ${describe(value)}`);
        else node.enum = value;
        break;
      case 'const':
        node.hasConst = true;
        node.constValue = value;
        break;
      case 'minLength':
      case 'maxLength':
        if (typeof value !== 'number') bad(key, `must be a number, got ${describe(value)}`);
        else {
          const bound = lengthBound(value);
          if (bound !== undefined) node[key] = bound;
        }
        break;
      case 'minimum':
        if (typeof value !== 'number') bad(key, `must be a number, got ${describe(value)}`);
        else {
          const bound = minimumBound(value);
          if (bound !== undefined) node.minimum = bound;
        }
        break;
      default:
        if (!ANNOTATION_KEYWORDS.has(key) && !key.startsWith('x-')) warnings.push({ pointer, keyword: key });
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
  if (t === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return t;
}

export { hasOwn };
