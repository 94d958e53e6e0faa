// The CommonJS entry of `bqschema/babelqueue-node`: see src/index.cts.
let dropIn: typeof import('./index.js', { with: { 'resolution-mode': 'import' } });
try {
  dropIn = require('./index.js');
} catch (err) {
  if ((err as { code?: unknown }).code !== 'ERR_REQUIRE_ESM') throw err;
  throw new Error(
    `bqschema/babelqueue-node is an ES module and this Node (${process.version}) cannot require() one: use Node >= 20.19, or \`await import('bqschema/babelqueue-node')\``,
    { cause: err },
  );
}

export = dropIn;
