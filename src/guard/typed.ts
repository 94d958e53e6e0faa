import type { Provider } from '../providers/provider.js';
import { hasOwn, type Violation } from '../validator/index.js';
import type { Envelope } from './envelope.js';
import { check, rejectsUnknownUrn, validate, validateEnvelope, type GuardOptions } from './guard.js';

/*
 * Compile-time typing for the guard, from the `BqMessages` map that `bqschema types` generates
 * (URN → type of its `data`). Types only, plus thin wrappers over the untyped functions: the run
 * time verdicts are exactly those of `check` / `validate` / `wrap`.
 */

/** The URNs of a message map. */
export type UrnOf<M> = Extract<keyof M, string>;

/**
 * A wire envelope typed by its URN: a union over the map's URNs discriminated by `job`, so
 * `switch (envelope.job)` narrows `envelope.data`. Other envelope fields are left as they are.
 */
export type TypedEnvelope<M, U extends UrnOf<M> = UrnOf<M>> = U extends UrnOf<M> ? { job: U; data: M[U]; [field: string]: unknown } : never;

export interface TypedGuard<M> {
  /** `check(provider, urn, data)` with `data` typed by the URN. */
  check<U extends UrnOf<M>>(urn: U, data: M[U]): Violation[];
  /** `validate(provider, urn, data)` with `data` typed by the URN: throws InvalidPayloadError. */
  validate<U extends UrnOf<M>>(urn: U, data: M[U]): void;
  /**
   * `wrap(provider, handler, options)` whose handler receives the envelope typed by URN. Unlike the
   * untyped wrap, a URN the provider has no schema for always rejects with UnknownUrnError (its
   * data has no type), and an envelope identified by the `urn` alias reaches the handler as a
   * shallow copy with `job` set to that URN, so the discriminant always names the URN that was
   * validated.
   */
  wrap<R extends unknown[], T>(
    handler: (envelope: TypedEnvelope<M>, ...rest: R) => T | Promise<T>,
  ): (envelope: unknown, ...rest: R) => Promise<T>;
}

/**
 * The guard functions bound to a provider and typed by a message map: `typed<BqMessages>(provider)`.
 * `options` are wrap's (`onWarning`; `onDeprecated` for check and validate too); `unknownUrn` can only be 'reject', the typed wrap's rule.
 */
export function typed<M extends object>(provider: Provider, options: GuardOptions & { unknownUrn?: 'reject' } = {}): TypedGuard<M> {
  if (options.unknownUrn !== undefined && !rejectsUnknownUrn(options)) {
    throw new TypeError(
      `typed(): unknownUrn must be 'reject' (a message without a schema has no type for the handler); use the untyped wrap to let such messages pass`,
    );
  }
  const wrapOptions: GuardOptions = { ...options, unknownUrn: 'reject' };
  return {
    check: (urn, data) => check(provider, urn, data, options),
    validate: (urn, data) => validate(provider, urn, data, options),
    wrap:
      (handler) =>
      async (envelope, ...rest) => {
        const { urn } = validateEnvelope(provider, envelope as Envelope, wrapOptions);
        const wire = envelope as Record<string, unknown>;
        const message = hasOwn(wire, 'job') && wire.job === urn ? wire : { ...wire, job: urn };
        return handler(message as TypedEnvelope<M>, ...rest);
      },
  };
}
