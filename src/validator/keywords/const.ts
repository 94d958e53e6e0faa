import { code } from '../codegen.js';
import { jsonEqual, refuseCycle } from '../equality.js';
import { containsNaN } from '../json-value.js';
import { joinPointer } from '../pointer.js';
import { isPrimitive, preview } from '../schema-node.js';
import { NAN_MESSAGE, type Keyword, type Preview } from './keyword.js';

declare module '../schema-node.js' {
  interface SchemaNode {
    /** Whether there is a `const`: its value may be `null` or `false`, so presence is its own field. */
    hasConst?: boolean;
    constValue?: unknown;
  }
}

/** The violation's words (the value is the schema's, never data). */
const constMessage = (value: unknown, show: Preview): string => `must be equal to ${show([value])}`;

/** `const`: the value equals this one (JSON equality: docs/contract.md §7). */
export const constKeyword: Keyword = {
  name: 'const',
  parse(value, node, at) {
    if (at.nan && containsNaN(value)) {
      at.bad('const', NAN_MESSAGE);
      return false;
    }
    node.hasConst = true;
    node.constValue = value;
    return true;
  },
  check: {
    block: 'value',
    applies: (node) => node.hasConst === true,
    code(g, node, d, path) {
      const value = node.constValue;
      const msg = code`${constMessage(value, preview)}`;
      let test = isPrimitive(value) ? code`${d}===${value}` : code`E(${d},${g.constant(value)})`;
      // A cyclic value is refused, not judged: checked once the value has failed.
      if (!isPrimitive(value)) test = code`${test}||Z(${d})`;
      return code`if(!(${test})){${g.fail(path, joinPointer(node.pointer, 'const'), 'const', msg)}}`;
    },
    run(w, n, d, path, e) {
      const c = n.constValue;
      const equal = isPrimitive(c) ? d === c : jsonEqual(d, c) || refuseCycle(d);
      return equal || w.fail(e, path, joinPointer(n.pointer, 'const'), 'const', constMessage(c, w.preview));
    },
  },
};
