import type { CompileOptions, SchemaWarning } from './types.js';

export const WARNING_CODE = 'BABELQUEUE_UNSUPPORTED_SCHEMA_KEYWORD';
export const MALFORMED_WARNING_CODE = 'BABELQUEUE_MALFORMED_SCHEMA_KEYWORD';

const where = (w: Pick<SchemaWarning, 'pointer'>): string => (w.pointer === '' ? 'the schema root' : w.pointer);

/** The human text of a warning; it names the URN when there is one. */
export function warningMessage(w: SchemaWarning): string {
  const whose = w.urn === undefined ? '' : `schema for ${w.urn}: `;
  if (w.kind === 'malformed') return `${whose}${malformedMessage(w)}; it is not enforced`;
  if (w.kind === 'unknown') return `${whose}${unknownMessage(w)}`;
  return `${whose}unsupported keyword "${w.keyword}" at ${where(w)} is not enforced`;
}

/** What is wrong with a malformed keyword: `malformed keyword "required" at /properties/x: must be …`. */
export function malformedMessage(w: Pick<SchemaWarning, 'pointer' | 'keyword' | 'message'>): string {
  return `malformed keyword "${w.keyword}" at ${where(w)}: ${w.message ?? 'wrong shape'}`;
}

/**
 * What an unknown keyword is (docs/contract.md §14): `unknown keyword "requried" at the schema root
 * is not enforced (no JSON Schema draft defines it); did you mean "required"?`.
 */
export function unknownMessage(w: Pick<SchemaWarning, 'pointer' | 'keyword' | 'suggestion'>): string {
  const hint = w.suggestion === undefined ? '' : `; did you mean ${JSON.stringify(w.suggestion)}?`;
  return `unknown keyword ${JSON.stringify(w.keyword)} at ${where(w)} is not enforced (no JSON Schema draft defines it)${hint}`;
}

// process.emitWarning is told each distinct message once per process, as the contract's Node row says.
const emitted = new Set<string>();

/**
 * Sends warnings to `onWarning`, else to process.emitWarning (code WARNING_CODE for unsupported and
 * unknown keywords, both unsupported in the contract's sense; MALFORMED_WARNING_CODE for malformed ones).
 */
export function reportWarnings(warnings: readonly SchemaWarning[], options: Pick<CompileOptions, 'onWarning'>): void {
  for (const w of warnings) {
    const message = warningMessage(w);
    if (options.onWarning) {
      options.onWarning(w, message);
    } else if (!emitted.has(message)) {
      emitted.add(message);
      emitWarning(message, w.kind === 'malformed' ? MALFORMED_WARNING_CODE : WARNING_CODE);
    }
  }
}

/**
 * process.emitWarning where there is one (Node, Deno, Bun); elsewhere (a browser: the library's
 * browser build) console.warn, with the code first. `process` is looked up on globalThis, so a
 * runtime without it gets a warning, not a ReferenceError.
 */
export function emitWarning(message: string, code: string): void {
  const proc = (globalThis as { process?: { emitWarning?: (message: string, options: { code: string }) => void } }).process;
  if (typeof proc?.emitWarning === 'function') proc.emitWarning(message, { code });
  else console.warn(`${code}: ${message}`);
}
