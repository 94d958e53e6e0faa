import { hasOwn, isSchemaObject, joinPointer } from './index.js';
import { GDPR_MARKER, markerCategory } from './sensitive.js';

/*
 * The one path syntax every gdpr output uses (it names schema nodes, not data):
 *   ""       the root schema
 *   a.b      property `b` of property `a` (a root-level property has no leading dot)
 *   a[]      the `items` schema of `a`          ([] at the root)
 *   a.*      the `additionalProperties` schema of `a`   (* at the root)
 * In a property name, each of `.` `[` `]` `*` `\` is preceded by a backslash, so `a\.b` is the
 * single property "a.b" and `\*` a property literally named "*". A root-level property named ""
 * is written `.` so that it differs from the root.
 * Only these three keywords are walked; the tuple form of `items` is not (it has no effect on
 * validation either, docs/contract.md §4).
 */

const SPECIAL = /[.[\]*\\]/g;

/** A schema node that can hold data: an object schema or `true` (`false` admits nothing). */
type SchemaNode = Record<string, unknown> | true;

function isNode(v: unknown): v is SchemaNode {
  return v === true || isSchemaObject(v);
}

/**
 * The GDPR category of a marked schema node: `""` for `x-gdpr-sensitive: true`, the string for a
 * non-empty string; `undefined` (not marked) for no marker or `false`. Any other marker (`1`,
 * `{}`, `""`) is malformed, which `bqschema check` reports, and marks the node all the same, with
 * no category (`""`): masking fails closed (src/validator/sensitive.ts).
 */
export const sensitiveCategory: (schema: unknown) => string | undefined = markerCategory;

/**
 * `x-gdpr-sensitive: false`: the field was reviewed and holds no personal data. Not listed as
 * sensitive, not masked, and `--require` does not ask for a marker on it.
 */
export function isReviewedNotSensitive(schema: unknown): boolean {
  return isSchemaObject(schema) && hasOwn(schema, GDPR_MARKER) && schema[GDPR_MARKER] === false;
}

export function propertyPath(parent: string, name: string): string {
  const token = name.replace(SPECIAL, '\\$&');
  return parent === '' && token !== '' ? token : `${parent}.${token}`;
}

export const itemsPath = (parent: string): string => `${parent}[]`;
export const additionalPath = (parent: string): string => (parent === '' ? '*' : `${parent}.*`);

/**
 * The JSON Pointer of the schema node a path names (`a.b[]` → `/properties/a/properties/b/items`):
 * the inverse of the three builders above, so annotations can point into the schema file.
 * Throws on a string they cannot produce.
 */
export function schemaPointer(path: string): string {
  // A root-level property carries no leading dot (`""` alone is written `.`), nor does a root `*`.
  const s = path === '' || path[0] === '.' || path[0] === '[' ? path : '.' + path;
  const tokens: string[] = [];
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(`not a gdpr path: ${JSON.stringify(path)}`);
  };
  while (i < s.length) {
    if (s[i] === '[') {
      if (s[i + 1] !== ']') fail();
      tokens.push('items');
      i += 2;
      continue;
    }
    if (s[i] !== '.') fail();
    i++;
    if (s[i] === '*') {
      tokens.push('additionalProperties');
      i++;
      continue;
    }
    let name = '';
    while (i < s.length && s[i] !== '.' && s[i] !== '[') {
      if (s[i] === '\\') {
        i++;
        if (i === s.length) fail();
      } else if (s[i] === ']' || s[i] === '*') fail();
      name += s[i];
      i++;
    }
    tokens.push('properties', name);
  }
  return tokens.reduce<string>((p, t) => joinPointer(p, t), ''); // not a spread: a path's tokens are unbounded
}

/** The keyword an edge of the walk follows. */
type Edge = 'properties' | 'items' | 'additionalProperties';

interface SubSchema {
  edge: Edge;
  node: SchemaNode;
  /** The property name when the edge is a `properties` entry. */
  name: string | undefined;
}

/** The walkable sub-schemas of a node, in walk order: properties (own keys), items, additionalProperties. */
function subSchemas(node: SchemaNode): SubSchema[] {
  if (node === true) return [];
  const out: SubSchema[] = [];
  const props = hasOwn(node, 'properties') ? node.properties : undefined;
  if (isSchemaObject(props)) {
    for (const name of Object.keys(props)) {
      const sub = props[name];
      if (isNode(sub)) out.push({ edge: 'properties', node: sub, name });
    }
  }
  const items = hasOwn(node, 'items') ? node.items : undefined;
  if (isNode(items)) out.push({ edge: 'items', node: items, name: undefined });
  const additional = hasOwn(node, 'additionalProperties') ? node.additionalProperties : undefined;
  if (isNode(additional)) out.push({ edge: 'additionalProperties', node: additional, name: undefined });
  return out;
}

function childPath(parent: string, sub: SubSchema): string {
  if (sub.edge === 'properties') return propertyPath(parent, sub.name!);
  return sub.edge === 'items' ? itemsPath(parent) : additionalPath(parent);
}

/** Returned by a visitor to leave a node's subtree out of the walk. */
export const SKIP: unique symbol = Symbol('skip');

export interface Visit<S> {
  node: SchemaNode;
  path: string;
  name: string | undefined;
  /** No walkable sub-schema below this node. */
  leaf: boolean;
  state: S;
}

/**
 * Visits every node reachable through properties / items / additionalProperties, parents before
 * children. An explicit stack, not recursion: a registry schema may be nested deeper than the call
 * stack allows. The visitor's return value becomes the state its children receive.
 * A schema object that refers back to one of its ancestors (a YAML alias cycle makes one) is not
 * entered again: that edge is left out, and a node whose only edges lead back is a leaf. The same
 * object reached along two paths that are not a cycle (an alias reused) is visited on each.
 */
export function walkSchema<S>(root: unknown, state: S, visit: (v: Visit<S>) => S | typeof SKIP): void {
  if (!isNode(root)) return;
  type Enter = Omit<Visit<S>, 'leaf'>;
  // A `leave` entry runs after the node's subtree, so `onPath` holds exactly the current ancestors.
  const stack: Array<Enter | { leave: SchemaNode }> = [{ node: root, path: '', name: undefined, state }];
  const onPath = new Set<SchemaNode>();
  while (stack.length > 0) {
    const cur = stack.pop()!;
    if ('leave' in cur) {
      onPath.delete(cur.leave);
      continue;
    }
    onPath.add(cur.node);
    const children = subSchemas(cur.node).filter((c) => !onPath.has(c.node));
    const next = visit({ ...cur, leaf: children.length === 0 });
    if (next === SKIP) {
      onPath.delete(cur.node);
      continue;
    }
    stack.push({ leave: cur.node });
    for (let i = children.length - 1; i >= 0; i--) {
      const { node, name } = children[i]!;
      stack.push({ node, path: childPath(cur.path, children[i]!), name, state: next });
    }
  }
}

/** Plain UTF-16 code-unit order (not localeCompare): the same bytes on every machine. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface SensitivePath {
  /** The node's path in the gdpr path syntax (above). */
  path: string;
  /** The marker's category string, `""` for `x-gdpr-sensitive: true`. */
  category: string;
}

/**
 * Every node marked `x-gdpr-sensitive`, nested marks under a marked node included, sorted by path.
 * `categoryOf` reads a node's marker (`undefined`: not marked); by default masking's reading, in
 * which any marker but `false` marks.
 */
export function sensitivePaths(schema: unknown, categoryOf: (node: unknown) => string | undefined = sensitiveCategory): SensitivePath[] {
  const out: SensitivePath[] = [];
  walkSchema(schema, undefined, ({ node, path }) => {
    const category = categoryOf(node);
    if (category !== undefined) out.push({ path, category });
    return undefined;
  });
  return out.sort((a, b) => byCodeUnits(a.path, b.path));
}
