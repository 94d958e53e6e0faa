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
 * lone surrogate as U+FFFD (a Go string is UTF-8).
 *
 * C# (DataContractJsonSerializer) refuses, on purpose, a JSON object inside a free-form value (it
 * would skip it), and cannot write back an undeclared member of an open object whose name is not
 * an XML name (the reader keeps the member but loses its name: Mono throws when writing it); and
 * a key `__type` first in an object is its type hint.
 */
import { hasOwn, parseSchema, type SchemaNode } from '../../src/validator/index.js';

export type Lang = 'go' | 'java' | 'csharp';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const goString = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

export function sameUnderNullRule(schema: unknown, input: unknown, back: unknown, lang: Lang): string | undefined {
  const root = parseSchema(schema).root;
  const str = (s: string): string => (lang === 'go' ? goString(s) : s);
  const walk = (n: SchemaNode | undefined, a: unknown, b: unknown, at: string): string | undefined => {
    if (typeof a === 'number' || typeof b === 'number') return a === b || (a === 0 && b === 0) ? undefined : `${at}: ${String(a)} became ${JSON.stringify(b)}`;
    if (typeof a === 'string' && typeof b === 'string') return str(a) === b ? undefined : `${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
    if (a === null || typeof a !== 'object') return a === b ? undefined : `${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return `${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`;
      for (let i = 0; i < a.length; i++) {
        const d = walk(n?.items, a[i], b[i], `${at}/${i}`);
        if (d !== undefined) return d;
      }
      return undefined;
    }
    if (!isObject(b)) return `${at}: an object became ${JSON.stringify(b)}`;
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
  if (listed !== undefined && listed.length > 0 && listed.every((v) => typeof v === 'string') && (n.types === undefined || n.types.includes('string'))) return 'scalar';
  if (root && (n.types === undefined || n.types.includes('object'))) return (n.properties ?? []).length === 0 || n.properties!.some(([p]) => p === '') ? 'map' : 'object';
  const fromValues = n.types === undefined && listed !== undefined && listed.length > 0 && listed.every((v) => typeof v === 'string') ? ['string'] : undefined;
  const types = n.types ?? fromValues ?? ['string', 'number', 'boolean', 'null', 'array', 'object'];
  const rest = [...new Set(types.filter((t) => t !== 'null').map((t) => (t === 'integer' && types.includes('number') ? 'number' : t)))];
  if (rest.length !== 1) return 'free';
  if (rest[0] === 'array') return 'array';
  if (rest[0] === 'object') return (n.properties ?? []).length === 0 || n.properties!.some(([p]) => p === '') ? 'map' : 'object';
  return 'scalar';
}

/** The names Mono's DataContractJsonSerializer keeps for an undeclared member (others lose their name). */
const XML_SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Whether an object anywhere in `v` has a key that is no XML name, or `__type` first. */
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
    if (v === null || typeof v !== 'object') return undefined;
    if (isObject(v) && Object.keys(v)[0] === '__type') return `${at}: __type first in an object is DataContractJsonSerializer's type hint`;
    const kind = n === undefined ? 'free' : csKind(n, root);
    if (kind === 'free') return holdsObject(v) ? `${at}: an object inside a free-form value` : undefined;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const r = walk(kind === 'array' ? n!.items : undefined, v[i], `${at}/${i}`, false);
        if (r !== undefined) return r;
      }
      return undefined;
    }
    if (kind === 'map') {
      // Dictionary<string, T>: T from additionalProperties when the node has no properties and a schema there.
      const typed = (n!.properties ?? []).length === 0 && n!.additional !== undefined && n!.additional.always === undefined ? n!.additional : undefined;
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
        // ExtensionData keeps the member, nested objects and all, but not a name that is no XML name.
        const odd = XML_SAFE_NAME.test(k) ? oddKeys(x) : k;
        if (odd !== undefined) return `${at}/${k}: an undeclared member named ${JSON.stringify(odd)}, which DataContractJsonSerializer cannot write back`;
        if (isObject(x) && Object.keys(x)[0] === '__type') return `${at}/${k}: __type first in an object`;
      }
    }
    return undefined;
  };
  return walk(parseSchema(schema).root, data, '', true);
}

