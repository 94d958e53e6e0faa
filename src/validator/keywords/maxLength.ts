import type { Keyword } from './keyword.js';
import { lengthCheck, parseLength } from './length.js';

/** `maxLength`: a string has at most this many code points (length.ts: checked with minLength). */
export const maxLength: Keyword = {
  name: 'maxLength',
  summary: 'string length in Unicode code points, not bytes or UTF-16 units (§6). A fractional bound is truncated toward zero (`2.5` → 2); a non-finite one is ignored.',
  parse: (value, node, at) => parseLength('maxLength', value, node, at),
  check: lengthCheck,
};
