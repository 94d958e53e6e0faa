import type * as YAML from 'yaml';
import { parsePointer } from '../validator/index.js';
import { formatOf, lineCol, sourceKeys, stripBom, yaml, type TextFormat } from './parse.js';

export interface Position {
  line: number;
  col: number;
}

/**
 * Finds where a JSON Pointer's value stands in a source text, for annotations. When the pointer
 * does not exist (a missing property), the nearest existing ancestor is used: the object that lacks it.
 */
export class SourcePositions {
  private readonly body: string;
  private yamlDoc: YAML.Document.Parsed | undefined;

  constructor(
    text: string,
    private readonly format: TextFormat,
    /** Added to every line (an NDJSON line's own line number minus one). */
    private readonly lineOffset = 0,
  ) {
    // A BOM is not a column: editors hide it, and parse errors are positioned without it too.
    this.body = stripBom(text);
  }

  static forFile(text: string, file: string): SourcePositions {
    return new SourcePositions(text, formatOf(file));
  }

  of(pointer: string): Position {
    let tokens: string[];
    try {
      tokens = parsePointer(pointer);
    } catch {
      tokens = [];
    }
    const offset = this.format === 'yaml' ? this.yamlOffset(tokens) : this.jsonOffset(tokens);
    const { line, col } = lineCol(this.body, offset);
    return { line: line + this.lineOffset, col };
  }

  private jsonOffset(tokens: string[]): number {
    return locateJson(this.body, tokens);
  }

  private yamlOffset(tokens: string[]): number {
    try {
      if (this.yamlDoc === undefined) {
        this.yamlDoc = yaml().parseDocument(this.body, { uniqueKeys: false });
        sourceKeys(this.yamlDoc); // the keys parseText gives, which pointers name
      }
    } catch {
      return 0; // nested too deeply for the YAML parser: the start of the file
    }
    for (let n = tokens.length; n >= 0; n--) {
      const node = n === 0 ? this.yamlDoc.contents : this.yamlDoc.getIn(tokens.slice(0, n), true);
      if (yaml().isNode(node) && node.range) return node.range[0];
    }
    return 0;
  }
}

interface Frame {
  array: boolean;
  /** The current member's key (objects; `undefined` while a key is expected) or index (arrays). */
  key: string | undefined;
  index: number;
  /** Whether this container's own path is a prefix of the target. */
  onPath: boolean;
}

const SPACE = /[ \t\n\r]/;

/**
 * The offset where the value at `tokens` starts in a JSON (or JSONC) text, else where its deepest
 * existing ancestor starts. One iterative pass with an explicit stack, so a message nested
 * 100,000 levels deep cannot overflow the call stack. On a repeated key the first one is used.
 */
export function locateJson(text: string, tokens: readonly string[]): number {
  const stack: Frame[] = [];
  let best = 0;
  let bestDepth = -1;
  const n = text.length;
  let i = 0;
  // Records a value starting at `at`; returns whether its path is a prefix of the target.
  const value = (at: number): boolean => {
    const depth = stack.length;
    let onPath = depth === 0;
    if (depth > 0 && depth <= tokens.length) {
      const top = stack[depth - 1]!;
      const segment = top.array ? String(top.index) : top.key;
      onPath = top.onPath && segment === tokens[depth - 1];
    }
    if (onPath && depth > bestDepth) {
      best = at;
      bestDepth = depth;
    }
    return onPath;
  };
  while (i < n) {
    const c = text[i]!;
    if (SPACE.test(c)) {
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else if (c === '{' || c === '[') {
      const onPath = value(i);
      if (onPath && stack.length === tokens.length) return best;
      stack.push({ array: c === '[', key: undefined, index: 0, onPath });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else if (top) top.key = undefined;
      i++;
    } else if (c === ':') {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      let escaped = false;
      while (j < n && text[j] !== '"') {
        if (text[j] === '\\') {
          escaped = true;
          j++;
        }
        j++;
      }
      const raw = text.slice(i + 1, j);
      const top = stack[stack.length - 1];
      if (top && !top.array && top.key === undefined) {
        try {
          top.key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
        } catch {
          top.key = raw;
        }
      } else if (value(i) && stack.length === tokens.length) {
        return best;
      }
      i = j + 1;
    } else {
      if (value(i) && stack.length === tokens.length) return best;
      while (i < n && !/[\s,\]}:/]/.test(text[i]!)) i++;
    }
  }
  return best;
}
