// The floor for `validate` on NDJSON: read the file in 64 KB chunks, cut lines at \n, decode each
// and JSON.parse it. Nothing else: no validation, no output but a count. bench/cli.js compares
// `bqschema validate` with this.
//   node bench/floor-ndjson.js FILE
import { createReadStream } from 'node:fs';

let lines = 0;
let pending = [];
for await (const chunk of createReadStream(process.argv[2], { highWaterMark: 65536 })) {
  let from = 0;
  for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
    const part = chunk.subarray(from, nl);
    const bytes = pending.length === 0 ? part : Buffer.concat([...pending, part]);
    pending = [];
    if (bytes.length > 0) {
      JSON.parse(bytes.toString('utf8'));
      lines++;
    }
    from = nl + 1;
  }
  if (from < chunk.length) pending.push(chunk.subarray(from));
}
if (pending.length > 0) {
  JSON.parse(Buffer.concat(pending).toString('utf8'));
  lines++;
}
process.stdout.write(`${lines} lines\n`);
