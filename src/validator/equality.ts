/**
 * JSON equality with numbers compared by value (`1` equals `1.0`, `-0` equals `0`), booleans,
 * strings and null by identity, arrays in order and objects by key set (own keys only).
 * Iterative, so data nested 100,000 levels deep cannot overflow the stack.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const stack: unknown[] = [a, b];
  while (stack.length > 0) {
    const y = stack.pop();
    const x = stack.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    const xa = Array.isArray(x);
    if (xa !== Array.isArray(y)) return false;
    if (xa) {
      const xs = x as unknown[];
      const ys = y as unknown[];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) stack.push(xs[i], ys[i]);
    } else {
      const xo = x as Record<string, unknown>;
      const yo = y as Record<string, unknown>;
      const keys = Object.keys(xo);
      if (keys.length !== Object.keys(yo).length) return false;
      for (const k of keys) {
        if (!Object.prototype.hasOwnProperty.call(yo, k)) return false;
        stack.push(xo[k], yo[k]);
      }
    }
  }
  return true;
}
