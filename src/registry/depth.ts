import type * as JsoncParser from 'jsonc-parser';
import type * as Yaml from 'yaml';
import { MAX_DEPTH } from '../validator/limits.js';

/*
 * Reading JSON, JSONC and YAML text without recursion, where the parsers we use recurse: the
 * JSONC parser and the YAML composer take a frame or more per level, so how deep a document they
 * can read depends on the stack of the thread they run in (a worker thread's is larger than the
 * main thread's). What is counted here is the same everywhere: a document is measured before a
 * recursive parser sees it (MAX_DEPTH, src/validator/limits.ts), and a JSON text's first syntax
 * error is found at any depth.
 */

/** jsonc-parser's SyntaxKind and ParseErrorCode values this scan uses (const enums in its types). */
const T = {
  openBrace: 1,
  closeBrace: 2,
  openBracket: 3,
  closeBracket: 4,
  comma: 5,
  colon: 6,
  null: 7,
  true: 8,
  false: 9,
  string: 10,
  number: 11,
  lineComment: 12,
  blockComment: 13,
  lineBreak: 14,
  trivia: 15,
  unknown: 16,
  eof: 17,
} as const;
const E = {
  invalidSymbol: 1,
  invalidNumberFormat: 2,
  propertyNameExpected: 3,
  valueExpected: 4,
  colonExpected: 5,
  commaExpected: 6,
  closeBraceExpected: 7,
  closeBracketExpected: 8,
  endOfFileExpected: 9,
  invalidCommentToken: 10,
  unexpectedEndOfComment: 11,
  unexpectedEndOfString: 12,
  unexpectedEndOfNumber: 13,
  invalidUnicode: 14,
  invalidEscapeCharacter: 15,
  invalidCharacter: 16,
} as const;
/** ScanError → ParseErrorCode, as jsonc-parser's parser maps them (UnexpectedEndOfComment only where comments are allowed). */
const SCAN_ERRORS: Record<number, number> = {
  4: E.invalidUnicode,
  5: E.invalidEscapeCharacter,
  3: E.unexpectedEndOfNumber,
  2: E.unexpectedEndOfString,
  6: E.invalidCharacter,
};

/** What one pass over a JSON or JSONC text found. */
export interface JsonScan {
  /** The first syntax error, as jsonc-parser's `parse` reports it first: its ParseErrorCode and offset. */
  error?: { code: JsoncParser.ParseErrorCode; offset: number };
  /** Where the first container deeper than MAX_DEPTH opens, when one does (before any error). */
  deepAt?: number;
}

/**
 * The first syntax error of a JSON text (`strict`: no comments, no trailing commas) or a JSONC one,
 * exactly as jsonc-parser's `parse` reports it first (test/validator/depth-limits.e2e.test.ts compares them on
 * generated texts), found with an explicit stack instead of recursion; and whether the text nests
 * deeper than MAX_DEPTH.
 */
export function scanJson(jsonc: typeof JsoncParser, text: string, strict: boolean): JsonScan {
  const scanner = jsonc.createScanner(text, false);
  const out: JsonScan = {};
  const fail = (code: number): JsonScan => {
    out.error = { code: code as JsoncParser.ParseErrorCode, offset: scanner.getTokenOffset() };
    return out;
  };
  // The next token that is not trivia, or an error code.
  const next = (): number | { code: number } => {
    for (;;) {
      const token = scanner.scan();
      const scanError = scanner.getTokenError() as number;
      if (scanError === 1 && !strict) return { code: E.unexpectedEndOfComment };
      if (SCAN_ERRORS[scanError] !== undefined) return { code: SCAN_ERRORS[scanError]! };
      if (token === T.lineComment || token === T.blockComment) {
        if (strict) return { code: E.invalidCommentToken };
        continue;
      }
      if (token === T.unknown) return { code: E.invalidSymbol };
      if (token !== T.trivia && token !== T.lineBreak) return token;
    }
  };
  // Open containers: true for an object. `comma` is whether the innermost one needs a comma next.
  const open: boolean[] = [];
  let comma = false;
  let token = next();
  if (typeof token !== 'number') return fail(token.code);
  if (token === T.eof) return fail(E.valueExpected);
  let wantValue = true;
  for (;;) {
    if (wantValue) {
      // A value starts here (the root, an array member, a property's value).
      if (token === T.openBrace || token === T.openBracket) {
        open.push(token === T.openBrace);
        if (open.length > MAX_DEPTH && out.deepAt === undefined) out.deepAt = scanner.getTokenOffset();
        comma = false;
        wantValue = false;
        token = next();
        if (typeof token !== 'number') return fail(token.code);
        continue;
      }
      if (token === T.number && Number.isNaN(Number(scanner.getTokenValue()))) return fail(E.invalidNumberFormat);
      if (token !== T.string && token !== T.number && token !== T.null && token !== T.true && token !== T.false)
        return fail(E.valueExpected);
      token = next();
      if (typeof token !== 'number') return fail(token.code);
      if (open.length === 0) return token === T.eof ? out : fail(E.endOfFileExpected);
      comma = true;
      wantValue = false;
    }
    // Inside the innermost container, after its opening or after a member.
    const object = open[open.length - 1]!;
    const close = object ? T.closeBrace : T.closeBracket;
    if (token !== close) {
      if (token === T.eof) return fail(object ? E.closeBraceExpected : E.closeBracketExpected);
      if (token === T.comma) {
        if (!comma) return fail(E.valueExpected);
        token = next();
        if (typeof token !== 'number') return fail(token.code);
      } else if (comma) {
        return fail(E.commaExpected);
      }
      if (token !== close || strict) {
        if (object) {
          if (token !== T.string) return fail(E.propertyNameExpected);
          token = next();
          if (typeof token !== 'number') return fail(token.code);
          if (token !== T.colon) return fail(E.colonExpected);
          token = next();
          if (typeof token !== 'number') return fail(token.code);
        }
        wantValue = true;
        continue;
      }
    }
    // The container closes (a trailing comma before it is allowed in JSONC).
    open.pop();
    token = next();
    if (typeof token !== 'number') return fail(token.code);
    if (open.length === 0) return token === T.eof ? out : fail(E.endOfFileExpected);
    comma = true;
  }
}

type YamlToken = Yaml.CST.Token;
type YamlItem = { start?: YamlToken[]; key?: YamlToken | null; sep?: YamlToken[]; value?: YamlToken };

/**
 * A YAML text's first document, as yaml's `parseDocument(text, options)` gives it (a second
 * document is its MULTIPLE_DOCS error), or, when it nests deeper than MAX_DEPTH, the offset where
 * the first collection past the limit opens. The text is parsed once: yaml's Parser keeps a stack
 * of its own, its syntax tree is measured, and only then does the composer, which recurses, turn
 * it into a document.
 */
export function yamlDocument(
  yaml: typeof Yaml,
  text: string,
  options: Yaml.ParseOptions & Yaml.DocumentOptions & Yaml.SchemaOptions,
): { doc: Yaml.Document.Parsed } | { deepAt: number } {
  const tokens = [...new yaml.Parser().parse(text)];
  const deepAt = yamlDeepAt(tokens);
  if (deepAt !== undefined) return { deepAt };
  let doc: Yaml.Document.Parsed | undefined;
  for (const next of new yaml.Composer(options).compose(tokens, true, text.length)) {
    if (doc === undefined) doc = next;
    else {
      doc.errors.push(
        new yaml.YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  return { doc: doc! };
}

/**
 * Where the first collection deeper than MAX_DEPTH opens in yaml's syntax tree (its offset), or
 * `undefined`. A pair written inside a flow sequence (`[a: b]`) is a mapping of its own, so it
 * counts as a level.
 */
function yamlDeepAt(tokens: readonly YamlToken[]): number | undefined {
  // Children are pushed last first, so the walk meets them in document order.
  const stack: Array<[YamlToken, number]> = tokens.map((t): [YamlToken, number] => [t, 0]).reverse();
  while (stack.length > 0) {
    const [token, depth] = stack.pop()!;
    let items: YamlItem[];
    let level = depth;
    switch (token.type) {
      case 'document':
        items = [{ start: token.start, value: token.value, sep: token.end }];
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection':
        level = depth + 1;
        if (level > MAX_DEPTH) return token.offset;
        items = token.items as YamlItem[];
        break;
      case 'block-scalar':
        items = [{ start: token.props }];
        break;
      default:
        continue;
    }
    const pairs = token.type === 'flow-collection' && token.start.source === '[';
    const children: Array<[YamlToken, number]> = [];
    for (const item of items) {
      const inner = pairs && item.sep !== undefined ? level + 1 : level;
      if (inner > MAX_DEPTH) return token.offset;
      for (const t of item.start ?? []) children.push([t, level]);
      if (item.key) children.push([item.key, inner]);
      for (const t of item.sep ?? []) children.push([t, level]);
      if (item.value) children.push([item.value, inner]);
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return undefined;
}
