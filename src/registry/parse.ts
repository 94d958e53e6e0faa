import { createRequire } from 'node:module';
import type * as JsoncParser from 'jsonc-parser';
import type * as Yaml from 'yaml';
import { DEEP_DOCUMENT_MESSAGE } from '../validator/limits.js';
import { scanJson, yamlDocument } from './depth.js';

// The YAML and JSONC parsers load on first use: a JSON registry with JSON messages (the common case,
// and every `validate` run over many files) never pays for them, and the library entry, whose
// DirProvider reads all three formats, loads neither at import time.
const require = createRequire(import.meta.url);
let yamlModule: typeof Yaml | undefined;
let jsoncModule: typeof JsoncParser | undefined;
export const yaml = (): typeof Yaml => (yamlModule ??= require('yaml') as typeof Yaml);
export const jsonc = (): typeof JsoncParser => (jsoncModule ??= require('jsonc-parser') as typeof JsoncParser);

export type TextFormat = 'json' | 'jsonc' | 'yaml';

/** The format of a registry or schema file, by extension (anything else is JSON). */
export function formatOf(file: string): TextFormat {
  const lower = file.toLowerCase();
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  if (lower.endsWith('.jsonc')) return 'jsonc';
  return 'json';
}

/** 1-based line and column (counted in code points) of a UTF-16 offset. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  // Columns count code points (as docs/output.md and SARIF's columnKind say), not UTF-16 units:
  // an emoji before the value is one column.
  let col = 1;
  for (let i = start; i < offset; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < offset) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    col++;
  }
  return { line, col };
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A file that does not parse; the message is `file:line:col: problem`. */
export class ParseFailure extends Error {
  override name = 'ParseFailure';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly col: number,
    readonly problem: string,
  ) {
    super(`${file}:${line}:${col}: ${problem}`);
  }
}

export interface ParseOptions {
  /** Refuse a key repeated in one object, naming both places (registry files; data keeps last-wins). */
  uniqueKeys?: boolean;
  /** The most values YAML aliases may add to a document (default DEFAULT_MAX_YAML_EXPANSION). */
  maxYamlExpansion?: number;
}

/** Values YAML aliases may add to a document, an alias counted as a copy of its anchor (docs/registry.md). */
export const DEFAULT_MAX_YAML_EXPANSION = 100_000;
export const YAML_EXPANSION_ENV = 'BQSCHEMA_MAX_YAML_EXPANSION';

/**
 * The first syntax error of a JSON (`strict`) or JSONC text, found at any depth; for JSONC also a
 * nesting deeper than MAX_DEPTH, which its (recursive) parser is then not given.
 */
function jsonProblem(text: string, file: string, strict: boolean): ParseFailure | undefined {
  const { error, deepAt } = scanJson(jsonc(), text, strict);
  if (error !== undefined) {
    const { line, col } = lineCol(text, error.offset);
    return new ParseFailure(file, line, col, describeJsonError(jsonc().printParseErrorCode(error.code)));
  }
  if (!strict && deepAt !== undefined) return deepFailure(text, file, deepAt);
  return undefined;
}

function deepFailure(text: string, file: string, offset: number): ParseFailure {
  const { line, col } = lineCol(text, offset);
  return new ParseFailure(file, line, col, DEEP_DOCUMENT_MESSAGE);
}

function describeJsonError(code: string): string {
  const words = code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `invalid JSON: ${words}`;
}

/** A key as a message shows it: quoted, on one line, and short. */
function shownKey(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 57)}...` : key);
}

/** The repeated key's failure: at the second one, naming the first. */
function repeatedKey(body: string, file: string, key: string, first: number, second: number): ParseFailure {
  const at = lineCol(body, second);
  const was = lineCol(body, first);
  return new ParseFailure(
    file,
    at.line,
    at.col,
    `the key ${shownKey(key)} appears twice in one object (first at line ${was.line}:${was.col}); remove one`,
  );
}

/**
 * Parses JSON strictly (JSON.parse semantics, a BOM accepted), JSONC (comments, trailing commas) or
 * YAML (aliases within DEFAULT_MAX_YAML_EXPANSION, alias cycles refused). Errors carry
 * `file:line:col`. In every format `__proto__` and `constructor` are ordinary keys (own
 * properties), as JSON.parse makes them. With `uniqueKeys`, a repeated key is a ParseFailure.
 */
export function parseText(text: string, file: string, format: TextFormat = formatOf(file), options: ParseOptions = {}): unknown {
  try {
    return parseBody(stripBom(text), file, format, options);
  } catch (err) {
    // The YAML and JSONC parsers recurse; they are given only documents no deeper than MAX_DEPTH
    // (src/registry/depth.ts). Should a stack still run out, it is a one-line error, not a crash.
    if (err instanceof RangeError) throw new ParseFailure(file, 1, 1, 'the document is nested too deeply to parse');
    throw err;
  }
}

/** parseText with uniqueKeys: for files where last-wins would silently drop what someone wrote. */
export function parseTextUniqueKeys(text: string, file: string, format: TextFormat = formatOf(file), options: ParseOptions = {}): unknown {
  return parseText(text, file, format, { ...options, uniqueKeys: true });
}

/**
 * Writes every YAML mapping key that is a scalar of another type than string (`1`, `0x1F`,
 * `1.50`, `null`, `~`, `true`) as its source text, so that it names the property its author
 * wrote: a JSON property name is a string, and YAML would otherwise turn `null:` into the name
 * `""`, `0x1F:` into `"31"` and `1.50:` into `"1.5"`, which data with the property `"null"`,
 * `"0x1F"` or `"1.50"` does not match (it would be neither validated nor masked there).
 */
export function sourceKeys(doc: Yaml.Document): void {
  yaml().visit(doc, {
    Pair(_key, pair) {
      const key = pair.key;
      if (yaml().isScalar(key) && typeof key.value !== 'string') key.value = key.source ?? String(key.value);
    },
  });
}

function parseBody(body: string, file: string, format: TextFormat, options: ParseOptions): unknown {
  if (format === 'yaml') {
    const read = yamlDocument(yaml(), body, { uniqueKeys: false });
    if ('deepAt' in read) throw deepFailure(body, file, read.deepAt);
    const doc = read.doc;
    const err = doc.errors[0];
    if (err) {
      const { line, col } = lineCol(body, err.pos[0]);
      if (/call stack/i.test(err.message)) throw new RangeError(err.message);
      throw new ParseFailure(file, line, col, `invalid YAML: ${err.message.split('\n')[0]}`);
    }
    sourceKeys(doc);
    return yamlValue(doc, body, file, options);
  }
  if (format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (e) {
      throw jsonProblem(body, file, true) ?? new ParseFailure(file, 1, 1, `invalid JSON: ${(e as Error).message}`);
    }
    // Only a text that repeats a key is read again, as JSONC, to name both places.
    if (options.uniqueKeys && jsonRepeatsKey(body, value)) parseBody(body, file, 'jsonc', options);
    return value;
  }
  const failure = jsonProblem(body, file, false);
  if (failure) throw failure;
  const tree = jsonc().parseTree(body, [], { allowTrailingComma: true, disallowComments: false });
  const onRepeat = options.uniqueKeys
    ? (key: string, first: number, second: number): never => {
        throw repeatedKey(body, file, key, first, second);
      }
    : undefined;
  return tree === undefined ? undefined : treeValue(tree, onRepeat);
}

/**
 * A JSONC syntax tree as a value, built iteratively with own properties (`__proto__` stays a key).
 * A repeated key keeps its last value, as JSON.parse does, unless `onRepeat` refuses it: it is
 * given the first repeat in the text (the tree is not walked in text order), as JSON names it.
 */
function treeValue(root: JsoncParser.Node, onRepeat?: (key: string, first: number, second: number) => never): unknown {
  let repeat: { key: string; first: number; second: number } | undefined;
  const scalar = (n: JsoncParser.Node): unknown => (n.type === 'object' ? {} : n.type === 'array' ? [] : n.value);
  const top = scalar(root);
  const stack: Array<[JsoncParser.Node, unknown]> = [[root, top]];
  while (stack.length > 0) {
    const [node, target] = stack.pop()!;
    if (node.type === 'array') {
      const list = target as unknown[];
      for (const child of node.children ?? []) {
        const v = scalar(child);
        list.push(v);
        if (child.type === 'object' || child.type === 'array') stack.push([child, v]);
      }
    } else if (node.type === 'object') {
      for (const prop of node.children ?? []) {
        const [keyNode, valueNode] = prop.children ?? [];
        if (keyNode === undefined || valueNode === undefined) continue;
        const key = keyNode.value as string;
        if (
          onRepeat !== undefined &&
          Object.prototype.hasOwnProperty.call(target, key) &&
          (repeat === undefined || keyNode.offset < repeat.second)
        ) {
          const first = (node.children ?? []).find((p) => p.children?.[0]?.value === key)!.children![0]!;
          repeat = { key, first: first.offset, second: keyNode.offset };
        }
        const v = scalar(valueNode);
        Object.defineProperty(target, key, { value: v, enumerable: true, writable: true, configurable: true });
        if (valueNode.type === 'object' || valueNode.type === 'array') stack.push([valueNode, v]);
      }
    }
  }
  if (repeat !== undefined) onRepeat!(repeat.key, repeat.first, repeat.second);
  return top;
}

/** The offset of the closing quote of the JSON string opening at `i` (the text's length if none). */
export function stringEnd(text: string, i: number): number {
  let j = text.indexOf('"', i + 1);
  for (;;) {
    if (j === -1) return text.length; // unterminated (a text that did not parse): its end
    let k = j - 1;
    while (text.charCodeAt(k) === 0x5c) k--;
    if (((j - 1 - k) & 1) === 0) return j; // an even run of backslashes: the quote is not escaped
    j = text.indexOf('"', j + 1);
  }
}

/** How many keys a JSON text writes: strings followed by a colon (strings are skipped whole). */
function keysWritten(text: string): number {
  let count = 0;
  for (let i = text.indexOf('"'); i !== -1; i = text.indexOf('"', i)) {
    i = stringEnd(text, i) + 1;
    let c = text.charCodeAt(i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
    if (c === 0x3a) count++;
  }
  return count;
}

/** How many keys a parsed value holds, over every object in it (iterative: values may be deep). */
function keysHeld(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const x of v) if (typeof x === 'object' && x !== null) stack.push(x);
    } else {
      for (const k in v) {
        count++;
        const x = (v as Record<string, unknown>)[k];
        if (typeof x === 'object' && x !== null) stack.push(x);
      }
    }
  }
  return count;
}

/**
 * Whether a parsed JSON text repeats a key in one object. JSON.parse kept one of them: the text
 * writes more keys than the value holds exactly when a key repeats, so two counts (a jump from
 * string to string, a walk of the value) clear the common case at a fraction of the parse's cost.
 */
export function jsonRepeatsKey(text: string, value: unknown): boolean {
  return keysWritten(text) !== keysHeld(value);
}

const SATURATED = 2 ** 53;
const sum = (a: number, b: number): number => Math.min(a + b, SATURATED);

/** A collection being built: its slots are its items (a mapping's: key, value, key, …). */
interface Frame {
  node: Yaml.YAMLMap | Yaml.YAMLSeq | Yaml.Pair;
  /** A mapping's pairs (a lone Pair is one); undefined for a sequence. */
  pairs: Yaml.Pair[] | undefined;
  slots: number;
  next: number;
  /** Its values, aliases expanded, itself included. */
  size: number;
  out: Record<string, unknown> | unknown[];
  /** The pending pair's property name (undefined: not a plain key). */
  key: string | undefined;
  /** With uniqueKeys: property name → its key node. */
  seen: Map<string, unknown> | undefined;
  /** In a key: the package writes it out as text, an alias as `*name`. */
  inKey: boolean;
}

/**
 * A parsed YAML document as a value, in one walk linear in its nodes: anchors are kept in a map
 * with their value and expanded size (the `yaml` package scans the document for each alias). It
 * refuses, at the node, an alias cycle, an alias without its anchor, a repeated key (uniqueKeys)
 * and aliases past the limit. Plain documents are built as `toJS` builds them (an alias is its
 * anchor's value); others (YAML 1.1 merge keys and typed collections, collection keys) by the
 * package, each alias replaced by what it names, within the limit.
 */
function yamlValue(doc: Yaml.Document.Parsed, body: string, file: string, options: ParseOptions): unknown {
  const Y = yaml();
  const limit = options.maxYamlExpansion ?? DEFAULT_MAX_YAML_EXPANSION;
  const merges = doc.schema.tags.some((t) => t.tag === 'tag:yaml.org,2002:merge' && t.default === true);
  const plainMap = Y.YAMLMap.prototype;
  const plainSeq = Y.YAMLSeq.prototype;
  const anchors = new Map<string, Yaml.Node>();
  const done = new Map<Yaml.Node, { value: unknown; size: number }>();
  const aliases: Array<[holder: unknown[] | Yaml.Pair, slot: number | 'key' | 'value', target: Yaml.Node]> = [];
  const stack: Frame[] = [];
  let added = 0;
  let exotic = false;
  let root: unknown = null;
  const fail = (node: unknown, problem: string): never => {
    const { line, col } = lineCol(body, (node as Yaml.Node | null)?.range?.[0] ?? 0);
    throw new ParseFailure(file, line, col, problem);
  };

  const deliver = (value: unknown, size: number, node: unknown): void => {
    const f = stack[stack.length - 1];
    if (f === undefined) {
      root = value;
      return;
    }
    f.size = sum(f.size, size);
    if (f.pairs === undefined) {
      (f.out as unknown[]).push(value);
      return;
    }
    const slot = f.next - 1;
    if ((slot & 1) === 0) {
      // A key: the object's property name, as toJS names it (null is '', a scalar its String()).
      let name: string | undefined;
      if (value === null) name = '';
      else if (typeof value !== 'object' && typeof value !== 'symbol' && typeof value !== 'function') name = String(value);
      if (name === undefined || (merges && name === '<<') || (node !== null && typeof node === 'object' && 'addToJSMap' in node))
        exotic = true;
      if (f.seen !== undefined) {
        const seenAs = name ?? JSON.stringify(Y.isNode(node) ? node.toJSON() : value) ?? '';
        const first = f.seen.get(seenAs);
        if (first !== undefined) {
          const at = (n: unknown, pair: Yaml.Pair): number =>
            (n as Yaml.Node | null)?.range?.[0] ?? (pair.value as Yaml.Node | null)?.range?.[0] ?? 0;
          const pairs = f.pairs;
          const firstPair = pairs.find((p) => p.key === first) ?? pairs[slot >> 1]!;
          throw repeatedKey(body, file, seenAs, at(first, firstPair), at(node, pairs[slot >> 1]!));
        }
        f.seen.set(seenAs, node);
      }
      f.key = name;
    } else if (!exotic) {
      const out = f.out as Record<string, unknown>;
      const key = f.key!;
      if (key in out) Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
      else out[key] = value;
    }
  };

  const enter = (node: unknown, holder: unknown[] | Yaml.Pair | undefined, slot: number | 'key' | 'value', inKey: boolean): void => {
    if (node === null || node === undefined) return deliver(null, 1, node);
    if (Y.isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined) return fail(node, `invalid YAML: the alias *${node.source} has no anchor &${node.source} before it`);
      const known = done.get(target);
      if (known === undefined)
        return fail(node, `invalid YAML: the alias *${node.source} refers to a node that contains it (a self-referencing document)`);
      added = sum(added, known.size);
      if (added > limit) {
        return fail(
          node,
          `invalid YAML: its aliases expand it past ${limit} values (the limit), here at *${node.source}; write the repeated part out, or raise the limit with ${YAML_EXPANSION_ENV}`,
        );
      }
      if (holder !== undefined && !inKey) aliases.push([holder, slot, target]);
      return deliver(known.value, known.size, node);
    }
    if (Y.isNode(node) && typeof node.anchor === 'string' && node.anchor !== '') anchors.set(node.anchor, node);
    if (Y.isScalar(node)) {
      if (node.anchor) done.set(node, { value: node.value, size: 1 });
      return deliver(node.value, 1, node);
    }
    if (Y.isMap(node) || Y.isSeq(node) || Y.isPair(node)) {
      const pairs = Y.isMap(node) ? (node.items as Yaml.Pair[]) : Y.isPair(node) ? [node] : undefined;
      if (Y.isPair(node) || Object.getPrototypeOf(node) !== (pairs === undefined ? plainSeq : plainMap)) exotic = true;
      const slots = pairs === undefined ? (node as Yaml.YAMLSeq).items.length : pairs.length * 2;
      stack.push({
        node,
        pairs,
        slots,
        next: 0,
        size: 1,
        out: pairs === undefined ? [] : {},
        key: undefined,
        seen: options.uniqueKeys && pairs !== undefined ? new Map() : undefined,
        inKey,
      });
      return undefined;
    }
    exotic = true; // nothing the parser makes, but never a silent wrong value
    return deliver(undefined, 1, node);
  };

  enter(doc.contents, undefined, 0, false);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.next < f.slots) {
      const slot = f.next++;
      if (f.pairs === undefined) {
        const items = (f.node as Yaml.YAMLSeq).items as unknown[];
        enter(items[slot], items, slot, f.inKey);
      } else {
        const pair = f.pairs[slot >> 1]!;
        if ((slot & 1) === 0) enter(pair.key, pair, 'key', true);
        else enter(pair.value, pair, 'value', f.inKey);
      }
      continue;
    }
    stack.pop();
    const anchored = Y.isNode(f.node) && f.node.anchor ? f.node : undefined;
    if (anchored !== undefined) done.set(anchored, { value: f.out, size: f.size });
    deliver(f.out, f.size, f.node);
  }
  if (!exotic) return root;
  // The package builds what this walk does not; each alias becomes a copy of its (checked) anchor,
  // but in a key, which the package writes out as text (an alias as `*name`).
  for (const [holder, slot, target] of aliases) {
    if (Array.isArray(holder)) holder[slot as number] = target;
    else if (slot === 'key') holder.key = target;
    else holder.value = target;
  }
  try {
    return doc.toJS({ maxAliasCount: -1 });
  } catch (e) {
    if (e instanceof RangeError) throw e;
    throw new ParseFailure(file, 1, 1, `invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}

/**
 * One NDJSON line: JSON.parse, and the positioned parser only to place a failure, which is then
 * reported at the line's own number.
 */
export function parseJsonLine(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return parseText(text, file, 'json');
    } catch (err) {
      if (err instanceof ParseFailure) throw new ParseFailure(file, line, err.col, err.problem);
      throw err;
    }
  }
}
