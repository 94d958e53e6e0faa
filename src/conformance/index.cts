// The CommonJS entry of `bqschema/conformance`: see src/index.cts.
let conformance: typeof import('./index.js', { with: { 'resolution-mode': 'import' } });
try {
  conformance = require('./index.js');
} catch (err) {
  if ((err as { code?: unknown }).code !== 'ERR_REQUIRE_ESM') throw err;
  throw new Error(
    `bqschema/conformance is an ES module and this Node (${process.version}) cannot require() one: use Node >= 20.19, or \`await import('bqschema/conformance')\``,
    { cause: err },
  );
}

export = conformance;
