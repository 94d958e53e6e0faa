/** The key pattern AsyncAPI 3.0.0 gives component maps (`^[\w\d\.\-_]+$`, ASCII `\w`). */
export const VALID_KEY = /^[A-Za-z0-9._-]+$/;
const INVALID_KEY_CHAR = /[^A-Za-z0-9._-]/gu;

export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Names of Object.prototype members. As map keys they break AsyncAPI tooling (@asyncapi/parser's
 * ref resolver calls `target.hasOwnProperty`; `__proto__` garbles the whole document), so they
 * count as taken. A fixed list, not read from the runtime, so every Node version agrees.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
]);

/** A map key made of any string: each code point the pattern does not allow becomes `_`. */
export const sanitizeKey = (s: string): string => s.replace(INVALID_KEY_CHAR, '_') || '_';

/**
 * One distinct key per request, from its base: the first request (in base, then id, order) gets
 * the base, the others `_2`, `_3`, … A base already taken (or reserved) is never given. The order
 * depends only on the requests, so the same set always gets the same keys.
 */
export function allocateKeys(requests: ReadonlyArray<{ id: string; base: string }>, taken: Set<string>): Map<string, string> {
  const sorted = [...requests].sort((a, b) => byCodeUnits(a.base, b.base) || byCodeUnits(a.id, b.id));
  const keys = new Map<string, string>();
  for (const { id, base } of sorted) {
    let key = base;
    for (let n = 2; taken.has(key) || RESERVED_KEYS.has(key); n++) key = `${base}_${n}`;
    keys.set(id, key);
    taken.add(key);
  }
  return keys;
}
