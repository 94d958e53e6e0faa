/** Escapes one RFC 6901 reference token: `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string | number): string {
  const s = String(token);
  if (s.indexOf('~') === -1 && s.indexOf('/') === -1) return s;
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * escapePointerToken for a string known to be one (an object key): a char loop the optimiser
 * inlines, where two indexOf calls are not (it is on the path of every additionalProperties
 * violation).
 */
export function escapeKey(key: string): string {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 0x7e || c === 0x2f) return key.replace(/~/g, '~0').replace(/\//g, '~1');
  }
  return key;
}

/** Splits an RFC 6901 pointer into its unescaped tokens (`""` → `[]`). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new SyntaxError(`not a JSON Pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function joinPointer(base: string, ...tokens: (string | number)[]): string {
  let out = base;
  for (const t of tokens) out += '/' + escapePointerToken(t);
  return out;
}

/** How the empty pointer (the whole document or data) is shown to people, in every output. */
const ROOT_LABEL = '(root)';

/** A pointer as shown to people: the empty one is ROOT_LABEL. */
export const pointerLabel = (pointer: string): string => (pointer === '' ? ROOT_LABEL : pointer);
