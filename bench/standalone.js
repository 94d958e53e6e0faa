// The standalone validators `bqschema compile` writes (src/compile/module.ts) against
// compile()'s generated code, on the conformance manifest's orders schema and the user fixture:
// isValid on valid data, validate on invalid data. Alternating rounds in one process, medians;
// the figure is standalone time / generated time (the same code, written ahead
// of time, should cost the same). Under `node --disallow-code-generation-from-strings`
// compile() walks the schema instead (the fallback): then the figure is what the module saves.
//
//   npm run bench:standalone [-- --rounds N --n N]
//   npm run build && node --disallow-code-generation-from-strings bench/standalone.js

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from '../dist/validator/index.js';
import { standaloneModule } from '../dist/compile/module.js';
import { CASES, N, paired, ROUNDS, SCHEMAS } from './paired.js';

const dir = mkdtempSync(join(tmpdir(), 'bq-bench-standalone-'));
const file = join(dir, 'validators.mjs');
const runtime = new URL('../dist/standalone/index.js', import.meta.url).href;
writeFileSync(
  file,
  standaloneModule(
    Object.entries(SCHEMAS).map(([urn, schema]) => ({ urn, schema })),
    { runtime },
  ),
);
const { validators } = await import(pathToFileURL(file).href);
rmSync(dir, { recursive: true, force: true });

let generates = true;
try {
  new Function('return 1');
} catch {
  generates = false;
}
console.log(
  `standalone module vs compile() (${generates ? 'generated code' : 'interpreted: code generation is refused'}): node ${process.version}, ${N} calls per round, ${ROUNDS} rounds`,
);
for (const [name, schemaName, data, method] of CASES) {
  if (data.length === 0) continue;
  const generated = compile(SCHEMAS[schemaName], { onWarning: () => {} });
  paired(name, [generates ? 'generated' : 'interpreted', generated], ['standalone', validators.get(schemaName)], data, method);
}
