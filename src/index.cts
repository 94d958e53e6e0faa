// The CommonJS entry, for `require('bqschema')`: the ES module itself, loaded through Node's
// require of ES modules (Node >= 20.19 and >= 22.12; the library has no top-level await). An older
// Node cannot, and is told what to do instead of a bare ERR_REQUIRE_ESM.
let bqschema: typeof import('./index.js', { with: { 'resolution-mode': 'import' } });
try {
  bqschema = require('./index.js');
} catch (err) {
  if ((err as { code?: unknown }).code !== 'ERR_REQUIRE_ESM') throw err;
  throw new Error(
    `bqschema is an ES module and this Node (${process.version}) cannot require() one: use Node >= 20.19, or \`const bqschema = await import('bqschema')\``,
    { cause: err },
  );
}

export = bqschema;
