#!/usr/bin/env node
import { readFileSync } from 'node:fs';

// `npm run build` bundles the CLI (dist/cli-bundle: fewer files to load, a faster start) and marks
// dist/cli/main.js as bundled. A `tsc` run after that rewrites main.js without the mark, and then
// the modules tsc wrote are run rather than a stale bundle (scripts/bundle-cli.js).
const MARK = '//# bqschema: bundled into ../cli-bundle\n';
const bundled = readFileSync(new URL('../dist/cli/main.js', import.meta.url), 'utf8').endsWith(MARK);
const { main } = await import(bundled ? '../dist/cli-bundle/main.js' : '../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
