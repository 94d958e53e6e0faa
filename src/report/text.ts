/*
 * Text from input made safe to print: shared by every renderer (src/report) and the CLI's own
 * text output (src/cli/output.ts re-exports it).
 */

// C0 controls, DEL and C1 controls (ESC among them), plus the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const CONTROL_TEST = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Text from input (a URN, a file name, a message) made safe for a terminal or a log: every control
 * character is written as an escape (`\n`, `\x1b`, `\u2028`), so input can neither move the cursor,
 * recolour the screen nor forge a line of output.
 */
export function clean(s: string): string {
  if (!CONTROL_TEST.test(s)) return s;
  return s.replace(CONTROL, (ch) => {
    switch (ch) {
      case '\n': return '\\n';
      case '\r': return '\\r';
      case '\t': return '\\t';
      default: {
        const code = ch.charCodeAt(0);
        return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
      }
    }
  });
}

// What JSON.stringify leaves as it is but a reader cannot see: other controls, format characters
// (zero-width, bidi), separators and spaces other than U+0020, unassigned and private-use code
// points, lone surrogates.
const INVISIBLE = /(?! )[\p{C}\p{Z}]/gu;

/**
 * Input (a URN) in JSON string syntax with every character a reader could not see escaped, so
 * `"urn:a:b "` and `"urn:a:b\u200b"` do not look like `"urn:a:b"`. Safe for a terminal as it is.
 */
export function quote(s: string): string {
  return JSON.stringify(s).replace(INVISIBLE, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
