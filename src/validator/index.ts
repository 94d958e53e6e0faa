export { compile } from './compile.js';
export { MAX_DEPTH } from './limits.js';
export { lintSchema } from './lint.js';
export { canonicalKey, jsonEqual } from './equality.js';
export { codePointLength, firstCodePoint } from './codepoints.js';
export { escapePointerToken, joinPointer, parsePointer, pointerLabel } from './pointer.js';
export {
  SUPPORTED_KEYWORDS,
  ANNOTATION_KEYWORDS,
  DRAFT_KEYWORDS,
  SchemaError,
  lengthBound,
  minimumBound,
  isSchemaObject,
  describe,
  hasOwn,
  parseSchema,
} from './keywords.js';
export type { SchemaNode } from './keywords.js';
export { nearestKeyword } from './suggest.js';
export { malformedMessage, reportWarnings, unknownMessage, warningMessage, MALFORMED_WARNING_CODE, WARNING_CODE } from './warnings.js';
export type { CompileOptions, CompiledSchema, LintIssue, SchemaWarning, Violation } from './types.js';
