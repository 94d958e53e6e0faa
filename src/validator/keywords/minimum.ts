import { code, EMPTY } from '../codegen.js';
import { joinPointer } from '../pointer.js';
import { describe, minimumBound, numberKind } from '../schema-node.js';
import type { Keyword } from './keyword.js';

declare module '../schema-node.js' {
  interface SchemaNode {
    /** The bound as applied (minimumBound). */
    minimum?: number;
  }
}

/** The violation's words before the number, or before its kind where the number is personal data (`hideNumber`). */
const minimumMessage = (min: number): string => `must be >= ${min}, got `;

/** `minimum`: a number is at least this (inclusive). */
export const minimum: Keyword = {
  name: 'minimum',
  parse(value, node, at) {
    if (typeof value !== 'number' || Number.isNaN(value)) {
      at.bad('minimum', `must be a number, got ${describe(value)}`);
      return false;
    }
    node.minimum = minimumBound(value);
    return true;
  },
  check: {
    block: 'number',
    applies: (node) => node.minimum !== undefined,
    code(g, node, d, path) {
      const min = node.minimum;
      if (min === undefined) return EMPTY;
      if (node.hideNumber && g.mode === 'all') g.sayNumberKind();
      const msg = node.hideNumber ? code`${minimumMessage(min)}+N(${d})` : code`${minimumMessage(min)}+${d}`;
      return code`if(${d}<${min}){${g.fail(path, joinPointer(node.pointer, 'minimum'), 'minimum', msg)}}`;
    },
    run(w, n, d, path, e) {
      const x = d as number;
      return (
        !(x < n.minimum!) ||
        w.fail(e, path, joinPointer(n.pointer, 'minimum'), 'minimum', `${minimumMessage(n.minimum!)}${n.hideNumber ? numberKind(x) : x}`)
      );
    },
  },
};
