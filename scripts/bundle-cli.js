// Bundles the CLI (dist/cli, as tsc wrote it) into dist/cli-bundle/: one chunk per command, loaded
// when that command runs, so a run reads a handful of files instead of ~50 modules. The library
// entry (dist/index.js) is not bundled. The bundle is marked as made from this build by a last
// line added to dist/cli/main.js; the next `tsc` rewrites that file without it, and bin/bqschema.js
// then runs the modules tsc wrote instead of a stale bundle. (File times cannot say this: npm does
// not keep them when it installs a package.)
//   node scripts/bundle-cli.js     (part of `npm run build`)
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'cli-bundle');
// yaml and jsonc-parser stay packages (loaded on first need through createRequire); the generated
// AsyncAPI validator (1 MB) stays the one file in dist/asyncapi rather than a second copy.
const external = (id) =>
  id.startsWith('node:') || builtinModules.includes(id) || /^(yaml|jsonc-parser)(\/|$)/.test(id) || /[\\/]asyncapi[\\/]generated[\\/]spec-validator\.js$/.test(id);

rmSync(out, { recursive: true, force: true });
await build({
  cwd: root,
  // The worker is an entry of its own, next to the chunk that starts it (new URL('./validate-worker.js')).
  input: { main: 'dist/cli/main.js', 'validate-worker': 'dist/cli/workers/validate-worker.js' },
  platform: 'node',
  external,
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name].js' },
  logLevel: 'warn',
});

export const MARK = '//# bqschema: bundled into ../cli-bundle\n';
const main = join(root, 'dist', 'cli', 'main.js');
if (!readFileSync(main, 'utf8').endsWith(MARK)) appendFileSync(main, MARK);
