import type * as YAML from 'yaml';
import { parsePointer } from '../validator/index.js';
import { formatOf, lineCol, sourceKeys, stringEnd, stripBom, yaml, type TextFormat } from './parse.js';

export interface Position {
  line: number;
  col: number;
}

/** A value's place and extent: `endCol` is the column after its last character (both 1-based, code points). */
export interface Span extends Position {
  endLine?: number;
  endCol?: number;
}

/**
 * Finds where a JSON Pointer's value stands in a source text, for annotations. When the pointer
 * does not exist (a missing property), the nearest existing ancestor is used: the object that lacks it.
 * The first lookup scans the text and keeps nothing (a large message with one violation costs no
 * memory); later ones use an index built once (line starts, members of the containers entered).
 */
export class SourcePositions {
  private readonly body: string;
  private lookups = 0;
  private lines: LineIndex | undefined;
  private json: JsonIndex | undefined;
  private yamlIndex: YamlIndex | null | undefined;

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
    return this.find(pointer, false);
  }

  /**
   * Where the value at a pointer starts and ends (`endLine`, and `endCol` the column after its
   * last character): what a SARIF region spans. For a pointer that does not exist, the ancestor
   * that lacks it.
   */
  span(pointer: string): Span {
    return this.find(pointer, true) as Span;
  }

  private find(pointer: string, withEnd: boolean): Position | Span {
    let tokens: string[];
    try {
      tokens = parsePointer(pointer);
    } catch {
      tokens = [];
    }
    const again = this.lookups++ > 0;
    let offset: number;
    let end: number | undefined;
    if (this.format === 'yaml') {
      offset = this.yamlOffset(tokens);
      if (withEnd) end = this.yamlIndex?.endOf(offset);
    } else if (again) {
      const json = (this.json ??= new JsonIndex(this.body));
      offset = json.locate(tokens);
      if (withEnd) end = json.valueEnd(offset);
    } else {
      offset = locateJson(this.body, tokens);
      if (withEnd) end = jsonValueEnd(this.body, offset);
    }
    const { line, col } = again ? (this.lines ??= new LineIndex(this.body)).of(offset) : lineCol(this.body, offset);
    if (end === undefined || end <= offset) return { line: line + this.lineOffset, col };
    const last = (this.lines ??= new LineIndex(this.body)).of(end);
    return { line: line + this.lineOffset, col, endLine: last.line + this.lineOffset, endCol: last.col };
  }

  private yamlOffset(tokens: string[]): number {
    if (this.yamlIndex === undefined) {
      try {
        const doc = yaml().parseDocument(this.body, { uniqueKeys: false });
        sourceKeys(doc); // the keys parseText gives, which pointers name
        this.yamlIndex = new YamlIndex(doc);
      } catch {
        this.yamlIndex = null; // nested too deeply for the YAML parser: the start of the file
      }
    }
    return this.yamlIndex === null ? 0 : this.yamlIndex.locate(tokens);
  }
}

/** lineCol, from line starts found once. */
export class LineIndex {
  private readonly starts: number[] = [0];
  /** Where surrogate pairs start: a pair is one column. */
  private readonly pairs: number[] = [];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
    const pair = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
    for (let m = pair.exec(text); m !== null; m = pair.exec(text)) this.pairs.push(m.index);
  }

  of(offset: number): Position {
    const line = countAtMost(this.starts, offset);
    const start = this.starts[line - 1]!;
    const pairs = this.pairs.length === 0 ? 0 : countAtMost(this.pairs, offset - 2) - countAtMost(this.pairs, start - 1);
    return { line, col: 1 + Math.max(0, offset - start) - pairs };
  }
}

/** How many entries of an ascending list are at most `x`. */
function countAtMost(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The offset after any whitespace and comments (JSONC) from `i`. */
function skipSpace(text: string, i: number): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) i++;
    else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else break;
  }
  return i;
}

// Where containers end is remembered for the large ones, a bounded number of them.
const MIN_REMEMBERED_SPAN = 64;
const MAX_REMEMBERED_ENDS = 1 << 20;
const CANONICAL_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * locateJson's answers, down the pointer: a container entered is scanned once for where its
 * members start (a repeated key's first), skipping the large containers in it by their remembered ends.
 */
class JsonIndex {
  private readonly root: number;
  private readonly members = new Map<number, Map<string, number> | number[]>();
  private readonly ends = new Map<number, number>();

  constructor(private readonly text: string) {
    const start = skipSpace(text, 0);
    this.root = start < text.length ? start : 0;
  }

  locate(tokens: readonly string[]): number {
    let at = this.root;
    for (const token of tokens) {
      const c = this.text.charCodeAt(at);
      if (c !== 0x7b && c !== 0x5b) return at;
      const members = this.membersOf(at);
      const next = Array.isArray(members) ? (CANONICAL_INDEX.test(token) ? members[Number(token)] : undefined) : members.get(token);
      if (next === undefined) return at;
      at = next;
    }
    return at;
  }

  private membersOf(start: number): Map<string, number> | number[] {
    const known = this.members.get(start);
    if (known !== undefined) return known;
    const { text } = this;
    const n = text.length;
    const object = text.charCodeAt(start) === 0x7b;
    const keys = new Map<string, number>();
    const items: number[] = [];
    let key: string | undefined;
    let expectKey = object;
    let i = start + 1;
    for (;;) {
      i = skipSpace(text, i);
      if (i >= n) break;
      const c = text.charCodeAt(i);
      if (c === 0x7d || c === 0x5d) break;
      if (c === 0x2c) {
        expectKey = object;
        key = undefined;
        i++;
        continue;
      }
      if (c === 0x3a) {
        i++;
        continue;
      }
      if (expectKey && c === 0x22) {
        const end = stringEnd(text, i);
        const raw = text.slice(i + 1, end);
        key = raw;
        if (raw.includes('\\')) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            key = raw;
          }
        }
        expectKey = false;
        i = end + 1;
        continue;
      }
      if (object) {
        if (key !== undefined && !keys.has(key)) keys.set(key, i);
        key = undefined;
      } else items.push(i);
      i = this.valueEnd(i);
    }
    const found = object ? keys : items;
    this.members.set(start, found);
    return found;
  }

  /** Where the value starting at `i` ends (the offset after it). */
  valueEnd(i: number): number {
    const { text } = this;
    const c = text.charCodeAt(i);
    if (c === 0x22) return stringEnd(text, i) + 1;
    if (c === 0x7b || c === 0x5b) return this.ends.get(i) ?? this.containerEnd(i);
    const n = text.length;
    let j = i + 1;
    while (j < n && !/[\s,\]}:/]/.test(text[j]!)) j++;
    return j;
  }

  private containerEnd(start: number): number {
    const { text, ends } = this;
    const n = text.length;
    const open: number[] = [start];
    let i = start + 1;
    while (i < n && open.length > 0) {
      const c = text.charCodeAt(i);
      if (c === 0x22) i = stringEnd(text, i) + 1;
      else if (c === 0x2f && (text.charCodeAt(i + 1) === 0x2f || text.charCodeAt(i + 1) === 0x2a)) i = skipSpace(text, i);
      else if (c === 0x7b || c === 0x5b) {
        const end = ends.get(i);
        if (end !== undefined) i = end;
        else {
          open.push(i);
          i++;
        }
      } else if (c === 0x7d || c === 0x5d) {
        const from = open.pop()!;
        i++;
        if (i - from >= MIN_REMEMBERED_SPAN && ends.size < MAX_REMEMBERED_ENDS) ends.set(from, i);
      } else i++;
    }
    return i;
  }
}

/** A YAML key's property name (toJS's rule); undefined for a collection key. */
function propertyName(key: unknown): string | undefined {
  const Y = yaml();
  if (key === null || key === undefined) return '';
  if (!Y.isScalar(key)) return undefined;
  const v = key.value;
  if (v === null) return '';
  return typeof v === 'object' || typeof v === 'symbol' ? undefined : String(v);
}

/** Where YAML values start: down the pointer, each mapping's keys indexed once. */
class YamlIndex {
  private readonly keys = new Map<YAML.YAMLMap, Map<string, unknown>>();

  constructor(private readonly doc: YAML.Document.Parsed) {}

  /** Where each located value ends, by where it starts. */
  private readonly ends = new Map<number, number>();

  /** The end of the value `locate` found starting at `start`. */
  endOf(start: number): number | undefined {
    return this.ends.get(start);
  }

  locate(tokens: readonly string[]): number {
    const at = this.find(tokens);
    return at;
  }

  private find(tokens: readonly string[]): number {
    const Y = yaml();
    let node: unknown = this.doc.contents;
    let at = Y.isNode(node) && node.range ? node.range[0] : 0;
    if (Y.isNode(node) && node.range) this.ends.set(at, node.range[1]);
    for (const token of tokens) {
      let next: unknown;
      if (Y.isMap(node)) next = this.keysOf(node).get(token);
      else if (Y.isSeq(node)) next = CANONICAL_INDEX.test(token) ? node.items[Number(token)] : undefined;
      else break; // a scalar, or an alias (the pointer goes on inside what it names, elsewhere)
      if (!Y.isNode(next) || !next.range) break;
      node = next;
      at = next.range[0];
      this.ends.set(at, next.range[1]);
    }
    return at;
  }

  private keysOf(map: YAML.YAMLMap): Map<string, unknown> {
    let index = this.keys.get(map);
    if (index === undefined) {
      index = new Map();
      for (const pair of map.items) {
        const name = propertyName(pair.key);
        if (name !== undefined && !index.has(name)) index.set(name, pair.value);
      }
      this.keys.set(map, index);
    }
    return index;
  }
}

/** Where the JSON (or JSONC) value starting at offset `i` ends: after its closing quote or bracket, or its last character. */
export function jsonValueEnd(text: string, i: number): number {
  const n = text.length;
  const c = text.charCodeAt(i);
  if (c === 0x22) return Math.min(n, stringEnd(text, i) + 1);
  if (c !== 0x7b && c !== 0x5b) {
    let j = i + 1;
    while (j < n && !/[\s,\]}:/]/.test(text[j]!)) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < n;) {
    const d = text.charCodeAt(j);
    if (d === 0x22) j = stringEnd(text, j) + 1;
    else if (d === 0x2f && (text.charCodeAt(j + 1) === 0x2f || text.charCodeAt(j + 1) === 0x2a)) j = skipSpace(text, j);
    else {
      if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return j + 1;
      j++;
    }
  }
  return n;
}

interface Frame {
  array: boolean;
  /** The current member's key (objects; `undefined` while a key is expected) or index (arrays). */
  key: string | undefined;
  index: number;
  /** Whether this container's own path is a prefix of the target. */
  onPath: boolean;
  /** Whether a member of it was on the path already (a repeated key after it is not). */
  matched: boolean;
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
      onPath = top.onPath && !top.matched && segment === tokens[depth - 1];
      if (onPath) top.matched = true;
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
      stack.push({ array: c === '[', key: undefined, index: 0, onPath, matched: false });
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
