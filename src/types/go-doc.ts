/*
 * Go doc comments laid out as gofmt lays them out. gofmt (Go 1.19 and later) rewrites every `//`
 * comment group that starts in column 1 just above a declaration by go/doc/comment's rules: an
 * indented line starts a code block (a tab, a blank line around it) or a list (`  - item`), a
 * `# x` line is a heading and so is a lone capitalised line between paragraphs, link definitions
 * (`[x]: https://…`) move to the end, runs of blank lines become one. Descriptions and URNs come
 * from user schemas and may hold any of these, so the Go generator lays its doc comments out by
 * the same rules (this file ports go/doc/comment's block parser and its comment printer), and
 * gofmt leaves the file as it is. Text within a line is never changed: each line is what the
 * generator's comment builder made of the schema's text (escaped, no tab, no control character).
 */

/** Go's unicode.IsSpace, which strings.TrimSpace trims. */
const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');
const TRIM_RIGHT = new RegExp(`[${GO_SPACE}]+$`);

/** strings.TrimSpace. */
export const goTrimSpace = (s: string): string => s.replace(TRIM, '');

type Block =
  | { kind: 'paragraph'; lines: string[] }
  | { kind: 'heading'; text: string }
  | { kind: 'code'; lines: string[] }
  | { kind: 'list'; items: Array<{ number: string; content: string[][] }>; blankBefore: boolean; blankBetween: boolean };

interface LinkDef {
  text: string;
  url: string;
  used: boolean;
}

const indented = (line: string): boolean => line !== '' && (line[0] === ' ' || line[0] === '\t');
const leadingSpace = (s: string): string => /^[ \t]*/.exec(s)![0];

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

/** Without leading and trailing blank lines, without the indentation common to all, blank lines empty. */
function unindent(all: readonly string[]): string[] {
  let lines = [...all];
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return [];
  let prefix = leadingSpace(lines[0]!);
  for (const line of lines.slice(1)) if (line !== '') prefix = commonPrefix(prefix, leadingSpace(line));
  lines = lines.map((line) => {
    const l = line.startsWith(prefix) ? line.slice(prefix.length) : line;
    return goTrimSpace(l) === '' ? '' : l;
  });
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A list marker (`-`, `*`, `+`, `•`, `1.`, `1)`) followed by a space and text: the item's number ('' for a bullet) and the rest. */
function listMarker(line: string): { number: string; rest: string } | undefined {
  line = goTrimSpace(line);
  if (line === '') return undefined;
  let number: string;
  let rest: string;
  if ('•*+-'.includes(line[0]!)) {
    number = '';
    rest = line.slice(1);
  } else if (line[0]! >= '0' && line[0]! <= '9') {
    let n = 1;
    while (n < line.length && line[n]! >= '0' && line[n]! <= '9') n++;
    if (n >= line.length || (line[n] !== '.' && line[n] !== ')')) return undefined;
    number = line.slice(0, n);
    rest = line.slice(n + 1);
  } else return undefined;
  if (!indented(rest) || goTrimSpace(rest) === '') return undefined;
  return { number, rest };
}

const isList = (line: string): boolean => listMarker(line) !== undefined;

const isHeading = (line: string): boolean =>
  line.length >= 2 && line[0] === '#' && (line[1] === ' ' || line[1] === '\t') && goTrimSpace(line) !== '#';

/** A line that go/doc/comment takes for a heading of the old style: alone, capitalised, without most punctuation, before a paragraph. */
function isOldHeading(line: string, all: readonly string[], off: number): boolean {
  if (off <= 0 || all[off - 1] !== '' || off + 2 >= all.length || all[off + 1] !== '' || leadingSpace(all[off + 2]!) !== '') return false;
  line = goTrimSpace(line);
  if (!/^\p{Lu}/u.test(line)) return false;
  if (!/[\p{L}\p{Nd}]$/u.test(line)) return false;
  if ([...';:!?+*/=[]{}_^°&§~%#@<">\\'].some((c) => line.includes(c))) return false;
  for (let b = line; ;) {
    const k = b.indexOf("'");
    if (k < 0) break;
    b = b.slice(k + 1);
    if (b !== 's' && !b.startsWith('s ')) return false;
  }
  for (let b = line; ;) {
    const k = b.indexOf('.');
    if (k < 0) break;
    b = b.slice(k + 1);
    if (b === '' || b.startsWith(' ')) return false;
  }
  return true;
}

const SCHEMES = new Set(['file', 'ftp', 'gopher', 'http', 'https', 'mailto', 'nntp']);

/** A link definition line, `[text]: scheme://…`. */
function parseLink(line: string): LinkDef | undefined {
  if (line === '' || line[0] !== '[') return undefined;
  const i = line.indexOf(']:');
  if (i < 0 || i + 3 >= line.length || (line[i + 2] !== ' ' && line[i + 2] !== '\t')) return undefined;
  const url = goTrimSpace(line.slice(i + 3));
  const j = url.indexOf('://');
  if (j < 0 || !SCHEMES.has(url.slice(0, j))) return undefined;
  return { text: line.slice(1, i), url, used: false };
}

type SpanKind = 'code' | 'heading' | 'list' | 'oldHeading' | 'paragraph';

/** go/doc/comment's parseSpans: the lines in spans of one kind each (its heuristics for misindented lists and code included). */
function parseSpans(lines: readonly string[]): Array<{ start: number; end: number; kind: SpanKind }> {
  const spans: Array<{ start: number; end: number; kind: SpanKind }> = [];
  let watchdog = 2 * lines.length;
  let i = 0;
  let forceIndent = 0;
  for (;;) {
    while (i < lines.length && lines[i] === '') i++;
    if (i >= lines.length) break;
    if (watchdog-- < 0) throw new Error('go doc comment layout: not making progress');
    let kind: SpanKind;
    const start = i;
    let end: number;
    if (i < forceIndent || indented(lines[i]!)) {
      let unindentedListOK = isList(lines[i]!) && i < forceIndent;
      i++;
      while (i < lines.length && (lines[i] === '' || i < forceIndent || indented(lines[i]!) || (unindentedListOK && isList(lines[i]!)))) {
        if (lines[i] === '') unindentedListOK = false;
        i++;
      }
      end = i;
      while (end > start && lines[end - 1] === '') end--;
      // An unindented line starting with `}` right after indented ones closes the code.
      if (end < lines.length && lines[end]!.startsWith('}')) end++;
      kind = isList(lines[start]!) ? 'list' : 'code';
    } else {
      i++;
      while (i < lines.length && lines[i] !== '' && !indented(lines[i]!)) i++;
      end = i;
      // Unindented lines right before an indented one may belong to it: list items, or a line ending in `{` or `\`.
      if (i < lines.length && lines[i] !== '' && !isList(lines[i]!)) {
        if (isList(lines[i - 1]!)) {
          forceIndent = end;
          end--;
          while (end > start && isList(lines[end - 1]!)) end--;
        } else if (lines[i - 1]!.endsWith('{') || lines[i - 1]!.endsWith('\\')) {
          forceIndent = end;
          end--;
        }
        if (start === end && forceIndent > start) {
          i = start;
          continue;
        }
      }
      if (end - start === 1 && isHeading(lines[start]!)) kind = 'heading';
      else if (end - start === 1 && isOldHeading(lines[start]!, lines, start)) kind = 'oldHeading';
      else kind = 'paragraph';
    }
    spans.push({ start, end, kind });
    i = end;
  }
  return spans;
}

/** The blocks of a doc comment's text lines, and its link definitions (by their text: the first of each). */
function parse(text: readonly string[]): { blocks: Block[]; links: LinkDef[]; byText: Map<string, LinkDef> } {
  const lines = unindent(text);
  const blocks: Block[] = [];
  const links: LinkDef[] = [];
  const byText = new Map<string, LinkDef>();
  /** A paragraph, or nothing when its every line is a link definition (kept in links). */
  const paragraph = (ls: string[]): string[] | undefined => {
    const defs = ls.map(parseLink);
    if (!defs.every((d): d is LinkDef => d !== undefined)) return ls;
    for (const d of defs) {
      links.push(d);
      if (!byText.has(d.text)) byText.set(d.text, d);
    }
    return undefined;
  };
  let prevEnd = 0;
  for (const s of parseSpans(lines)) {
    const span = lines.slice(s.start, s.end);
    switch (s.kind) {
      case 'list': {
        const numbered = listMarker(span[0]!)!.number !== '';
        const list: Extract<Block, { kind: 'list' }> = { kind: 'list', items: [], blankBefore: prevEnd < s.start, blankBetween: false };
        let item: { number: string; content: string[][] } | undefined;
        let itemText: string[] = [];
        const flush = (): void => {
          if (item !== undefined) {
            const p = paragraph(itemText);
            if (p !== undefined) item.content.push(p);
          }
          itemText = [];
        };
        for (let line of span) {
          const m = listMarker(line);
          if (m !== undefined && (m.number !== '') === numbered) {
            flush();
            item = { number: m.number, content: [] };
            list.items.push(item);
            line = m.rest;
          }
          line = goTrimSpace(line);
          if (line === '') {
            list.blankBetween = true;
            flush();
            continue;
          }
          itemText.push(line);
        }
        flush();
        if (list.items.some((it) => it.content.length !== 1)) list.blankBetween = true;
        if (list.blankBetween) list.blankBefore = true;
        blocks.push(list);
        break;
      }
      case 'code':
        blocks.push({ kind: 'code', lines: unindent(span) });
        break;
      case 'oldHeading':
        blocks.push({ kind: 'heading', text: goTrimSpace(span[0]!) });
        break;
      case 'heading':
        blocks.push({ kind: 'heading', text: goTrimSpace(span[0]!.slice(1)) });
        break;
      case 'paragraph': {
        const p = paragraph(span);
        if (p !== undefined) blocks.push({ kind: 'paragraph', lines: p });
        break;
      }
    }
    prevEnd = s.end;
  }
  return { blocks, links, byText };
}

/*
 * Text within a paragraph or a list item: gofmt writes `` as “ and '' as ”, except inside a URL
 * (found as go/doc/comment finds them) and in a run of three backticks or more (Markdown). This is
 * its parseLinkedText and parseText, on the UTF-8 bytes of the text as in Go (its indices are byte
 * offsets, a quirk of its backtick loop included).
 */

const asciiSet = (chars: string, ranges = ''): Set<number> => {
  const set = new Set<number>([...chars].map((c) => c.charCodeAt(0)));
  if (ranges.includes('A')) for (let c = 65; c <= 90; c++) set.add(c);
  if (ranges.includes('a')) for (let c = 97; c <= 122; c++) set.add(c);
  if (ranges.includes('0')) for (let c = 48; c <= 57; c++) set.add(c);
  return set;
};
const HOST = asciiSet('_@-.[]:', 'Aa0');
const PUNCT = asciiSet('.,:;?!');
const PATH = asciiSet("$'()*+&#=@~_/-[]{}%", 'Aa0');
const IDENT = asciiSet('_', 'Aa0');
const IMPORT_PATH = asciiSet('-.~_+', 'Aa0');
/** The standard library's packages with a one-element import path, as Go 1.19's go/doc/comment lists them. */
const STD = new Set(
  'bufio bytes context crypto embed encoding errors expvar flag fmt hash html image io log math mime net os path plugin reflect regexp runtime sort strconv strings sync syscall testing time unicode unsafe'.split(
    ' ',
  ),
);
const SCHEME_PREFIX = /^(?:file|ftp|gopher|http|https|mailto|nntp):\/\//;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The code point at byte i of b and its length in bytes (b is valid UTF-8). */
function runeAt(b: Uint8Array, i: number): [number, number] {
  const c = b[i]!;
  if (c < 0x80) return [c, 1];
  if (c >= 0xf0) return [((c & 7) << 18) | ((b[i + 1]! & 63) << 12) | ((b[i + 2]! & 63) << 6) | (b[i + 3]! & 63), 4];
  if (c >= 0xe0) return [((c & 15) << 12) | ((b[i + 1]! & 63) << 6) | (b[i + 2]! & 63), 3];
  return [((c & 31) << 6) | (b[i + 1]! & 63), 2];
}

/** The code point that ends b[0:end]. */
function runeBefore(b: Uint8Array, end: number): number {
  let j = end - 1;
  while (j > 0 && (b[j]! & 0xc0) === 0x80) j--;
  return runeAt(b, j)[0];
}

const isLetter = (r: number): boolean => /\p{L}/u.test(String.fromCodePoint(r));
const isUpper = (r: number): boolean => /\p{Lu}/u.test(String.fromCodePoint(r));
const isPunctRune = (r: number): boolean => /\p{P}/u.test(String.fromCodePoint(r));

/** The length in bytes of the Go identifier b[i:] starts with (0: none). */
function identAt(b: Uint8Array, i: number, end: number): number {
  let n = i;
  while (n < end) {
    const c = b[n]!;
    if (c < 0x80) {
      if (IDENT.has(c) && (n > i || c < 48 || c > 57)) {
        n++;
        continue;
      }
      break;
    }
    const [r, size] = runeAt(b, n);
    if (!isLetter(r)) break;
    n += size;
  }
  return n - i;
}

/** The length in bytes of the URL b[i:end] starts with (0: none). */
function urlAt(b: Uint8Array, i: number, end: number): number {
  const head = fromUtf8.decode(b.subarray(i, Math.min(end, i + 9)));
  const scheme = SCHEME_PREFIX.exec(head);
  if (scheme === null) return 0;
  let k = i + scheme[0].length;
  if (k >= end || !HOST.has(b[k]!) || PUNCT.has(b[k]!)) return 0;
  k++;
  let last = k;
  while (k < end && HOST.has(b[k]!)) {
    if (!PUNCT.has(b[k]!)) last = k + 1;
    k++;
  }
  k = last;
  const stack: number[] = [];
  for (; k < end; k++) {
    const c = b[k]!;
    if (PUNCT.has(c)) continue;
    if (!PATH.has(c)) break;
    if (c === 0x28) stack.push(0x29);
    else if (c === 0x7b) stack.push(0x7d);
    else if (c === 0x5b) stack.push(0x5d);
    else if (c === 0x29 || c === 0x7d || c === 0x5d) {
      if (stack.length === 0 || stack[stack.length - 1] !== c) break;
      stack.pop();
    }
    if (stack.length === 0) last = k + 1;
  }
  return last - i;
}

/** b[start:end] as gofmt prints it: `` and '' as quotes, except in URLs (when autoLink) and runs of three backticks. */
function quotes(b: Uint8Array, start: number, end: number, autoLink: boolean): string {
  let out = '';
  let wrote = start;
  for (let i = start; i < end;) {
    if (autoLink) {
      const url = urlAt(b, i, end);
      if (url > 0) {
        i += url;
        continue;
      }
      const id = identAt(b, i, end);
      if (id > 0) {
        i += id;
        continue;
      }
    }
    if (b[i] === 0x60 && b[i + 1] === 0x60 && i + 1 < end) {
      if (i + 2 < end && b[i + 2] === 0x60) {
        // Go's loop indexes the rest of the text (t = s[i:]) with an index into the whole text: kept as it is.
        const at = i - start;
        let k = at + 3;
        while (k < end - start - at && b[start + at + k] === 0x60) k++;
        i = start + k;
        continue;
      }
      out += fromUtf8.decode(b.subarray(wrote, i)) + '\u201c';
      i += 2;
      wrote = i;
    } else if (b[i] === 0x27 && b[i + 1] === 0x27 && i + 1 < end) {
      out += fromUtf8.decode(b.subarray(wrote, i)) + '\u201d';
      i += 2;
      wrote = i;
    } else i++;
  }
  return out + fromUtf8.decode(b.subarray(wrote, end));
}

function validImportPath(path: string): boolean {
  if (path === '' || path[0] === '-' || path.includes('//') || path.endsWith('/')) return false;
  return path.split('/').every((e) => e !== '' && e[0] !== '.' && !e.endsWith('.') && [...utf8.encode(e)].every((c) => IMPORT_PATH.has(c)));
}

/** isName: a capitalised Go identifier. */
function isName(s: string): boolean {
  const b = utf8.encode(s);
  return b.length > 0 && identAt(b, 0, b.length) === b.length && isUpper(s.codePointAt(0)!);
}

function splitDocName(text: string): { before: string; name: string; ok: boolean } {
  const i = text.lastIndexOf('.');
  const name = text.slice(i + 1);
  if (!isName(name)) return { before: text, name: '', ok: false };
  return { before: i >= 0 ? text.slice(0, i) : '', name, ok: true };
}

/** Whether [text] is a doc link for gofmt (a package of the standard library or an import path, and what it names). */
function isDocLink(b: Uint8Array, start: number, close: number, end: number): boolean {
  const isSep = (r: number): boolean => isPunctRune(r) || r === 0x20 || r === 0x09 || r === 0x0a;
  if (start > 0 && !isSep(runeBefore(b, start))) return false;
  if (close + 1 < end && !isSep(runeAt(b, close + 1)[0])) return false;
  let text = fromUtf8.decode(b.subarray(start + 1, close));
  if (text.startsWith('*')) text = text.slice(1);
  const first = splitDocName(text);
  const pkg = first.ok ? splitDocName(first.before).before : first.before;
  // Without a package it would name a symbol of the package, which gofmt does not look up.
  if (pkg === '') return false;
  return pkg.includes('/') ? validImportPath(pkg) : STD.has(pkg);
}

/**
 * A paragraph's text as gofmt prints it (parseLinkedText): `[text]` naming a link definition (which
 * it marks used) or a doc link splits it, and such a text has no URL.
 */
function linkedText(text: string, links: ReadonlyMap<string, LinkDef>): string {
  const b = utf8.encode(text);
  let out = '';
  let wrote = 0;
  let start = -1;
  let buf: number[] = [];
  for (let i = 0; i < b.length; i++) {
    let c = b[i]!;
    if (c === 0x0a || c === 0x09) c = 0x20;
    if (c === 0x5b) start = i;
    else if (c === 0x5d) {
      if (start >= 0) {
        const def = links.get(fromUtf8.decode(Uint8Array.from(buf)));
        if (def !== undefined) def.used = true;
        if (def !== undefined || isDocLink(b, start, i, b.length)) {
          out += quotes(b, wrote, start, true) + '[' + quotes(b, start + 1, i, false) + ']';
          wrote = i + 1;
        }
      }
      start = -1;
      buf = [];
    }
    if (start >= 0 && i !== start) buf.push(c);
  }
  return out + quotes(b, wrote, b.length, true);
}

/** go/doc/comment's Printer.Comment: the text of the comment, without comment markers. */
function print({ blocks, links, byText }: ReturnType<typeof parse>): string {
  let out = '';
  blocks.forEach((b, i) => {
    if (i > 0 && (b.kind !== 'list' || b.blankBefore)) out += '\n';
    switch (b.kind) {
      case 'paragraph':
        out += linkedText(b.lines.join('\n'), byText) + '\n';
        break;
      case 'heading':
        out += `# ${b.text}\n`;
        break;
      case 'code':
        for (const line of b.lines) out += (line === '' ? '' : `\t${line}`) + '\n';
        break;
      case 'list':
        b.items.forEach((item, k) => {
          if (k > 0 && b.blankBetween) out += '\n';
          out += item.number === '' ? '  - ' : ` ${item.number}. `;
          item.content.forEach((p, n) => {
            if (n > 0) out += '\n    ';
            out += linkedText(p.join('\n'), byText).replace(/\n/g, '\n    ') + '\n';
          });
        });
        break;
    }
  });
  for (const used of [true, false]) {
    let first = true;
    for (const def of links) {
      if (def.used !== used) continue;
      if (first) out += '\n';
      first = false;
      out += `[${def.text}]: ${def.url}\n`;
    }
  }
  return out;
}

/** One pass of gofmt over a doc comment: its text lines (after `// `) as gofmt rewrites them. */
function reformat(lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  const text = print(parse(lines));
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/** The `//` line for a line of doc text, as gofmt writes it (right-trimmed). */
const commentLine = (line: string): string =>
  (line === '' ? '//' : line.startsWith('\t') ? `//${line}` : `// ${line}`).replace(TRIM_RIGHT, '');

/**
 * A doc comment (the `//` lines above a top-level declaration) for text lines that a comment
 * builder made (no line break, tab or control character in a line), laid out as gofmt lays it out.
 */
export function goDocComment(lines: readonly string[]): string {
  let current = lines.map(commentLine);
  // gofmt reads its own output again the next time it runs: the layout is taken to where it stays.
  for (let pass = 0; pass < 4; pass++) {
    const next = reformat(current.map((l) => l.replace(/^\/\/ ?/, ''))).map(commentLine);
    if (next.length === current.length && next.every((l, i) => l === current[i])) break;
    current = next;
  }
  return current.map((l) => `${l}\n`).join('');
}
