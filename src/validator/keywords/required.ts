import { describe } from '../schema-node.js';
import type { Keyword } from './keyword.js';

// Checked in the object walk (properties.ts), which knows which names are own.

declare module '../schema-node.js' {
  interface SchemaNode {
    /** The required names, without repeats. */
    required?: string[];
  }
}

export const required: Keyword = {
  name: 'required',
  parse(value, node, at) {
    if (!Array.isArray(value) || value.some((n) => typeof n !== 'string')) {
      at.bad('required', `must be an array of strings, got ${describe(value)}`);
      return false;
    }
    node.required = [...new Set(value as string[])];
    return true;
  },
  weight: (node) => node.required?.length ?? 0,
};

/** The violation of a missing required property (its name is the schema's, never data). */
export const requiredMessage = (name: string): string => `must have required property ${JSON.stringify(name)}`;
