import { code, dynamicPath, EMPTY } from '../codegen.js';
import { containsNaN } from '../json-value.js';
import { joinPointer } from '../pointer.js';
import { describe, isSchemaObject } from '../schema-node.js';
import { NAN_MESSAGE, type Keyword } from './keyword.js';

declare module '../schema-node.js' {
  interface SchemaNode {
    /** The schema of every element (the one-schema form). */
    items?: SchemaNode;
  }
}

/** `items` in its one-schema form: every element of an array matches it. */
export const items: Keyword = {
  name: 'items',
  parse(value, node, at) {
    if (Array.isArray(value)) {
      // The tuple form is outside the subset (docs/contract.md §4): warned, never enforced.
      at.unsupported('items');
      if (at.nan && containsNaN(value)) at.bad('items', NAN_MESSAGE);
      return false;
    }
    if (typeof value !== 'boolean' && !isSchemaObject(value)) {
      at.bad('items', `must be a schema (object or boolean), got ${describe(value)}`);
      return false;
    }
    node.items = at.sub(value, joinPointer(at.pointer, 'items'));
    return true;
  },
  falseSchema: 'is not allowed (items is false)',
  weight: (node, sub) => (node.items === undefined ? 0 : sub(node.items)),
  check: {
    block: 'array',
    applies: (node) => node.items !== undefined && node.items.always !== true,
    code(g, node, d, path, depth) {
      if (!node.items || node.items.always === true) return EMPTY;
      const i = g.id('i');
      const v = g.id('v');
      const sub = g.node(node.items, v, dynamicPath(path, i), 'items', depth + 1);
      return code`for(let ${i}=0;${i}<${d}.length;${i}++){const ${v}=${d}[${i}];${sub}}`;
    },
    run(w, n, d, path, e) {
      const items = n.items!;
      const a = d as unknown[];
      for (let i = 0; i < a.length; i++) if (!w.node(items, a[i], e === null ? '' : `${path}/${i}`, 'items', e)) return false;
      return true;
    },
  },
};
