import { code, type Code } from '../codegen.js';
import { describe, isSchemaObject, TYPE_NAMES } from '../schema-node.js';
import type { Keyword } from './keyword.js';

// `type` is the frame the other checks run in (compile.ts's and interpret.ts's `node`, docs/contract.md §1).

declare module '../schema-node.js' {
  interface SchemaNode {
    /** The type names, without repeats. */
    types?: string[];
  }
}

export const type: Keyword = {
  name: 'type',
  parse(value, node, at) {
    const names = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(names) || names.length === 0) {
      at.bad('type', `must be a type name or a non-empty array of type names, got ${describe(value)}`);
      return false;
    }
    const unknown = names.filter((n) => typeof n !== 'string' || !TYPE_NAMES.has(n));
    if (unknown.length > 0) {
      at.bad('type', `unknown type name ${unknown.map((n) => JSON.stringify(n)).join(', ')}`);
      return false;
    }
    node.types = [...new Set(names as string[])];
    return true;
  },
};

/** The message's words before the data's type (`t(d)` in generated code, `jsonType(d)` interpreted). */
export const typeMessage = (types: readonly string[]): string => `must be ${types.join(' or ')}, got `;

/** The generated test of type `name` on `d`. */
export function typeTestCode(name: string, d: Code): Code {
  switch (name) {
    case 'string':
      return code`typeof ${d}==="string"`;
    // NaN and ±Infinity are not JSON numbers (docs/contract.md §13); both tests also reject non-numbers.
    case 'number':
      return code`Number.isFinite(${d})`;
    case 'integer':
      return code`Number.isInteger(${d})`;
    case 'boolean':
      return code`typeof ${d}==="boolean"`;
    case 'null':
      return code`${d}===null`;
    case 'array':
      return code`Array.isArray(${d})`;
    case 'object':
      return code`(typeof ${d}==="object"&&${d}!==null&&!Array.isArray(${d}))`;
    default:
      throw new Error(`unreachable type ${name}`);
  }
}

/** The interpreted test of type `name`, as typeTestCode's. */
export function typeTest(name: string, d: unknown): boolean {
  switch (name) {
    case 'string':
      return typeof d === 'string';
    case 'number':
      return Number.isFinite(d);
    case 'integer':
      return Number.isInteger(d);
    case 'boolean':
      return typeof d === 'boolean';
    case 'null':
      return d === null;
    case 'array':
      return Array.isArray(d);
    case 'object':
      return isSchemaObject(d);
    default:
      throw new Error(`unreachable type ${name}`);
  }
}
