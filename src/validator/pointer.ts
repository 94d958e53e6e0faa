/** Escapes one RFC 6901 reference token: `~` → `~0`, `/` → `~1`. */
export function escapePointerToken(token: string | number): string {
  const s = String(token);
  if (s.indexOf('~') === -1 && s.indexOf('/') === -1) return s;
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
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
