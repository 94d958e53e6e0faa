import { hasOwn, isSchemaObject } from '../validator/index.js';
import { didYouMean } from './suggest.js';

/*
 * The manifest's `services` (who runs code against the registry's messages) and each entry's
 * `producers` and `consumers` (which of them write and read a URN). Reviewed data in git: compat
 * names the services a change reaches from it, `services` and the catalog list it.
 */

/** One `{name, team?, contact?, repository?}` entry of the manifest's `services`. */
export interface ServiceEntry {
  name: string;
  /** The owning team, as the code host names it (`@acme/billing`): CODEOWNERS and `compat --mention` use it. */
  team?: string;
  /** Whom to ask: an address, a chat channel. */
  contact?: string;
  /** Where the service's code lives. */
  repository?: string;
  /** Position in the manifest's `services` array. */
  index: number;
}

const SERVICE_KEYS: readonly string[] = ['name', 'team', 'contact', 'repository'];
const SERVICE_STRINGS = ['team', 'contact', 'repository'] as const;
/** The keys of a manifest entry that name services. */
export const PEER_KEYS = ['producers', 'consumers'] as const;
export type PeerKey = (typeof PEER_KEYS)[number];

/** The longest service name: a name is a handle people type, not a document. */
const MAX_SERVICE_NAME = 100;
/** A service name: letters, digits, `.`, `_` and `-`, starting and ending with a letter or digit. */
const SERVICE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

function isServiceName(name: string): boolean {
  return name.length <= MAX_SERVICE_NAME && SERVICE_NAME.test(name);
}

/** Two names the same service by: compared with case folded (`Billing` and `billing` are one service). */
export const serviceKey = (name: string): string => name.normalize('NFC').toLowerCase();

// What JSON.stringify leaves as it is but a reader cannot see: controls, format characters (zero-width,
// bidi), separators and spaces other than U+0020, unassigned and private-use code points, lone surrogates.
const INVISIBLE = /(?! )[\p{C}\p{Z}]/gu;

/**
 * A name as messages quote it: JSON-quoted, every character a reader could not see escaped (a bidi
 * override cannot reorder the line), and cut short, so a hostile name stays one short line.
 */
export function quoteName(name: string): string {
  return visibleText(JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name));
}

/** Text from the manifest with every character a reader could not see written as `\uXXXX` (controls, bidi, zero-width). */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/** A service name as reports list it: as it is when in service syntax, else quoted (quoteName). */
export const shownName = (name: string): string => (isServiceName(name) ? name : quoteName(name));

type Problem = (pointer: string, message: string, fatal: boolean, urn?: string) => void;

/**
 * The manifest's `services`: an array of objects, each with a unique `name`. A value of the wrong
 * type, a service without a name, or two services whose names differ only in case make the
 * manifest unusable (which of them a producer list means would be a guess); a name not in service
 * syntax and an unknown key are reported by `check` only.
 */
export function readServices(value: unknown, problem: Problem): ServiceEntry[] {
  if (!Array.isArray(value)) {
    problem('/services', '"services" must be an array of {"name", "team", "contact", "repository"} objects', true);
    return [];
  }
  const out: ServiceEntry[] = [];
  const seen = new Map<string, ServiceEntry>();
  value.forEach((raw, index) => {
    const at = `/services/${index}`;
    if (!isSchemaObject(raw)) {
      problem(at, `service ${index} is not an object`, true);
      return;
    }
    const name = hasOwn(raw, 'name') ? raw.name : undefined;
    if (typeof name !== 'string' || name === '') {
      problem(
        `${at}/name`,
        `service ${index} has ${typeof name === 'string' ? 'an empty' : name === undefined ? 'no' : 'a non-string'} "name"`,
        true,
      );
      return;
    }
    if (!isServiceName(name)) {
      const why = name.length > MAX_SERVICE_NAME ? `is longer than ${MAX_SERVICE_NAME} characters` : 'is not a service name';
      problem(
        `${at}/name`,
        `service ${index}: ${quoteName(name)} ${why}; use letters, digits, ".", "_" and "-" (e.g. "billing-api")`,
        false,
      );
    }
    for (const key of Object.keys(raw)) {
      if (!SERVICE_KEYS.includes(key) && !key.startsWith('x-')) {
        problem(
          `${at}/${escapeToken(key)}`,
          `service ${index}: unknown key ${quoteName(key)}${didYouMean(key, SERVICE_KEYS)}; prefix your own keys with "x-"`,
          false,
        );
      }
    }
    let ok = true;
    for (const key of SERVICE_STRINGS) {
      if (hasOwn(raw, key) && typeof raw[key] !== 'string') {
        problem(`${at}/${key}`, `service ${index}: "${key}" must be a string`, true);
        ok = false;
      }
    }
    const first = seen.get(serviceKey(name));
    if (first !== undefined) {
      const same = first.name === name ? 'is declared twice' : `and ${quoteName(first.name)} differ only in case`;
      problem(
        `${at}/name`,
        `service ${index}: ${quoteName(name)} ${same} (services ${first.index} and ${index}); give each service one entry`,
        true,
      );
      return;
    }
    if (!ok) return;
    const entry: ServiceEntry = { name, index };
    for (const key of SERVICE_STRINGS) if (hasOwn(raw, key) && typeof raw[key] === 'string') entry[key] = raw[key] as string;
    seen.set(serviceKey(name), entry);
    out.push(entry);
  });
  return out;
}

/**
 * An entry's `producers` or `consumers`: an array of service names (anything else makes the
 * manifest unusable). A name listed twice is reported and kept once; whether each names a declared
 * service is `check`'s to say (src/check/service-rules.ts), where it can suggest the nearest.
 */
export function readPeers(
  value: unknown,
  pointer: string,
  whose: string,
  key: PeerKey,
  problem: (pointer: string, message: string, fatal: boolean) => void,
): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    problem(pointer, `${whose}: "${key}" must be an array of service names, e.g. ["billing"]`, true);
    return [];
  }
  const out: string[] = [];
  (value as string[]).forEach((name, i) => {
    if (out.includes(name)) problem(`${pointer}/${i}`, `${whose}: "${key}" lists ${quoteName(name)} twice`, false);
    else out.push(name);
  });
  return out;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
