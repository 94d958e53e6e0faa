import type { CompiledSchema, Violation } from '../validator/index.js';
import type { Deprecation } from '../registry/deprecation.js';
import { RegistryError } from '../registry/errors.js';
import { emitWarning } from '../validator/warnings.js';
import type { AsyncProvider, Provider } from '../providers/provider.js';
import { EnvelopeError, readEnvelope, type Envelope, type ReadEnvelope } from './envelope.js';

/**
 * Data that fails its URN's schema: the one error class for it, thrown by the guard and by the
 * `bqschema/babelqueue-node` schema module, which words it as the BabelQueue SDK does (`violation`,
 * the first violation as `<path>: <reason>`, and the SDK's message).
 */
export class InvalidPayloadError extends Error {
  override name = 'InvalidPayloadError';
  readonly code = 'BQ_INVALID_PAYLOAD';
  /** The first violation in the BabelQueue SDKs' wording (`order_id: missing_required`); set by `bqschema/babelqueue-node`. */
  readonly violation?: string;
  constructor(
    readonly urn: string,
    readonly violations: readonly Violation[],
    sdk?: { violation: string; message: string },
  ) {
    super(sdk?.message ?? formatInvalid(urn, violations));
    if (sdk !== undefined) this.violation = sdk.violation;
  }
}

function formatInvalid(urn: string, violations: readonly Violation[]): string {
  const first = violations.slice(0, 3).map((v) => `${v.instancePath || '(root)'} ${v.message}`);
  const more = violations.length > 3 ? `; and ${violations.length - 3} more` : '';
  return `data for ${urn} is invalid: ${first.join('; ')}${more}`;
}

/**
 * A message whose URN has no schema in the provider, where unvalidated messages are refused
 * (`unknownUrn: 'reject'`; always in the typed wrap, whose handler has no type for its data).
 */
export class UnknownUrnError extends Error {
  override name = 'UnknownUrnError';
  readonly code = 'BQ_UNKNOWN_URN';
  constructor(
    readonly urn: string,
    purpose: 'validate' | 'mask' = 'validate',
  ) {
    super(
      purpose === 'mask'
        ? `no schema is registered for ${urn}, so its data cannot be masked: none of it may be logged`
        : `no schema is registered for ${urn}, so its data cannot be validated (unknownUrn: 'reject')`,
    );
  }
}

/** Options of `check`, `checkAsync`, `validate` and `validateAsync`. */
export interface CheckOptions {
  /**
   * Called for each message whose URN the provider says is deprecated (`provider.deprecation`, as
   * DirProvider answers from the manifest), before it is judged, with the URN and its deprecation
   * (`since`, `sunset`, `replacement`, `reason`, each when the registry gives it). Opt-in: without
   * it nothing is looked up. It never changes a verdict.
   */
  onDeprecated?: (urn: string, deprecation: Deprecation) => void;
}

/** Options of `validateEnvelope`, `validateEnvelopeAsync` and `wrap`. */
export interface GuardOptions extends CheckOptions {
  /**
   * Receives each identity warning of an envelope (a non-string `job`, a `urn` dropped because
   * `job` wins), with the URN when one was read. Without it, warnings go to process.emitWarning
   * (code BABELQUEUE_ENVELOPE_IDENTITY), each distinct text once per process.
   */
  onWarning?: (message: string, urn: string | undefined) => void;
  /**
   * A message whose URN has no schema in the provider: `'pass'` (the default) lets it through
   * unvalidated, as the contract's opt-in validation says; `'reject'` throws UnknownUrnError, so
   * `wrap` rejects without calling the handler.
   */
  unknownUrn?: 'pass' | 'reject';
}

/** Whether `options` rejects URNs without a schema; a value other than 'pass' or 'reject' is a TypeError, not a silent pass. */
export function rejectsUnknownUrn(options: GuardOptions): boolean {
  const value: unknown = options.unknownUrn;
  if (value === undefined || value === 'pass') return false;
  if (value === 'reject') return true;
  throw new TypeError(`unknownUrn must be 'pass' or 'reject', got ${typeof value === 'string' ? JSON.stringify(value) : typeof value}`);
}

/** An `onDeprecated` that is not a function is a TypeError (at `wrap`'s start-up), not a silent no-op. */
function deprecatedCallback(options: CheckOptions): CheckOptions['onDeprecated'] {
  const f: unknown = options.onDeprecated;
  if (f === undefined || typeof f === 'function') return f as CheckOptions['onDeprecated'];
  throw new TypeError(`onDeprecated must be a function (urn, deprecation) => void, got ${f === null ? 'null' : typeof f}`);
}

/** Tells `options.onDeprecated` when the provider deprecates the URN. */
function noticeDeprecated(provider: Provider | AsyncProvider, urn: string, options: CheckOptions): void {
  const onDeprecated = deprecatedCallback(options);
  if (onDeprecated === undefined || typeof provider.deprecation !== 'function') return;
  const d = provider.deprecation(urn);
  if (d !== undefined) onDeprecated(urn, d);
}

export const IDENTITY_WARNING_CODE = 'BABELQUEUE_ENVELOPE_IDENTITY';
const emitted = new Set<string>();

function report(warnings: readonly string[], urn: string | undefined, options: GuardOptions): void {
  for (const w of warnings) {
    if (options.onWarning !== undefined) {
      options.onWarning(w, urn);
      continue;
    }
    const text = urn === undefined ? `envelope: ${w}` : `envelope for ${urn}: ${w}`;
    if (emitted.has(text)) continue;
    emitted.add(text);
    emitWarning(text, IDENTITY_WARNING_CODE);
  }
}

/** readEnvelope, reporting the identity warnings (also those raised before an EnvelopeError). */
function readReported(envelope: unknown, options: GuardOptions): ReadEnvelope {
  let read: ReadEnvelope;
  try {
    read = readEnvelope(envelope);
  } catch (err) {
    if (err instanceof EnvelopeError) report(err.warnings, err.urn, options);
    throw err;
  }
  report(read.warnings, read.urn, options);
  return read;
}

/**
 * The provider's answer as a compiled schema, `undefined` for none (`null` or `undefined`).
 * Anything else is a provider bug, reported as a RegistryError naming the URN rather than a TypeError.
 */
export function schemaOf(answer: unknown, urn: string, sync: boolean): CompiledSchema | undefined {
  if (answer === undefined || answer === null) return undefined;
  const a = answer as Partial<CompiledSchema> & { then?: unknown };
  if (typeof a.isValid === 'function' && typeof a.validate === 'function') return answer as CompiledSchema;
  const message =
    sync && typeof a.then === 'function'
      ? `the provider answered a promise for ${urn}: use checkAsync, validateAsync, validateEnvelopeAsync or wrap with an asynchronous provider`
      : `the provider answered something that is not a compiled schema for ${urn} (${answer === null ? 'null' : Array.isArray(answer) ? 'an array' : typeof answer}); expected compile()'s result, or undefined/null for none`;
  throw new RegistryError('malformed', '', message, urn);
}

function violationsOf(schema: CompiledSchema | undefined, data: unknown): Violation[] {
  if (schema === undefined || schema.isValid(data)) return [];
  return schema.validate(data);
}

/** The envelope guard's verdict on what was read: UnknownUrnError when told to, InvalidPayloadError. */
function judge(schema: CompiledSchema | undefined, read: ReadEnvelope, rejectUnknown: boolean): void {
  if (schema === undefined && rejectUnknown) throw new UnknownUrnError(read.urn);
  const violations = violationsOf(schema, read.data);
  if (violations.length > 0) throw new InvalidPayloadError(read.urn, violations);
}

/**
 * Producer guard, non-throwing: the violations of `data` against the URN's schema, `[]` when it is
 * valid or when the URN has no registered schema (validation is opt-in). The provider must answer
 * synchronously; use `checkAsync` for one that returns promises.
 * @throws RegistryError when the provider answers something that is not a compiled schema; a
 *   provider's own load error propagates unchanged.
 */
export function check(provider: Provider, urn: string, data: unknown, options: CheckOptions = {}): Violation[] {
  noticeDeprecated(provider, urn, options);
  return violationsOf(schemaOf(provider.schemaFor(urn), urn, true), data);
}

/** `check` for a provider that may answer with a promise. */
export async function checkAsync(provider: AsyncProvider, urn: string, data: unknown, options: CheckOptions = {}): Promise<Violation[]> {
  noticeDeprecated(provider, urn, options);
  return violationsOf(schemaOf(await provider.schemaFor(urn), urn, false), data);
}

/** Producer guard: throws InvalidPayloadError when `data` fails the URN's schema. */
export function validate(provider: Provider, urn: string, data: unknown, options: CheckOptions = {}): void {
  const violations = check(provider, urn, data, options);
  if (violations.length > 0) throw new InvalidPayloadError(urn, violations);
}

/**
 * The contract's name for the Node producer guard: the same function as `validate`.
 * @alias
 */
export const validateSchema: typeof validate = validate;

/** `validate` for a provider that may answer with a promise: rejects with InvalidPayloadError. */
export async function validateAsync(provider: AsyncProvider, urn: string, data: unknown, options: CheckOptions = {}): Promise<void> {
  const violations = await checkAsync(provider, urn, data, options);
  if (violations.length > 0) throw new InvalidPayloadError(urn, violations);
}

/**
 * The envelope form of `validate`: reads identity by the envelope rules, reports identity warnings
 * (to `options.onWarning`, else process.emitWarning), then validates `data`.
 * @returns what was read: `{urn, data, warnings}`.
 * @throws EnvelopeError when the envelope cannot be read, InvalidPayloadError when `data` is invalid,
 *   UnknownUrnError when the URN has no schema and `options.unknownUrn` is 'reject'.
 */
export function validateEnvelope<D extends object>(provider: Provider, envelope: Envelope<D>, options: GuardOptions = {}): ReadEnvelope {
  const rejectUnknown = rejectsUnknownUrn(options);
  const read = readReported(envelope, options);
  noticeDeprecated(provider, read.urn, options);
  judge(schemaOf(provider.schemaFor(read.urn), read.urn, true), read, rejectUnknown);
  return read;
}

/** `validateEnvelope` for a provider that may answer with a promise. */
export async function validateEnvelopeAsync<D extends object>(
  provider: AsyncProvider,
  envelope: Envelope<D>,
  options: GuardOptions = {},
): Promise<ReadEnvelope> {
  const rejectUnknown = rejectsUnknownUrn(options);
  const read = readReported(envelope, options);
  noticeDeprecated(provider, read.urn, options);
  judge(schemaOf(await provider.schemaFor(read.urn), read.urn, false), read, rejectUnknown);
  return read;
}

/**
 * Consumer safety net: validates each envelope before the handler runs (the provider may be
 * synchronous or asynchronous). Invalid data rejects with InvalidPayloadError without calling the
 * handler, so the message takes the retry / dead-letter path; an EnvelopeError or a provider error
 * propagates unchanged. A URN without a schema reaches the handler unvalidated (validation is
 * opt-in), unless `options.unknownUrn` is 'reject': then it rejects with UnknownUrnError.
 * Identity warnings go to `options.onWarning`, else process.emitWarning.
 *
 * `wrap(provider, async (envelope) => envelope.data.order_id)` types `envelope` as the wire
 * `Envelope`; annotate it as `Envelope<Order>` to type `data`.
 */
export function wrap<D extends object = Record<string, unknown>, R extends unknown[] = [], T = unknown>(
  provider: AsyncProvider,
  handler: (envelope: Envelope<D>, ...rest: R) => T | Promise<T>,
  options: GuardOptions = {},
): (envelope: Envelope<D>, ...rest: R) => Promise<T> {
  // A mistyped option fails here, at start-up, not on the first message.
  rejectsUnknownUrn(options);
  deprecatedCallback(options);
  return async (envelope: Envelope<D>, ...rest: R): Promise<T> => {
    await validateEnvelopeAsync(provider, envelope, options);
    return handler(envelope, ...rest);
  };
}
