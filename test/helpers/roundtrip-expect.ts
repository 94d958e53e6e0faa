/*
 * What a Go, Java or C# round trip must give back, as docs/types.md states it per language:
 *
 *   sameUnderNullRule(schema, input, back, lang): undefined when `back` is right, else where and how it differs.
 *   csharpCannotRead(schema, data): why C# refuses a valid message (undefined when it must read it).
 *
 * The null rule (all three): a property the schema declares, does not require, and that is null
 * in the input may be absent from what is written back (encoding/json, Jackson with NON_NULL and
 * DataContractJsonSerializer with EmitDefaultValue = false read null as absent). Everything else
 * must be equal as JSON values (numbers by value: 1.0 is 1; key order is free). Go also reads a
 * lone surrogate as U+FFFD (a Go string is UTF-8); Mono parses some numbers to a neighbouring
 * double (one unit in the last place).
 *
 * C# (DataContractJsonSerializer on Mono) refuses, on purpose, what it would not write back as
 * it read it (csharpCannotRead): a JSON object inside a free-form value (it would skip it); in an
 * undeclared member of an open object, a name that is not an XML name (it keeps none), at any
 * depth, and an empty string (it reads {}); a fraction in either that a decimal's 28 places
 * round. What it does with these is not specified (csharpUnsupported): a key `__type` (its type
 * hint when first in an object; Urns.Read leaves an object with one as it is, so members after a
 * null may be lost there), and a subnormal number (below 2.2e-308), which Mono parses inexactly.
 */
import { hasOwn, parseSchema, type SchemaNode } from '../../src/validator/index.js';

export type Lang = 'go' | 'java' | 'csharp';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const goString = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

export function sameUnderNullRule(schema: unknown, input: unknown, back: unknown, lang: Lang): string | undefined {
  const root = parseSchema(schema).root;
  const str = (s: string): string => (lang === 'go' ? goString(s) : s);
  const walk = (n: SchemaNode | undefined, a: unknown, b: unknown, at: string): string | undefined => {
    if (typeof a === 'number' || typeof b === 'number') {
      // Mono parses some numbers to a neighbouring double (one unit in the last place).
      const near = lang === 'csharp' && typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= Math.abs(a) * 2.3e-16;
      return a === b || near ? undefined : `${at}: ${String(a)} became ${JSON.stringify(b)}`;
    }
    // Go: a decoded string has U+FFFD for a lone surrogate; raw JSON kept as it was (an open struct's Extra) has the escape.
    if (typeof a === 'string' && typeof b === 'string')
      return a === b || str(a) === b ? undefined : `${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
    if (a === null || typeof a !== 'object') return a === b ? undefined : `${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return `${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
      for (let i = 0; i < a.length; i++) {
        const d = walk(n?.items, a[i], b[i], `${at}/${i}`);
        if (d !== undefined) return d;
      }
      return undefined;
    }
    if (!isObject(b) || !isObject(a)) return `${at}: an object became ${JSON.stringify(b)}`;
    const declared = new Map(n?.properties ?? []);
    const required = new Set(n?.required ?? []);
    const backKeys = new Map(Object.keys(b).map((k) => [k, k]));
    for (const k of Object.keys(a)) {
      const kb = lang === 'go' ? str(k) : k;
      if (!hasOwn(b, kb)) {
        if (a[k] === null && declared.has(k) && !required.has(k)) continue;
        return `${at}/${k}: missing from what was written back`;
      }
      backKeys.delete(kb);
      const d = walk(declared.get(k) ?? n?.additional, a[k], b[kb], `${at}/${k}`);
      if (d !== undefined) return d;
    }
    if (backKeys.size > 0) return `${at}: written back with keys it did not have: ${[...backKeys.keys()].join(', ')}`;
    return undefined;
  };
  return walk(root, input, back, '');
}

/** Whether a JSON value is or holds an object. */
const holdsObject = (v: unknown): boolean => isObject(v) || (Array.isArray(v) && v.some(holdsObject));

/** The kinds a node admits as C#'s generator reads them (csType): undefined for a free-form node. */
function csKind(n: SchemaNode, root: boolean): 'free' | 'object' | 'array' | 'map' | 'scalar' {
  if (n.always !== undefined) return root && n.always ? 'map' : 'free';
  const listed = n.enum ?? (n.hasConst ? [n.constValue] : undefined);
  if (
    listed !== undefined &&
    listed.length > 0 &&
    listed.every((v) => typeof v === 'string') &&
    (n.types === undefined || n.types.includes('string'))
  )
    return 'scalar';
  if (root && (n.types === undefined || n.types.includes('object')))
    return (n.properties ?? []).length === 0 || n.properties!.some(([p]) => p === '') ? 'map' : 'object';
  const fromValues =
    n.types === undefined && listed !== undefined && listed.length > 0 && listed.every((v) => typeof v === 'string')
      ? ['string']
      : undefined;
  const types = n.types ?? fromValues ?? ['string', 'number', 'boolean', 'null', 'array', 'object'];
  const rest = [...new Set(types.filter((t) => t !== 'null').map((t) => (t === 'integer' && types.includes('number') ? 'number' : t)))];
  if (rest.length !== 1) return 'free';
  if (rest[0] === 'array') return 'array';
  if (rest[0] === 'object') return (n.properties ?? []).length === 0 || n.properties!.some(([p]) => p === '') ? 'map' : 'object';
  return 'scalar';
}

/** The names Mono's DataContractJsonSerializer keeps for an undeclared member (others lose their name). */
const XML_SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const emptyString = (v: unknown): boolean =>
  v === '' || (Array.isArray(v) ? v.some(emptyString) : isObject(v) && Object.values(v).some(emptyString));
const rounds = (v: unknown): boolean =>
  typeof v === 'number' ? decimalRounds(v) : Array.isArray(v) ? v.some(rounds) : isObject(v) && Object.values(v).some(rounds);

/** Whether an object anywhere in `v` has a key that is no XML name. */
function oddKeys(v: unknown): string | undefined {
  if (Array.isArray(v)) {
    for (const x of v) {
      const r = oddKeys(x);
      if (r !== undefined) return r;
    }
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (!XML_SAFE_NAME.test(k)) return k;
      const r = oddKeys(x);
      if (r !== undefined) return r;
    }
  }
  return undefined;
}

export function csharpCannotRead(schema: unknown, data: unknown): string | undefined {
  const walk = (n: SchemaNode | undefined, v: unknown, at: string, root: boolean): string | undefined => {
    if (typeof v === 'number')
      return n === undefined || csKind(n, root) === 'free'
        ? decimalRounds(v)
          ? `${at}: ${v} has more places than a decimal holds`
          : undefined
        : undefined;
    if (v === null || typeof v !== 'object') return undefined;
    const kind = n === undefined ? 'free' : csKind(n, root);
    if (kind === 'free')
      return holdsObject(v)
        ? `${at}: an object inside a free-form value`
        : rounds(v)
          ? `${at}: a number with more places than a decimal holds`
          : undefined;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const r = walk(kind === 'array' ? n!.items : undefined, v[i], `${at}/${i}`, false);
        if (r !== undefined) return r;
      }
      return undefined;
    }
    if (kind === 'map') {
      // Dictionary<string, T>: T from additionalProperties when the node has no properties and a schema there.
      const typed =
        (n!.properties ?? []).length === 0 && n!.additional !== undefined && n!.additional.always === undefined ? n!.additional : undefined;
      for (const [k, x] of Object.entries(v)) {
        const r = walk(typed, x, `${at}/${k}`, false);
        if (r !== undefined) return r;
      }
      return undefined;
    }
    const declared = new Map(n!.properties ?? []);
    const open = n!.additional?.always !== false;
    for (const [k, x] of Object.entries(v)) {
      const sub = declared.get(k);
      if (sub !== undefined) {
        const r = walk(sub, x, `${at}/${k}`, false);
        if (r !== undefined) return r;
      } else if (open) {
        // ExtensionData keeps the member, nested objects and all, but not a name that is no XML name,
        // an empty string or a fraction a decimal rounds.
        const odd = XML_SAFE_NAME.test(k) ? oddKeys(x) : k;
        if (odd !== undefined)
          return `${at}/${k}: an undeclared member named ${JSON.stringify(odd)}, which DataContractJsonSerializer cannot keep`;
        if (emptyString(x)) return `${at}/${k}: an empty string in an undeclared member`;
        if (rounds(x)) return `${at}/${k}: a number with more places than a decimal holds`;
      }
    }
    return undefined;
  };
  return walk(parseSchema(schema).root, data, '', true);
}

/** The smallest normal double: Mono's parser is inexact below it. */
const MIN_NORMAL = 2.2250738585072014e-308;

/** Whether C#'s decimal takes `v` with all its 28 places (a fraction needing 28 or more, not small enough to be 0 there): then it is refused. */
function decimalRounds(v: number): boolean {
  if (Number.isInteger(v) || Math.abs(v) < 5e-29 || Math.abs(v) >= 7.9e28) return false;
  const m = /^-?(\d+)(?:\.(\d+))?(?:e([-+]\d+))?$/.exec(String(v))!;
  return (m[2]?.length ?? 0) - Number(m[3] ?? 0) >= 28;
}

/** Why C#'s output of a valid input is not specified (docs/types.md), or undefined. */
export function csharpUnsupported(data: unknown): string | undefined {
  const subnormal = (v: unknown): boolean =>
    typeof v === 'number'
      ? v !== 0 && Math.abs(v) < MIN_NORMAL
      : Array.isArray(v)
        ? v.some(subnormal)
        : isObject(v)
          ? Object.values(v).some(subnormal)
          : false;
  if (subnormal(data)) return 'a subnormal number (Mono parses it inexactly)';
  const typeKey = (v: unknown): boolean =>
    Array.isArray(v) ? v.some(typeKey) : isObject(v) && (hasOwn(v, '__type') || Object.values(v).some(typeKey));
  return typeKey(data) ? "a key __type (the serializer's type hint)" : undefined;
}
