import { compile, hasOwn, isSchemaObject, jsonEqual, parsePointer, parseSchema, type SchemaNode } from '../validator/index.js';
import { ALL_KINDS, OBJECT, STRING, kindOf, typeKinds } from './kinds.js';

/** An absent `additionalProperties` or `items`: no constraint. */
export const ANY: SchemaNode = Object.freeze({ pointer: '', always: true });

const acceptAll = (): boolean => true;
const acceptNone = (): boolean => false;
const ignoreWarning = (): void => {};

/** One schema: its parsed tree, the raw sub-schemas behind the nodes, and their validators. */
export class Side {
  readonly root: SchemaNode;
  private readonly raws = new WeakMap<SchemaNode, unknown>();
  private readonly validators = new WeakMap<SchemaNode, (v: unknown) => boolean>();
  private readonly possible = new WeakMap<SchemaNode, number>();

  constructor(private readonly schema: unknown) {
    this.root = parseSchema(schema).root;
  }

  private cachedWeight: number | undefined;

  /** What a whole-document check reads: nodes, declared properties, required names (the witness search pays by it). */
  get weight(): number {
    if (this.cachedWeight !== undefined) return this.cachedWeight;
    let weight = 0;
    const stack: SchemaNode[] = [this.root];
    while (stack.length > 0) {
      const n = stack.pop()!;
      weight += 1 + (n.required?.length ?? 0) + (n.properties?.length ?? 0);
      for (const [, sub] of n.properties ?? []) stack.push(sub);
      if (n.additional !== undefined) stack.push(n.additional);
      if (n.items !== undefined) stack.push(n.items);
    }
    return (this.cachedWeight = weight);
  }

  /** The raw sub-schema a node was parsed from; `undefined` for ANY (an absent keyword). */
  raw(node: SchemaNode): unknown {
    if (node === ANY) return undefined;
    if (this.raws.has(node)) return this.raws.get(node);
    let cur: unknown = this.schema;
    for (const token of parsePointer(node.pointer)) {
      cur = isSchemaObject(cur) && hasOwn(cur, token) ? cur[token] : undefined;
    }
    this.raws.set(node, cur);
    return cur;
  }

  /** Whether `node` accepts `v`: cheap checks first, then the validator itself. */
  admits(node: SchemaNode, v: unknown): boolean {
    if ((kindOf(v) & typeKinds(node.types)) === 0) return false;
    if (node.hasConst && !jsonEqual(v, node.constValue)) return false;
    return this.accepts(node)(v);
  }

  /** The validator's own verdict for a node, compiled on first use. */
  accepts(node: SchemaNode): (v: unknown) => boolean {
    if (node.always === true) return acceptAll;
    if (node.always === false) return acceptNone;
    let fn = this.validators.get(node);
    if (fn === undefined) {
      fn = compile(this.raw(node), { onWarning: ignoreWarning }).isValid;
      this.validators.set(node, fn);
    }
    return fn;
  }

  /**
   * The kinds of value `node` can accept: exact for an enum or const, otherwise its types less those
   * its own keywords rule out (strings when minLength exceeds maxLength, objects when a required
   * property admits nothing). Changes below a node that accepts nothing cannot break.
   */
  kinds(node: SchemaNode): number {
    if (node.always === true) return ALL_KINDS;
    if (node.always === false) return 0;
    const known = this.possible.get(node);
    if (known !== undefined) return known;
    let mask = typeKinds(node.types);
    const finite = node.enum ?? (node.hasConst ? [node.constValue] : undefined);
    if (finite !== undefined) {
      let found = 0;
      for (const v of finite) if (this.admits(node, v)) found |= kindOf(v);
      mask &= found;
    } else {
      if ((mask & STRING) !== 0 && Math.max(node.minLength ?? 0, 0) > Math.max(node.maxLength ?? Infinity, 0)) mask &= ~STRING;
      if ((mask & OBJECT) !== 0) {
        for (const name of node.required ?? []) {
          if (this.kinds(governing(node, name)) === 0) {
            mask &= ~OBJECT;
            break;
          }
        }
      }
    }
    this.possible.set(node, mask);
    return mask;
  }
}

// Each node's properties by name, built once: a lookup per name keeps a walk over thousands of
// required names linear (a scan of the properties each time made it quadratic).
const byName = new WeakMap<SchemaNode, Map<string, SchemaNode>>();

/** The node that governs property `name` of objects valid under `node`. */
export function governing(node: SchemaNode, name: string): SchemaNode {
  const props = node.properties;
  if (props !== undefined && props.length > 0) {
    let map = byName.get(node);
    if (map === undefined) {
      map = new Map();
      // The first declaration of a name wins, as the scan it replaces found it.
      for (const [n, sub] of props) if (!map.has(n)) map.set(n, sub);
      byName.set(node, map);
    }
    const sub = map.get(name);
    if (sub !== undefined) return sub;
  }
  return node.additional ?? ANY;
}
