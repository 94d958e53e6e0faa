import { code, join, type Code } from '../codegen.js';
import { canonicalKey, jsonEqual, refuseCycle } from '../equality.js';
import { containsNaN } from '../json-value.js';
import { joinPointer } from '../pointer.js';
import { describe, isPrimitive, preview } from '../schema-node.js';
import { NAN_MESSAGE, type KeySets, type Keyword, type Preview } from './keyword.js';

/**
 * `enum`: the value equals one of the listed values (JSON equality: docs/contract.md §7). Few
 * values are compared inline; more go through a Set, and more than ENUM_INLINE_MAX objects through
 * a hash of canonical keys, so a large enum of objects costs one key per value, not a scan.
 */
const ENUM_INLINE_MAX = 8;

/** The violation's words (the values are the schema's, never data). */
const enumMessage = (values: unknown[], preview: Preview): string =>
  values.length === 0 ? 'no value is allowed (enum is empty)' : `must be one of ${preview(values)}`;

declare module '../schema-node.js' {
  interface SchemaNode {
    enum?: unknown[];
  }
}

interface Sets {
  prims: ReadonlySet<unknown>;
  objs: unknown[];
}

export const enumKeyword: Keyword = {
  name: 'enum',
  parse(value, node, at) {
    if (!Array.isArray(value)) {
      at.bad('enum', `must be an array, got ${describe(value)}`);
      return false;
    }
    if (at.nan && containsNaN(value)) {
      at.bad('enum', NAN_MESSAGE);
      return false;
    }
    node.enum = value;
    return true;
  },
  check: {
    block: 'value',
    applies: (node) => node.enum !== undefined,
    code(g, node, d, path) {
      const values = node.enum!;
      const msg = code`${enumMessage(values, preview)}`;
      const prims = values.filter(isPrimitive);
      const objs = values.filter((v) => !isPrimitive(v));
      const tests: Code[] = [];
      if (prims.length > ENUM_INLINE_MAX) tests.push(code`${g.constant(new Set(prims))}.has(${d})`);
      else for (const p of prims) tests.push(code`${d}===${p}`);
      if (objs.length > ENUM_INLINE_MAX) {
        let set = g.keySets.get(values);
        if (set === undefined) g.keySets.set(values, (set = new Set(objs.map(canonicalKey))));
        tests.push(code`(typeof ${d}==="object"&&${d}!==null&&${g.constant(set)}.has(K(${d})))`);
      } else if (objs.length > 0) {
        tests.push(code`(typeof ${d}==="object"&&${d}!==null&&${g.constant(objs)}.some((x)=>E(${d},x)))`);
      }
      // A cyclic value is refused, not judged: with few objects, checked once the value has failed.
      if (objs.length > 0 && objs.length <= ENUM_INLINE_MAX) tests.push(code`Z(${d})`);
      const test = tests.length > 0 ? join(tests, code`||`) : code`false`;
      return code`if(!(${test})){${g.fail(path, joinPointer(node.pointer, 'enum'), 'enum', msg)}}`;
    },
    prepare: (node): Sets => ({ prims: new Set(node.enum!.filter(isPrimitive)), objs: node.enum!.filter((v) => !isPrimitive(v)) }),
    run(w, n, d, path, e, sets: Sets) {
      if (inEnum(w.keySets, n.enum!, sets, d)) return true;
      return w.fail(e, path, joinPointer(n.pointer, 'enum'), 'enum', enumMessage(n.enum!, w.preview));
    },
  },
};

function inEnum(keySets: KeySets, values: unknown[], p: Sets, d: unknown): boolean {
  if (p.prims.has(d)) return true;
  const objs = p.objs;
  if (objs.length === 0) return false;
  if (objs.length > ENUM_INLINE_MAX) {
    let set = keySets.get(values);
    if (set === undefined) keySets.set(values, (set = new Set(objs.map(canonicalKey))));
    return typeof d === 'object' && d !== null && set.has(canonicalKey(d));
  }
  if (typeof d === 'object' && d !== null && objs.some((x) => jsonEqual(d, x))) return true;
  return refuseCycle(d);
}
