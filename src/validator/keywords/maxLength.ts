import type { Keyword } from './keyword.js';
import { lengthCheck, parseLength } from './length.js';

/** `maxLength`: a string has at most this many code points (length.ts: checked with minLength). */
export const maxLength: Keyword = {
  name: 'maxLength',
  parse: (value, node, at) => parseLength('maxLength', value, node, at),
  check: lengthCheck,
};
