// `bqschema/standalone`: the run-time half of the modules `bqschema compile` writes. Such a module
// holds each URN's validator as plain functions and imports only this: the helpers those functions
// call and `define`, which assembles one validator. Nothing here generates code (no eval, no new
// Function), so the modules run under a Content-Security-Policy without 'unsafe-eval', on
// Cloudflare Workers and under `node --disallow-code-generation-from-strings`.
import { helpers, type Helpers } from '../validator/helpers.js';
import type { CompiledSchema, SchemaWarning, Violation } from '../validator/types.js';

/**
 * The version of the contract between a written module and this runtime (the helpers' names and
 * meanings, `define`'s arguments). A module written for another one refuses to load, naming
 * the command that rewrites it.
 */
export const STANDALONE_RUNTIME = 1;

/** What a written module passes to `define` for one URN. */
type Factory<F> = (H: Helpers, c: readonly unknown[]) => F;

/**
 * One URN's validator, as `compile(schema, { urn })` would give it: `{ schema, urn, warnings,
 * isValid, validate }`, frozen. So it is a `CompiledSchema`: a provider may answer it to
 * `check`, `validate`, `wrap` and `mask`.
 */
export function define(
  runtime: number,
  urn: string,
  schema: unknown,
  warnings: SchemaWarning[],
  consts: readonly unknown[],
  valid: Factory<(data: unknown) => boolean>,
  all: Factory<(data: unknown) => Violation[]>,
): CompiledSchema {
  if (runtime !== STANDALONE_RUNTIME) {
    throw new Error(
      `this validators module was written for bqschema/standalone runtime ${String(runtime)}, and this bqschema has runtime ${STANDALONE_RUNTIME}: write it again with bqschema compile`,
    );
  }
  return Object.freeze({
    schema,
    urn,
    warnings: Object.freeze(warnings),
    isValid: valid(helpers, consts),
    validate: all(helpers, consts),
  });
}

export type { CompiledSchema, SchemaWarning, Violation };
