import type { CompatPolicy } from './rules.js';

/** A compatibility level as `compat` and `serve` accept it (`--compatibility`); `none` checks nothing. */
export type CompatLevel = 'backward' | 'forward' | 'full' | 'none';

/** A level that compares two schemas: all but `none` (which is judged as `backward`, then gates nothing). */
export type ComparingLevel = Exclude<CompatLevel, 'none'>;

export const COMPAT_LEVELS: readonly CompatLevel[] = Object.freeze(['backward', 'forward', 'full', 'none']);
export const COMPAT_POLICIES: readonly CompatPolicy[] = Object.freeze(['bqschema', 'confluent']);

/** A level or policy that is not one of the names: its message is one line, naming the value and the choices. */
export class CompatNameError extends Error {
  override name = 'CompatNameError';
}

function pick<T extends string>(what: string, value: string, names: readonly T[], hint = ''): T {
  const lower = value.toLowerCase();
  const found = names.find((n) => n === lower);
  if (found !== undefined) return found;
  const shown = JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  throw new CompatNameError(`unknown ${what} ${shown} (expected ${names.join(', ')}, in any case${hint})`);
}

/**
 * `BACKWARD`, `backward`, `Full`, `NONE`…: the level in any case. Confluent's `*_TRANSITIVE`
 * levels are refused with a hint: compat compares one old schema with one new one.
 */
export function parseCompatLevel(value: string): CompatLevel {
  const transitive = /_transitive$/i.test(value)
    ? '; the transitive levels are not supported: compat compares one old schema with one new one'
    : '';
  return pick('compatibility level', value, COMPAT_LEVELS, transitive);
}

/** `bqschema` or `confluent`, in any case. */
export function parseCompatPolicy(value: string): CompatPolicy {
  return pick('compat policy', value, COMPAT_POLICIES);
}
