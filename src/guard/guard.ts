import type { Violation } from '../validator/index.js';
import type { Provider } from '../providers/provider.js';
import { readEnvelope } from './envelope.js';

/** Data that fails its URN's schema. */
export class InvalidPayloadError extends Error {
  override name = 'InvalidPayloadError';
  readonly code = 'BQ_INVALID_PAYLOAD';
  constructor(
    readonly urn: string,
    readonly violations: readonly Violation[],
  ) {
    super(formatInvalid(urn, violations));
  }
}

function formatInvalid(urn: string, violations: readonly Violation[]): string {
  const first = violations.slice(0, 3).map((v) => `${v.instancePath || '(root)'} ${v.message}`);
  const more = violations.length > 3 ? `; and ${violations.length - 3} more` : '';
  return `data for ${urn} is invalid: ${first.join('; ')}${more}`;
}

/**
 * Producer guard, non-throwing: the violations of `data` against the URN's schema, `[]` when it is
 * valid or when the URN has no registered schema (validation is opt-in).
 */
export function check(provider: Provider, urn: string, data: unknown): Violation[] {
  const schema = provider.schemaFor(urn);
  if (schema === undefined || schema.isValid(data)) return [];
  return schema.validate(data);
}

/** Producer guard: throws InvalidPayloadError when `data` fails the URN's schema. */
export function validate(provider: Provider, urn: string, data: unknown): void {
  const violations = check(provider, urn, data);
  if (violations.length > 0) throw new InvalidPayloadError(urn, violations);
}

/** The envelope form of `validate`: reads identity by the envelope rules, then validates `data`. */
export function validateEnvelope(provider: Provider, envelope: unknown): void {
  const { urn, data } = readEnvelope(envelope);
  validate(provider, urn, data);
}

/**
 * Consumer safety net: validates each envelope before the handler runs. Invalid data rejects with
 * InvalidPayloadError without calling the handler, so the message takes the retry / dead-letter
 * path; an EnvelopeError or a provider error propagates unchanged.
 */
export function wrap<E, R extends unknown[], T>(
  provider: Provider,
  handler: (envelope: E, ...rest: R) => T | Promise<T>,
): (envelope: E, ...rest: R) => Promise<T> {
  return async (envelope: E, ...rest: R): Promise<T> => {
    validateEnvelope(provider, envelope);
    return handler(envelope, ...rest);
  };
}
