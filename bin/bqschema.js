#!/usr/bin/env node
import { statSync } from 'node:fs';

// `npm run build` bundles the CLI (dist/cli-bundle: fewer files to load, a faster start). A `tsc`
// run after that leaves the bundle older than the modules it wrote, and then those are run instead.
const at = (p) => {
  try {
    return statSync(new URL(p, import.meta.url)).mtimeMs;
  } catch {
    return -1;
  }
};
const entry = at('../dist/cli-bundle/main.js') >= at('../dist/cli/main.js') ? '../dist/cli-bundle/main.js' : '../dist/cli/main.js';
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
