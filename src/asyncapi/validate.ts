import { codePointLength, isSchemaObject, joinPointer, jsonEqual, parsePointer } from '../validator/index.js';

export interface AsyncApiIssue {
  /** RFC 6901 pointer into the document. */
  pointer: string;
  message: string;
  /** The URN whose channel, message or operation holds the problem. */
  urn?: string;
  /** Where in a schema source the problem is (a bundling issue): its file, when known, and the pointer there. */
  source?: { file?: string; pointer: string };
}

/** An error as ajv's (standalone) validation code reports it. */
interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}
type SpecValidator = ((doc: unknown) => boolean) & { errors?: AjvError[] | null };

let specValidator: Promise<SpecValidator> | undefined;

/**
 * The AsyncAPI 3.0.0 schema's validation code, generated at build time by
 * scripts/build-asyncapi-validator.js (ajv standalone; it needs neither ajv nor @asyncapi/specs
 * at run time). Loaded on first use: the module is large (~1 MB), and importing this one stays cheap.
 */
function loadSpecValidator(): Promise<SpecValidator> {
  specValidator ??= import('./generated/spec-validator.cjs').then((m) => m.default({ jsonEqual, codePointLength }));
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

const own = (o: unknown, k: string): unknown => (isSchemaObject(o) && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

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
 * Where the document first refers back to one of its own ancestors (a YAML alias cycle in a
 * schema makes one), as [pointer of the reference, pointer of the ancestor]; undefined when it is
 * a tree. The same object reached along two paths is not a cycle. Iterative, with the current
 * ancestors in a set: depth and size cost no stack.
 */
function findCycle(doc: unknown): [string, string] | undefined {
  if (typeof doc !== 'object' || doc === null) return undefined;
  const onPath = new Map<object, string>();
  const stack: Array<{ value: object; pointer: string } | { leave: object }> = [{ value: doc, pointer: '' }];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if ('leave' in cur) {
      onPath.delete(cur.leave);
      continue;
    }
    onPath.set(cur.value, cur.pointer);
    stack.push({ leave: cur.value });
    const entries: Array<[string, unknown]> = Array.isArray(cur.value)
      ? cur.value.map((v, i) => [String(i), v])
      : Object.keys(cur.value).map((k) => [k, (cur.value as Record<string, unknown>)[k]]);
    for (const [k, v] of entries) {
      if (typeof v !== 'object' || v === null) continue;
      const pointer = joinPointer(cur.pointer, k);
      const ancestor = onPath.get(v);
      if (ancestor !== undefined) return [pointer, ancestor];
      stack.push({ value: v, pointer });
    }
  }
  return undefined;
}

/**
 * Every `$ref` in the document, as AsyncAPI tools read them: each must be a string naming a place
 * in this document (a tool would otherwise read a file or the network, or fail). Iterative; the
 * document is a tree (findCycle ran first).
 */
function refIssues(doc: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const stack: Array<{ value: unknown; pointer: string }> = [{ value: doc, pointer: '' }];
  while (stack.length > 0) {
    const { value, pointer } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], pointer: joinPointer(pointer, i) });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const v = (value as Record<string, unknown>)[key];
      const at = joinPointer(pointer, key);
      if (key === '$ref') {
        const target = typeof v === 'string' ? localTarget(doc, v) : undefined;
        if (target === undefined)
          out.push([
            at,
            `the reference ${JSON.stringify(v)} names no place in this document, so AsyncAPI tools would read another file, the network, or fail`,
          ]);
        continue;
      }
      stack.push({ value: v, pointer: at });
    }
  }
  return out;
}

/** The value a `#/…` reference names in `doc` (percent-decoded where it decodes, own properties), or undefined. */
function localTarget(doc: unknown, ref: string): { value: unknown } | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment = ref.slice(1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    // a lone "%": read as written, as AsyncAPI tools do
  }
  let tokens: string[];
  try {
    tokens = parsePointer(fragment);
  } catch {
    return undefined;
  }
  let at = doc;
  for (const t of tokens) {
    if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(t) && Number(t) < at.length) at = at[Number(t)];
    else if (isSchemaObject(at) && Object.prototype.hasOwnProperty.call(at, t)) at = at[t];
    else return undefined;
  }
  return { value: at };
}

function issue(doc: unknown, pointer: string, message: string): AsyncApiIssue {
  const urn = urnAt(doc, pointer);
  return urn === undefined ? { pointer, message } : { pointer, message, urn };
}

/**
 * Checks a document against the official AsyncAPI 3.0.0 JSON Schema. Only the most specific
 * errors are kept: an error is dropped when another one points deeper inside the same value, and
 * a combinator's summary (oneOf, anyOf, …) when a plainer error shares its pointer. `[]` = valid.
 * A document that refers to itself, or is nested too deeply to check, is one issue, not a crash:
 * it could not be written out either. A `$ref` that names no place in the document is an issue
 * too (a reference in a schema must have been rewritten to its place: ./bundle.ts).
 */
export async function validateAsyncApi(doc: unknown): Promise<AsyncApiIssue[]> {
  const cycle = findCycle(doc);
  if (cycle !== undefined) {
    const [at, ancestor] = cycle;
    return [
      issue(
        doc,
        at,
        `refers back to ${ancestor === '' ? 'the document root' : ancestor} (a YAML alias cycle?): it has no end, so it cannot be written out`,
      ),
    ];
  }
  const refs = refIssues(doc);
  if (refs.length > 0) return refs.map(([at, message]) => issue(doc, at, message));
  const validate = await loadSpecValidator();
  let valid: boolean;
  try {
    valid = validate(doc);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return [issue(doc, '', 'the document is nested too deeply to be checked against the AsyncAPI schema')];
  }
  if (valid) return [];
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
    issues.push(issue(doc, e.instancePath, message));
  }
  return issues;
}
