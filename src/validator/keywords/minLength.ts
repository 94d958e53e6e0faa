import type { Keyword } from './keyword.js';
import { lengthCheck, parseLength } from './length.js';

/** `minLength`: a string has at least this many code points (length.ts: checked with maxLength). */
export const minLength: Keyword = {
  name: 'minLength',
  summary: 'string length in Unicode code points, not bytes or UTF-16 units (§6). A fractional bound is truncated toward zero (`2.5` → 2); a non-finite one is ignored.',
  parse: (value, node, at) => parseLength('minLength', value, node, at),
  check: lengthCheck,
};
