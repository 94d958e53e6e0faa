import { compareSchemas, previewWitness, unknownKeywords, type CompatLevel, type CompatPolicy } from '../compat/index.js';
import { hasOwn, isSchemaObject, lintSchema, MAX_DEPTH, SchemaError } from '../validator/index.js';
import { ApiError } from './errors.js';
import { SCHEMA_TYPE } from './snapshot.js';

/** A posted `{schema: "<JSON text>", schemaType?}` body's schema; a bad body is an ApiError. */
export function postedSchema(body: Buffer | Uint8Array | undefined): Record<string, unknown> {
  return postedBody(body).schema;
}

/** A posted `{schema: "<JSON text>", schemaType?, …}` body: its schema, parsed, and the body's other fields. */
export function postedBody(body: Buffer | Uint8Array | undefined): { schema: Record<string, unknown>; fields: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(body === undefined ? '' : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new ApiError('badRequest', 'the request body is not valid JSON');
  }
  if (!isSchemaObject(value))
    throw new ApiError('badRequest', 'the request body must be a JSON object {"schema": "<schema as JSON text>"}');
  const type = hasOwn(value, 'schemaType') ? value.schemaType : undefined;
  if (type !== undefined && type !== null && type !== SCHEMA_TYPE) {
    throw new ApiError('invalidSchema', `schemaType ${JSON.stringify(type)} is not served: this registry holds JSON schemas only`);
  }
  const text = hasOwn(value, 'schema') ? value.schema : undefined;
  if (typeof text !== 'string') throw new ApiError('invalidSchema', 'Invalid schema: "schema" must hold the schema as a JSON string');
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    throw new ApiError('invalidSchema', `Invalid schema: not valid JSON: ${(err as Error).message}`);
  }
  if (!isSchemaObject(schema)) throw new ApiError('invalidSchema', 'Invalid schema: a JSON schema must be a JSON object');
  return { schema, fields: value };
}

/** Whether `value` nests deeper than `max` levels (iterative: the value may be far deeper than the stack). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** One `/compatibility` question: the registered schema (as served, JSON text) and the posted body. */
export interface CompatQuestion {
  registered: string;
  body: Uint8Array | undefined;
  /** `none` (level NONE): any schema that would be enforced as written is compatible. */
  level: CompatLevel;
  policy: CompatPolicy;
  verbose: boolean;
  /** Unknown keywords the posted schema may introduce (serve --allow-keyword, as compat's). */
  allowKeywords?: readonly string[];
}

/**
 * Refuses a posted schema holding a constraint nobody would enforce: a malformed keyword, or an
 * unknown one (a typo: `requried`) that the registered schema does not already have. `bqschema
 * compat` fails the same pair (docs/contract.md §8, §14); answering it compatible would be a
 * false green. Applied at every level, NONE included: an invalid schema is invalid at any level.
 */
function refuseUnenforced(schema: unknown, registered: unknown, allowKeywords: readonly string[] = []): void {
  // A keyword value of the wrong shape has no effect at validation time; as a candidate it is an error.
  const issue = lintSchema(schema)[0];
  if (issue !== undefined) throw new SchemaError(`${issue.pointer || '/'}: ${issue.keyword} ${issue.message}`);
  const unknown = unknownKeywords(schema, registered, new Set(allowKeywords))[0];
  if (unknown !== undefined) {
    const problem = unknown.message.replace(/^new schema: /, '');
    throw new SchemaError(
      `${problem}${problem.endsWith('?') ? ' F' : '; f'}ix the name, or start serve with --allow-keyword ${unknown.keyword}`,
    );
  }
}

/**
 * The answer body of `/compatibility` (`{is_compatible, messages?}`); a bad posted schema is an
 * ApiError. Pure and bounded the same way everywhere (MAX_DEPTH; the witness budget of
 * compareSchemas), so it answers alike in the server's thread and in a worker.
 */
export function judgeCompatibility(q: CompatQuestion): { is_compatible: boolean; messages?: string[] } {
  const schema = postedSchema(q.body);
  if (deeperThan(schema, MAX_DEPTH))
    throw new ApiError(
      'invalidSchema',
      `Invalid schema: nested deeper than ${MAX_DEPTH} levels (objects and arrays), the most bqschema reads`,
    );
  const registered: unknown = JSON.parse(q.registered);
  if (deeperThan(registered, MAX_DEPTH))
    throw new ApiError(
      'backend',
      `the registered schema is nested deeper than ${MAX_DEPTH} levels (objects and arrays), the most bqschema reads`,
    );
  let result;
  try {
    refuseUnenforced(schema, registered, q.allowKeywords);
    if (q.level === 'none') return q.verbose ? { is_compatible: true, messages: [] } : { is_compatible: true };
    // Witnesses only when they are shown (verbose): the plain answer is a boolean.
    result = compareSchemas(registered, schema, { level: q.level, policy: q.policy, witnesses: q.verbose });
  } catch (err) {
    // RangeError: a schema nested deeper than the stack; both are about the posted schema.
    if (err instanceof SchemaError || err instanceof RangeError) throw new ApiError('invalidSchema', `Invalid schema: ${err.message}`);
    throw err;
  }
  if (!q.verbose) return { is_compatible: result.compatible };
  const messages = result.changes
    .filter((c) => c.breaking)
    .map((c) => {
      const w = c.witness ?? c.otherWitness;
      const proof = c.witness
        ? `; witness valid under ${w!.validUnder}: ${previewWitness(w!.payload, c.path, c.subject, 200)}`
        : c.witness === null && c.witnessReason === 'policy'
          ? `; no payload shows it (policy)${w ? `; the other way, valid under ${w.validUnder}: ${previewWitness(w.payload, c.path, c.subject, 200)}` : ''}`
          : c.witnessReason === 'budget'
            ? '; no witness (the search budget was spent on earlier changes)'
            : '';
      return `${c.path || '/'}: ${c.message} (${c.rule})${proof}`;
    });
  return { is_compatible: result.compatible, messages };
}
