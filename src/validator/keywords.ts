import { SchemaError } from './errors.js';
import { assertJson, containsNaN } from './json-value.js';
import { DEEP_SCHEMA_MESSAGE } from './limits.js';
import { joinPointer } from './pointer.js';
import { GDPR_MARKER, markSensitive } from './sensitive.js';
import { nearestKeyword } from './suggest.js';
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

/**
 * Every keyword JSON Schema draft-07, 2019-09 or 2020-12 defines (core, applicator, validation,
 * meta-data, format, content vocabularies). A keyword outside these, the annotations and `x-…` is
 * unknown (docs/contract.md §14): most often a typo.
 */
export const DRAFT_KEYWORDS: ReadonlySet<string> = new Set([
  ...SUPPORTED_KEYWORDS, ...ANNOTATION_KEYWORDS,
  // draft-07
  '$ref', 'definitions', 'multipleOf', 'maximum', 'exclusiveMaximum', 'exclusiveMinimum', 'pattern',
  'additionalItems', 'maxItems', 'minItems', 'uniqueItems', 'contains', 'maxProperties', 'minProperties',
  'patternProperties', 'dependencies', 'propertyNames', 'format', 'contentMediaType', 'contentEncoding',
  'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not', 'readOnly', 'writeOnly',
  // 2019-09
  '$anchor', '$defs', '$recursiveRef', '$recursiveAnchor', '$vocabulary', 'dependentSchemas', 'dependentRequired',
  'unevaluatedItems', 'unevaluatedProperties', 'maxContains', 'minContains', 'deprecated', 'contentSchema',
  // 2020-12
  '$dynamicRef', '$dynamicAnchor', 'prefixItems',
]);

export const TYPE_NAMES: ReadonlySet<string> = new Set([
  'string', 'number', 'integer', 'boolean', 'object', 'array', 'null',
]);

export function isSchemaObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own-property test: data and schemas are read through own properties only (docs/contract.md §5). */
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
 * A `minimum` as applied: any number but NaN, `±Infinity` included (docs/contract.md §13: compared
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
  /**
   * Personal data (src/validator/sensitive.ts, docs/contract.md §9): a number failing `minimum`
   * here is said by its kind, not quoted, because `gdpr --mask` would hide it.
   */
  hideNumber?: boolean;
  /** The names of an object's undeclared properties here are personal data: `***` in instance paths. */
  hideKeys?: boolean;
}

export interface ParseResult {
  root: SchemaNode;
  warnings: SchemaWarning[];
  lint: LintIssue[];
}


/**
 * Walks a schema once: builds its node tree and collects its warnings, unsupported, unknown and
 * malformed (schema order); `lint` is the malformed ones in LintIssue form.
 */
export function parseSchema(schema: unknown): ParseResult {
  if (typeof schema !== 'boolean' && !isSchemaObject(schema)) {
    throw new SchemaError(`a schema must be an object or a boolean, got ${describe(schema)}`);
  }
  const warnings: SchemaWarning[] = [];
  try {
    const { nan, deep } = assertJson(schema);
    // Counted before anything recursive reads the schema: the same refusal in every thread.
    if (deep) throw new SchemaError(DEEP_SCHEMA_MESSAGE);
    const ctx: ParseContext = { warnings, nan, marks: 0 };
    const root = parseNode(schema, '', ctx);
    // Only a schema with a marker, or a keyword that could hold one out of the walk, is read for them.
    if (ctx.marks === MARKER_MET) markSensitive(root, schema, true);
    else if (ctx.marks === MAYBE_MARKED) markSensitive(root, schema);
    const lint: LintIssue[] = [];
    for (const w of warnings) if (w.kind === 'malformed') lint.push({ pointer: w.pointer, keyword: w.keyword, message: w.message! });
    return { root, warnings, lint };
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compile');
    throw err;
  }
}

const NAN_MESSAGE = 'contains NaN, which is not a JSON number';

interface ParseContext {
  readonly warnings: SchemaWarning[];
  /** Whether the schema has a NaN anywhere (most have none, and are then not searched for one). */
  readonly nan: boolean;
  /** Whether a GDPR marker (MARKER_MET), or an unsupported keyword that may hold one (MAYBE_MARKED), was met. */
  marks: number;
}

const MAYBE_MARKED = 1;
const MARKER_MET = 2;

function parseNode(schema: unknown, pointer: string, ctx: ParseContext): SchemaNode {
  const { warnings } = ctx;
  // Null-prototype nodes: a polluted Object.prototype (say `minimum`) must not read as a constraint.
  const node: SchemaNode = Object.assign(Object.create(null) as SchemaNode, { pointer });
  if (schema === true || schema === false) return Object.assign(node, { always: schema });
  const s = schema as Record<string, unknown>;
  // Malformed: no effect on the verdict, but reported (docs/contract.md §8).
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
          // The tuple form is outside the subset (docs/contract.md §4): warned, never enforced.
          warnings.push({ kind: 'unsupported', pointer, keyword: key });
          ctx.marks ||= MAYBE_MARKED;
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
        // A non-finite length bound is ignored (the contract), and reported (docs/contract.md §8).
        if (typeof value !== 'number' || !Number.isFinite(value)) bad(key, `must be a finite number, got ${describe(value)}`);
        else node[key] = lengthBound(value);
        break;
      case 'minimum':
        if (typeof value !== 'number' || Number.isNaN(value)) bad(key, `must be a number, got ${describe(value)}`);
        else node.minimum = minimumBound(value);
        break;
      default:
        if (ANNOTATION_KEYWORDS.has(key) || key.startsWith('x-')) {
          // silent: annotations and extensions
          if (key === GDPR_MARKER && value !== false) ctx.marks = MARKER_MET;
        } else if (DRAFT_KEYWORDS.has(key)) {
          warnings.push({ kind: 'unsupported', pointer, keyword: key });
          ctx.marks ||= MAYBE_MARKED;
        } else {
          // Unknown (docs/contract.md §14): no verdict changes; the nearest keyword is named. Every
          // draft keyword is a candidate, supported ones first on a tie: `minItem` was meant as
          // `minItems` (unsupported, so it will warn as such), not the supported `minimum`.
          const suggestion = nearestKeyword(key, DRAFT_KEYWORDS);
          warnings.push({ kind: 'unknown', pointer, keyword: key, ...(suggestion === undefined ? {} : { suggestion }) });
        }
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

export { hasOwn, SchemaError };
