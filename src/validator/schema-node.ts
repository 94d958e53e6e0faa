/*
 * The parsed form of a schema and the small readings of JSON values every keyword shares. The
 * keyword files (keywords/*.ts) build and read SchemaNodes; parseSchema (keywords.ts) walks a
 * schema into them.
 */

/**
 * The parsed form of one schema (or sub-schema): only the constraints that take effect. Each
 * keyword's file declares the fields it sets (`declare module '../schema-node.js'`), beside the
 * parse that sets them.
 */
export interface SchemaNode {
  /** RFC 6901 pointer of this node inside the root schema. */
  pointer: string;
  /** `false` for the `false` schema; `true` for `true`, `{}` and non-schemas (no constraint). */
  always?: boolean;
  /**
   * Personal data (src/validator/sensitive.ts, docs/contract.md §9): a number failing `minimum`
   * here is said by its kind, not quoted, because `gdpr --mask` would hide it.
   */
  hideNumber?: boolean;
  /** The names of an object's undeclared properties here are personal data: `***` in instance paths. */
  hideKeys?: boolean;
}

export const TYPE_NAMES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

export function isSchemaObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own-property test: data and schemas are read through own properties only (docs/contract.md §5). */
export const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

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

export function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

/**
 * How a violation names a number it must not quote (personal data: docs/contract.md §9): a
 * negative integer, an integer, a negative number, a number. The generated code writes the same
 * choice (compile.ts's `N`).
 */
export const NUMBER_KINDS = ['a negative integer', 'an integer', 'a negative number', 'a number'] as const;

export function numberKind(d: number): string {
  return Number.isInteger(d) ? (d < 0 ? NUMBER_KINDS[0] : NUMBER_KINDS[1]) : d < 0 ? NUMBER_KINDS[2] : NUMBER_KINDS[3];
}

/** The instance path token of a property whose name is personal data (docs/contract.md §9). */
export const HIDDEN_KEY = '***';

/** Values as a violation message lists them: JSON, each cut to 60 characters, the whole to about 200. */
export function preview(values: unknown[]): string {
  const parts: string[] = [];
  let len = 0;
  for (const v of values) {
    let s: string;
    try {
      s = typeof v === 'number' ? String(v + 0) : (JSON.stringify(v) ?? String(v));
    } catch {
      s = '…';
    }
    if (s.length > 60) s = s.slice(0, 57) + '…';
    len += s.length;
    if (len > 200) {
      parts.push('…');
      break;
    }
    parts.push(s);
  }
  return parts.join(', ');
}

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
