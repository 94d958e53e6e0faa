import { SPELLED } from './words.js';

/*
 * Readable identifiers from JSON names and URNs, for the Python and PHP outputs (both read Unicode
 * identifiers: Python's XID classes, PHP any byte from 0x80). Latin letters lose their accents
 * (`café` → `cafe`, `Straße` → `Strasse`), other letters stay as they are (`名前`), and a name with
 * no letter or digit at all is spelled by its code points (`😀` → `U1F600`), the empty name
 * `Empty`: never a bare placeholder. Names are NFKC-normalised, as Python's parser normalises
 * identifiers, so two names that differ only there are one identifier and get told apart.
 */

// The Latin letters with no decomposition that these outputs spell in ASCII (words.ts's spellings);
// the rest of that table (ħ, ŋ, ĸ, ſ) are letters Python and PHP identifiers keep as they are.
const SPELLED_HERE = /[ßẞæÆœŒøØłŁđĐðÐþÞı]/g;

/** A JSON name's words: letters and digits that may continue an identifier, Latin letters without their accents. */
function identWords(name: string): string[] {
  const latin = name
    .normalize('NFKD')
    // An accent on an ASCII letter goes (é → e); marks on other letters stay (they may be a script's vowels).
    .replace(/([A-Za-z])\p{M}+/gu, '$1')
    .replace(SPELLED_HERE, (c) => SPELLED[c]!)
    .normalize('NFKC');
  const words = latin.match(/[\p{XID_Continue}]+/gu) ?? [];
  // `_` continues an identifier but separates words here; a word cannot start with a mark.
  return words
    .flatMap((w) => w.split('_'))
    .map((w) => w.replace(/^[^\p{XID_Start}\p{Nd}]+/u, ''))
    .filter((w) => w !== '');
}

/** The code points of a name without letters or digits (`*\/` → `U2A_2F`), `Empty` for the empty name. */
function spelled(name: string): string {
  if (name === '') return 'Empty';
  return 'U' + [...name].map((c) => c.codePointAt(0)!.toString(16).toUpperCase()).join('_');
}

const upperFirst = (w: string): string => {
  const first = String.fromCodePoint(w.codePointAt(0)!);
  // Only a one-character upper case keeps the word's length (`ß` → `SS` is left as it is).
  const upper = first.toUpperCase();
  return ([...upper].length === 1 ? upper : first) + w.slice(first.length);
};
const lowerFirst = (w: string): string => {
  const first = String.fromCodePoint(w.codePointAt(0)!);
  const lower = first.toLowerCase();
  return ([...lower].length === 1 ? lower : first) + w.slice(first.length);
};

/** `order_id` → `OrderId`, `café` → `Cafe`, `😀` → `U1F600`, `` → `Empty`; digits first are kept (the caller prefixes). */
export function pascalName(name: string): string {
  const words = identWords(name);
  return words.length === 0 ? spelled(name) : words.map(upperFirst).join('');
}

/** `order_id` → `orderId`, `Café` → `cafe`, `9lives` → `_9lives` (an identifier cannot start with a digit). */
export function camelName(name: string): string {
  const words = identWords(name);
  const id = words.length === 0 ? lowerFirst(spelled(name)) : words.map((w, i) => (i === 0 ? lowerFirst(w) : upperFirst(w))).join('');
  return /^\p{Nd}/u.test(id) ? `_${id}` : id;
}

/**
 * A type name per URN (the URN without `urn:` and its namespace, as `pascalName` reads it: `Urn`
 * first when that starts with a digit), unique among `reserved` and each other: URNs in code-unit
 * order, a name already taken `_2`, `_3`, …. `fold` says which names are one (PHP: class names are
 * case-insensitive).
 */
export function readableTypeNames(
  urns: readonly string[],
  reserved: ReadonlySet<string>,
  fold: (name: string) => string = (n) => n,
): Map<string, string> {
  const taken = new FoldedNames(fold, reserved);
  const names = new Map<string, string>();
  for (const urn of [...new Set(urns)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    let parts = urn.split(':');
    if (parts.length > 2 && parts[0]!.toLowerCase() === 'urn') parts = parts.slice(2);
    const rest = parts.join(':');
    const base = identWords(rest).length === 0 && rest !== '' ? `Urn${spelled(rest)}` : pascalName(rest);
    names.set(urn, taken.claim(/^\p{Nd}/u.test(base) || base === 'Empty' ? `Urn${base === 'Empty' ? '' : base}` : base));
  }
  return names;
}

/**
 * Names taken in one scope, compared after `fold`: `claim(base)` gives `base`, or the first free
 * `base_2`, `base_3`, …, and takes it. The search for a base goes on where its last one ended, so n
 * names from one base cost n, not n².
 */
export class FoldedNames {
  private readonly folded = new Set<string>();
  private readonly next = new Map<string, number>();

  constructor(
    private readonly fold: (name: string) => string,
    taken: Iterable<string> = [],
  ) {
    for (const t of taken) this.folded.add(fold(t));
  }

  has(name: string): boolean {
    return this.folded.has(this.fold(name));
  }

  claim(base: string): string {
    let name = base;
    if (this.folded.has(this.fold(name))) {
      const key = this.fold(base);
      let n = this.next.get(key) ?? 2;
      while (this.folded.has(this.fold(`${base}_${n}`))) n++;
      name = `${base}_${n}`;
      this.next.set(key, n + 1);
    }
    this.folded.add(this.fold(name));
    return name;
  }
}
