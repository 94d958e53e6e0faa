import type { Keyword } from './keyword.js';
import { lengthCheck, parseLength } from './length.js';

/** `minLength`: a string has at least this many code points (length.ts: checked with maxLength). */
export const minLength: Keyword = {
  name: 'minLength',
  parse: (value, node, at) => parseLength('minLength', value, node, at),
  check: lengthCheck,
};
