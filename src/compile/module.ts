import { Code, code, join, valueLiteral } from '../validator/codegen.js';
import { generate } from '../validator/compile.js';
import { parseSchema, SchemaError } from '../validator/keywords.js';
import type { SchemaWarning } from '../validator/types.js';

/*
 * The standalone module `bqschema compile` writes: every URN's validator as plain functions, the
 * very code compile() generates and runs with `new Function`, here written into an ES module that
 * needs no code generation at run time. Each URN's two functions (isValid, validate) are
 * factories of (H, c), the helpers and the constants, as in compile(); `define` (from
 * `bqschema/standalone`) calls them. Security rule, as in compile.ts: the module text is a `Code`;
 * the schema, its warnings, the URN and every constant reach it only through `valueLiteral`.
 */

/** One URN and its schema document (as parsed from its file). */
export interface StandaloneEntry {
  urn: string;
  schema: unknown;
}

export interface StandaloneOptions {
  /** The module the written code imports `define` and STANDALONE_RUNTIME from (default `bqschema/standalone`). */
  runtime?: string;
}

/** The runtime version the written module asks `define` for (src/standalone/index.ts's STANDALONE_RUNTIME). */
const WRITTEN_RUNTIME = 1;

const NL = code`
`;

function entryCode(entry: StandaloneEntry): Code {
  const { urn, schema } = entry;
  const { root, warnings } = parseSchema(schema);
  const named: SchemaWarning[] = warnings.map((w) => ({ ...w, urn }));
  const keySets = new Map<unknown[], Set<string>>();
  const consts: unknown[] = [];
  let valid: Code;
  let all: Code;
  try {
    valid = generate(root, 'valid', keySets, consts);
    all = generate(root, 'all', keySets, consts);
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compile');
    throw err;
  }
  let literals: Code;
  try {
    literals = code`${valueLiteral(urn)},${valueLiteral(schema)},${valueLiteral(named)},${valueLiteral(consts)}`;
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is too large or nested too deeply to write as a module');
    throw err;
  }
  return code`define(R,${literals},
(H,c)=>{${valid}},
(H,c)=>{${all}})`;
}

/**
 * The text of an ES module exporting `validators` (a Map from each URN to its validator,
 * `{ schema, urn, warnings, isValid, validate }` as compile() gives them) and `provider` (a
 * Provider over them, for check/validate/wrap/mask). Entries are written in the order given. A
 * schema that does not compile throws a SchemaError naming its URN.
 */
export function standaloneModule(entries: readonly StandaloneEntry[], options: StandaloneOptions = {}): string {
  const seen = new Set<string>();
  const parts: Code[] = [];
  for (const entry of entries) {
    if (seen.has(entry.urn)) throw new SchemaError(`${entry.urn} is given twice`);
    seen.add(entry.urn);
    try {
      parts.push(code`[${valueLiteral(entry.urn)},${entryCode(entry)}]`);
    } catch (err) {
      if (err instanceof SchemaError)
        throw new SchemaError(
          `${entry.urn}: ${err.message}`,
          err.pointer === undefined || err.keyword === undefined ? undefined : { pointer: err.pointer, keyword: err.keyword },
        );
      throw err;
    }
  }
  const n = entries.length;
  const runtime = options.runtime ?? 'bqschema/standalone';
  // All comment: its only interpolation is a count.
  const header = code`// Written by bqschema compile: the validators of ${n} URN(s), as compile() would give them.
// Do not edit: write it again with bqschema compile. It needs no code generation at run time (no eval,
// no new Function): it runs where a Content-Security-Policy forbids 'unsafe-eval'.
`;
  return code`${header}import { define, STANDALONE_RUNTIME } from ${runtime};
const R = ${WRITTEN_RUNTIME};
const J = JSON.parse;
if (STANDALONE_RUNTIME !== R) define(R);
/** Each URN's validator: { schema, urn, warnings, isValid(data), validate(data) }. */
export const validators = new Map([
${join(parts, code`,${NL}`)}
]);
/** A Provider over the validators, for check, validate, wrap and mask. */
export const provider = Object.freeze({ schemaFor: (urn) => validators.get(urn) });
`.source;
}
