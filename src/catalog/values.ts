/** Values from schemas and messages as text (still to be escaped by the html builder). */

/**
 * How many values a JSON-like value holds once shared objects are counted at every place they
 * appear (a YAML alias is a shared object; JSON.stringify and the schema parser both expand them):
 * `'circular'` when an object contains itself, `limit + 1` as soon as the count passes `limit`.
 * An explicit stack with memoised shared objects, so neither depth nor sharing can make it slow.
 */
export function expandedSize(root: unknown, children: (node: object) => unknown[], limit: number): number | 'circular' {
  if (typeof root !== 'object' || root === null) return 1;
  const size = new Map<object, number>();
  const onPath = new Set<object>();
  const frames: Array<{ node: object; kids: unknown[]; i: number }> = [{ node: root, kids: children(root), i: 0 }];
  onPath.add(root);
  while (frames.length > 0) {
    const top = frames[frames.length - 1]!;
    if (top.i < top.kids.length) {
      const kid = top.kids[top.i++];
      if (typeof kid !== 'object' || kid === null || size.has(kid)) continue;
      if (onPath.has(kid)) return 'circular';
      onPath.add(kid);
      frames.push({ node: kid, kids: children(kid), i: 0 });
      continue;
    }
    let total = 1;
    for (const kid of top.kids) {
      total += typeof kid === 'object' && kid !== null ? size.get(kid)! : 1;
      if (total > limit) return limit + 1;
    }
    size.set(top.node, total);
    onPath.delete(top.node);
    frames.pop();
  }
  return size.get(root)!;
}

const ownValues = (node: object): unknown[] => Object.values(node);

/** Values larger than this are not written out: the page would be too large to read anyway. */
const MAX_SHOWN_VALUES = 50_000;

/** Why a value cannot be written out, or `undefined` when it can. */
export function unshowable(v: unknown): string | undefined {
  const n = expandedSize(v, ownValues, MAX_SHOWN_VALUES);
  if (n === 'circular') return '(cannot be shown: circular)';
  if (n > MAX_SHOWN_VALUES) return `(too large to show: more than ${MAX_SHOWN_VALUES} values)`;
  return undefined;
}

/** Numbers JSON cannot write (YAML `.inf`, docs/contract.md §13) keep their name instead of becoming `null`. */
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
      s = unshowable(v) ?? JSON.stringify(v, replacer) ?? String(v);
    } catch {
      s = '(cannot be shown: circular or nested too deeply)';
    }
  }
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** A value as indented JSON for a `<pre>`, cut at `max` characters with a note. */
export function prettyJson(v: unknown, max = 65536): string {
  const why = unshowable(v);
  if (why !== undefined) return why;
  let s: string;
  try {
    s = JSON.stringify(v, replacer, 2) ?? String(v);
  } catch {
    return '(cannot be shown: circular or nested too deeply)';
  }
  return s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters not shown)` : s;
}
