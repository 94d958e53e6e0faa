import { createHash } from 'node:crypto';
import { hasOwn, isSchemaObject, joinPointer, pointerLabel } from '../validator/index.js';
import type { Change } from './compare.js';
import { isRuleId, type RuleId } from './rules.js';

/*
 * Reviewed, expiring exceptions: a file lists acknowledged breaks, each scoped to one finding
 * (URN + rule + path) of one baseline (the fingerprint of the old schema), with who accepted it,
 * why, and until when. Pure: the caller reads the file and passes the parsed value and the clock.
 */

export interface CompatException {
  urn: string;
  rule: RuleId;
  /** The finding's path as `exceptionPath` gives it. */
  path: string;
  /** `schemaFingerprint` of the old schema the break was reviewed against. */
  fingerprint: string;
  reason: string;
  owner: string;
  /** `YYYY-MM-DD`, the last day (UTC) the exception applies. */
  expires: string;
  /** Where it was read, for messages: `file: exception N`. */
  source: string;
}

/** A malformed exceptions document; the message is one line naming the file and the entry. */
export class ExceptionsError extends Error {
  override name = 'ExceptionsError';
}

const FIELDS = ['urn', 'rule', 'path', 'fingerprint', 'reason', 'owner', 'expires'] as const;
const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function shown(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? s.slice(0, 57) + '…' : s;
}

/** A real calendar date in the `YYYY-MM-DD` form. */
function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/**
 * Validates an exceptions document, `{ exceptions: [...] }` or the list itself (an empty file,
 * `null`, is none), and returns its entries. Throws ExceptionsError naming `file` and the entry.
 */
export function parseExceptions(value: unknown, file: string): CompatException[] {
  if (value === null || value === undefined) return [];
  let list: unknown = value;
  if (isSchemaObject(value)) {
    const extra = Object.keys(value).filter((k) => k !== 'exceptions');
    if (extra.length > 0) throw new ExceptionsError(`${file}: unknown top-level key ${shown(extra[0])} (expected "exceptions")`);
    list = hasOwn(value, 'exceptions') ? value.exceptions : [];
  }
  if (!Array.isArray(list)) throw new ExceptionsError(`${file}: "exceptions" must be a list of entries, got ${shown(list)}`);
  const seen = new Map<string, string>();
  return list.map((entry, i): CompatException => {
    const urn = isSchemaObject(entry) && hasOwn(entry, 'urn') && typeof entry.urn === 'string' ? entry.urn : undefined;
    const source = `${file}: exception ${i + 1}${urn === undefined || urn === '' ? '' : ` (${shown(urn)})`}`;
    const fail = (problem: string): never => {
      throw new ExceptionsError(`${source}: ${problem}`);
    };
    if (!isSchemaObject(entry)) return fail(`must be a mapping of ${FIELDS.join(', ')}, got ${shown(entry)}`);
    for (const k of Object.keys(entry)) {
      if (!(FIELDS as readonly string[]).includes(k)) fail(`unknown key ${shown(k)} (expected ${FIELDS.join(', ')})`);
    }
    const text = (k: (typeof FIELDS)[number], empty = false): string => {
      if (!hasOwn(entry, k)) return fail(`${k} is missing`);
      const v = entry[k];
      if (typeof v !== 'string') return fail(`${k} must be a string, got ${shown(v)}`);
      if (!empty && v.trim() === '') return fail(`${k} must not be empty`);
      return v;
    };
    const e = {
      urn: text('urn'),
      rule: text('rule'),
      path: text('path', true),
      fingerprint: text('fingerprint'),
      reason: text('reason'),
      owner: text('owner'),
      expires: text('expires'),
    };
    if (!isRuleId(e.rule)) fail(`rule ${shown(e.rule)} is not a compat rule (see compat --list-rules)`);
    if (e.path !== '' && !e.path.startsWith('/')) fail(`path must be a JSON pointer ("" or starting with "/"), got ${shown(e.path)}`);
    if (!FINGERPRINT.test(e.fingerprint)) fail(`fingerprint must be "sha256:" and 64 lowercase hex digits, got ${shown(e.fingerprint)}`);
    if (!isDate(e.expires)) fail(`expires must be a date YYYY-MM-DD, got ${shown(e.expires)}`);
    const key = JSON.stringify([e.urn, e.rule, e.path, e.fingerprint]);
    const first = seen.get(key);
    if (first !== undefined) fail(`repeats ${first.slice(file.length + 2)} (same urn, rule, path and fingerprint)`);
    seen.set(key, source);
    return { ...e, rule: e.rule as RuleId, source };
  });
}

/** JSON with object keys sorted (by code unit), no whitespace: equal documents give equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonical(x))).join(',')}]`;
  if (isSchemaObject(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** `sha256:` and the hex digest of the schema's canonical JSON (key order and formatting do not count). */
export function schemaFingerprint(schema: unknown): string {
  return 'sha256:' + createHash('sha256').update(canonical(schema), 'utf8').digest('hex');
}

/** Whether a string reads as JSON (`1`, `true`, `null`, `"a"`, `[]`): as a token it would name another value. */
function readsAsJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/**
 * The path an exception names a finding by: its `path`, plus its subject where the path does not
 * name it. The subject keeps its JSON type: a non-string is written as JSON (`1`, `true`,
 * `null`), a string as itself unless it reads as JSON, then quoted (`"1"`, `"true"`). So `1` and
 * `"1"` have different paths, and a string such as `TRY` keeps the path it always had. A property
 * name (`required-*`) is always a string, written as itself.
 */
export function exceptionPath(change: Change): string {
  if (change.subject === undefined) return change.path;
  const s = change.subject;
  const token = typeof s === 'string' && (!isValueRule(change) || !readsAsJson(s)) ? s : JSON.stringify(s);
  return joinPointer(change.path, token);
}

/** The path a string subject had before subjects kept their type (`1` for `"1"`), when it differs. */
function untypedPath(change: Change): string | undefined {
  const s = change.subject;
  return typeof s === 'string' && isValueRule(change) && readsAsJson(s) ? joinPointer(change.path, s) : undefined;
}

/** The rules whose subject is a value of any JSON type (not a property name). */
function isValueRule(change: Change): boolean {
  return change.rule === 'enum-value-removed' || change.rule === 'enum-value-added';
}

interface ExceptionNotice {
  exception: CompatException;
  /** One line for the report. */
  message: string;
}

export interface ExceptionsOutcome {
  /** Breaking changes an exception covers: reported, not failing. */
  suppressed: Array<{ urn: string; change: Change; exception: CompatException }>;
  /** Breaking changes no exception covers: they fail the gate. */
  unexcused: Array<{ urn: string; change: Change }>;
  /** Past their date: they suppress nothing and fail the gate. */
  expired: ExceptionNotice[];
  /** The old schema changed since the review (or is gone): they suppress nothing; reported. */
  stale: ExceptionNotice[];
  /** In date and current, but no breaking change matches (the break was fixed): reported. */
  unused: ExceptionNotice[];
  /** True when a breaking change is unexcused or an exception has expired. */
  failed: boolean;
}

export interface ApplyOptions {
  now: Date;
  /** `schemaFingerprint` of each URN's old schema (the baseline compared against). */
  fingerprints: ReadonlyMap<string, string>;
}

const today = (now: Date): string => now.toISOString().slice(0, 10);

/**
 * Applies exceptions to the changes compat found, per URN. Each exception in date, whose
 * fingerprint matches the URN's old schema, suppresses the one breaking change with its rule and
 * path; nothing else.
 */
export function applyExceptions(
  findingsByUrn: ReadonlyMap<string, readonly Change[]>,
  exceptions: readonly CompatException[],
  options: ApplyOptions,
): ExceptionsOutcome {
  const day = today(options.now);
  const out: ExceptionsOutcome = { suppressed: [], unexcused: [], expired: [], stale: [], unused: [], failed: false };
  const covered = new Map<Change, CompatException>();
  const what = (e: CompatException): string => `${e.rule} at ${pointerLabel(e.path)}`;
  for (const e of exceptions) {
    if (e.expires < day) {
      out.expired.push({
        exception: e,
        message: `${e.source}: expired on ${e.expires} (owner ${e.owner}): ${what(e)} breaks again until it is reviewed and renewed, or fixed`,
      });
      continue;
    }
    const current = options.fingerprints.get(e.urn);
    if (current === undefined) {
      out.stale.push({ exception: e, message: `${e.source}: ${e.urn} has no old schema to compare: the exception no longer applies` });
      continue;
    }
    if (current !== e.fingerprint) {
      out.stale.push({
        exception: e,
        message: `${e.source}: the old schema of ${e.urn} changed since the review (fingerprint ${current}): review ${what(e)} again`,
      });
      continue;
    }
    const matches = (findingsByUrn.get(e.urn) ?? []).filter((c) => c.breaking && c.rule === e.rule && exceptionPath(c) === e.path);
    if (matches.length !== 1) {
      let why = matches.length === 0 ? 'no breaking change matches it' : `it matches ${matches.length} changes, not one`;
      // An entry written before subjects kept their type names the number; say how to name the string.
      const untyped =
        matches.length === 0
          ? (findingsByUrn.get(e.urn) ?? []).find((c) => c.breaking && c.rule === e.rule && untypedPath(c) === e.path)
          : undefined;
      if (untyped !== undefined) why += ` (for the string ${JSON.stringify(untyped.subject)}, the path is ${exceptionPath(untyped)})`;
      out.unused.push({ exception: e, message: `${e.source}: ${why} (${what(e)}): remove it` });
      continue;
    }
    covered.set(matches[0]!, e);
  }
  for (const [urn, changes] of findingsByUrn) {
    for (const change of changes) {
      if (!change.breaking) continue;
      const exception = covered.get(change);
      if (exception !== undefined) out.suppressed.push({ urn, change, exception });
      else out.unexcused.push({ urn, change });
    }
  }
  out.failed = out.unexcused.length > 0 || out.expired.length > 0;
  return out;
}
