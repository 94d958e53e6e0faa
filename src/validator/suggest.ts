/**
 * Edit distance with adjacent transpositions counting as one edit (optimal string alignment), so
 * `onwer` is one edit from `owner`; stops early once it exceeds `max`.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length]!;
}

/** How many edits a misspelt keyword may be from the one it was meant to be (docs/contract.md §14). */
const KEYWORD_EDITS = 2;

/**
 * The candidate nearest to `word` in at most two edits, letters compared in any case (`minlength`
 * is `minLength`), and fewer edits than `word` has characters (so `id` suggests nothing). Ties go
 * to the first candidate.
 */
export function nearestKeyword(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const max = Math.min(KEYWORD_EDITS, w.length - 1);
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase(), bestDistance - 1);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
