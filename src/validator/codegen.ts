import { escapePointerToken } from './pointer.js';
import { SchemaError } from './errors.js';

/*
 * The typed builder for generated validator source. A `Code` is JavaScript this module vouches
 * for; everything else interpolated into `code\`…\`` is a value and is written as a literal
 * (strings through JSON.stringify, numbers exactly). So a schema's names and values can reach
 * the source only as literals, whatever characters they hold.
 */

const TOKEN: unique symbol = Symbol('Code');

export class Code {
  readonly source: string;

  /** Only this module makes Code: `code`, `ident`. */
  constructor(token: typeof TOKEN, source: string) {
    if (token !== TOKEN) throw new TypeError('Code is made only by the code builder');
    this.source = source;
  }

  get empty(): boolean {
    return this.source === '';
  }
}

export const EMPTY = new Code(TOKEN, '');

/**
 * The exact JS literal of a number: `Infinity` and `-Infinity` as themselves (JSON.stringify
 * would write `null`, and `null` would then pass), `-0` as `0` (they compare equal). Negative
 * values are parenthesised so that no neighbouring operator can fuse with the sign.
 */
export function numberLiteral(v: number): string {
  if (Number.isNaN(v)) throw new SchemaError('NaN has no literal'); // parseSchema drops NaN as malformed
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '(-Infinity)';
  const s = String(v + 0);
  return v < 0 ? `(${s})` : s;
}

/** A JS string literal. U+2028/U+2029 are escaped too, though ES2019 allows them in strings. */
export function stringLiteral(s: string): string {
  const json = JSON.stringify(s);
  return /[\u2028\u2029]/.test(json) ? json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') : json;
}

function toSource(v: unknown): string {
  if (v instanceof Code) return v.source;
  switch (typeof v) {
    case 'string':
      return stringLiteral(v);
    case 'number':
      return numberLiteral(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v === null) return 'null';
      // Objects go through the constants array, never into the source.
      throw new TypeError(`code: cannot write ${typeof v} as a literal`);
  }
}

/** Tagged template: the literal text is code, each interpolation a Code or a JSON primitive. */
export function code(strings: TemplateStringsArray, ...values: unknown[]): Code {
  let s = strings[0]!;
  for (let i = 0; i < values.length; i++) s += toSource(values[i]) + strings[i + 1]!;
  return new Code(TOKEN, s);
}

/** A generated identifier: a fixed prefix and a sequence number. */
export function ident(prefix: 'c' | 'f' | 'i' | 'k' | 'l' | 'o' | 'v' | 'x', n: number): Code {
  return new Code(TOKEN, prefix + String(n));
}

export function join(parts: readonly Code[], separator: Code = EMPTY): Code {
  return new Code(TOKEN, parts.map((p) => p.source).join(separator.source));
}

/** `valid`: the generated isValid (returns false at the first failure); `all`: validate (collects violations). */
export type Mode = 'valid' | 'all';

/** Enum hash sets, by the enum's array: built on first use, shared by isValid and validate. */
export interface KeySets {
  get(values: unknown[]): Set<string> | undefined;
  set(values: unknown[], keys: Set<string>): unknown;
}

/**
 * An instance path: known at compile time (a constant pointer, folded into one literal) or an
 * expression built at run time (under `items` and `additionalProperties`, or a function's `p`).
 */
export type Path = { readonly constant: string } | { readonly expr: Code };

export const ROOT_PATH: Path = { constant: '' };

/** The JS expression of a path. */
export function pathCode(p: Path): Code {
  return 'constant' in p ? code`${p.constant}` : p.expr;
}

/** The path of a named property below `p`. */
export function childPath(p: Path, name: string): Path {
  const token = '/' + escapePointerToken(name);
  return 'constant' in p ? { constant: p.constant + token } : { expr: code`${p.expr}+${token}` };
}

/** The path below `p` whose last token is the run-time value of `token` (already escaped). */
export function dynamicPath(p: Path, token: Code): Path {
  return 'constant' in p ? { expr: code`${p.constant + '/'}+${token}` } : { expr: code`${p.expr}+"/"+${token}` };
}

/** The `//# sourceURL` that names generated code in stack traces; the URN keeps only safe characters. */
export function sourceUrl(urn: string | undefined, suffix: string): string {
  const safe = (urn ?? '').replace(/[^A-Za-z0-9:._-]/g, '');
  return `\n//# sourceURL=bqschema/${safe === '' ? 'schema' : safe}${suffix}`;
}

/**
 * Whether JSON text says exactly what `v` is: only plain objects, arrays, strings, booleans, null
 * and finite numbers (-0 is written as 0, which every rule treats alike). Iterative.
 */
function jsonExact(v: unknown): boolean {
  const stack = [v];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return false;
    } else if (typeof x === 'object' && x !== null) {
      if (seen.has(x)) continue;
      const proto = Object.getPrototypeOf(x);
      if (Array.isArray(x) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) return false;
      seen.add(x);
      for (const k of Object.keys(x)) stack.push((x as Record<string, unknown>)[k]);
    } else if (typeof x !== 'string' && typeof x !== 'boolean' && x !== null) {
      return false;
    }
  }
  return true;
}

/**
 * A value as source text for a standalone module (`bqschema compile`): the one builder through
 * which schemas, warnings and constants (enum sets, name sets, const values) reach such a module.
 * Scalars are written as `code` writes them (NaN as `NaN`: an annotation may hold one); a Set as
 * `new Set([...])`; an array or object as `J("…")`, its JSON text as a string literal that the
 * module parses with JSON.parse (`J`): JSON.parse keeps a `__proto__` key an own property, and it
 * reads any depth, where V8's parser overflows on object literals about 1,500 levels deep. A
 * container JSON cannot say exactly (one holding ±Infinity or a Set) is written as literals
 * instead, every key computed (`{["__proto__"]:…}` defines a property; `{"__proto__":…}` would
 * set the prototype). Anything else (undefined, a function, a class instance) is a TypeError.
 */
export function valueLiteral(v: unknown): Code {
  if (typeof v === 'number' && Number.isNaN(v)) return new Code(TOKEN, 'NaN');
  if (v instanceof Set) return code`new Set(${valueLiteral([...v])})`;
  if (typeof v !== 'object' || v === null) return code`${v}`;
  const proto = Object.getPrototypeOf(v);
  if (Array.isArray(v) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) {
    throw new TypeError('valueLiteral: only JSON values and Sets of them can be written');
  }
  if (jsonExact(v)) return code`J(${JSON.stringify(v)})`;
  if (Array.isArray(v))
    return code`[${join(
      v.map((x) => valueLiteral(x)),
      code`,`,
    )}]`;
  const entries = Object.keys(v).map((k) => code`[${k}]:${valueLiteral((v as Record<string, unknown>)[k])}`);
  return code`{${join(entries, code`,`)}}`;
}
