import { editDistance } from '../validator/suggest.js';

// One edit distance for the project: the validator's (it has no dependencies; this layer is above it).
export { editDistance };

/**
 * The closest candidate to `word`, when it is close enough to be a likely typo: at most a third
 * of the word's length in edits (at least 1, at most 4). Ties go to the first candidate.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const max = Math.min(4, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const c of candidates) {
    if (c === word) continue;
    const d = editDistance(word, c, bestDistance - 1 < max ? bestDistance : max);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean "x"?)`, or `''`. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : ` (did you mean ${JSON.stringify(c)}?)`;
}
