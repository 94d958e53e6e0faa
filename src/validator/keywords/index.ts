import { additionalProperties } from './additionalProperties.js';
import { constKeyword } from './const.js';
import { enumKeyword } from './enum.js';
import { items } from './items.js';
import type { Block, Check, Keyword } from './keyword.js';
import { maxLength } from './maxLength.js';
import { minimum } from './minimum.js';
import { minLength } from './minLength.js';
import { properties } from './properties.js';
import { required } from './required.js';
import { type } from './type.js';

/**
 * The keywords the contract enforces, one row each (docs/ARCHITECTURE.md, "Adding a keyword").
 * parseSchema reads a schema by this table; the generated code and the interpreter run the
 * checks of each instance type in its order; the catalog says the constraints in it.
 */
export const KEYWORDS: readonly Keyword[] = [
  type,
  required,
  properties,
  additionalProperties,
  items,
  enumKeyword,
  constKeyword,
  minLength,
  maxLength,
  minimum,
];

/** The keywords by name (own names only: a schema's `__proto__` or `toString` is no keyword). */
export const KEYWORD_BY_NAME: ReadonlyMap<string, Keyword> = new Map(KEYWORDS.map((k) => [k.name, k]));

/** The instance types whose checks run by the data's own type, in the order they run; then `value`'s. */
export const TYPE_BLOCKS = ['string', 'number', 'object', 'array'] as const;

/** Each block's checks in table order, a check two keywords share listed once. */
export const CHECKS: Readonly<Record<Block, readonly Check[]>> = (() => {
  const out: Record<Block, Check[]> = { string: [], number: [], object: [], array: [], value: [] };
  for (const k of KEYWORDS) if (k.check !== undefined && !out[k.check.block].includes(k.check)) out[k.check.block].push(k.check);
  return out;
})();

export type { Check, Gen, KeySets, Preview, Walk } from './keyword.js';
