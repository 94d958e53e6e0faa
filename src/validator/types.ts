/** One reason a value failed its schema. Both paths are RFC 6901 JSON Pointers. */
export interface Violation {
  /** Where in the data: `""` is the root, `/items/0/sku` a nested value. */
  instancePath: string;
  /** Where in the schema: the keyword that failed, e.g. `/properties/sku/minLength`. */
  schemaPath: string;
  keyword: string;
  message: string;
}

/** An unsupported keyword found when a schema is compiled: it is not enforced. */
export interface SchemaWarning {
  /** JSON Pointer of the schema object that carries the keyword (`""` for the root). */
  pointer: string;
  keyword: string;
  urn?: string;
}

/** A supported keyword whose value has the wrong shape (it has no effect at validation time). */
export interface LintIssue {
  pointer: string;
  keyword: string;
  message: string;
}

export interface CompileOptions {
  /** Receives each unsupported-keyword warning. Without it, warnings go to process.emitWarning. */
  onWarning?: (warning: SchemaWarning, message: string) => void;
  /** The URN the schema is registered for; named in warnings. */
  urn?: string;
}

export interface CompiledSchema {
  /** The schema as given (not copied). */
  readonly schema: unknown;
  readonly urn: string | undefined;
  /** Unsupported keywords, one per occurrence, in schema order. */
  readonly warnings: readonly SchemaWarning[];
  /** Every violation, in a stable order; `[]` when the data is valid. */
  validate(data: unknown): Violation[];
  /** The fast path: stops at the first failure and allocates nothing. */
  isValid(data: unknown): boolean;
}
