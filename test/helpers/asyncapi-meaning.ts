// What a schema means to a reader that follows its references, told apart from what
// @asyncapi/parser read out of an exported document. Written for the tests, independently of
// src/asyncapi/bundle.ts: it follows each `$ref` in the registry's own files (relative to the file
// holding it), where the export rewrote them into the document.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import YAML from 'yaml';

type Role = 'schema' | 'data' | 'map';

const ONE = new Set(['additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'if', 'then', 'else', 'not']);
const LIST = new Set(['allOf', 'anyOf', 'oneOf']);
const MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** A registry's schema files by absolute path (read on first use), or documents given in memory. */
export class SchemaSources {
  private readonly docs = new Map<string, unknown>();

  constructor(
    given: Record<string, unknown> = {},
    /** How a file's text becomes its value (default: JSON.parse for .json, which keeps a "__proto__" key; YAML otherwise). */
    private readonly read: (text: string, file: string) => unknown = (text, file) =>
      /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text),
  ) {
    for (const [file, value] of Object.entries(given)) this.docs.set(file, value);
  }

  root(file: string): unknown {
    if (!this.docs.has(file)) this.docs.set(file, this.read(readFileSync(file, 'utf8'), file));
    return this.docs.get(file);
  }

  /** Follows `$ref`s until a schema that is not one; undefined when one cannot be followed. */
  deref(value: unknown, file: string): { value: unknown; file: string } | undefined {
    let hops = 0;
    while (isObj(value) && own(value, '$ref') && typeof value.$ref === 'string') {
      if (hops++ > 100) return undefined; // a reference to a reference … to itself
      const ref = value.$ref;
      const hash = ref.indexOf('#');
      const path = hash < 0 ? ref : ref.slice(0, hash);
      const fragment = decodeURIComponent(hash < 0 ? '' : ref.slice(hash + 1));
      if (/^[a-z][a-z0-9+.-]*:/i.test(path) || (fragment !== '' && !fragment.startsWith('/'))) return undefined;
      if (path !== '') file = resolve(dirname(file), decodeURIComponent(path));
      let at: unknown;
      try {
        at = this.root(file);
      } catch {
        return undefined;
      }
      const tokens =
        fragment === ''
          ? []
          : fragment
              .slice(1)
              .split('/')
              .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
      for (const t of tokens) {
        if (Array.isArray(at) && /^(0|[1-9][0-9]*)$/.test(t) && Number(t) < at.length) at = at[Number(t)];
        else if (isObj(at) && own(at, t)) at = at[t];
        else return undefined;
      }
      value = at;
    }
    return { value, file };
  }
}

const ids = new WeakMap<object, number>();
let nextId = 0;
const idOf = (o: object): number => {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = nextId++));
  return id;
};

const childRole = (role: Role, key: string, value: unknown): Role => {
  if (role === 'data') return 'data';
  if (role === 'map') return Array.isArray(value) ? 'data' : 'schema'; // dependencies: a schema or a list of names
  if (ONE.has(key) || key === 'items' || LIST.has(key)) return 'schema';
  if (MAP.has(key)) return isObj(value) ? 'map' : 'data';
  return 'data';
};

/**
 * The first difference between what the parser read (`parsed`, its `x-parser-*` annotations
 * ignored) and the registry's schema `source` (held in `file`) with its references followed, or
 * undefined when they mean the same. A schema's `definitions`/`$defs` that the parsed value lacks
 * count as moved (to components, checked on their own). Cycles on both sides end the walk.
 */
export function differs(
  parsed: unknown,
  source: unknown,
  file: string,
  sources: SchemaSources,
  at = '',
  role: Role = 'schema',
  seen = new Set<string>(),
): string | undefined {
  if (role === 'schema') {
    const d = sources.deref(source, file);
    if (d === undefined) return `${at}: the registry's reference cannot be followed`;
    ({ value: source, file } = d);
  }
  if (typeof source !== 'object' || source === null || typeof parsed !== 'object' || parsed === null) {
    return Object.is(parsed, source)
      ? undefined
      : `${at}: read ${JSON.stringify(parsed)?.slice(0, 80)}, the registry has ${JSON.stringify(source)?.slice(0, 80)}`;
  }
  const pair = `${idOf(parsed)}:${idOf(source)}:${file}:${role}`;
  if (seen.has(pair)) return undefined;
  seen.add(pair);
  if (Array.isArray(source) !== Array.isArray(parsed)) return `${at}: an array on one side only`;
  if (Array.isArray(source)) {
    const p = parsed as unknown[];
    if (p.length !== source.length) return `${at}: ${p.length} items read, ${source.length} in the registry`;
    for (let i = 0; i < source.length; i++) {
      const d = differs(p[i], source[i], file, sources, `${at}/${i}`, role === 'schema' ? 'schema' : 'data', seen);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const p = parsed as Record<string, unknown>;
  const parsedKeys = Object.keys(p)
    .filter((k) => !k.startsWith('x-parser-'))
    .sort();
  const sourceKeys = Object.keys(source)
    .filter((k) => !(role === 'schema' && (k === 'definitions' || k === '$defs') && !own(p, k)))
    .sort();
  if (JSON.stringify(parsedKeys) !== JSON.stringify(sourceKeys))
    return `${at}: keys read ${JSON.stringify(parsedKeys)}, in the registry ${JSON.stringify(sourceKeys)}`;
  for (const k of sourceKeys) {
    const v = (source as Record<string, unknown>)[k];
    const d = differs(p[k], v, file, sources, `${at}/${k}`, childRole(role, k, v), seen);
    if (d !== undefined) return d;
  }
  return undefined;
}
