// The CommonJS entry of `bqschema/standalone`: see src/index.cts.
let runtime: typeof import('./index.js', { with: { 'resolution-mode': 'import' } });
try {
  runtime = require('./index.js');
} catch (err) {
  if ((err as { code?: unknown }).code !== 'ERR_REQUIRE_ESM') throw err;
  throw new Error(
    `bqschema/standalone is an ES module and this Node (${process.version}) cannot require() one: use Node >= 20.19, or \`await import('bqschema/standalone')\``,
    { cause: err },
  );
}

export = runtime;
