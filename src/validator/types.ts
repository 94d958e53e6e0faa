/** One reason a value failed its schema. Both paths are RFC 6901 JSON Pointers. */
export interface Violation {
  /** Where in the data: `""` is the root, `/items/0/sku` a nested value. */
  instancePath: string;
  /** Where in the schema: the keyword that failed, e.g. `/properties/sku/minLength`. */
  schemaPath: string;
  keyword: string;
  message: string;
}

/**
 * A keyword found when a schema is compiled that is not enforced: `unsupported` (a JSON Schema
 * keyword outside the ten the contract enforces: `format`, `pattern`, …), `unknown` (a keyword no
 * JSON Schema draft defines, most often a typo such as `requried`; docs/contract.md §14) or
 * `malformed` (one of the ten with a value of the wrong shape, or a NaN anywhere; docs/contract.md
 * §8). None changes a verdict.
 */
export interface SchemaWarning {
  kind: 'unsupported' | 'unknown' | 'malformed';
  /** JSON Pointer of the schema object that carries the keyword (`""` for the root). */
  pointer: string;
  keyword: string;
  /** What is wrong with a malformed keyword's value, e.g. `must be an array of strings, got …`. */
  message?: string;
  /** For an unknown keyword: the supported keyword it is nearest to (two edits, any case), e.g. `required` for `requried`. */
  suggestion?: string;
  urn?: string;
}

/** A supported keyword whose value has the wrong shape (it has no effect at validation time). */
export interface LintIssue {
  pointer: string;
  keyword: string;
  message: string;
}

export interface CompileOptions {
  /** Receives each warning (every kind). Without it, warnings go to process.emitWarning. */
  onWarning?: (warning: SchemaWarning, message: string) => void;
  /** Throw a SchemaError for the first malformed or unknown keyword instead of warning (unsupported ones still only warn). */
  strict?: boolean;
  /** The URN the schema is registered for; named in warnings. */
  urn?: string;
}

export interface CompiledSchema {
  /** The schema as given (not copied). */
  readonly schema: unknown;
  readonly urn: string | undefined;
  /** Unsupported, unknown and malformed keywords, one per occurrence, in schema order. */
  readonly warnings: readonly SchemaWarning[];
  /**
   * Every violation, in a stable order; `[]` when the data is valid. With `limit` (a number from 1),
   * at most that many: the first ones of that order, the walk ending at the last (what bounds the
   * memory a message with millions of violations takes). Compiled on its first call (the object is
   * frozen from then on; sealed before).
   */
  validate(data: unknown, limit?: number): Violation[];
  /** The fast path: stops at the first failure and allocates nothing. */
  isValid(data: unknown): boolean;
}
