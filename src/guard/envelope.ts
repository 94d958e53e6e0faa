import { hasOwn, isSchemaObject } from '../validator/index.js';

export type EnvelopeProblem = 'not an object' | 'no identity' | 'data is not an object' | 'unknown schema_version';

/** An envelope the contract cannot read: no identity, non-object `data`, unknown schema_version. */
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

export interface Envelope {
  /** The message's URN: `job`, else the `urn` alias. */
  urn: string;
  data: Record<string, unknown>;
  /** Identity warnings (a non-string `job`, a dropped `urn`). */
  warnings: string[];
}


// Blank means empty or only ASCII whitespace (CLARIFICATIONS 11): no Unicode-aware trim.
const ASCII_BLANK = /^[ \t\n\v\f\r]*$/;

function usable(v: unknown): v is string {
  return typeof v === 'string' && !ASCII_BLANK.test(v);
}

/**
 * Reads an envelope's identity and data by CLARIFICATIONS 10–12. Keys are case-sensitive and own
 * properties only; a repeated key has already kept its last value in JSON.parse.
 */
export function readEnvelope(value: unknown): Envelope {
  if (!isSchemaObject(value)) {
    throw new EnvelopeError('not an object', 'the envelope is not a JSON object');
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
    if (usable(alias)) warnings.push(`both "job" and "urn" are set: "job" wins and "urn" (${JSON.stringify(alias)}) is dropped`);
  } else if (usable(alias)) {
    urn = alias;
  } else {
    throw new EnvelopeError('no identity', 'the envelope has no identity: no usable "job" or "urn"', warnings);
  }
  const data = hasOwn(value, 'data') ? value.data : undefined;
  if (!isSchemaObject(data)) {
    const got = data === undefined ? 'missing' : data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data;
    throw new EnvelopeError('data is not an object', `"data" must be a JSON object, got ${got}`, warnings, urn);
  }
  const meta = hasOwn(value, 'meta') ? value.meta : undefined;
  if (isSchemaObject(meta) && hasOwn(meta, 'schema_version') && meta.schema_version !== 1) {
    throw new EnvelopeError(
      'unknown schema_version',
      `meta.schema_version is ${JSON.stringify(meta.schema_version)}; only 1 is known`,
      warnings,
      urn,
    );
  }
  return { urn, data, warnings };
}
