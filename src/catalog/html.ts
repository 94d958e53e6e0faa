/*
 * The only way text reaches the catalog's HTML: every value interpolated into `html` is escaped
 * unless it is itself a SafeHtml (built by `html`, `join` or `jsonScript`). There is no raw() escape
 * hatch, so a schema or message value cannot become markup.
 */

const brand: unique symbol = Symbol('SafeHtml');

export class SafeHtml {
  readonly [brand] = true;
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '\u2028': '&#x2028;',
  '\u2029': '&#x2029;',
};

/*
 * Control characters (other than tab, LF and CR) and lone surrogates are shown as `\uXXXX`: a
 * numeric reference cannot carry them (`&#x80;` reads as "€", `&#0;` as U+FFFD) and a raw one would
 * be invisible, so two names differing only by one would look the same.
 */
const LONE_SURROGATE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const SPECIAL = new RegExp(`[&<>"'\\u2028\\u2029]|[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]|${LONE_SURROGATE}`, 'g');
/** In an id, tab, LF and CR too: the HTML parser would rewrite CR, and a fragment should not hold them. */
const ID_SPECIAL = new RegExp(`[\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029]|${LONE_SURROGATE}`, 'g');

const codeUnit = (c: string): string => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

export function escapeHtml(s: string): string {
  return s.replace(SPECIAL, (c) => ENTITIES[c] ?? codeUnit(c));
}

/**
 * The element id for a URN: the URN itself (so `#urn:a:b` links work), with the characters that
 * an id or a fragment cannot carry faithfully written as `\uXXXX`.
 */
export function anchorId(urn: string): string {
  return urn.replace(ID_SPECIAL, codeUnit);
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(v: HtmlValue): string {
  if (v instanceof SafeHtml) return v.text;
  if (v === null || v === undefined || v === false) return '';
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

/** Tagged template: the literal parts are markup, every `${value}` is escaped text. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

export function join(parts: readonly HtmlValue[], separator: HtmlValue = ''): SafeHtml {
  return new SafeHtml(parts.map(render).join(render(separator)));
}

/**
 * JSON for a `<script type="application/json">` block: `<` `>` `&`, DEL, C1 controls and U+2028/2029 as `\uXXXX`,
 * so neither `</script>` nor `<!--` can end or change the block, and the text still parses as JSON.
 */
export function jsonScript(value: unknown): SafeHtml {
  const text = JSON.stringify(value).replace(
    /[<>&\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return new SafeHtml(text);
}

/**
 * The fragment that links to an element whose id is `id`. Browsers compare a fragment with ids
 * after percent-decoding it, so `#urn:a:b` stays readable and any other character is encoded.
 */
export function fragment(id: string): string {
  // anchorId() output has no lone surrogate, so encodeURIComponent cannot throw.
  return '#' + encodeURIComponent(id).replace(/%3A/g, ':').replace(/%40/g, '@');
}
