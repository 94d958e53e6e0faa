/** Names the generated module declares or refers to; a URN's type never takes one of them. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['BqMessages', 'BqUrn', 'Function']);

/**
 * The type name a URN suggests: the URN without `urn:` and its namespace, in PascalCase over its
 * ASCII letters and digits (`urn:babel:orders:created.v2` → `OrdersCreatedV2`). Anything else is
 * dropped, so a hostile URN still gives an identifier; `Urn` is prepended when the result would be
 * empty or start with a digit.
 */
export function baseTypeName(urn: string): string {
  let parts = urn.split(':');
  if (parts.length > 2 && parts[0]!.toLowerCase() === 'urn') parts = parts.slice(2);
  const words = parts.join(':').match(/[A-Za-z0-9]+/g) ?? [];
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return name === '' || /^[0-9]/.test(name) ? 'Urn' + name : name;
}

/**
 * A type name per URN, unique and stable: URNs are taken in code-unit order and a name already
 * taken gets the first free suffix `_2`, `_3`, … (a base name never contains `_`, so a suffixed
 * name cannot meet another URN's base name).
 */
export function typeNames(urns: readonly string[], reserved: ReadonlySet<string> = RESERVED_NAMES): Map<string, string> {
  const taken = new Set<string>(reserved);
  const names = new Map<string, string>();
  for (const urn of [...new Set(urns)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    names.set(urn, uniqueName(taken, baseTypeName(urn)));
  }
  return names;
}

/** Per set of taken names, per base: the suffix its next search starts at (every one below is taken). */
const nextSuffix = new WeakMap<Set<string>, Map<string, number>>();

/**
 * `base`, or the first free `base_2`, `base_3`, …; the name is taken. A set only ever grows, so
 * the search for a base goes on where its last one ended: n names from one base cost n, not n².
 */
export function uniqueName(taken: Set<string>, base: string): string {
  let name = base;
  if (taken.has(name)) {
    let suffixes = nextSuffix.get(taken);
    if (suffixes === undefined) nextSuffix.set(taken, (suffixes = new Map()));
    let n = suffixes.get(base) ?? 2;
    while (taken.has(`${base}_${n}`)) n++;
    name = `${base}_${n}`;
    suffixes.set(base, n + 1);
  }
  taken.add(name);
  return name;
}
