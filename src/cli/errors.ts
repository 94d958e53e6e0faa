import { GitError, ParseFailure, RegistryError, RegistryNotFoundError } from '../registry/index.js';
import { SchemaError } from '../validator/index.js';

/** The invocation is wrong: a bad option, an unregistered `--urn`, no input, an unwritable target. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The command ran and its gate failed, with nothing more to print than this line. */
export class GateError extends Error {
  override name = 'GateError';
}

export const EXIT_OK = 0;
export const EXIT_GATE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;

/**
 * The one exit-code policy: the first row whose class the error is an instance of decides (so a
 * subclass row comes before its parent's). A command that returns normally returns EXIT_OK or
 * EXIT_GATE itself; anything thrown is mapped here. The README's exit-code table is checked
 * against this list by a test.
 */
export const EXIT_POLICY: ReadonlyArray<{ error: abstract new (...args: never[]) => Error; code: number; meaning: string }> = [
  {
    error: UsageError,
    code: EXIT_USAGE,
    meaning:
      'the invocation is wrong: a bad option, an unregistered --urn, no input, an unwritable output or one that is a file the run reads',
  },
  { error: RegistryNotFoundError, code: EXIT_USAGE, meaning: 'no registry manifest where one was given or searched for' },
  { error: GitError, code: EXIT_USAGE, meaning: 'git cannot be run, or the --against ref names no commit' },
  { error: RegistryError, code: EXIT_GATE, meaning: 'the registry is broken: a malformed manifest or schema, a path outside the registry' },
  { error: ParseFailure, code: EXIT_GATE, meaning: 'an input file does not parse' },
  { error: SchemaError, code: EXIT_GATE, meaning: 'a schema cannot be compiled' },
  { error: GateError, code: EXIT_GATE, meaning: 'the gate failed' },
];

/** The exit code of an error thrown out of a command; EXIT_INTERNAL for anything unforeseen (a bug). */
export function exitCodeFor(err: unknown): number {
  for (const row of EXIT_POLICY) if (err instanceof row.error) return row.code;
  return EXIT_INTERNAL;
}

/** Every exit code with its meaning, for `--help` and the docs. */
export const EXIT_CODES: ReadonlyArray<{ code: number; meaning: string }> = [
  { code: EXIT_OK, meaning: 'success: everything checked passed' },
  {
    code: EXIT_GATE,
    meaning: 'the gate failed: invalid messages, breaking changes, registry problems, inputs that do not parse or cannot be read',
  },
  { code: EXIT_USAGE, meaning: 'usage: bad options, no registry found, no input, unknown --urn, git ref not found' },
  { code: EXIT_INTERNAL, meaning: 'internal error: a bug in bqschema (set BQSCHEMA_DEBUG=1 for a stack trace and report it)' },
];
