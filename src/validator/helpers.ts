import { codePointLength } from './codepoints.js';
import { canonicalKey, jsonEqual, refuseCycle } from './equality.js';
import { hasOwn, jsonType } from './schema-node.js';
import { escapeKey } from './pointer.js';

/**
 * What generated validator code calls, by the one-letter names it uses (`const {h,G,…}=H`): the
 * same object for code compile() generates at run time and for the standalone modules
 * `bqschema compile` writes (which import it from `bqschema/standalone`).
 */
export interface Helpers {
  readonly h: typeof hasOwn;
  readonly G: typeof Object.getPrototypeOf;
  readonly O: object;
  readonly E: typeof jsonEqual;
  readonly K: typeof canonicalKey;
  readonly Z: typeof refuseCycle;
  readonly L: typeof codePointLength;
  readonly P: typeof escapeKey;
  readonly t: typeof jsonType;
}

export const helpers: Helpers = Object.freeze({
  h: hasOwn,
  G: Object.getPrototypeOf,
  O: Object.prototype,
  E: jsonEqual,
  K: canonicalKey,
  Z: refuseCycle,
  L: codePointLength,
  P: escapeKey,
  t: jsonType,
});
