import { describe, isSchemaObject } from '../schema-node.js';
import { joinPointer } from '../pointer.js';
import type { Keyword } from './keyword.js';

// Checked in the object walk (properties.ts), which finds the undeclared names in its pass.

/** What an undeclared property is told where `additionalProperties` is false (a constant: the instance path names it). */
export const NOT_ALLOWED = 'is not allowed (additionalProperties is false)';

declare module '../schema-node.js' {
  interface SchemaNode {
    /** The schema of undeclared properties. */
    additional?: SchemaNode;
  }
}

export const additionalProperties: Keyword = {
  name: 'additionalProperties',
  parse(value, node, at) {
    if (typeof value !== 'boolean' && !isSchemaObject(value)) {
      at.bad('additionalProperties', `must be a schema (object or boolean), got ${describe(value)}`);
      return false;
    }
    node.additional = at.sub(value, joinPointer(at.pointer, 'additionalProperties'));
    return true;
  },
  falseSchema: NOT_ALLOWED,
  weight: (node, sub) => (node.additional === undefined ? 0 : sub(node.additional)),
};
