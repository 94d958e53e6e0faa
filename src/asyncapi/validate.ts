import { isSchemaObject, parsePointer } from '../validator/index.js';

export interface AsyncApiIssue {
  /** RFC 6901 pointer into the document. */
  pointer: string;
  message: string;
  /** The URN whose channel, message or operation holds the problem. */
  urn?: string;
}

/** An error as ajv's (standalone) validation code reports it. */
export interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}
export type SpecValidator = ((doc: unknown) => boolean) & { errors?: AjvError[] | null };

let specValidator: Promise<SpecValidator> | undefined;

/**
 * The AsyncAPI 3.0.0 schema's validation code, generated at build time by
 * scripts/build-asyncapi-validator.js (ajv standalone; it needs neither ajv nor @asyncapi/specs
 * at run time). Loaded on first use: the module is large (~1 MB), and importing this one stays cheap.
 */
function loadSpecValidator(): Promise<SpecValidator> {
  specValidator ??= import('./generated/spec-validator.js').then((m) => m.default);
  return specValidator;
}

const COMBINATORS = new Set(['oneOf', 'anyOf', 'allOf', 'if', 'not']);

function describeError(e: AjvError): string {
  const base = e.message ?? `fails ${e.keyword}`;
  if (e.keyword === 'additionalProperties') return `${base}: ${JSON.stringify(e.params.additionalProperty)}`;
  if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) {
    return `${base}: ${e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return base;
}

const own = (o: unknown, k: string): unknown =>
  isSchemaObject(o) && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;

/** The URN of a channel as buildAsyncApi writes it: its message's name, else its address. */
function channelUrn(doc: unknown, key: string): string | undefined {
  const channel = own(own(doc, 'channels'), key);
  const messages = own(channel, 'messages');
  if (isSchemaObject(messages)) {
    for (const k of Object.keys(messages)) {
      const name = own(messages[k], 'name');
      if (typeof name === 'string') return name;
    }
  }
  const address = own(channel, 'address');
  return typeof address === 'string' ? address : undefined;
}

function urnAt(doc: unknown, pointer: string): string | undefined {
  let tokens: string[];
  try {
    tokens = parsePointer(pointer);
  } catch {
    return undefined;
  }
  const [section, key] = tokens;
  if (key === undefined) return undefined;
  if (section === 'channels') return channelUrn(doc, key);
  if (section !== 'operations') return undefined;
  const ref = own(own(own(own(doc, 'operations'), key), 'channel'), '$ref');
  if (typeof ref === 'string' && ref.startsWith('#/channels/')) {
    const target = parsePointer(ref.slice(1))[1];
    const urn = target === undefined ? undefined : channelUrn(doc, target);
    if (urn !== undefined) return urn;
  }
  return channelUrn(doc, key); // buildAsyncApi gives an operation its channel's key
}

/**
 * Checks a document against the official AsyncAPI 3.0.0 JSON Schema. Only the most specific
 * errors are kept: an error is dropped when another one points deeper inside the same value, and
 * a combinator's summary (oneOf, anyOf, …) when a plainer error shares its pointer. `[]` = valid.
 */
export async function validateAsyncApi(doc: unknown): Promise<AsyncApiIssue[]> {
  const validate = await loadSpecValidator();
  if (validate(doc)) return [];
  const errors = validate.errors ?? [];
  const pointers = errors.map((e) => e.instancePath);
  const deepest = errors.filter((e) => !pointers.some((p) => p.startsWith(e.instancePath + '/')));
  const plain = new Set(deepest.filter((e) => !COMBINATORS.has(e.keyword)).map((e) => e.instancePath));
  const seen = new Set<string>();
  const issues: AsyncApiIssue[] = [];
  for (const e of deepest) {
    if (COMBINATORS.has(e.keyword) && plain.has(e.instancePath)) continue;
    const message = describeError(e);
    const id = `${e.instancePath}\n${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const urn = urnAt(doc, e.instancePath);
    issues.push(urn === undefined ? { pointer: e.instancePath, message } : { pointer: e.instancePath, message, urn });
  }
  return issues;
}
