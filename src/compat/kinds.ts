/*
 * The kinds of JSON value a schema's keywords tell apart. `number` splits into integers and
 * non-integers because `type: "integer"` admits exactly the first. A set of kinds is a bit mask.
 */

export const NULL = 1;
export const BOOLEAN = 2;
export const STRING = 4;
export const INTEGER = 8;
export const FRACTION = 16;
export const OBJECT = 32;
export const ARRAY = 64;
export const ALL_KINDS = 127;
export const NUMBERS = INTEGER | FRACTION;

const TYPE_KINDS: Readonly<Record<string, number>> = {
  null: NULL,
  boolean: BOOLEAN,
  string: STRING,
  integer: INTEGER,
  number: NUMBERS,
  object: OBJECT,
  array: ARRAY,
};

const KIND_NAMES: ReadonlyArray<[number, string]> = [
  [NULL, 'null'],
  [BOOLEAN, 'booleans'],
  [STRING, 'strings'],
  [INTEGER, 'integers'],
  [FRACTION, 'non-integer numbers'],
  [OBJECT, 'objects'],
  [ARRAY, 'arrays'],
];

/** The kinds a parsed `type` admits; an absent `type` admits every kind. */
export function typeKinds(types: readonly string[] | undefined): number {
  if (types === undefined) return ALL_KINDS;
  let mask = 0;
  for (const t of types) mask |= TYPE_KINDS[t] ?? 0;
  return mask;
}

/** The kind of one value; 0 for something no JSON value equals (e.g. `undefined`). */
export function kindOf(v: unknown): number {
  if (v === null) return NULL;
  switch (typeof v) {
    case 'boolean':
      return BOOLEAN;
    case 'string':
      return STRING;
    case 'number':
      return Number.isInteger(v) ? INTEGER : FRACTION;
    case 'object':
      return Array.isArray(v) ? ARRAY : OBJECT;
    default:
      return 0;
  }
}

export function kindNames(mask: number): string {
  return KIND_NAMES.filter(([bit]) => (mask & bit) !== 0)
    .map(([, name]) => name)
    .join(', ');
}
