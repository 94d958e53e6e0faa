import type { Node as JsonNode, ParseError } from 'jsonc-parser';
import { jsonc } from '../registry/parse.js';

/*
 * A masked message written back as text (`bqschema gdpr --mask`): the source with only the masked
 * values rewritten. Not part of the library entry: it loads the JSON parser that keeps offsets.
 */

/**
 * The source text with only the masked values rewritten: every other byte stays as it was (number
 * spellings, big integers, key order, spacing), which re-serialising would not keep. `before` is
 * the parsed source and `after` its masked copy: masking copies exactly the containers the schema
 * reaches, so a shared reference is untouched data and a changed value is a redaction. Gives
 * undefined when that cannot be done safely: an object on the masked path with a repeated key
 * (the earlier value would survive in the text unmasked), or a result that does not read back
 * as `after`.
 */
export function spliceMasked(text: string, before: unknown, after: unknown): string | undefined {
  const errors: ParseError[] = [];
  const root = jsonc().parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (root === undefined || errors.length > 0) return undefined;
  const edits: Array<{ offset: number; length: number; text: string }> = [];
  const stack: Array<{ before: unknown; after: unknown; node: JsonNode }> = [{ before, after, node: root }];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    const [b, a, node] = [cur.before, cur.after, cur.node];
    if (a === b) continue;
    if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
      const children = node.children ?? [];
      if (Array.isArray(a)) {
        if (node.type !== 'array' || children.length !== a.length) return undefined;
        a.forEach((v, i) => stack.push({ before: (b as unknown[])[i], after: v, node: children[i]! }));
        continue;
      }
      if (node.type !== 'object') return undefined;
      const props = new Map<string, JsonNode>();
      for (const prop of children) {
        const key = prop.children?.[0]?.value as string;
        if (props.has(key) || prop.children?.[1] === undefined) return undefined;
        props.set(key, prop.children[1]);
      }
      for (const key of Object.keys(a)) {
        const child = props.get(key);
        if (child === undefined) return undefined;
        stack.push({ before: (b as Record<string, unknown>)[key], after: (a as Record<string, unknown>)[key], node: child });
      }
      continue;
    }
    edits.push({ offset: node.offset, length: node.length, text: JSON.stringify(a) });
  }
  edits.sort((x, y) => x.offset - y.offset);
  let out = '';
  let at = root.offset;
  for (const e of edits) {
    out += text.slice(at, e.offset) + e.text;
    at = e.offset + e.length;
  }
  out += text.slice(at, root.offset + root.length);
  return JSON.stringify(JSON.parse(out)) === JSON.stringify(after) ? out : undefined;
}
