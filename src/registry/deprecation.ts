import { hasOwn, isSchemaObject } from '../validator/index.js';
import { didYouMean } from './suggest.js';

/**
 * A URN's deprecation, as the manifest's `deprecated` object says it: since when, until when it
 * stays registered (its sunset: `compat` lets the URN be removed on that day or later), what
 * replaces it and why. Every field is optional; dates are calendar days, `YYYY-MM-DD`.
 */
export interface Deprecation {
  since?: string;
  sunset?: string;
  replacement?: string;
  reason?: string;
}

const DEPRECATION_KEYS: readonly string[] = ['since', 'sunset', 'replacement', 'reason'];

const DAY_MS = 86_400_000;

/** A key as a JSON Pointer token. */
const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The day a `YYYY-MM-DD` string names, as days since 1970-01-01, or undefined when it names no real day (2026-02-30). */
export function dayNumber(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return t / DAY_MS;
}

/** Days since 1970-01-01 (UTC) of an instant. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

type Problem = (pointer: string, message: string, fatal: boolean) => void;

/**
 * Reads an entry's `deprecated` value. A value of the wrong shape, or a date that names no real day,
 * makes the manifest unusable (as a field of the wrong type does): a sunset nobody can read must not
 * let a URN be removed early, nor keep it forever. An unknown key is reported by `check` only.
 */
export function readDeprecation(
  v: unknown,
  at: string,
  whose: string,
  problem: Problem,
  label = 'deprecated',
  what = 'a URN',
): Deprecation | undefined {
  if (!isSchemaObject(v)) {
    const example = label === 'deprecated' ? '"replacement": "urn:…", ' : '';
    problem(
      at,
      `${whose}: "${label}" must be an object such as {"since": "2026-01-31", "sunset": "2026-06-30", ${example}"reason": "…"}`,
      true,
    );
    return undefined;
  }
  const out: Deprecation = {};
  let ok = true;
  for (const key of Object.keys(v)) {
    if (!DEPRECATION_KEYS.includes(key) && !key.startsWith('x-')) {
      problem(
        `${at}/${escape(key)}`,
        `${whose}: "${label}" has an unknown key ${JSON.stringify(key)}${didYouMean(key, DEPRECATION_KEYS)}; known: ${DEPRECATION_KEYS.join(', ')}`,
        false,
      );
    }
  }
  for (const key of DEPRECATION_KEYS as ReadonlyArray<keyof Deprecation>) {
    if (!hasOwn(v, key)) continue;
    const value = v[key];
    if (typeof value !== 'string' || value.trim() === '') {
      problem(`${at}/${key}`, `${whose}: "${label}.${key}" must be a non-empty string`, true);
      ok = false;
      continue;
    }
    if ((key === 'since' || key === 'sunset') && dayNumber(value) === undefined) {
      problem(
        `${at}/${key}`,
        `${whose}: "${label}.${key}" is ${JSON.stringify(value)}, not a real calendar day; write it as YYYY-MM-DD, e.g. "2026-06-30"`,
        true,
      );
      ok = false;
      continue;
    }
    out[key] = value;
  }
  if (ok && out.since !== undefined && out.sunset !== undefined && dayNumber(out.sunset)! < dayNumber(out.since)!) {
    problem(
      `${at}/sunset`,
      `${whose}: "${label}.sunset" ${out.sunset} is before "${label}.since" ${out.since}; ${what}'s sunset comes on or after the day it was deprecated`,
      false,
    );
  }
  return ok ? out : undefined;
}

/**
 * Reads an entry's `deprecatedProperties`: each top-level property of the URN's schema that is
 * going away, with the same fields as a URN's deprecation (its `replacement` is free text: the
 * property to use instead). A sibling of `deprecated`, not inside it: an entry with `deprecated`
 * is a deprecated URN, and deprecating one field must not deprecate the message. Shapes and dates
 * are checked as a URN's are, so a sunset nobody can read never lets a property go early.
 */
export function readPropertyDeprecations(
  v: unknown,
  at: string,
  whose: string,
  problem: Problem,
): ReadonlyMap<string, Deprecation> | undefined {
  if (!isSchemaObject(v)) {
    problem(
      at,
      `${whose}: "deprecatedProperties" must be an object from property name to its deprecation, e.g. {"coupon": {"since": "2026-01-31", "sunset": "2026-06-30", "reason": "…"}}`,
      true,
    );
    return undefined;
  }
  const out = new Map<string, Deprecation>();
  let ok = true;
  for (const name of Object.keys(v)) {
    const d = readDeprecation(v[name], `${at}/${escape(name)}`, whose, problem, `deprecatedProperties.${name}`, 'a property');
    if (d === undefined) ok = false;
    else out.set(name, d);
  }
  return ok ? out : undefined;
}

/** Days from `now` until a sunset (0 on the day itself; negative once past). */
export const daysUntil = (sunset: string, now: number): number => dayNumber(sunset)! - now;
