#!/usr/bin/env node
'use strict';
// CommonJS (bin/package.json) so that a run does not start node's ES module loader.
// `npm run build` bundles the CLI (dist/cli-bundle: CommonJS chunks with a V8 code cache, a faster
// start) and marks dist/cli/main.js as bundled. A `tsc` run after that rewrites main.js without the
// mark, and then the modules tsc wrote are run rather than a stale bundle (scripts/bundle-cli.js).
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const MARK = '//# bqschema: bundled into ../cli-bundle\n';
const bundled = readFileSync(join(__dirname, '..', 'dist', 'cli', 'main.js'), 'utf8').endsWith(MARK);
const entry = bundled ? Promise.resolve(require('./load-bundle.js').loadBundled('main.js')) : import('../dist/cli/main.js');
entry
  .then(({ main }) => main(process.argv.slice(2)))
  .then((code) => {
    process.exitCode = code;
  });
