// What `npm run build` made dist/ from: one SHA-256 over the build's inputs (src/, the build scripts,
// tsconfig.json, package.json and the lockfile, whose dependencies the CLI bundle holds), by content,
// not by file time (git checkouts and npm installs do not keep times). The build records it last;
// `npm test` (scripts/test.js) builds again only when the inputs hash differently now.
//   node scripts/build-inputs.js --record   (the last step of `npm run build`)
//   node scripts/build-inputs.js --check    (exit 0: dist/ is up to date; 1: build)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// In node_modules/.cache, so `npm ci` (which removes node_modules) forgets it and it is never packed.
const RECORD = join(root, 'node_modules', '.cache', 'bqschema', 'build-inputs.sha256');
const FILES = [
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'scripts/build-asyncapi-validator.js',
  'scripts/declarations.js',
  'scripts/bundle-cli.js',
];
// The files the build writes; dist/cli/main.js marks the bundle made from it (scripts/bundle-cli.js).
const OUTPUTS = ['dist/index.js', 'dist/cli/main.js', 'dist/cli-bundle'];

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));
}

/** The hash of every build input, names and contents, in a fixed order. */
export function inputsHash() {
  const hash = createHash('sha256');
  const files = [...FILES.map((f) => join(root, f)), ...walk(join(root, 'src'))].sort();
  for (const file of files) {
    if (!existsSync(file)) continue;
    const content = readFileSync(file);
    hash.update(`${relative(root, file)}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}

/** Whether dist/ was built from the inputs as they are now. */
export function isBuilt() {
  if (!OUTPUTS.every((f) => existsSync(join(root, f))) || !existsSync(RECORD)) return false;
  return readFileSync(RECORD, 'utf8').trim() === inputsHash();
}

export function record() {
  mkdirSync(dirname(RECORD), { recursive: true });
  writeFileSync(RECORD, `${inputsHash()}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv[2] === '--record') record();
  else if (process.argv[2] === '--check') process.exit(isBuilt() ? 0 : 1);
  else {
    process.stderr.write('usage: node scripts/build-inputs.js --record | --check\n');
    process.exit(2);
  }
}
