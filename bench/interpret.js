// The interpreter (compile() where code generation is refused, src/validator/interpret.ts)
// against the generated code, on the conformance manifest's orders schema and the user fixture:
// isValid on valid data, validate on invalid data. Alternating rounds in one process, medians;
// the figure is interpreter time / generated time (what the fallback costs).
//
//   npm run bench:interpret [-- --rounds N --n N]

import { compile, parseSchema } from '../dist/validator/index.js';
import { preview } from '../dist/validator/compile.js';
import { interpret } from '../dist/validator/interpret.js';
import { CASES, N, paired, ROUNDS, SCHEMAS } from './paired.js';

console.log(`interpreter vs generated code: node ${process.version}, ${N} calls per round, ${ROUNDS} rounds`);
for (const [name, schemaName, data, method] of CASES) {
  if (data.length === 0) continue;
  const schema = SCHEMAS[schemaName];
  const generated = compile(schema, { onWarning: () => {} });
  const walked = interpret(parseSchema(schema).root, preview, new Map());
  paired(name, ['generated', generated], ['interpreter', walked], data, method);
}
