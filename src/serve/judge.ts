import { compareSchemas, previewPayload, type CompatMode, type CompatPolicy } from '../compat/index.js';
import { hasOwn, isSchemaObject, lintSchema, SchemaError } from '../validator/index.js';
import { ApiError } from './errors.js';
import { SCHEMA_TYPE } from './snapshot.js';

/** A posted `{schema: "<JSON text>", schemaType?}` body's schema; a bad body is an ApiError. */
export function postedSchema(body: Buffer | Uint8Array | undefined): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body === undefined ? '' : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new ApiError('badRequest', 'the request body is not valid JSON');
  }
  if (!isSchemaObject(value)) throw new ApiError('badRequest', 'the request body must be a JSON object {"schema": "<schema as JSON text>"}');
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
  return schema;
}

/** One `/compatibility` question: the registered schema (as served, JSON text) and the posted body. */
export interface CompatQuestion {
  registered: string;
  body: Uint8Array | undefined;
  mode: CompatMode;
  policy: CompatPolicy;
  verbose: boolean;
}

/**
 * The answer body of `/compatibility` (`{is_compatible, messages?}`); a bad posted schema is an
 * ApiError. Pure, so it runs the same in the server's thread and in its worker.
 */
export function judgeCompatibility(q: CompatQuestion): { is_compatible: boolean; messages?: string[] } {
  const schema = postedSchema(q.body);
  let result;
  try {
    // A keyword value of the wrong shape has no effect at validation time; as a candidate it is an error.
    const issue = lintSchema(schema)[0];
    if (issue !== undefined) throw new SchemaError(`${issue.pointer || '/'}: ${issue.keyword} ${issue.message}`);
    // Witnesses only when they are shown (verbose): the plain answer is a boolean.
    result = compareSchemas(JSON.parse(q.registered), schema, { mode: q.mode, policy: q.policy, witnesses: q.verbose });
  } catch (err) {
    // RangeError: a schema nested deeper than the stack; both are about the posted schema.
    if (err instanceof SchemaError || err instanceof RangeError) throw new ApiError('invalidSchema', `Invalid schema: ${err.message}`);
    throw err;
  }
  if (!q.verbose) return { is_compatible: result.compatible };
  const messages = result.changes.filter((c) => c.breaking).map((c) => {
    const w = c.witness ?? c.otherWitness;
    const proof = c.witness ? `; witness valid under ${w!.validUnder}: ${previewPayload(w!.payload, 200)}`
      : c.witness === null && c.witnessReason === 'policy' ? `; no payload shows it (policy)${w ? `; the other way, valid under ${w.validUnder}: ${previewPayload(w.payload, 200)}` : ''}` : '';
    return `${c.path || '/'}: ${c.message} (${c.rule})${proof}`;
  });
  return { is_compatible: result.compatible, messages };
}
