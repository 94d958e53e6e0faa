'use strict';
// Loads the bundled CLI (dist/cli-bundle: CommonJS chunks) with the V8 code cache the build made
// for each chunk: compiling the chunks a command needs is most of what a run costs over bare
// `node`, and a cache skips it. Each chunk ends with `//# bqschema-cache <tag>` and its cache file
// (<chunk>.cache) starts with the same tag, so a cache is only tried with the source it was made
// from. A cache V8 rejects (another node version, other V8 flags) costs nothing but its read: the
// chunk is compiled from its source, as require() would. scripts/bundle-cli.js makes the caches by
// running the CLI through this loader and saving what it compiled (save()).
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { createRequire } = require('node:module');
const { Script } = require('node:vm');

const DIR = join(__dirname, '..', 'dist', 'cli-bundle');
// Packages and node builtins resolve from the bundle's directory, as they would for require().
const external = createRequire(join(DIR, 'main.js'));
const TAG = '//# bqschema-cache ';
const TAG_LINE = TAG.length + 32 + 1;

/** The tag a chunk's source ends with (`//# bqschema-cache <32 hex digits>\n`), if any. */
function tagOf(source) {
  const line = source.slice(-TAG_LINE);
  return line.startsWith(TAG) && line.endsWith('\n') ? line.slice(TAG.length, -1) : undefined;
}
const WRAPPER = '(function (exports, require, module, __filename, __dirname) {';

const modules = new Map();
const scripts = new Map();
// V8 rejects every cache of a build for the same reasons (node version, V8 flags such as
// --max-old-space-size): after one rejection the others are not read.
let cacheTaken = true;

/** The cache bytes for a chunk's source, or undefined when there is none made from this source. */
function cacheFor(file, source) {
  const tag = tagOf(source);
  if (tag === undefined || !cacheTaken) return undefined;
  let bytes;
  try {
    bytes = readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
  return bytes.length > 32 && bytes.toString('latin1', 0, 32) === tag ? bytes.subarray(32) : undefined;
}

function load(file) {
  const known = modules.get(file);
  if (known !== undefined) return known.exports;
  const module = { exports: {} };
  modules.set(file, module); // before it runs, as require() does: a cycle sees the partial exports
  const source = readFileSync(file, 'utf8');
  const cachedData = cacheFor(file, source);
  const script = new Script(`${WRAPPER}${source}\n})`, { filename: file, cachedData });
  if (cachedData !== undefined && script.cachedDataRejected) cacheTaken = false;
  scripts.set(file, { script, source });
  // './x.js' is another chunk; '../asyncapi/generated/spec-validator.cjs' is the one module the
  // bundle shares with the library (scripts/bundle-cli.js), loaded the same way, with its cache.
  const local = (id) => (id.startsWith('./') || id.startsWith('../') ? load(join(DIR, id)) : external(id));
  script.runInThisContext().call(module.exports, module.exports, local, module, file, DIR);
  return module.exports;
}

/** The exports of a chunk of dist/cli-bundle, loaded with its code cache. */
exports.loadBundled = (name) => load(join(DIR, name));

/** Writes the code cache of every chunk loaded so far (with what has been compiled since): build time only. */
exports.saveCodeCache = () => {
  const saved = [];
  for (const [file, { script, source }] of scripts) {
    const tag = tagOf(source);
    if (tag === undefined) continue;
    writeFileSync(`${file}.cache`, Buffer.concat([Buffer.from(tag, 'latin1'), script.createCachedData()]));
    saved.push(file);
  }
  return saved;
};
