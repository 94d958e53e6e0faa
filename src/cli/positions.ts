import { findNodeAtLocation, parseTree, type Node as JsonNode } from 'jsonc-parser';
import YAML, { isNode } from 'yaml';
import { parsePointer } from '../validator/index.js';
import { formatOf, lineCol, stripBom, type TextFormat } from './parse.js';

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
  private jsonRoot: JsonNode | undefined;
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
    this.jsonRoot ??= parseTree(this.body, [], { allowTrailingComma: true, disallowComments: false });
    const root = this.jsonRoot;
    if (!root) return 0;
    for (let n = tokens.length; n >= 0; n--) {
      const path = tokens.slice(0, n).map((t) => (/^(0|[1-9]\d*)$/.test(t) ? Number(t) : t));
      const node = n === 0 ? root : findNodeAtLocation(root, path);
      if (node) return node.offset;
    }
    return 0;
  }

  private yamlOffset(tokens: string[]): number {
    this.yamlDoc ??= YAML.parseDocument(this.body, { uniqueKeys: false });
    for (let n = tokens.length; n >= 0; n--) {
      const node = n === 0 ? this.yamlDoc.contents : this.yamlDoc.getIn(tokens.slice(0, n), true);
      if (isNode(node) && node.range) return node.range[0];
    }
    return 0;
  }
}
