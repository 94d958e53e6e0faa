import { joinPointer } from './pointer.js';

/*
 * Where a schema's personal data is: the nodes marked `x-gdpr-sensitive` and the data they cover,
 * read the one way masking (src/validator/mask.ts) and the validator's messages both need, so that a
 * value `gdpr --mask` hides is never quoted by a violation either.
 *
 * A marker is anything but absent or `false` (fail closed: `1`, `{}`, `"yes"` mask as `true`
 * does). Masking reaches a marked node through the keywords that say where data sits, not only the
 * ten the validator enforces: a node's data is described by the node itself and by every schema
 * that applies to the same value (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
 * `dependentSchemas`, schema-valued `dependencies`, and a `$ref` to a place in the same document,
 * followed with cycle protection), which together are its *set*. It is masked conservatively: a
 * value is personal when any schema of its set is marked, whichever branch the data would match;
 * a property's set takes every `patternProperties` schema whatever its pattern, an item's every
 * tuple, `prefixItems`, `additionalItems`, `contains` and `unevaluatedItems` schema whatever its
 * index. Markers masking cannot reach (under `propertyNames` or `contentSchema`, which describe
 * no value of the data; in a definition no local `$ref` uses) are listed by `markerIssues`, which
 * `bqschema check` fails on.
 */

export const GDPR_MARKER = 'x-gdpr-sensitive';

/** A schema object (a value of the schema that is an object and not an array). */
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const get = (o: Obj, k: string): unknown => (own(o, k) ? o[k] : undefined);

/** Whether a schema node is marked: it has an own `x-gdpr-sensitive` that is not `false`. */
export function isMarked(schema: unknown): boolean {
  return isObj(schema) && own(schema, GDPR_MARKER) && schema[GDPR_MARKER] !== false;
}

/**
 * A marked node's category: the string of a non-empty string marker, `""` for `true` and for any
 * other (malformed) marker; `undefined` when the node is not marked (no marker, or `false`).
 */
export function markerCategory(schema: unknown): string | undefined {
  if (!isMarked(schema)) return undefined;
  const m = (schema as Obj)[GDPR_MARKER];
  return typeof m === 'string' ? m : '';
}

/** Whether a marker value has the shape the contract gives it: `true`, `false` or a category (a non-empty string). */
const wellFormedMarker = (m: unknown): boolean => m === true || m === false || (typeof m === 'string' && m !== '');

/** Keywords whose schema (an object of schemas, an array of them, or one) applies to the same value. */
const SAME_ONE = ['not', 'if', 'then', 'else'] as const;
const SAME_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_MAP = ['dependentSchemas', 'dependencies'] as const;
/** Keywords holding one schema that masking follows (to the same value, a property or an item). */
const SINGLE: ReadonlySet<string> = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'contains',
  'unevaluatedItems',
  ...SAME_ONE,
]);
/** Keywords that hold named schemas, reached only through a `$ref`. */
const DEFINITIONS = ['definitions', '$defs'] as const;

/** A schema the walk can enter: an object (booleans hold no marker and describe nothing below). */
function schemas(v: unknown): Obj[] {
  if (isObj(v)) return [v];
  return [];
}

function listed(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

function mapped(v: unknown): Obj[] {
  if (!isObj(v)) return [];
  const out: Obj[] = [];
  for (const k of Object.keys(v)) if (isObj(v[k])) out.push(v[k] as Obj);
  return out;
}

/** The schemas of an object's properties (whatever the name), and those of its undeclared ones. */
function objectEdges(s: Obj): Obj[] {
  return [
    ...mapped(get(s, 'properties')),
    ...mapped(get(s, 'patternProperties')),
    ...schemas(get(s, 'additionalProperties')),
    ...schemas(get(s, 'unevaluatedProperties')),
  ];
}

/** The schemas of an array's items, whatever the index. */
function arrayEdges(s: Obj): Obj[] {
  const items = get(s, 'items');
  return [
    ...schemas(items),
    ...listed(items),
    ...listed(get(s, 'prefixItems')),
    ...schemas(get(s, 'additionalItems')),
    ...schemas(get(s, 'contains')),
    ...schemas(get(s, 'unevaluatedItems')),
  ];
}

/** JSON shapes a node's own `type` admits (`integer` as `number`), or undefined when it declares none. */
function declaredShapes(s: Obj): string[] | undefined {
  const t = get(s, 'type');
  const list = typeof t === 'string' ? [t] : Array.isArray(t) && t.every((x) => typeof x === 'string') ? (t as string[]) : undefined;
  return list?.map((x) => (x === 'integer' ? 'number' : x));
}

export type Shape = 'object' | 'array' | 'string' | 'number' | 'boolean';

/** Schema objects a Reach may visit in sets of more than one before it fails closed (Reach.spent). */
const WORK_BUDGET = 500_000;

/** A schema object's edges: where its value's sub-values are described, and what describes the same value. */
interface Edges {
  object: Obj[];
  array: Obj[];
  same: Obj[];
}

/**
 * One schema document, read for its personal data. Sets are arrays of schema objects, each
 * closed over the keywords that apply to the same value (`set`). Each object's edges are read
 * once: a schema of 100,000 properties is walked in linear time.
 */
export class Reach {
  /**
   * Work spent on sets of more than one schema (a branch, a `$ref`): past WORK_BUDGET every value
   * still to be read counts as marked, so a schema built to make sets huge (thousands of branches
   * over thousands of properties) costs bounded time and masks more, never less.
   */
  private work = 0;
  private holding: Set<Obj> | undefined;
  private readonly edgeCache = new Map<Obj, Edges>();
  /** Per object and shape: whether a marked node lies below it through that shape's edges. */
  private readonly holdsCache = new Map<Obj, number>();

  constructor(readonly root: unknown) {}

  /**
   * The target of a `$ref` within this document (`#`, `#/definitions/a`), or undefined for any
   * other reference (another document, an anchor) or a pointer to nothing.
   */
  resolve(ref: unknown): Obj | undefined {
    if (typeof ref !== 'string' || ref[0] !== '#') return undefined;
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (fragment !== '' && fragment[0] !== '/') return undefined;
    let at: unknown = this.root;
    if (fragment !== '') {
      for (const raw of fragment.slice(1).split('/')) {
        const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (Array.isArray(at)) {
          if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= at.length) return undefined;
          at = at[Number(token)];
        } else if (isObj(at) && own(at, token)) at = at[token];
        else return undefined;
      }
    }
    return isObj(at) ? at : undefined;
  }

  private edges(s: Obj): Edges {
    let e = this.edgeCache.get(s);
    if (e === undefined) {
      const same: Obj[] = [];
      for (const k of SAME_ONE) same.push(...schemas(get(s, k)));
      for (const k of SAME_LIST) same.push(...listed(get(s, k)));
      for (const k of SAME_MAP) same.push(...mapped(get(s, k)));
      const target = this.resolve(get(s, '$ref'));
      if (target !== undefined) same.push(target);
      e = { object: objectEdges(s), array: arrayEdges(s), same };
      this.edgeCache.set(s, e);
    }
    return e;
  }

  /** Whether the work budget is spent: every value still to be read counts as marked. */
  get spent(): boolean {
    return this.work > WORK_BUDGET;
  }

  /** `start` and every schema that applies to the same value as one of them, each once. */
  set(start: readonly Obj[]): Obj[] {
    // The common case: one schema, nothing else applying to its value.
    if (start.length === 1 && this.edges(start[0]!).same.length === 0) return [start[0]!];
    const seen = new Set<Obj>();
    const stack = [...start];
    while (stack.length > 0) {
      this.work++;
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      for (const next of this.edges(s).same) if (!seen.has(next)) stack.push(next);
    }
    return [...seen];
  }

  /** The set of the value under property `key` of an object described by `set`. */
  forKey(set: readonly Obj[], key: string): Obj[] {
    if (this.spent) return []; // counts as marked (see `marked`)
    if (set.length > 1) this.work += set.length;
    const out: Obj[] = [];
    for (const s of set) {
      const props = get(s, 'properties');
      const declared = isObj(props) && own(props, key);
      if (declared) out.push(...schemas(props[key]));
      out.push(...mapped(get(s, 'patternProperties')), ...schemas(get(s, 'unevaluatedProperties')));
      if (!declared) out.push(...schemas(get(s, 'additionalProperties')));
    }
    return out.length === 0 ? out : this.set(out);
  }

  /**
   * The set of any property of an object described by `set` whose name is not in `declared`: the
   * union over every such name (the validator's one `additionalProperties` node stands for all).
   */
  forOtherKeys(set: readonly Obj[], declared: ReadonlySet<string>): Obj[] {
    if (this.spent) return []; // counts as marked (see `marked`)
    if (set.length > 1) this.work += set.length;
    const out: Obj[] = [];
    for (const s of set) {
      const props = get(s, 'properties');
      if (isObj(props)) for (const k of Object.keys(props)) if (!declared.has(k)) out.push(...schemas(props[k]));
      out.push(
        ...mapped(get(s, 'patternProperties')),
        ...schemas(get(s, 'unevaluatedProperties')),
        ...schemas(get(s, 'additionalProperties')),
      );
    }
    return out.length === 0 ? out : this.set(out);
  }

  /** The set of any item of an array described by `set`. */
  forItems(set: readonly Obj[]): Obj[] {
    if (this.spent) return []; // counts as marked (see `marked`)
    if (set.length > 1) this.work += set.length;
    const out = set.flatMap((s) => this.edges(s).array);
    return out.length === 0 ? out : this.set(out);
  }

  /** Whether a schema of `set` is marked: the value and everything in it is personal. */
  marked(set: readonly Obj[]): boolean {
    return this.spent || set.some(isMarked);
  }

  /** Whether a marked node lies below `set` through the edges a value of `shape` follows (`any`: either). */
  marksUnder(set: readonly Obj[], through: 'object' | 'array' | 'any'): boolean {
    return set.some((s) => (through !== 'array' && this.holds(s, 'object')) || (through !== 'object' && this.holds(s, 'array')));
  }

  private holds(s: Obj, shape: 'object' | 'array'): boolean {
    const bit = shape === 'object' ? 1 : 2;
    let known = this.holdsCache.get(s);
    if (known === undefined || (known & (bit << 2)) === 0) {
      const below = this.edges(s)[shape];
      // A leaf, the common case, needs no graph of marks.
      const yes = below.length > 0 && below.some((b) => (this.holding ??= this.holdingMarks()).has(b));
      known = (known ?? 0) | (bit << 2) | (yes ? bit : 0);
      this.holdsCache.set(s, known);
    }
    return (known & bit) !== 0;
  }

  /** Whether a schema of `set` declares a `type` that admits `shape`. */
  admits(set: readonly Obj[], shape: Shape): boolean {
    return set.some((s) => declaredShapes(s)?.includes(shape) === true);
  }

  /**
   * Whether `set` describes values of `shape` (an object or array): a `type` admits it and a
   * keyword says what is in one. A value whose shape its schemas do not describe, where marks lie
   * below, is masked whole: its content is not what the schema says it is.
   */
  describes(set: readonly Obj[], shape: 'object' | 'array'): boolean {
    return this.admits(set, shape) && this.hasEdges(set, shape);
  }

  /** Whether a value of `set` has anything below it (an object or array edge): else it is a leaf. */
  hasEdges(set: readonly Obj[], shape: 'object' | 'array'): boolean {
    return set.some((s) => this.edges(s)[shape].length > 0);
  }

  /**
   * For each schema object data can reach: every schema that describes a value along with it
   * (the union of the sets it is in, itself included), and whether such a value is masked whole
   * (a set it is in is marked, or lies under a marked one). So a value written in the schema
   * for that place (`examples`, `default`) can be masked as data there would be. One state per
   * distinct set, so `$ref` cycles end.
   */
  describedAt(): Map<Obj, { set: Obj[]; hidden: boolean }> {
    const out = new Map<Obj, { set: Set<Obj>; hidden: boolean }>();
    const ids = new Map<Obj, number>();
    const id = (s: Obj): number => {
      let n = ids.get(s);
      if (n === undefined) ids.set(s, (n = ids.size));
      return n;
    };
    const done = new Set<string>();
    const stack: Array<{ set: Obj[]; hidden: boolean }> = [{ set: this.set(schemas(this.root)), hidden: false }];
    while (stack.length > 0) {
      if (this.spent) {
        // Fail closed: every schema data can reach counts as describing hidden data.
        for (const s of this.reachable()) out.set(s, { set: new Set([s]), hidden: true });
        break;
      }
      const { set, hidden: above } = stack.pop()!;
      this.work += set.length;
      const hidden = above || this.marked(set);
      const key = `${hidden ? 1 : 0}:${set
        .map(id)
        .sort((a, b) => a - b)
        .join(',')}`;
      if (set.length === 0 || done.has(key)) continue;
      done.add(key);
      for (const s of set) {
        let entry = out.get(s);
        if (entry === undefined) out.set(s, (entry = { set: new Set(), hidden: false }));
        for (const t of set) entry.set.add(t);
        entry.hidden ||= hidden;
      }
      const names = new Set<string>();
      for (const s of set) {
        const props = get(s, 'properties');
        if (isObj(props)) for (const k of Object.keys(props)) names.add(k);
      }
      for (const name of names) stack.push({ set: this.forKey(set, name), hidden });
      stack.push({ set: this.forOtherKeys(set, names), hidden }, { set: this.forItems(set), hidden });
    }
    return new Map([...out].map(([s, e]) => [s, { set: [...e.set], hidden: e.hidden }]));
  }

  /** The schema objects one step from `s`: the same value's, its properties' and its items'. */
  private next(s: Obj): Obj[] {
    const e = this.edges(s);
    return [...e.same, ...e.object, ...e.array];
  }

  /** Every schema object reachable from the root through the keywords masking follows. */
  reachable(): Set<Obj> {
    const seen = new Set<Obj>();
    const stack: Obj[] = schemas(this.root);
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      for (const next of this.next(s)) if (!seen.has(next)) stack.push(next);
    }
    return seen;
  }

  /**
   * The schema objects from which a marked node can be reached (marked ones included). One pass
   * over the graph, one backwards from the marked nodes: linear, and cycles (a `$ref` to an
   * ancestor, a YAML alias) end.
   */
  private holdingMarks(): Set<Obj> {
    const parents = new Map<Obj, Obj[]>();
    const marked: Obj[] = [];
    const seen = new Set<Obj>();
    const stack: Obj[] = schemas(this.root);
    for (const s of stack) seen.add(s);
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (isMarked(s)) marked.push(s);
      for (const next of this.next(s)) {
        const list = parents.get(next);
        if (list === undefined) parents.set(next, [s]);
        else list.push(s);
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    const holding = new Set<Obj>(marked);
    while (marked.length > 0) {
      for (const p of parents.get(marked.pop()!) ?? []) {
        if (!holding.has(p)) {
          holding.add(p);
          marked.push(p);
        }
      }
    }
    return holding;
  }
}

/**
 * Whether a schema holds a marker anywhere (a cheap test before `markSensitive`'s walk): an own
 * `x-gdpr-sensitive` that is not `false` on any object of the document.
 */
export function hasMarker(schema: unknown): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      continue;
    }
    if (isMarked(v)) return true;
    for (const k of Object.keys(v)) {
      const c = (v as Obj)[k];
      if (typeof c === 'object' && c !== null) stack.push(c);
    }
  }
  return false;
}

/** The part of the validator's parsed node (keywords.ts) the flags are set on. */
export interface FlaggedNode {
  always?: boolean;
  minimum?: number;
  properties?: Array<[name: string, node: FlaggedNode]>;
  additional?: FlaggedNode;
  items?: FlaggedNode;
  /** A number failing `minimum` here is said by its kind, not quoted: masking would hide it. */
  hideNumber?: boolean;
  /** The names of an object's undeclared properties here are personal data: `***` in instance paths. */
  hideKeys?: boolean;
}

/**
 * Sets the validator's wording flags on a parsed node tree (`root`, parsed from `schema`), so that
 * no violation quotes what masking would hide: `hideNumber` where a number failing `minimum`
 * would be masked, `hideKeys` where an object's undeclared property names would be (masking
 * hides a marked object whole, keys and all). The tree is walked beside the schema, with an
 * explicit stack; the sets come from `Reach`, the same reading `mask` makes.
 */
export function markSensitive(root: FlaggedNode, schema: unknown, marked = hasMarker(schema)): void {
  if (!marked) return;
  const reach = new Reach(schema);
  type Task = { node: FlaggedNode; set: Obj[]; hidden: boolean };
  const stack: Task[] = [{ node: root, set: reach.set(schemas(schema)), hidden: false }];
  while (stack.length > 0) {
    const { node, set, hidden } = stack.pop()!;
    if (node.always !== undefined) continue;
    const whole = hidden || reach.marked(set);
    // As mask treats a value of each shape at this node (src/validator/mask.ts); each flag is worked
    // out only where the node has something it changes (a minimum, properties, items).
    if (node.minimum !== undefined && (whole || (reach.marksUnder(set, 'any') && !reach.admits(set, 'number')))) node.hideNumber = true;
    const props = node.properties ?? [];
    if (props.length > 0 || node.additional !== undefined) {
      const object = whole || (!reach.describes(set, 'object') && reach.marksUnder(set, 'array'));
      if (object && node.additional !== undefined) node.hideKeys = true;
      for (const [name, child] of props) stack.push({ node: child, set: whole ? [] : reach.forKey(set, name), hidden: object });
      if (node.additional !== undefined) {
        const declared = new Set(props.map(([name]) => name));
        stack.push({ node: node.additional, set: whole ? [] : reach.forOtherKeys(set, declared), hidden: object });
      }
    }
    if (node.items !== undefined) {
      const array = whole || (!reach.describes(set, 'array') && reach.marksUnder(set, 'object'));
      stack.push({ node: node.items, set: whole ? [] : reach.forItems(set), hidden: array });
    }
  }
}

/** A marker `bqschema check` fails on: malformed, or where masking cannot reach it. */
export interface MarkerIssue {
  /** JSON Pointer of the marker itself (`…/x-gdpr-sensitive`). */
  pointer: string;
  kind: 'malformed' | 'unreachable';
  /** The marker's value. */
  value: unknown;
  /** Where the marker sits, in words (`is under propertyNames, …`): why masking cannot reach it. */
  reason?: string;
}

/**
 * Every marker of a schema document that is malformed (not `true`, `false` or a category) or
 * that masking cannot reach, in document order. Walks every keyword that holds schemas (draft-07
 * to 2020-12), each schema object once (a YAML alias shares one); a marker on an object masking
 * reaches along any path is reached.
 */
export function markerIssues(schema: unknown): MarkerIssue[] {
  if (!hasMarker(schema)) return [];
  const reach = new Reach(schema);
  const reachable = reach.reachable();
  const out: MarkerIssue[] = [];
  const seen = new Set<Obj>();
  type Task = { s: Obj; pointer: string; why: string | undefined };
  const stack: Task[] = isObj(schema) ? [{ s: schema, pointer: '', why: undefined }] : [];
  while (stack.length > 0) {
    const { s, pointer, why } = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    if (own(s, GDPR_MARKER)) {
      const at = joinPointer(pointer, GDPR_MARKER);
      const value = s[GDPR_MARKER];
      if (!wellFormedMarker(value)) out.push({ pointer: at, kind: 'malformed', value });
      if (isMarked(s) && !reachable.has(s)) {
        out.push({ pointer: at, kind: 'unreachable', value, reason: why ?? 'is where no keyword masking follows leads' });
      }
    }
    // Children in document order, pushed in reverse so they come out in it.
    const kids: Task[] = [];
    const push = (child: unknown, tokens: Array<string | number>, reason?: string): void => {
      if (isObj(child)) kids.push({ s: child, pointer: joinPointer(pointer, ...tokens), why: reason ?? why });
    };
    const each = (k: string, reason?: string): void => {
      const v = get(s, k);
      if (isObj(v)) for (const name of Object.keys(v)) push(v[name], [k, name], reason);
    };
    const list = (k: string): void => {
      const v = get(s, k);
      if (Array.isArray(v)) v.forEach((x, i) => push(x, [k, i]));
    };
    for (const k of Object.keys(s)) {
      if (k === 'properties' || k === 'patternProperties' || (SAME_MAP as readonly string[]).includes(k)) each(k);
      else if (k === 'items' || k === 'prefixItems' || (SAME_LIST as readonly string[]).includes(k)) {
        if (Array.isArray(s[k])) list(k);
        else push(s[k], [k]);
      } else if (SINGLE.has(k)) push(s[k], [k]);
      else if (k === 'propertyNames') push(s[k], [k], 'is under propertyNames, which describes property names, not values');
      else if (k === 'contentSchema') push(s[k], [k], "is under contentSchema, which describes a string's decoded content, not a value");
      else if ((DEFINITIONS as readonly string[]).includes(k)) each(k, `is in ${k}, and no local "$ref" that masking follows uses it`);
    }
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return out;
}
