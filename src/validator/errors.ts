/** A schema that cannot be compiled (or, under `strict`, has a malformed or unknown keyword). */
export class SchemaError extends Error {
  override name = 'SchemaError';
  /** Where the problem is, when it is one keyword (strict mode's malformed or unknown keyword). */
  readonly pointer: string | undefined;
  readonly keyword: string | undefined;

  constructor(message: string, where?: { pointer: string; keyword: string }) {
    super(message);
    this.pointer = where?.pointer;
    this.keyword = where?.keyword;
  }
}
