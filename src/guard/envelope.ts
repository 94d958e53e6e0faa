import { hasOwn, isSchemaObject } from '../validator/index.js';
import { editDistance } from '../registry/suggest.js';

export type EnvelopeProblem = 'not an object' | 'no identity' | 'data is not an object' | 'unknown schema_version';

/**
 * An envelope the contract cannot read: no identity, non-object `data`, unknown schema_version.
 * Its message describes types and shapes only: it never quotes a value from the message.
 */
export class EnvelopeError extends Error {
  override name = 'EnvelopeError';
  readonly code = 'BQ_INVALID_ENVELOPE';
  constructor(
    readonly reason: EnvelopeProblem,
    message: string,
    /** Identity warnings raised before the problem was found. */
    readonly warnings: readonly string[] = [],
    /** The URN, when identity was read before the problem was found. */
    readonly urn?: string,
  ) {
    super(message);
  }
}

/**
 * A BabelQueue message as it travels on the wire, generic over its `data`. What `wrap` and
 * `validateEnvelope` accept; `readEnvelope` checks an untyped value against the same rules.
 */
export interface Envelope<D extends object = Record<string, unknown>> {
  /** The URN that names the message's schema. */
  job?: string;
  /** Inbound alias of `job`, read when `job` is not usable. */
  urn?: string;
  data: D;
  meta?: { schema_version?: 1; [key: string]: unknown };
  attempts?: number;
  [key: string]: unknown;
}

/** What `readEnvelope` (and `validateEnvelope`) read from an envelope. */
export interface ReadEnvelope {
  /** The message's URN: `job`, else the `urn` alias. */
  urn: string;
  data: Record<string, unknown>;
  /** Identity warnings (a non-string `job`, a dropped `urn`); they quote no value. */
  warnings: string[];
}

// Blank means empty or only ASCII whitespace (contract rule 11): no Unicode-aware trim.
const ASCII_BLANK = /^[ \t\n\v\f\r]*$/;

function usable(v: unknown): v is string {
  // A first character past U+0020 settles it without the pattern (checked once per message).
  return typeof v === 'string' && v.length > 0 && (v.charCodeAt(0) > 0x20 || !ASCII_BLANK.test(v));
}

/** A value's JSON type, never the value itself: messages may carry secrets. */
function shape(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

// Keys a newcomer writes for `data`: other transports' names for the body, and near misses.
const DATA_ALIASES: readonly string[] = ['payload', 'body', 'content'];

/**
 * ` (the envelope has "Payload": did you mean "data"?)` when a key of the envelope is a near miss of
 * `name` (its case or surrounding whitespace aside, within one edit, or an alias), else `''`. Only
 * a short key can match, so the hint names no more than a word of the message (no value).
 * Called on the failure path only.
 */
function nearMiss(envelope: object, name: string, aliases: readonly string[]): string {
  for (const key of Object.keys(envelope)) {
    if (key === name || key.length > name.length + 8) continue;
    const k = key.trim().toLowerCase();
    if (k === name || aliases.includes(k) || (name.length > 3 && editDistance(k, name, 1) <= 1)) {
      return ` (the envelope has ${JSON.stringify(key)}: did you mean ${JSON.stringify(name)}?)`;
    }
  }
  return '';
}

/**
 * Reads an envelope's identity and data by contract rules 10–12. Keys are case-sensitive and own
 * properties only; a repeated key has already kept its last value in JSON.parse.
 * @throws EnvelopeError when the envelope cannot be read.
 */
export function readEnvelope(value: unknown): ReadEnvelope {
  if (!isSchemaObject(value)) {
    throw new EnvelopeError('not an object', `the envelope is not a JSON object (it is ${shape(value)})`);
  }
  const warnings: string[] = [];
  const job = hasOwn(value, 'job') ? value.job : undefined;
  const alias = hasOwn(value, 'urn') ? value.urn : undefined;
  if (hasOwn(value, 'job') && typeof job !== 'string') {
    warnings.push(`"job" is not a string (${job === null ? 'null' : Array.isArray(job) ? 'array' : typeof job}) and is ignored`);
  }
  let urn: string;
  if (usable(job)) {
    urn = job;
    if (usable(alias)) warnings.push('both "job" and "urn" are set: "job" wins and "urn" is dropped');
  } else if (usable(alias)) {
    urn = alias;
  } else {
    const hint = nearMiss(value, 'job', []) || nearMiss(value, 'urn', []);
    throw new EnvelopeError('no identity', `the envelope has no identity: no usable "job" or "urn"${hint}`, warnings);
  }
  const data = hasOwn(value, 'data') ? value.data : undefined;
  if (!isSchemaObject(data)) {
    const hint = data === undefined ? nearMiss(value, 'data', DATA_ALIASES) : '';
    throw new EnvelopeError('data is not an object', `"data" must be a JSON object, got ${shape(data)}${hint}`, warnings, urn);
  }
  const meta = hasOwn(value, 'meta') ? value.meta : undefined;
  if (isSchemaObject(meta) && hasOwn(meta, 'schema_version') && meta.schema_version !== 1) {
    const v = meta.schema_version;
    const what = typeof v === 'number' ? 'a number other than 1' : shape(v);
    throw new EnvelopeError('unknown schema_version', `meta.schema_version is ${what}; only 1 is known`, warnings, urn);
  }
  return { urn, data, warnings };
}
