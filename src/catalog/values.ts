/** Values from schemas and messages as text (still to be escaped by the html builder). */

/** Numbers JSON cannot write (YAML `.inf`, CLARIFICATIONS 13) keep their name instead of becoming `null`. */
function replacer(_key: string, v: unknown): unknown {
  return typeof v === 'number' && !Number.isFinite(v) ? `<${String(v)}>` : v;
}

/** One value on one line, cut at `max` characters. Circular or too deep values say so instead of throwing. */
export function formatValue(v: unknown, max = 120): string {
  let s: string;
  if (typeof v === 'number') s = Object.is(v, -0) ? '-0' : String(v);
  else if (v === undefined) s = '(none)';
  else {
    try {
      s = JSON.stringify(v, replacer) ?? String(v);
    } catch {
      s = '(cannot be shown: circular or nested too deeply)';
    }
  }
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** A value as indented JSON for a `<pre>`, cut at `max` characters with a note. */
export function prettyJson(v: unknown, max = 65536): string {
  let s: string;
  try {
    s = JSON.stringify(v, replacer, 2) ?? String(v);
  } catch {
    return '(cannot be shown: circular or nested too deeply)';
  }
  return s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters not shown)` : s;
}
