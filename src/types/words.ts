import { uniqueName } from './names.js';

/*
 * Identifiers for the Go, Java and C# outputs, from any JSON name: the name's words, each in
 * ASCII. A letter with a diacritic is its base letter (é → e, ﬁ → fi), the Latin letters Unicode
 * does not decompose are spelled out (ß → ss, ø → o, þ → th), and any other letter or digit (a CJK
 * ideograph, a Greek letter) is its code point, readably (名 → U540D). A name with no letter or
 * digit at all (`*`, `😀`) is spelled by the code points of its symbols, and the empty name is
 * `Empty`: never a bare placeholder. Words split at anything else and at case changes
 * (`orderId`, `HTTPServer`, `order_id` are two words each).
 */

/** Latin letters with no decomposition, spelled in ASCII (`ß` → `ss`). */
export const SPELLED: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'Th',
  ı: 'i',
  ħ: 'h',
  Ħ: 'H',
  ŋ: 'ng',
  Ŋ: 'Ng',
  ĸ: 'q',
  ſ: 's',
};

const hex = (c: number): string => `U${c.toString(16).toUpperCase()}`;

/** A name's words, ASCII letters and digits only (see above); [] for a name without letters, digits or symbols. */
export function nameWords(name: string): string[] {
  // Tokens of ASCII letters and digits; a boundary (' ') between words.
  let text = '';
  let symbols = '';
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (/[A-Za-z0-9]/.test(ch)) text += ch;
    else if (c < 0x80) {
      text += ' ';
      if (ch.trim() !== '') symbols += ` ${hex(c)} `;
    } else {
      const plain = ch.normalize('NFKD').replace(/\p{M}/gu, '');
      if (/^[A-Za-z0-9]+$/.test(plain)) text += plain;
      else if (SPELLED[ch] !== undefined) text += SPELLED[ch];
      else if (/[\p{L}\p{N}]/u.test(ch))
        text += ` \u0001${hex(c)} `; // one word, whatever its case
      else {
        text += ' ';
        if (ch.trim() !== '' && !/\p{Cf}/u.test(ch)) symbols += ` ${hex(c)} `;
      }
    }
  }
  const words: string[] = [];
  for (const token of text.split(' ')) {
    if (token === '') continue;
    if (token.startsWith('\u0001')) {
      words.push(token.slice(1));
      continue;
    }
    // Case changes: a run of capitals before a capitalised word is a word (HTTPServer: HTTP, Server).
    const parts = token.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [];
    // Digits stay with the word before them in the token (v2, sha256, utf8); at its start, with the one after (2fa).
    const merged: string[] = [];
    for (const p of parts) {
      if (merged.length > 0 && (/^[0-9]/.test(p) || /^[0-9]+$/.test(merged.at(-1)!))) merged[merged.length - 1] += p;
      else merged.push(p);
    }
    words.push(...merged);
  }
  return words.length > 0 ? words : symbols.split(' ').filter((s) => s !== '');
}

/** The Go initialisms (as golint and gopls spell them). */
export const GO_INITIALISMS: ReadonlySet<string> = new Set([
  'ACL',
  'API',
  'ASCII',
  'CPU',
  'CSS',
  'DNS',
  'EOF',
  'GUID',
  'HTML',
  'HTTP',
  'HTTPS',
  'ID',
  'IP',
  'JSON',
  'LHS',
  'QPS',
  'RAM',
  'RHS',
  'RPC',
  'SLA',
  'SMTP',
  'SQL',
  'SSH',
  'TCP',
  'TLS',
  'TTL',
  'UDP',
  'UI',
  'UID',
  'UUID',
  'URI',
  'URL',
  'UTF8',
  'VM',
  'XML',
  'XMPP',
  'XSRF',
  'XSS',
]);

const capital = (w: string): string => w[0]!.toUpperCase() + w.slice(1);

/** PascalCase over the words; `initialisms`: a word that is one is all capitals (Go: `OrderID`). */
export function pascalName(name: string, initialisms?: ReadonlySet<string>): string {
  return nameWords(name)
    .map((w) => (initialisms?.has(w.toUpperCase()) ? w.toUpperCase() : capital(w)))
    .join('');
}

/** camelCase over the words (Java members): the first word in lower case (`URL` → `url`, `orderId` → `orderId`). */
export function camelName(name: string): string {
  const words = nameWords(name);
  return words.map((w, i) => (i > 0 ? capital(w) : w === w.toUpperCase() ? w.toLowerCase() : w[0]!.toLowerCase() + w.slice(1))).join('');
}

/** The longest identifier the three outputs write (C# allows 512; Java class files are named after nested types). */
const MAX_IDENT = 120;

/** FNV-1a, 32 bits, as 8 hex digits: a short stable tag of a long name. */
function fnv(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * An identifier from `id` (ASCII letters, digits, `_`): `prefix` first when it is empty or starts
 * with a digit (`Empty` alone when empty), and cut to MAX_IDENT characters, the cut part replaced
 * by a hash of the whole so that two long names still differ.
 */
export function identifier(id: string, prefix: string, empty = 'Empty'): string {
  let out = id === '' ? empty : /^[0-9]/.test(id) ? `${prefix}${id}` : id;
  if (out.length > MAX_IDENT) out = `${out.slice(0, MAX_IDENT - 9)}_${fnv(out)}`;
  return out;
}

/**
 * A name per URN for a language, unique and stable (URNs in code-unit order, `_2`, `_3`, … after
 * a taken one): the URN without `urn:` and its namespace, in words as `style` writes them;
 * `Urn` first when that is empty or starts with a digit. `unique` and `taken` replace
 * uniqueName and the set of reserved names (Java compares class names ignoring case).
 */
export function urnTypeNames(
  urns: readonly string[],
  reserved: ReadonlySet<string>,
  style: (name: string) => string,
  options: { unique?: (taken: Set<string>, base: string) => string; taken?: Set<string> } = {},
): Map<string, string> {
  const unique = options.unique ?? uniqueName;
  const taken = options.taken ?? new Set(reserved);
  const names = new Map<string, string>();
  for (const urn of [...new Set(urns)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    let parts = urn.split(':');
    if (parts.length > 2 && parts[0]!.toLowerCase() === 'urn') parts = parts.slice(2);
    names.set(urn, unique(taken, identifier(style(parts.join(':')), 'Urn', 'Urn')));
  }
  return names;
}
