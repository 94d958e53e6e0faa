import { parseSchema } from './keywords.js';
import type { LintIssue } from './types.js';

/**
 * Supported keywords whose values have the wrong shape (docs/contract.md §8): they have no effect at
 * validation time, so the registry self-check reports them. A root that is neither an object nor a
 * boolean is reported at `""`.
 */
export function lintSchema(schema: unknown): LintIssue[] {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    return [{ pointer: '', keyword: '', message: 'a schema must be an object or a boolean' }];
  }
  return parseSchema(schema).lint;
}
