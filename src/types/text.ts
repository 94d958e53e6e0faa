/*
 * Every value taken from a schema or a manifest reaches the generated TypeScript through one of
 * these three functions: a string literal, a property key, or a line of JSDoc text.
 */

/** A TypeScript string literal: JSON.stringify, with the two JSON-legal line separators escaped for readability. */
export function stringLiteral(s: string): string {
  return JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key: bare when it is a plain identifier, else a string literal. `__proto__` is always quoted. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) && name !== '__proto__' ? name : stringLiteral(name);
}

// C0 controls (but tab), DEL and C1 controls are shown as escapes: they are invisible in an editor.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/**
 * Text for a JSDoc block, one entry per line: every line terminator TypeScript knows splits a
 * line, `*\/` cannot close the comment, an `@` after a space or at the start cannot begin a tag
 * (TypeScript reads `a @deprecated` as one), and control characters are shown as `\uXXXX`.
 */
export function docText(text: string): string[] {
  return text.split(LINE_BREAK).map((line) =>
    line
      .replace(CONTROL, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
      .replace(/\*\//g, '*\\/')
      .replace(/(^|\s)@/g, '$1\\@')
      .trimEnd(),
  );
}

/** A JSDoc block at `indent`; `''` when there is nothing to say. Lines must come from `docText`. */
export function docBlock(lines: readonly string[], indent: string): string {
  // Drop leading, trailing and repeated blank lines.
  const kept: string[] = [];
  for (const line of lines) {
    if (line === '' && (kept.length === 0 || kept[kept.length - 1] === '')) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  if (kept.length === 0) return '';
  if (kept.length === 1 && kept[0]!.length <= 80) return `${indent}/** ${kept[0]} */\n`;
  return `${indent}/**\n${kept.map((l) => `${indent} *${l === '' ? '' : ' ' + l}`).join('\n')}\n${indent} */\n`;
}
