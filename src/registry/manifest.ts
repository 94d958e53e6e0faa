import { ANNOTATION_KEYWORDS, DRAFT_KEYWORDS, hasOwn, isSchemaObject, SUPPORTED_KEYWORDS } from '../validator/index.js';
import { readDeprecation, readPropertyDeprecations, type Deprecation } from './deprecation.js';
import { didYouMean } from './suggest.js';
import { PEER_KEYS, readPeers, readServices, type ServiceEntry } from './service-entries.js';

/**
 * The keywords a manifest's `unenforced` may list: every keyword of a JSON Schema draft that the
 * validator leaves unenforced (`pattern`, `format`, `$ref`, …, and `items`, whose tuple form is
 * unsupported). Annotations never warn, and the ten supported keywords are enforced.
 */
const UNENFORCED_KEYWORDS: ReadonlySet<string> = new Set(
  [...DRAFT_KEYWORDS].filter((k) => k === 'items' || (!SUPPORTED_KEYWORDS.has(k) && !ANNOTATION_KEYWORDS.has(k))),
);

/** One `{urn, schema, owner?, status?, description?, id?, unenforced?}` entry of the manifest. */
export interface ManifestEntry {
  urn: string;
  /** The schema file as written in the manifest, relative to the manifest's directory. */
  schema: string;
  owner?: string;
  status?: string;
  description?: string;
  /** An explicit schema id for `serve` (stable on the wire); otherwise one is derived from the URN. */
  id?: number;
  /**
   * Unsupported keywords this URN's schema uses on purpose, reviewed: they are still not enforced,
   * and no longer warn in text or annotations (`check --format json` keeps them, acknowledged).
   */
  unenforced?: readonly string[];
  /** Property names removed from this URN's schema for good: declaring one again is `property-resurrected`. */
  retired?: readonly string[];
  /** The services (names in the manifest's `services`) that send this URN's messages. */
  producers?: readonly string[];
  /** The services that read them. */
  consumers?: readonly string[];
  /**
   * The URN's deprecation (`since`, `sunset`, `replacement`, `reason`). An entry with one is
   * deprecated: its `status` reads `deprecated` when the manifest gives none.
   */
  deprecated?: Deprecation;
  /**
   * Top-level properties of the URN's schema that are deprecated, by name: `compat --against`
   * lets one be removed on or after its sunset, when no data can tell (docs/evolution.md).
   */
  deprecatedProperties?: ReadonlyMap<string, Deprecation>;
  /** Position in the manifest's `schemas` array. */
  index: number;
}

export interface ManifestIssue {
  /** JSON Pointer into the manifest (`/schemas/2/urn`). */
  pointer: string;
  urn?: string;
  message: string;
  /**
   * Whether the manifest cannot be used as it is (an entry without a URN, a URN registered twice,
   * a field of the wrong type): every command refuses it. The others (an unknown key, a URN not
   * in URN syntax, an unknown status) are reported by `check` only.
   */
  fatal: boolean;
}

const ENTRY_KEYS: readonly string[] = [
  'urn',
  'schema',
  'owner',
  'status',
  'description',
  'id',
  'unenforced',
  'retired',
  'producers',
  'consumers',
  'deprecated',
  'deprecatedProperties',
];
const MANIFEST_KEYS: readonly string[] = ['schemas', '$schema', 'unenforced', 'services'];
/** The lifecycle statuses bqschema knows; `deprecated` is the one that changes behaviour. */
export const STATUSES: readonly string[] = ['active', 'deprecated', 'experimental'];

/** RFC 8141 URN syntax: `urn:<NID>:<NSS>`, the NSS without spaces or control characters. */
const URN_SYNTAX = /^urn:[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?:[A-Za-z0-9()+,\-.:=@;$_!*'%/~&]+$/;

function isUrnSyntax(urn: string): boolean {
  return URN_SYNTAX.test(urn);
}

const OPTIONAL_STRINGS = ['owner', 'status', 'description'] as const;

/**
 * Reads a parsed manifest without throwing: the usable entries and every problem. Entries with a
 * missing or duplicate URN are reported and left out.
 */
export function readManifest(value: unknown): {
  entries: ManifestEntry[];
  issues: ManifestIssue[];
  unenforced: string[];
  services: ServiceEntry[];
} {
  const issues: ManifestIssue[] = [];
  const entries: ManifestEntry[] = [];
  const problem = (pointer: string, message: string, fatal: boolean, urn?: string): void => {
    issues.push({ pointer, message, fatal, ...(urn === undefined ? {} : { urn }) });
  };
  if (!isSchemaObject(value)) {
    problem('', 'the manifest must be a JSON object with a "schemas" array', true);
    return { entries, issues, unenforced: [], services: [] };
  }
  const unenforced = hasOwn(value, 'unenforced') ? unenforcedList(value.unenforced, '/unenforced', 'the manifest', problem) : [];
  const services = hasOwn(value, 'services') ? readServices(value.services, problem) : [];
  for (const key of Object.keys(value)) {
    if (!MANIFEST_KEYS.includes(key) && !key.startsWith('x-')) {
      problem(
        `/${escape(key)}`,
        `unknown key ${JSON.stringify(key)}${didYouMean(key, MANIFEST_KEYS)}; prefix your own keys with "x-"`,
        false,
      );
    }
  }
  if (hasOwn(value, '$schema') && typeof value.$schema !== 'string')
    problem('/$schema', '"$schema" must be a string (the editor schema\'s path)', false);
  const list = hasOwn(value, 'schemas') ? value.schemas : undefined;
  if (!Array.isArray(list)) {
    problem('/schemas', 'the manifest has no "schemas" array', true);
    return { entries, issues, unenforced, services };
  }
  const seen = new Map<string, number>();
  const ids = new Map<number, number>();
  list.forEach((raw, index) => {
    const at = `/schemas/${index}`;
    if (!isSchemaObject(raw)) {
      problem(at, `entry ${index} is not an object`, true);
      return;
    }
    const urn = hasOwn(raw, 'urn') ? raw.urn : undefined;
    const schema = hasOwn(raw, 'schema') ? raw.schema : undefined;
    let ok = true;
    const name = typeof urn === 'string' && urn.trim() !== '' ? urn : undefined;
    if (name === undefined) {
      problem(
        `${at}/urn`,
        `entry ${index} has ${typeof urn === 'string' ? 'an empty' : urn === undefined ? 'no' : 'a non-string'} "urn"`,
        true,
      );
      ok = false;
    } else if (name !== name.trim()) {
      problem(`${at}/urn`, `entry ${index}: the URN ${JSON.stringify(name)} has surrounding whitespace`, false, name);
    } else if (!isUrnSyntax(name)) {
      problem(`${at}/urn`, `entry ${index}: ${JSON.stringify(name)} is not in URN syntax (urn:<namespace>:<name>, no spaces)`, false, name);
    }
    if (typeof schema !== 'string' || schema.trim() === '') {
      const what = typeof schema === 'string' ? 'an empty' : schema === undefined ? 'no' : 'a non-string';
      problem(`${at}/schema`, `entry ${index}${name ? ` (${name})` : ''} has ${what} "schema" path`, true, name);
      ok = false;
    }
    for (const key of Object.keys(raw)) {
      if (!ENTRY_KEYS.includes(key) && !key.startsWith('x-')) {
        problem(`${at}/${escape(key)}`, `entry ${index}: unknown key ${JSON.stringify(key)}${didYouMean(key, ENTRY_KEYS)}`, false, name);
      }
    }
    for (const key of OPTIONAL_STRINGS) {
      if (hasOwn(raw, key) && typeof raw[key] !== 'string') {
        problem(`${at}/${key}`, `entry ${index}: "${key}" must be a string`, true, name);
      }
    }
    const status = hasOwn(raw, 'status') ? raw.status : undefined;
    if (typeof status === 'string' && !STATUSES.includes(status)) {
      problem(
        `${at}/status`,
        `entry ${index}: unknown status ${JSON.stringify(status)}${didYouMean(status, STATUSES)}; known: ${STATUSES.join(', ')}`,
        false,
        name,
      );
    }
    let id: number | undefined;
    if (hasOwn(raw, 'id')) {
      const v = raw.id;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 0x7fffffff) {
        problem(`${at}/id`, `entry ${index}: "id" must be an integer from 1 to 2147483647`, true, name);
      } else {
        const other = ids.get(v);
        if (other !== undefined) problem(`${at}/id`, `entry ${index}: id ${v} is also the id of entry ${other}`, true, name);
        else ids.set(v, index);
        id = v;
      }
    }
    if (name !== undefined) {
      const first = seen.get(name);
      if (first !== undefined) {
        problem(`${at}/urn`, `URN ${name} is registered twice (entries ${first} and ${index})`, true, name);
        ok = false;
      } else seen.set(name, index);
    }
    if (!ok) return;
    const entry: ManifestEntry = { urn: name!, schema: schema as string, index };
    for (const key of OPTIONAL_STRINGS) if (hasOwn(raw, key) && typeof raw[key] === 'string') entry[key] = raw[key] as string;
    if (id !== undefined) entry.id = id;
    if (hasOwn(raw, 'deprecated')) {
      const deprecation = readDeprecation(raw.deprecated, `${at}/deprecated`, `entry ${index}`, (p, m, f) => problem(p, m, f, name));
      if (deprecation !== undefined) {
        entry.deprecated = deprecation;
        if (entry.status === undefined) entry.status = 'deprecated';
        else if (entry.status !== 'deprecated') {
          problem(
            `${at}/status`,
            `entry ${index}: "status" is ${JSON.stringify(entry.status)} but the entry has "deprecated"; set "status": "deprecated" or leave "status" out`,
            false,
            name,
          );
          entry.status = 'deprecated';
        }
      }
    }
    if (hasOwn(raw, 'deprecatedProperties')) {
      const props = readPropertyDeprecations(raw.deprecatedProperties, `${at}/deprecatedProperties`, `entry ${index}`, (p, m, f) =>
        problem(p, m, f, name),
      );
      if (props !== undefined) entry.deprecatedProperties = props;
    }
    if (hasOwn(raw, 'unenforced'))
      entry.unenforced = unenforcedList(raw.unenforced, `${at}/unenforced`, `entry ${index}`, (p, m, f) => problem(p, m, f, name));
    if (hasOwn(raw, 'retired')) {
      const r = raw.retired;
      if (Array.isArray(r) && r.every((n) => typeof n === 'string')) entry.retired = r as string[];
      else problem(`${at}/retired`, `entry ${index}: "retired" must be an array of property names, e.g. ["coupon"]`, true, name);
    }
    for (const key of PEER_KEYS) {
      if (hasOwn(raw, key)) entry[key] = readPeers(raw[key], `${at}/${key}`, `entry ${index}`, key, (p, m, f) => problem(p, m, f, name));
    }
    entries.push(entry);
  });
  replacements(entries, problem);
  return { entries, issues, unenforced, services };
}

/**
 * Each deprecation's `replacement` names a URN this manifest registers, not the URN itself, and
 * not one that is deprecated too (its consumers would move to a URN that is going away).
 */
function replacements(
  entries: readonly ManifestEntry[],
  problem: (pointer: string, message: string, fatal: boolean, urn?: string) => void,
): void {
  const byUrn = new Map(entries.map((e) => [e.urn, e]));
  for (const e of entries) {
    const to = e.deprecated?.replacement;
    if (to === undefined) continue;
    const at = `/schemas/${e.index}/deprecated/replacement`;
    const target = byUrn.get(to);
    if (to === e.urn)
      problem(at, `entry ${e.index}: ${e.urn} names itself as its replacement; name the URN its consumers move to`, false, e.urn);
    else if (target === undefined)
      problem(
        at,
        `entry ${e.index}: the replacement ${JSON.stringify(to)} is not registered in this manifest${didYouMean(
          to,
          [...byUrn.keys()].filter((u) => u !== e.urn),
        )}; register it, or name a registered URN`,
        false,
        e.urn,
      );
    else if (target.status === 'deprecated')
      problem(
        at,
        `entry ${e.index}: the replacement ${to} is itself deprecated; name the URN its consumers should move to in the end${target.deprecated?.replacement ? ` (${target.deprecated.replacement}?)` : ''}`,
        false,
        e.urn,
      );
  }
}

/**
 * An `unenforced` list: an array of keyword names (anything else makes the manifest unusable, as a
 * field of the wrong type does). A name that is no unsupported keyword is reported (`check` fails
 * on it) and left out: it would acknowledge nothing, or hide a typo's warning.
 */
function unenforcedList(
  v: unknown,
  pointer: string,
  whose: string,
  problem: (pointer: string, message: string, fatal: boolean) => void,
): string[] {
  if (!Array.isArray(v) || !v.every((k) => typeof k === 'string')) {
    problem(pointer, `${whose}: "unenforced" must be an array of keyword names, e.g. ["pattern", "format"]`, true);
    return [];
  }
  const out: string[] = [];
  (v as string[]).forEach((k, i) => {
    if (UNENFORCED_KEYWORDS.has(k)) out.push(k);
    else {
      const why = SUPPORTED_KEYWORDS.has(k)
        ? 'it is enforced'
        : ANNOTATION_KEYWORDS.has(k) || k.startsWith('x-')
          ? 'an annotation never warns'
          : `no JSON Schema draft defines it${didYouMean(k, UNENFORCED_KEYWORDS)}, and a keyword of your own is best named x-${k}, which never warns`;
      problem(
        `${pointer}/${i}`,
        `${whose}: "unenforced" lists ${JSON.stringify(k)}: ${why}; list only keywords bqschema leaves unenforced (pattern, format, $ref, …)`,
        false,
      );
    }
  });
  return out;
}

function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** How the manifest at a git ref was found (`findManifestAtRef`, src/registry/at-ref.ts). */
export type FoundBy =
  /** `--against-registry`: the user named it. */
  | 'named'
  /** The working manifest's own path. */
  | 'path'
  /** git reports the working manifest as renamed from it. */
  | 'rename'
  /** A manifest name in the directory discovery started from, or a parent. */
  | 'discovery'
  /** A manifest elsewhere in the commit that registers URNs the working manifest registers. */
  | 'urns';
