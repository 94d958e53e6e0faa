/*
 * The nesting limit bqschema holds, the same wherever it runs: the CLI in its main thread and in
 * its worker threads, the library, the interpreter compile() falls back to where code generation
 * is refused, a module `bqschema compile` wrote, and serve. It is counted, never left to the
 * JavaScript stack, whose size differs between a main thread, a worker thread and a browser: a
 * verdict that depended on it would depend on the runner's cores. docs/contract.md §15 states it.
 */

/**
 * The deepest a schema may nest, counted in objects and arrays (the schema's root is level 1, a
 * property's schema under `properties` level 3): a deeper schema is refused with
 * `DEEP_SCHEMA_MESSAGE`, by parseSchema (so by compile, the interpreter, `bqschema compile`,
 * `check`, compat, types and the catalog) and by serve's `/compatibility`. It also bounds how
 * deep a YAML or JSONC document may nest (their parsers recurse; `src/registry/depth.ts`).
 *
 * Data has no depth limit: a validator reads data only as deep as its schema goes, and compares
 * `enum` and `const` values without recursion, so data nested 100,000 levels deep gets one
 * verdict everywhere.
 */
export const MAX_DEPTH = 512;

/** What a schema deeper than MAX_DEPTH is told, wherever it is refused. */
export const DEEP_SCHEMA_MESSAGE = `the schema is nested deeper than ${MAX_DEPTH} levels (objects and arrays), the most bqschema reads; flatten it`;

/** What a YAML or JSONC document deeper than MAX_DEPTH is told (its parser recurses, so it is not parsed). */
export const DEEP_DOCUMENT_MESSAGE = `the document is nested deeper than ${MAX_DEPTH} levels (objects and arrays), the most bqschema reads from YAML or JSONC; flatten it`;
