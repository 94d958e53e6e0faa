// `npm test`: build when dist/ is not built from the sources as they are (scripts/build-inputs.js),
// then `vitest run` with the arguments given (`npm test -- --project unit`, a file, …), then the
// time it took and the load average it ran under (a suite's time means little without it).
// The unit project alone needs no build (docs/CONTRIBUTING.md, "Tests").
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuilt } from './build-inputs.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const started = performance.now();
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** The projects named with --project (both forms); none means every project. */
function projects() {
  const named = [];
  args.forEach((a, i) => {
    if (a === '--project' && args[i + 1] !== undefined) named.push(args[i + 1]);
    else if (a.startsWith('--project=')) named.push(a.slice('--project='.length));
  });
  return named;
}

const named = projects();
const unitOnly = named.length > 0 && named.every((p) => p === 'unit');
let build = 'not needed (unit project)';
if (!unitOnly) {
  if (isBuilt()) build = 'dist/ up to date';
  else {
    const t = performance.now();
    const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
    build = `built in ${seconds(performance.now() - t)}`;
  }
}
const t = performance.now();
const vitest = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args], {
  cwd: root,
  stdio: 'inherit',
});
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
process.stdout.write(
  `\nnpm test: ${seconds(performance.now() - started)} (build: ${build}; vitest: ${seconds(performance.now() - t)}); load average ${load}\n`,
);
process.exit(vitest.status ?? 1);
