#!/usr/bin/env node
// Generates src/asyncapi/generated/spec-validator.ts: ajv standalone code for the official
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
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(repoRoot, 'src', 'asyncapi', 'generated', 'spec-validator.ts');
const require = createRequire(import.meta.url);

function fatal(message) {
  process.stderr.write(`build-asyncapi-validator: ${message}\n`);
  process.exit(2);
}

/** ajv runtime helpers the standalone code may require, and what replaces each. */
const RUNTIME = {
  'ajv/dist/runtime/equal': { name: 'jsonEqual', from: '../../validator/equality.js' },
  'ajv/dist/runtime/ucs2length': { name: 'codePointLength', from: '../../validator/codepoints.js' },
};

function versions() {
  const version = (name) => JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  try {
    return { ajv: version('ajv'), specs: version('@asyncapi/specs') };
  } catch (err) {
    return fatal(`ajv and @asyncapi/specs (dev dependencies) must be installed: ${err.message}`);
  }
}

function fingerprint(v) {
  const self = readFileSync(fileURLToPath(import.meta.url));
  return createHash('sha256').update(self).update(`\0${v.ajv}\0${v.specs}`).digest('hex').slice(0, 16);
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
    strict: false, allErrors: true, meta: false, validateSchema: false, validateFormats: false,
    code: { source: true, esm: true },
  });
  let code = standaloneCode(ajv, ajv.compile(schema));
  const imports = [];
  code = code.replace(/const (func\d+) = require\("([^"]+)"\)\.default;/g, (_, local, module) => {
    const helper = RUNTIME[module];
    if (helper === undefined) fatal(`the standalone code requires ${module}, which has no replacement here`);
    imports.push(`import { ${helper.name} as ${local} } from '${helper.from}';`);
    return '';
  });
  if (/\brequire\(/.test(code)) fatal('the standalone code has a require() this script does not replace');
  const head = 'export const validate = validate0;export default validate0;';
  if (!code.includes(head)) fatal('unexpected standalone code layout (ajv upgrade?): no default export found');
  code = code.replace(head, '').replace(/^"use strict";/, '');
  return [
    `// @generated fingerprint ${fingerprint(v)} by scripts/build-asyncapi-validator.js: do not edit.`,
    '// @ts-nocheck -- ajv standalone code, checked by test/asyncapi*.test.ts instead.',
    `// The AsyncAPI 3.0.0 JSON Schema from @asyncapi/specs ${v.specs} (Apache-2.0, Copyright 2016-2025`,
    `// AsyncAPI Initiative), compiled to validation code by ajv ${v.ajv} (MIT); embedded schema`,
    '// fragments are that specification\'s.',
    ...imports,
    "import type { SpecValidator } from '../validate.js';",
    code,
    'const validate: SpecValidator = validate0;',
    'export default validate;',
    '',
  ].join('\n');
}

function main() {
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
      process.stderr.write(`build-asyncapi-validator: ${path.relative(repoRoot, OUT)} is not what this script generates: run node scripts/build-asyncapi-validator.js --force and commit it\n`);
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
