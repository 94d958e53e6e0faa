import { escapePointerToken, isSchemaObject, joinPointer, parsePointer } from '../validator/index.js';
import { allocateKeys, byCodeUnits, sanitizeKey } from './keys.js';
import type { AsyncApiIssue } from './validate.js';

/*
 * Registry schemas may use `$ref` (bqschema does not enforce it, but other tools read the schema
 * too). Copied verbatim into an AsyncAPI document, a reference means something else there: JSON
 * References in AsyncAPI resolve against the document, so `#/definitions/money` points at the
 * document's root, and `common.json#/…` at a file beside wherever the reader happens to run.
 * So every reference is rewritten to the place the document holds its target:
 *
 * - a schema's own `definitions` and `$defs` (at its root) become `components.schemas` entries,
 *   `<channel key>.<name>`, and `#/definitions/money/…` points there;
 * - a registry file another schema refers to (`common.json#/definitions/addr`, read relative to
 *   the file holding the `$ref`, within the registry directory) is read once: its definitions
 *   become components the same way (`<file>.<name>`), and its root, when something refers to
 *   it, one of its own (`<file>`); a file that is itself a registered URN's schema is that
 *   URN's payload;
 * - any other pointer goes to the place its schema now has in the document (a payload's
 *   `#/channels/…/payload/schema/…`);
 * - a schema that is only a `$ref` means its target, so a reference to it is written to the end
 *   of the chain.
 *
 * A component is a Schema Object (`#/components/schemas/<key>`); `true` and `false`, which cannot
 * be one, are draft-07 Multi Format Schema Objects (`…/<key>/schema`), as payloads are. A schema
 * with no `$ref`, which no other refers to, is carried verbatim. Pointers are written as they are
 * (`~0`/`~1` escaped, not percent-encoded). Each of these choices avoids a way @asyncapi/parser
 * fails or misreads, found by test/asyncapi/refs.e2e.test.ts: it overflows its stack on Multi Format
 * components that refer to each other, and on a cycle through an alias reached by an escaped
 * pointer; of its two passes over references, the one for cycles does not percent-decode.
 *
 * Keys AsyncAPI tools cannot read are refused, not written: `__proto__` (lost: @asyncapi/parser
 * makes it the object's prototype), `hasOwnProperty` (its reference resolver calls it and fails),
 * `<<` (a YAML merge key to every AsyncAPI tool, which reads JSON as YAML), and `$ref` wherever it
 * is not a schema's reference (a property named `$ref`, or one inside `examples`, `default`,
 * `enum` or an `x-` value): a resolver takes it for a reference and replaces the object holding it.
 * So are references that cannot be bundled (another location, an anchor, a file outside the
 * registry, a place that does not exist, a chain of references back to itself) and the names the
 * parser misreads on a reference's way (empty, or holding a `%` escape).
 */

/**
 * Registry schemas are draft-07, so each payload (and each boolean component) is a Multi Format
 * Schema Object that says so. It carries the schema (annotations and x-gdpr-sensitive included),
 * and unlike a bare payload it admits the boolean schemas `true`/`false`, which @asyncapi/parser
 * rejects as a bare payload or component ("payload property type must be object").
 */
export const PAYLOAD_SCHEMA_FORMAT = 'application/schema+json;version=draft-07';

/** A schema file a `$ref` names, as `SchemaFiles.load` reads it. */
export interface SchemaFile {
  /** The file's identity: what `load` receives as `from` for the references it holds, and what a CatalogEntry's `file` is. */
  file: string;
  /** How readers know it (a path from the registry's directory): its components' keys are made of it. */
  name: string;
  /** The parsed value. */
  value: unknown;
}

/** Reads the files references name; the CLI's reads the registry's files, within its directory. */
export interface SchemaFiles {
  /** The file `path` (a `$ref`'s URI part, percent-decoded) names, relative to the file `from`; throws an Error saying why it cannot be read. */
  load(from: string, path: string): SchemaFile;
}

/** A place in the document and the place in a schema source it was copied from. */
export interface Origin {
  /** Pointer into the document. */
  at: string;
  /** The URN whose schema it is, or the first URN that refers to it. */
  urn: string;
  /** The source file (its SchemaFile.file or CatalogEntry.file), when known. */
  file?: string;
  /** Pointer into the source file. */
  pointer: string;
}

/** The schemas of a catalog, references rewritten into the document's own places. */
export interface Bundle {
  /** Per URN, its message's payload schema. */
  payloads: Map<string, unknown>;
  /** `components.schemas`, in key order (empty when no schema uses `$ref`). */
  components: Array<[string, unknown]>;
  /** Where each payload and component came from, for naming the file and place of a problem. */
  origins: Origin[];
  /** References that cannot be bundled and keys AsyncAPI tools cannot read: the document must not be written. */
  issues: AsyncApiIssue[];
}

export interface BundleEntry {
  urn: string;
  schema: unknown;
  file?: string;
}

const CONTAINERS = ['definitions', '$defs'] as const;
/** Keywords holding one schema. */
const SCHEMA_ONE: ReadonlySet<string> = new Set([
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
/** Keywords holding an array of schemas (`items` may be either). */
const SCHEMA_LIST: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords holding an object of named schemas (`dependencies`' values may also be arrays of names). */
const SCHEMA_MAP: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'dependencies',
]);

const MERGE_KEY = 'the key "<<" is read as a YAML merge key by AsyncAPI tools, which would merge its value into the enclosing object';

/** Why a key no AsyncAPI tool reads as written cannot be exported; `$ref` is one only where it is a name or data, not a schema's keyword. */
function unreadable(key: string, asName: boolean): string | undefined {
  switch (key) {
    case '<<':
      return `${MERGE_KEY}; rename it`;
    case '__proto__':
      return 'the key "__proto__" is lost by AsyncAPI tools (@asyncapi/parser reads it as the object\'s prototype, not a key), so the document would not say what it holds; rename it';
    case 'hasOwnProperty':
      return 'the key "hasOwnProperty" stops AsyncAPI tools (@asyncapi/parser\'s reference resolver calls it as a method); rename it';
    case '$ref':
      return asName
        ? 'the key "$ref" here is not a reference, but AsyncAPI tools read every "$ref" key as one and replace the object holding it with what it names (or fail); rename it, or leave the value out of the schema'
        : undefined;
    default:
      return undefined;
  }
}

/** A `%` and two hex digits: a name holding one reads differently once percent-decoded. */
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
const decodeOr = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const kind = (v: unknown): string =>
  Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
const isSchema = (v: unknown): boolean => typeof v === 'boolean' || isSchemaObject(v);

/** A reference as read: where it points, or why it cannot be followed. */
interface Target {
  source: Source;
  tokens: string[];
}

interface RefSite {
  /** Pointer (in its source) of the schema object holding the `$ref`. */
  at: string;
  ref: string;
}

/** One schema document: a URN's schema or a file a reference names. */
class Source {
  readonly refs: RefSite[] = [];
  /** A value that contains itself (only a library caller can make one): left verbatim for validateAsyncApi to report. */
  cyclic = false;
  referenced = false;
  /** Something refers to a place in it that is not a hoisted definition (an external file's root is then a component). */
  needRoot = false;
  /** Containers a reference names as a whole: left in place. */
  readonly keep = new Set<string>();
  /** `container\0name` → component key. */
  readonly hoisted = new Map<string, string>();
  /** Where its root is in the document. */
  home = '';
  /** An external file's component key. */
  rootKey: string | undefined;

  constructor(
    readonly value: unknown,
    /** The registered URN this is the schema of, or the first URN that reached it. */
    readonly urn: string,
    readonly registered: boolean,
    readonly file: string | undefined,
    /** An external file's name (its key's base). */
    readonly name: string | undefined,
    /** A URN's channel key. */
    readonly channelKey: string | undefined,
  ) {}

  get involved(): boolean {
    return !this.cyclic && (this.refs.length > 0 || this.referenced);
  }

  /** The containers whose entries become components. */
  hoistable(): string[] {
    if (!this.involved || !isSchemaObject(this.value)) return [];
    const root = this.value;
    return CONTAINERS.filter((c) => {
      if (this.keep.has(c) || !own(root, c)) return false;
      const defs = root[c];
      return isSchemaObject(defs) && Object.keys(defs).every((n) => isSchema(defs[n]));
    });
  }
}

/** The pointer tokens of a JSON Pointer `#` fragment, or why it is not one. */
function splitRef(ref: string): { path: string; tokens: string[] } | { problem: string } {
  const hash = ref.indexOf('#');
  const rawPath = hash < 0 ? ref : ref.slice(0, hash);
  const rawFragment = hash < 0 ? '' : ref.slice(hash + 1);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(rawPath) || rawPath.startsWith('//')) {
    return {
      problem:
        "names another location: references are bundled only from the registry's own files; copy the schema into the registry and refer to it by a relative path",
    };
  }
  if (rawPath.includes('?')) return { problem: 'has a query, which names no file of the registry; refer to the file by its path' };
  let path: string;
  let fragment: string;
  try {
    path = decodeURIComponent(rawPath);
    fragment = decodeURIComponent(rawFragment);
  } catch {
    return { problem: 'is not a valid URI reference (a "%" that starts no escape); percent-encode it' };
  }
  if (fragment !== '' && fragment[0] !== '/') {
    return {
      problem: 'names an anchor: only JSON Pointer fragments ("#/definitions/name") are bundled; refer to the schema by its pointer',
    };
  }
  return { path, tokens: parsePointer(fragment) };
}

/** The value a pointer names in `root` (own properties, canonical array indexes), or why none. */
function walkTo(root: unknown, tokens: readonly string[]): { value: unknown } | { missing: string } {
  let at = root;
  let pointer = '';
  for (const token of tokens) {
    pointer = joinPointer(pointer, token);
    if (Array.isArray(at)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= at.length) return { missing: pointer };
      at = at[Number(token)];
    } else if (isSchemaObject(at) && own(at, token)) {
      at = at[token];
    } else {
      return { missing: pointer };
    }
  }
  return { value: at };
}

/**
 * `#` and a pointer, its tokens as they are (`~0`, `~1` escaped). Not percent-encoded: of
 * @asyncapi/parser's two passes over references, the one that resolves cycles does not decode
 * (a name holding `%` and two hex digits, which the other pass would decode, is refused).
 */
const refTo = (pointer: string): string => '#' + pointer;

/** What a value is to the walk: a schema, an object of named schemas (`properties`, …), or data. */
type Role = 'schema' | 'names' | 'data';
type Walk = { value: unknown; pointer: string; role: Role; container?: string } | { leave: object };

/**
 * Reads one source: its `$ref`s (at schema places) and the keys no AsyncAPI tool reads as written.
 * Iterative: depth costs no stack. An object met again on its own path (a cycle) is not entered.
 */
function scan(source: Source, report: (pointer: string, message: string, unlessHoisted?: string) => void): void {
  const onPath = new Set<object>();
  const stack: Walk[] = [{ value: source.value, pointer: '', role: 'schema' }];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if ('leave' in cur) {
      onPath.delete(cur.leave);
      continue;
    }
    const { value, pointer, role } = cur;
    const obj = value as object;
    if (onPath.has(obj)) {
      source.cyclic = true;
      continue;
    }
    onPath.add(obj);
    stack.push({ leave: obj });
    // Children in document order, pushed reversed: the stack then visits them in that order, as problems are reported.
    const children: Walk[] = [];
    const child = (v: unknown, at: string, r: Role, container?: string): void => {
      if (typeof v === 'object' && v !== null)
        children.push(container === undefined ? { value: v, pointer: at, role: r } : { value: v, pointer: at, role: r, container });
    };
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) child(obj[i], joinPointer(pointer, i), role === 'schema' ? 'schema' : 'data');
    } else {
      const rec = obj as Record<string, unknown>;
      for (const key of Object.keys(rec)) {
        const v = rec[key];
        const at = joinPointer(pointer, key);
        const bad = unreadable(key, role !== 'schema');
        // A root definition's name is not written when its container is hoisted (it becomes a sanitised component key).
        if (bad !== undefined) report(at, bad, role === 'names' ? cur.container : undefined);
        if (role === 'data') {
          child(v, at, 'data');
        } else if (role === 'names') {
          // `dependencies` maps a name to a schema or to an array of names.
          child(v, at, Array.isArray(v) ? 'data' : 'schema');
        } else if (key === '$ref') {
          if (typeof v === 'string') source.refs.push({ at: pointer, ref: v });
          else report(at, `"$ref" must be a string (a URI reference), got ${kind(v)}; AsyncAPI tools fail on it`);
        } else if (SCHEMA_ONE.has(key)) {
          child(v, at, 'schema');
        } else if (key === 'items' || SCHEMA_LIST.has(key)) {
          // An array holds schemas (child() gives its items the schema role); `items` may also be one schema.
          child(v, at, Array.isArray(v) || key === 'items' ? 'schema' : 'data');
        } else if (SCHEMA_MAP.has(key) && isSchemaObject(v)) {
          child(v, at, 'names', pointer === '' && (CONTAINERS as readonly string[]).includes(key) ? key : undefined);
        } else {
          child(v, at, 'data');
        }
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

/** A pointer under `base`. */
const under = (base: string, tokens: readonly string[]): string => tokens.reduce((p, t) => joinPointer(p, t), base);

/**
 * Copies a source's value (its root without the containers hoisted from it, or one of its
 * definitions), each `$ref` rewritten. Iterative. Only sources without cycles are copied.
 */
function copy(value: unknown, rewrite: (ref: string) => string, omit: ReadonlySet<string> = new Set()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const root: { v?: unknown } = {};
  const stack: Array<{ from: unknown; into: Record<string, unknown> | unknown[]; key: string | number; top: boolean }> = [
    { from: value, into: root as Record<string, unknown>, key: 'v', top: true },
  ];
  while (stack.length > 0) {
    const { from, into, key, top } = stack.pop()!;
    if (typeof from !== 'object' || from === null) {
      (into as Record<string | number, unknown>)[key] = from;
      continue;
    }
    if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length);
      (into as Record<string | number, unknown>)[key] = out;
      for (let i = 0; i < from.length; i++) stack.push({ from: from[i], into: out, key: i, top: false });
      continue;
    }
    const out: Record<string, unknown> = {};
    (into as Record<string | number, unknown>)[key] = out;
    for (const k of Object.keys(from)) {
      if (top && omit.has(k)) continue;
      const v = (from as Record<string, unknown>)[k];
      // Defined as data: a key such as "__proto__" (refused, but still copied faithfully) stays a key.
      if (k === '$ref' && typeof v === 'string')
        Object.defineProperty(out, k, { value: rewrite(v), enumerable: true, writable: true, configurable: true });
      else {
        Object.defineProperty(out, k, { value: undefined, enumerable: true, writable: true, configurable: true });
        stack.push({ from: v, into: out, key: k, top: false });
      }
    }
  }
  return root.v;
}

/**
 * Bundles the schemas of `entries` (URN order) for an AsyncAPI document whose channel for a URN
 * has the key `channelKeys` gives it: each payload and component with its references rewritten
 * to their place in the document, and what cannot be written as an issue. `files` reads the
 * registry files references name (without it, a reference to another file is an issue).
 */
export function bundleSchemas(entries: readonly BundleEntry[], channelKeys: ReadonlyMap<string, string>, files?: SchemaFiles): Bundle {
  const issues: AsyncApiIssue[] = [];
  const sources: Source[] = [];
  const byFile = new Map<string, Source>();
  const loaded = new Map<string, SchemaFile | Error>();
  const targets = new Map<Source, Map<string, Target | string>>();

  for (const entry of entries) {
    const key = channelKeys.get(entry.urn)!;
    const source = new Source(entry.schema, entry.urn, true, entry.file, undefined, key);
    source.home = `/channels/${escapePointerToken(key)}/messages/${escapePointerToken(key)}/payload/schema`;
    sources.push(source);
    if (entry.file !== undefined) byFile.set(entry.file, source);
  }

  const pending: Array<{ source: Source; pointer: string; message: string; unlessHoisted?: string }> = [];
  const report =
    (source: Source) =>
    (pointer: string, message: string, unlessHoisted?: string): void => {
      pending.push({ source, pointer, message, unlessHoisted });
    };

  // Read every source and follow its references, reading each file they name once.
  for (let i = 0; i < sources.length; i++) {
    const source = sources[i]!;
    scan(source, report(source));
    const resolved = new Map<string, Target | string>();
    targets.set(source, resolved);
    for (const { ref } of source.refs) {
      if (resolved.has(ref)) continue;
      const split = splitRef(ref);
      if ('problem' in split) {
        resolved.set(ref, split.problem);
        continue;
      }
      let target: Source | undefined = source;
      if (split.path !== '') {
        if (source.file === undefined || files === undefined) {
          resolved.set(ref, 'names another file, but where this schema was read from is not known; refer to it with a "#/…" pointer');
          continue;
        }
        const cacheKey = `${source.file}\0${split.path}`;
        let file = loaded.get(cacheKey);
        if (file === undefined) {
          try {
            file = files.load(source.file, split.path);
          } catch (err) {
            file = err instanceof Error ? err : new Error(String(err));
          }
          loaded.set(cacheKey, file);
        }
        if (file instanceof Error) {
          resolved.set(ref, `cannot be followed: ${file.message}`);
          continue;
        }
        target = byFile.get(file.file);
        if (target === undefined) {
          if (!isSchema(file.value)) {
            resolved.set(ref, `names ${file.name}, which is ${kind(file.value)}, not a schema`);
            continue;
          }
          target = new Source(file.value, source.urn, false, file.file, file.name, undefined);
          byFile.set(file.file, target);
          sources.push(target);
        }
      }
      const found = walkTo(target.value, split.tokens);
      const where =
        target === source ? 'this schema' : target.registered && target.name === undefined ? `the schema of ${target.urn}` : target.name!;
      if ('missing' in found) {
        resolved.set(ref, `points at nothing: ${where} has no ${found.missing}`);
      } else if (!isSchema(found.value)) {
        resolved.set(ref, `points at ${kind(found.value)} in ${where}, not at a schema`);
      } else {
        if (split.tokens.length === 1 && (CONTAINERS as readonly string[]).includes(split.tokens[0]!)) target.keep.add(split.tokens[0]!);
        if (target !== source) target.referenced = true;
        resolved.set(ref, { source: target, tokens: split.tokens });
      }
    }
  }

  // Where each reference finally leads. A schema that is only a `$ref` means its target (draft-07
  // ignores a `$ref`'s siblings), so a reference to one is written to the schema at the end of the
  // chain: @asyncapi/parser overflows its stack on a cycle that passes through such an alias by a
  // pointer with an escape (`~1`, `%20`). A chain back to one of its own links names no schema.
  const finals = new Map<Source, Map<string, Target | string>>();
  const LOOP = 'leads through references back to itself, so it names no schema; make one of them a schema';
  const indexOf = new Map(sources.map((src, i) => [src, i]));
  /** Per place (`source index\0pointer`), where its chain ends: each place is followed once, so a long chain costs linear time. */
  const ends = new Map<string, Target | string>();
  const endOf = (first: Target): Target | string => {
    const path: string[] = [];
    const onPath = new Set<string>();
    let t: Target = first;
    let result: Target | string;
    for (;;) {
      const id = `${indexOf.get(t.source)}\0${t.tokens.join('/')}`;
      const known = ends.get(id);
      if (known !== undefined) {
        result = known;
        break;
      }
      if (onPath.has(id)) {
        result = LOOP;
        break;
      }
      onPath.add(id);
      path.push(id);
      const value = (walkTo(t.source.value, t.tokens) as { value: unknown }).value;
      const next: unknown = isSchemaObject(value) && own(value, '$ref') ? value.$ref : undefined;
      const n = typeof next === 'string' ? targets.get(t.source)?.get(next) : undefined;
      // The end of the chain, or a link that is itself broken (reported where it is).
      if (n === undefined || typeof n === 'string') {
        result = t;
        break;
      }
      t = n;
    }
    for (const id of path) ends.set(id, result);
    return result;
  };
  for (const [source, resolved] of targets) {
    const out = new Map<string, Target | string>();
    for (const [ref, first] of resolved) out.set(ref, typeof first === 'string' ? first : endOf(first));
    finals.set(source, out);
  }

  // Components: each involved source's definitions, and each external file something refers to outside them.
  const hoist = new Map<Source, string[]>();
  const requests: Array<{ id: string; base: string }> = [];
  const ids = new Map<string, { source: Source; container?: string; name?: string }>();
  const fileBase = (s: Source): string => sanitizeKey(s.name!.replace(/\.(json|jsonc|ya?ml)$/i, ''));
  for (const source of sources) {
    const containers = source.hoistable();
    hoist.set(source, containers);
    const base = source.registered ? source.channelKey! : fileBase(source);
    const sourceId = source.registered ? `0\0${source.urn}` : `1\0${source.name}\0${source.file}`;
    for (const c of containers) {
      const defs = (source.value as Record<string, Record<string, unknown>>)[c]!;
      for (const name of Object.keys(defs)) {
        const id = `${sourceId}\0${c}\0${name}`;
        requests.push({ id, base: `${base}.${sanitizeKey(name)}` });
        ids.set(id, { source, container: c, name });
      }
    }
  }
  for (const [source, resolved] of finals) {
    if (source.cyclic) continue;
    for (const t of resolved.values()) {
      if (typeof t === 'string' || t.source.registered) continue;
      const [c, name] = t.tokens;
      if (!(name !== undefined && hoist.get(t.source)!.includes(c!))) t.source.needRoot = true;
    }
  }
  for (const source of sources) {
    if (source.registered || !source.needRoot) continue;
    const id = `1\0${source.name}\0${source.file}`;
    requests.push({ id, base: fileBase(source) });
    ids.set(id, { source });
  }
  /** The schema a value of `source` means: itself, or for one that is only a `$ref`, the schema at the end of its chain. */
  const meant = (source: Source, value: unknown): unknown => {
    const ref = isSchemaObject(value) && own(value, '$ref') ? value.$ref : undefined;
    const t = typeof ref === 'string' ? finals.get(source)?.get(ref) : undefined;
    return t === undefined || typeof t === 'string' ? value : (walkTo(t.source.value, t.tokens) as { value: unknown }).value;
  };
  /**
   * A component's schema is a Schema Object (an object schema: @asyncapi/parser overflows its
   * stack on Multi Format Schema Objects that refer to each other), or, for `true`/`false` (or a
   * reference to one), which a Schema Object cannot be, a draft-07 Multi Format one (a boolean
   * refers to nothing, so it is in no cycle).
   */
  const componentOf = (key: string, source: Source, value: unknown): { home: string; entry: (schema: unknown) => unknown } =>
    typeof meant(source, value) === 'boolean'
      ? {
          home: `/components/schemas/${escapePointerToken(key)}/schema`,
          entry: (schema) => ({ schemaFormat: PAYLOAD_SCHEMA_FORMAT, schema }),
        }
      : { home: `/components/schemas/${escapePointerToken(key)}`, entry: (schema) => schema };
  const homes = new Map<string, ReturnType<typeof componentOf>>();
  const keys = allocateKeys(requests, new Set());
  for (const [id, key] of keys) {
    const { source, container, name } = ids.get(id)!;
    if (container === undefined) {
      source.rootKey = key;
      homes.set(key, componentOf(key, source, source.value));
      source.home = homes.get(key)!.home;
    } else {
      source.hoisted.set(`${container}\0${name}`, key);
      homes.set(key, componentOf(key, source, (source.value as Record<string, Record<string, unknown>>)[container]![name!]));
    }
  }

  /** Where a place in a source is in the document ('' when the document does not hold it). */
  const docPointer = (source: Source, tokens: readonly string[]): string => {
    const [c, name, ...rest] = tokens;
    const key = c !== undefined && name !== undefined ? source.hoisted.get(`${c}\0${name}`) : undefined;
    if (key !== undefined) return under(homes.get(key)!.home, rest);
    return source.home === '' ? '' : under(source.home, tokens);
  };
  const sourceIssue = (source: Source, pointer: string, message: string): AsyncApiIssue => {
    const at: AsyncApiIssue = { pointer: docPointer(source, parsePointer(pointer)), message, urn: source.urn, source: { pointer } };
    if (source.file !== undefined) at.source!.file = source.file;
    return at;
  };
  for (const p of pending) {
    if (p.unlessHoisted === undefined || !hoist.get(p.source)!.includes(p.unlessHoisted))
      issues.push(sourceIssue(p.source, p.pointer, p.message));
  }
  for (const [source, resolved] of finals) {
    for (const [ref, t] of resolved) {
      if (typeof t === 'string') continue;
      const names = parsePointer(docPointer(t.source, t.tokens));
      const escaped = names.find((name) => PERCENT_ESCAPE.test(name));
      if (names.includes('')) {
        resolved.set(
          ref,
          'passes through an empty name, which AsyncAPI tools misread (@asyncapi/parser takes the parent for it); rename the property it passes through',
        );
      } else if (escaped !== undefined) {
        resolved.set(
          ref,
          `passes through the name ${JSON.stringify(escaped)}, which AsyncAPI tools read two ways (@asyncapi/parser percent-decodes it to ${JSON.stringify(decodeOr(escaped))} in one pass and not in the other); rename it`,
        );
      }
    }
    for (const site of source.refs) {
      const t = resolved.get(site.ref)!;
      if (typeof t === 'string')
        issues.push(sourceIssue(source, joinPointer(site.at, '$ref'), `the $ref ${JSON.stringify(site.ref)} ${t}`));
      // @asyncapi/parser percent-decodes the names on the way to a reference it resolves, and adds
      // what it resolved under the decoded name too ("%41" gains a sibling "A").
      const escaped = source.cyclic
        ? undefined
        : parsePointer(docPointer(source, parsePointer(site.at))).find((name) => PERCENT_ESCAPE.test(name));
      if (escaped !== undefined) {
        issues.push(
          sourceIssue(
            source,
            joinPointer(site.at, '$ref'),
            `this $ref sits under the name ${JSON.stringify(escaped)}, which AsyncAPI tools misread (@asyncapi/parser percent-decodes the names on a reference's way, and adds its target under ${JSON.stringify(decodeOr(escaped))} too); rename it`,
          ),
        );
      }
    }
  }

  const rewriter = (source: Source) => {
    const resolved = finals.get(source)!;
    return (ref: string): string => {
      const t = resolved.get(ref);
      return t === undefined || typeof t === 'string' ? ref : refTo(docPointer(t.source, t.tokens));
    };
  };

  const payloads = new Map<string, unknown>();
  const origins: Origin[] = [];
  const components: Array<[string, unknown]> = [];
  const withFile = (o: Origin, file: string | undefined): Origin => (file === undefined ? o : { ...o, file });
  for (const source of sources) {
    const containers = hoist.get(source)!;
    if (source.registered) {
      payloads.set(source.urn, source.involved ? copy(source.value, rewriter(source), new Set(containers)) : source.value);
      origins.push(withFile({ at: source.home, urn: source.urn, pointer: '' }, source.file));
    } else if (source.rootKey !== undefined) {
      const schema = source.involved ? copy(source.value, rewriter(source), new Set(containers)) : source.value;
      components.push([source.rootKey, homes.get(source.rootKey)!.entry(schema)]);
      origins.push(withFile({ at: source.home, urn: source.urn, pointer: '' }, source.file));
    }
    for (const c of containers) {
      const defs = (source.value as Record<string, Record<string, unknown>>)[c]!;
      for (const name of Object.keys(defs)) {
        const key = source.hoisted.get(`${c}\0${name}`)!;
        const home = homes.get(key)!;
        components.push([key, home.entry(copy(defs[name], rewriter(source)))]);
        origins.push(withFile({ at: home.home, urn: source.urn, pointer: joinPointer('', c, name) }, source.file));
      }
    }
  }
  components.sort((a, b) => byCodeUnits(a[0], b[0]));
  return { payloads, components, origins, issues };
}

/** The source place a document pointer was copied from: the origin with the longest prefix of it. */
export function originOf(pointer: string, origins: readonly Origin[]): { urn: string; file?: string; pointer: string } | undefined {
  let best: Origin | undefined;
  for (const o of origins) {
    if ((pointer === o.at || pointer.startsWith(o.at + '/')) && (best === undefined || o.at.length > best.at.length)) best = o;
  }
  if (best === undefined) return undefined;
  const out: { urn: string; file?: string; pointer: string } = { urn: best.urn, pointer: best.pointer + pointer.slice(best.at.length) };
  if (best.file !== undefined) out.file = best.file;
  return out;
}
