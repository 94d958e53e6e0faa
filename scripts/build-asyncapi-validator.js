#!/usr/bin/env node
// Generates src/asyncapi/generated/spec-validator.cjs: ajv standalone code for the official
// AsyncAPI 3.0.0 JSON Schema (from @asyncapi/specs), so `export-asyncapi` checks its document
// without loading @asyncapi/specs (7 MB) or compiling with ajv (~1 s) at run time. Both are dev
// dependencies: only this script needs them.
//
// `npm run build` runs it before tsc. The output is committed (so a plain `tsc` and vitest work in
// a fresh clone); its first lines hold a fingerprint of the inputs (this script, ajv's and
// @asyncapi/specs' versions) and it is rewritten only when that changes, or with `--force`.
// `--check` exits 1 when the committed file is not what this script generates.
//
// The standalone code `require`s two ajv runtime helpers; they are replaced by the validator's own
// equivalents (JSON equality for uniqueItems, code point length for min/maxLength), so the
// generated module needs nothing from ajv. Any other `require` fails the build.
// Exit codes: 0 done, 1 --check found a stale file, 2 a setup error.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { minifySync } from 'rolldown/experimental';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// CommonJS, so the library (ESM, through import()) and the CLI bundle (CommonJS chunks, through
// require) load the one file: the package ships the validator once. tsc does not
// emit .cjs files; `--dist` (run after tsc) copies it into dist/.
const OUT = path.join(repoRoot, 'src', 'asyncapi', 'generated', 'spec-validator.cjs');
const DIST = path.join(repoRoot, 'dist', 'asyncapi', 'generated');
const require = createRequire(import.meta.url);

function fatal(message) {
  process.stderr.write(`build-asyncapi-validator: ${message}\n`);
  process.exit(2);
}

/** ajv runtime helpers the standalone code may require, and what replaces each. */
const RUNTIME = {
  'ajv/dist/runtime/equal': { name: 'jsonEqual' },
  'ajv/dist/runtime/ucs2length': { name: 'codePointLength' },
};

function versions() {
  const version = (name) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  try {
    return { ajv: version('ajv'), specs: version('@asyncapi/specs'), rolldown: version('rolldown') };
  } catch (err) {
    return fatal(`ajv, @asyncapi/specs and rolldown (dev dependencies) must be installed: ${err.message}`);
  }
}

function fingerprint(v) {
  const self = readFileSync(fileURLToPath(import.meta.url));
  return createHash('sha256').update(self).update(`\0${v.ajv}\0${v.specs}\0${v.rolldown}`).digest('hex').slice(0, 16);
}

/** The end (exclusive) of the JSON object or array that starts at `start` in `text`. */
function jsonEnd(text, start) {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  return fatal('unexpected standalone code layout (ajv upgrade?): a schema constant does not end');
}

/**
 * The standalone code embeds whole schema objects (`const schema31 = {...};`, 370 KB) that it
 * reads in two ways only: a value for an error's params (`schema31.properties.type.enum`) and the
 * property names for additionalProperties (`func1.call(schema31.properties, key)`, func1 being
 * Object.prototype.hasOwnProperty). Each constant is cut down to what is read: every referenced
 * value whole, the objects on the way to it with only those keys, and a properties object read
 * for its names with its names only (values `true`, unless read deeper too). Constants nothing
 * reads are dropped. Any other use of a constant keeps it whole. Building these objects was most
 * of the cost of loading the validator; what the code can observe of them is unchanged (test:
 * test/asyncapi/build-time-validator.e2e.test.ts compares every result and error with ajv at run time).
 */
function pruneSchemaConstants(code) {
  if (!code.includes('const func1 = Object.prototype.hasOwnProperty;'))
    fatal('unexpected standalone code layout (ajv upgrade?): func1 is not hasOwnProperty');
  const defs = [];
  const defRe = /const (schema\d+) = /g;
  for (let m; (m = defRe.exec(code));) {
    const valueStart = m.index + m[0].length;
    const end = jsonEnd(code, valueStart);
    if (code[end] !== ';') fatal(`unexpected standalone code layout (ajv upgrade?): ${m[1]} is not one JSON value`);
    defs.push({ name: m[1], start: m.index, end: end + 1, value: JSON.parse(code.slice(valueStart, end)) });
    defRe.lastIndex = end;
  }
  let rest = '';
  let at = 0;
  for (const d of defs) {
    rest += code.slice(at, d.start);
    at = d.end;
  }
  rest += code.slice(at);
  // Every read of a constant: its path of property names, and whether it only asks for own keys.
  const reads = new Map(defs.map((d) => [d.name, []]));
  const refRe = /\b(schema\d+)((?:\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*)/g;
  for (let m; (m = refRe.exec(rest));) {
    const list = reads.get(m[1]);
    if (list === undefined) continue;
    const path = [...m[2].matchAll(/\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)].map(
      (p) => p[1] ?? (p[2] !== undefined ? Number(p[2]) : JSON.parse(p[3])),
    );
    const keysOnly = rest.slice(m.index - 'func1.call('.length, m.index) === 'func1.call(' && rest[m.index + m[0].length] === ',';
    list.push({ path, keysOnly });
  }
  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  /** The part of `value` the reads (paths below it) need. */
  const cut = (value, paths) => {
    if (paths.some((p) => p.path.length === 0 && !p.keysOnly)) return value;
    if (value === null || typeof value !== 'object') fatal('a schema constant is read below a value that is not an object');
    const keysOnly = paths.some((p) => p.path.length === 0 && p.keysOnly);
    const out = Array.isArray(value) ? [] : {};
    const below = new Map();
    for (const p of paths)
      if (p.path.length > 0) {
        const [head, ...tail] = p.path;
        if (!own(value, head)) fatal(`a schema constant is read at a missing key ${JSON.stringify(head)}`);
        (below.get(head) ?? below.set(head, []).get(head)).push({ path: tail, keysOnly: p.keysOnly });
      }
    if (Array.isArray(value)) {
      // Arrays keep their length and order; only read elements keep their content.
      for (let i = 0; i < value.length; i++) out.push(below.has(i) ? cut(value[i], below.get(i)) : true);
      return out;
    }
    for (const key of Object.keys(value)) {
      if (below.has(key)) out[key] = cut(value[key], below.get(key));
      else if (keysOnly) out[key] = true;
    }
    return out;
  };
  let pruned = '';
  at = 0;
  for (const d of defs) {
    pruned += code.slice(at, d.start);
    at = d.end;
    const paths = reads.get(d.name);
    if (paths.length > 0) pruned += `const ${d.name} = ${JSON.stringify(cut(d.value, paths))};`;
  }
  return pruned + code.slice(at);
}

export function generate() {
  const v = versions();
  const Ajv = require('ajv').default;
  const standaloneCode = require('ajv/dist/standalone').default;
  const schema = require('@asyncapi/specs').schemas['3.0.0'];
  if (schema === undefined) fatal(`@asyncapi/specs ${v.specs} has no 3.0.0 schema`);
  // The options validate.ts used at run time: the spec bundles the draft-07 meta-schema under its
  // own $id (meta: false avoids the clash); formats are not checked (ajv-formats is not used).
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    meta: false,
    validateSchema: false,
    validateFormats: false,
    code: { source: true, esm: true },
  });
  let code = standaloneCode(ajv, ajv.compile(schema));
  const imports = [];
  code = code.replace(/const (func\d+) = require\("([^"]+)"\)\.default;/g, (_, local, module) => {
    const helper = RUNTIME[module];
    if (helper === undefined) fatal(`the standalone code requires ${module}, which has no replacement here`);
    imports.push(`  const ${local} = helpers.${helper.name};`);
    return '';
  });
  if (/\brequire\(/.test(code)) fatal('the standalone code has a require() this script does not replace');
  code = pruneSchemaConstants(code);
  const head = 'export const validate = validate0;export default validate0;';
  if (!code.includes(head)) fatal('unexpected standalone code layout (ajv upgrade?): no default export found');
  code = code.replace(head, '').replace(/^"use strict";/, '');
  // Minified (rolldown's oxc minifier, a dev dependency): 738 KB → 485 KB, most of what keeps the
  // installed package under its size budget. test/asyncapi/build-time-validator.e2e.test.ts compares every verdict and
  // error with ajv's, so the minifier cannot change what the code does unseen.
  const factory = [
    'function specValidator(helpers) {',
    ...imports,
    code,
    '  return validate0;',
    '}',
    'module.exports = specValidator;',
    // An ES module loading this file gets module.exports as its default; a require() caller may ask for it too.
    'module.exports.default = specValidator;',
  ].join('\n');
  const min = minifySync('spec-validator.cjs', `'use strict';\n${factory}`, { compress: true, mangle: true });
  if (min.errors !== undefined && min.errors.length > 0) fatal(`minifying the standalone code failed: ${min.errors[0].message}`);
  const text = [
    `// @generated fingerprint ${fingerprint(v)} by scripts/build-asyncapi-validator.js: do not edit.`,
    '// @ts-nocheck -- ajv standalone code, checked by test/asyncapi/*.test.ts instead.',
    `// The AsyncAPI 3.0.0 JSON Schema from @asyncapi/specs ${v.specs} (Apache-2.0, Copyright 2016-2025`,
    `// AsyncAPI Initiative), compiled to validation code by ajv ${v.ajv} (MIT) and minified; embedded schema`,
    "// fragments are that specification's.",
    '// A factory: the helpers (our jsonEqual and codePointLength) come from whoever loads it, the',
    '// library or the CLI bundle, so the file imports nothing. Types: spec-validator.d.cts.',
    min.code.trimEnd(),
  ].join('\n');
  // The tag bin/load-bundle.js ties a V8 code cache to (the CLI bundle loads this file through it;
  // scripts/bundle-cli.js makes the cache, dist/asyncapi/generated/spec-validator.cjs.cache).
  return `${text}\n//# bqschema-cache ${createHash('sha256').update(text).digest('hex').slice(0, 32)}\n`;
}

/** Puts the generated file into dist/ (after tsc), and removes the ESM copy older builds made. */
function toDist() {
  mkdirSync(DIST, { recursive: true });
  for (const stale of ['spec-validator.js', 'spec-validator.d.ts']) rmSync(path.join(DIST, stale), { force: true });
  const tmp = path.join(DIST, `spec-validator.cjs.${process.pid}.tmp`);
  copyFileSync(OUT, tmp);
  renameSync(tmp, path.join(DIST, 'spec-validator.cjs'));
}

function main() {
  if (process.argv.includes('--dist')) return toDist();
  const check = process.argv.includes('--check');
  const force = process.argv.includes('--force');
  let current = '';
  try {
    current = readFileSync(OUT, 'utf8');
  } catch {
    // not generated yet
  }
  const stamp = `fingerprint ${fingerprint(versions())} `;
  if (!check && !force && current.split('\n', 1)[0].includes(stamp)) return; // inputs unchanged
  const text = generate();
  if (check) {
    if (text !== current) {
      process.stderr.write(
        `build-asyncapi-validator: ${path.relative(repoRoot, OUT)} is not what this script generates: run node scripts/build-asyncapi-validator.js --force and commit it\n`,
      );
      process.exit(1);
    }
    return;
  }
  mkdirSync(path.dirname(OUT), { recursive: true });
  const tmp = `${OUT}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, OUT);
  process.stdout.write(`build-asyncapi-validator: wrote ${path.relative(repoRoot, OUT)} (${text.length} bytes)\n`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
