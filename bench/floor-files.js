// The floor for `validate` on a directory of files: list it, read each file and JSON.parse it.
// Nothing else: no validation, no output but a count. bench/cli.js compares `bqschema validate` with this.
//   node bench/floor-files.js DIR
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let files = 0;
for (const name of readdirSync(dir).sort()) {
  if (!name.endsWith('.json')) continue;
  JSON.parse(readFileSync(join(dir, name), 'utf8'));
  files++;
}
process.stdout.write(`${files} files\n`);
