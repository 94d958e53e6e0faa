// `bqschema/babelqueue-node`: a drop-in for the schema module of the BabelQueue Node SDK
// (`import { schema } from '@babelqueue/core'`): the same names, signatures, sync/async shapes and
// error class, backed by bqschema's validator, so the whole contract is enforced (unions,
// maxLength, lengths in code points, key-order-free equality; docs/babelqueue-node.md lists where
// verdicts differ from the SDK's and why). Violations are the SDK's strings, `<path>: <reason>`.
import { sensitivePaths as pathsOf, type SensitivePath } from '../validator/sensitive-paths.js';
import { InvalidPayloadError } from '../guard/guard.js';
import { compile, hasOwn, isSchemaObject, parsePointer, type CompiledSchema, type Violation } from '../validator/index.js';

/** A parsed JSON Schema node. */
export type SchemaNode = Record<string, unknown>;

/**
 * A schema as a provider may hold it: a node, or a boolean schema (docs/contract.md §2): `true`
 * accepts every value, `false` none. Only `undefined` (or `null`) means "no schema".
 */
export type Schema = SchemaNode | boolean;

/** The envelope the SDK's handlers receive (the fields this module reads; others pass through). */
export interface Envelope {
  job: string;
  data: Record<string, unknown>;
  [key: string]: unknown;
}

/** A consume handler: receives a decoded envelope, may be sync or async. */
export type SchemaHandler = (env: Envelope) => void | Promise<void>;

/** A source of per-URN `data` schemas; `schemaFor` may be sync or async. */
export interface SchemaProvider {
  schemaFor(urn: string): Schema | undefined | Promise<Schema | undefined>;
}

export type { SensitivePath };

/** In-memory SchemaProvider, for tests and for schemas embedded in code. */
export class MapProvider implements SchemaProvider {
  private readonly schemas: Map<string, Schema>;

  constructor(schemas: Record<string, Schema>) {
    this.schemas = new Map(Object.entries(schemas));
  }

  /** A provider from URN -> raw JSON Schema text, each parsed (`true` and `false` are schemas too). */
  static fromJson(raw: Record<string, string>): MapProvider {
    const schemas: Record<string, Schema> = {};
    for (const [urn, body] of Object.entries(raw)) {
      const decoded: unknown = JSON.parse(body);
      if (!isSchemaObject(decoded) && typeof decoded !== 'boolean') throw new Error(`schema: invalid JSON schema for "${urn}"`);
      schemas[urn] = decoded;
    }
    return new MapProvider(schemas);
  }

  schemaFor(urn: string): Schema | undefined {
    return this.schemas.get(urn);
  }
}

// A message's data that does not match its URN's schema: the guard's error class, with the SDK's
// `violation` (the first one, `<path>: <reason>`) and message.
export { InvalidPayloadError };

// Compiled once per schema object: the SDK takes raw schemas, compile() is the costly part. The
// two boolean schemas are compiled once each (a WeakMap holds objects only).
const compiled = new WeakMap<object, CompiledSchema>();
const booleans = new Map<boolean, CompiledSchema>();
function compiledOf(schema: Schema): CompiledSchema {
  if (typeof schema !== 'object' || schema === null) {
    // A boolean; anything else is not a schema, and compile() says so (a SchemaError), never a pass.
    let b = booleans.get(schema);
    if (b === undefined) {
      b = compile(schema, { onWarning: () => {} });
      booleans.set(schema, b);
    }
    return b;
  }
  let c = compiled.get(schema);
  if (c === undefined) compiled.set(schema, (c = compile(schema, { onWarning: () => {} })));
  return c;
}

/** The value at a JSON Pointer (own properties only), or undefined. */
function at(root: unknown, tokens: readonly string[]): unknown {
  let cur = root;
  for (const t of tokens) {
    if (cur === null || typeof cur !== 'object' || !hasOwn(cur as object, t)) return undefined;
    cur = (cur as Record<string, unknown>)[t];
  }
  return cur;
}

/** A data pointer in the SDK's path syntax: `a.b`, `lines[1].sku`, `<root>`. */
function sdkPath(value: unknown, tokens: readonly string[]): string {
  let path = '';
  let cur = value;
  for (const t of tokens) {
    path = Array.isArray(cur) ? `${path}[${t}]` : path === '' ? t : `${path}.${t}`;
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[t] : undefined;
  }
  return path;
}

const TYPE_REASON: Record<string, string> = {
  object: 'not_an_object',
  array: 'not_an_array',
  string: 'not_a_string',
  integer: 'not_an_integer',
  number: 'not_a_number',
  boolean: 'not_a_boolean',
  null: 'not_null',
};

/** One of our violations as the SDK writes one. */
function sdkViolation(schema: Schema, value: unknown, v: Violation, base: string): string {
  const tokens = parsePointer(v.instancePath);
  const schemaTokens = parsePointer(v.schemaPath);
  let path = sdkPath(value, tokens);
  let reason: string;
  switch (v.keyword) {
    case 'required': {
      // The SDK names the missing key: the first required name the object lacks.
      const names = at(schema, schemaTokens);
      const obj = at(value, tokens);
      const missing = Array.isArray(names)
        ? names.find((n) => typeof n === 'string' && !(isSchemaObject(obj) && hasOwn(obj, n)))
        : undefined;
      if (typeof missing === 'string') path = path === '' ? missing : `${path}.${missing}`;
      reason = 'missing_required';
      break;
    }
    case 'type': {
      const t = at(schema, schemaTokens);
      reason = typeof t === 'string' ? (TYPE_REASON[t] ?? 'wrong_type') : 'wrong_type'; // a union: the SDK has no word for it
      break;
    }
    case 'additionalProperties':
      reason = 'additional_not_allowed';
      break;
    case 'enum':
      reason = 'not_in_enum';
      break;
    case 'const':
      reason = 'wrong_const';
      break;
    case 'minLength':
      reason = 'below_min_length';
      break;
    case 'maxLength':
      reason = 'above_max_length';
      break;
    case 'minimum':
      reason = 'below_minimum';
      break;
    // A `false` schema: at the root (`false`), or under the keyword that led to it (a property's or
    // the items' schema is `false`); additionalProperties' is `additional_not_allowed` above.
    case 'false':
    case 'properties':
    case 'items':
      reason = 'not_allowed';
      break;
    default:
      reason = v.keyword;
  }
  const full = base === '' ? path : path === '' ? base : `${base}.${path}`;
  return `${full === '' ? '<root>' : full}: ${reason}`;
}

/**
 * The first violation of `value` against a schema node, or null. Synchronous, as the SDK's. The
 * verdict (null or not) is the contract's; which violation is named first may differ from the SDK
 * when there are several.
 */
export function validateSchema(schema: Schema, value: unknown, path = ''): string | null {
  return firstViolation(schema, value, path)?.text ?? null;
}

/** The first violation, as ours and as the SDK words it, or null. */
function firstViolation(schema: Schema, value: unknown, path: string): { violation: Violation; text: string } | null {
  const c = compiledOf(schema);
  if (c.isValid(value)) return null;
  const first = c.validate(value, 1)[0]; // the walk stops at it
  return first === undefined ? null : { violation: first, text: sdkViolation(schema, value, first, path) };
}

/**
 * The first violation of `(urn, data)`, or null when valid or when no schema is registered
 * (opt-in: the provider answered `undefined` or `null`). A `false` schema is a schema, which no
 * data satisfies.
 */
export async function check(provider: SchemaProvider, urn: string, data: Record<string, unknown>): Promise<string | null> {
  const node = await provider.schemaFor(urn);
  if (node === undefined || node === null) return null;
  return validateSchema(node, data);
}

/** Validates `(urn, data)`, throwing InvalidPayloadError on a violation: the producer-side guard. */
export async function validate(provider: SchemaProvider, urn: string, data: Record<string, unknown>): Promise<void> {
  const node = await provider.schemaFor(urn);
  if (node === undefined || node === null) return;
  const first = firstViolation(node, data, '');
  if (first !== null) {
    throw new InvalidPayloadError(urn, [first.violation], {
      violation: first.text,
      message: `Message data for "${urn}" does not match its URN schema: ${first.text}.`,
    });
  }
}

/** A consume handler that validates `env.data` by `env.job` first; invalid data throws, the handler does not run. */
export function wrap(provider: SchemaProvider, handler: SchemaHandler): SchemaHandler {
  return async (env: Envelope): Promise<void> => {
    await validate(provider, env.job, env.data);
    await handler(env);
  };
}

/** The SDK's reading of a marker: `true` (category `""`) or a non-empty string; anything else is not a mark. */
function sdkCategory(node: unknown): string | undefined {
  const m = isSchemaObject(node) && hasOwn(node, 'x-gdpr-sensitive') ? node['x-gdpr-sensitive'] : undefined;
  return m === true ? '' : typeof m === 'string' && m !== '' ? m : undefined;
}

/**
 * Every property marked `x-gdpr-sensitive`, sorted by path (`email`, `profile.full_name`,
 * `addresses[].line`). As the SDK reads markers: a malformed one (`""`, `1`) is not listed here,
 * though bqschema's own masking treats it as marked and `bqschema check` fails on it.
 */
export function sensitivePaths(schema: Schema): SensitivePath[] {
  return pathsOf(schema, sdkCategory);
}
