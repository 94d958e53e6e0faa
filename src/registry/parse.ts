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

const YAML_LIMITS = { maxAliasCount: 100 } as const;

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

/**
 * Parses JSON strictly (JSON.parse semantics, a BOM accepted), JSONC (comments, trailing commas) or
 * YAML (aliases capped, alias cycles refused). Errors carry `file:line:col`. In every format
 * `__proto__` and `constructor` are ordinary keys (own properties), as JSON.parse makes them.
 */
export function parseText(text: string, file: string, format: TextFormat = formatOf(file)): unknown {
  try {
    return parseBody(stripBom(text), file, format);
  } catch (err) {
    // The YAML and JSONC parsers recurse; they are given only documents no deeper than MAX_DEPTH
    // (src/registry/depth.ts). Should a stack still run out, it is a one-line error, not a crash.
    if (err instanceof RangeError) throw new ParseFailure(file, 1, 1, 'the document is nested too deeply to parse');
    throw err;
  }
}

/** An alias that names one of its own ancestors would make a self-referencing (infinite) value. */
function yamlCycle(doc: Yaml.Document.Parsed): Yaml.Alias | undefined {
  let found: Yaml.Alias | undefined;
  yaml().visit(doc, {
    Alias(_key, node, path) {
      const target = node.resolve(doc);
      if (target !== undefined && (path as readonly unknown[]).includes(target)) {
        found = node;
        return yaml().visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function parseBody(body: string, file: string, format: TextFormat): unknown {
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
    const cycle = yamlCycle(doc);
    if (cycle !== undefined) {
      const { line, col } = lineCol(body, cycle.range?.[0] ?? 0);
      throw new ParseFailure(file, line, col, `invalid YAML: the alias *${cycle.source} refers to a node that contains it (a self-referencing document)`);
    }
    try {
      return doc.toJS(YAML_LIMITS);
    } catch (e) {
      if (e instanceof RangeError) throw e;
      throw new ParseFailure(file, 1, 1, `invalid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  if (format === 'json') {
    try {
      return JSON.parse(body);
    } catch (e) {
      throw jsonProblem(body, file, true) ?? new ParseFailure(file, 1, 1, `invalid JSON: ${(e as Error).message}`);
    }
  }
  const failure = jsonProblem(body, file, false);
  if (failure) throw failure;
  const tree = jsonc().parseTree(body, [], { allowTrailingComma: true, disallowComments: false });
  return tree === undefined ? undefined : treeValue(tree);
}

/** A JSONC syntax tree as a value, built iteratively with own properties (`__proto__` stays a key). */
function treeValue(root: JsoncParser.Node): unknown {
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
        const v = scalar(valueNode);
        // A repeated key keeps its last value, as JSON.parse does.
        Object.defineProperty(target, keyNode.value as string, { value: v, enumerable: true, writable: true, configurable: true });
        if (valueNode.type === 'object' || valueNode.type === 'array') stack.push([valueNode, v]);
      }
    }
  }
  return top;
}

/**
 * Parses like parseText, and refuses a key repeated in one mapping (JSON, JSONC and YAML alike),
 * naming the repeat's `file:line:col`: for files where last-wins would silently drop an entry
 * someone reviewed (an exceptions file).
 */
export function parseTextUniqueKeys(text: string, file: string, format: TextFormat = formatOf(file)): unknown {
  const value = parseText(text, file, format);
  const body = stripBom(text);
  let at: number | undefined;
  let key = '';
  if (format === 'yaml') {
    const doc = yaml().parseDocument(body, { prettyErrors: false, uniqueKeys: true });
    const err = doc.errors.find((e) => e.code === 'DUPLICATE_KEY');
    if (err) {
      at = err.pos[0];
      const m = /^\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:#\n]*?)\s*:/.exec(body.slice(at));
      key = m ? m[1]!.replace(/^["']|["']$/g, '') : '';
    }
  } else {
    const tree = jsonc().parseTree(body, [], { allowTrailingComma: true, disallowComments: false });
    const stack = tree === undefined ? [] : [tree];
    while (stack.length > 0 && at === undefined) {
      const node = stack.pop()!;
      const seen = new Set<string>();
      for (const child of node.children ?? []) {
        if (node.type === 'object') {
          const k = child.children?.[0];
          if (k !== undefined && typeof k.value === 'string') {
            if (seen.has(k.value)) {
              at = k.offset;
              key = k.value;
              break;
            }
            seen.add(k.value);
          }
        }
        if (child.type === 'object' || child.type === 'array' || child.type === 'property') stack.push(child);
      }
    }
  }
  if (at === undefined) return value;
  const { line, col } = lineCol(body, at);
  throw new ParseFailure(file, line, col, `the key ${JSON.stringify(key)} is repeated in one mapping (which one holds would be silent): remove one`);
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
