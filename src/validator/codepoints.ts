/**
 * Length in Unicode code points: a surrogate pair counts once, a lone surrogate counts as one
 * (docs/contract.md §6). Not bytes, not UTF-16 units, not grapheme clusters.
 */
export function codePointLength(s: string): number {
  // One count per code point, stepping over a pair's low half (ajv's loop shape: measured the
  // fastest of four on long strings).
  const n = s.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    count++;
    const u = s.charCodeAt(i++);
    if (u >= 0xd800 && u <= 0xdbff && i < n && (s.charCodeAt(i) & 0xfc00) === 0xdc00) i++;
  }
  return count;
}

/** The first code point of a string (a whole surrogate pair), or `""`. */
export function firstCodePoint(s: string): string {
  if (s.length === 0) return '';
  const u = s.charCodeAt(0);
  if (u >= 0xd800 && u <= 0xdbff && s.length > 1) {
    const v = s.charCodeAt(1);
    if (v >= 0xdc00 && v <= 0xdfff) return s.slice(0, 2);
  }
  return s[0]!;
}
