import type { CompileOptions, SchemaWarning } from './types.js';

export const WARNING_CODE = 'BABELQUEUE_UNSUPPORTED_SCHEMA_KEYWORD';

/** The human text of a warning; it names the URN when there is one. */
export function warningMessage(w: SchemaWarning): string {
  const where = w.pointer === '' ? 'the schema root' : w.pointer;
  const whose = w.urn === undefined ? '' : `schema for ${w.urn}: `;
  return `${whose}unsupported keyword "${w.keyword}" at ${where} is not enforced`;
}

// process.emitWarning is told each distinct message once per process, as the contract's Node row says.
const emitted = new Set<string>();

/** Sends warnings to `onWarning`, else to process.emitWarning (code BABELQUEUE_UNSUPPORTED_SCHEMA_KEYWORD). */
export function reportWarnings(warnings: readonly SchemaWarning[], options: Pick<CompileOptions, 'onWarning'>): void {
  for (const w of warnings) {
    const message = warningMessage(w);
    if (options.onWarning) {
      options.onWarning(w, message);
    } else if (!emitted.has(message)) {
      emitted.add(message);
      process.emitWarning(message, { code: WARNING_CODE });
    }
  }
}
