#!/usr/bin/env node
// Runs the suite's payload-schema sections (vendored under test/vendor/conformance) against the built
// validator and writes results.json in the suite's results format (conformance-suite.txt, ADR-0032).
// Usage: node scripts/conformance.js [--out FILE]   (default FILE: results.json at the repo root)
// Exit codes: 0 every case run passes, 1 a case fails, 2 a usage or setup error. A section not run
// (another scope, or unknown to this runner) is listed on stdout with the reason and fails nothing.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vendor = path.join(repoRoot, 'test', 'vendor', 'conformance');

function fatal(message) {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  let out = path.join(repoRoot, 'results.json');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out' && i + 1 < argv.length) out = path.resolve(argv[++i]);
    else if (arg.startsWith('--out=') && arg.length > 6) out = path.resolve(arg.slice(6));
    else fatal(`unknown or incomplete argument ${JSON.stringify(arg)}\nusage: node scripts/conformance.js [--out FILE]`);
  }
  return { out };
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Case ids by the suite's rule: the case's name, or `<section>#<0-based index>` when unnamed. */
function caseId(section, c, index) {
  return typeof c.name === 'string' ? c.name : `${section}#${index}`;
}

/** A case passes only when both entry points agree with the expected verdict. */
function runCase(compiled, c) {
  const isValid = compiled.isValid(c.data);
  const violations = compiled.validate(c.data);
  if (isValid === c.valid && (violations.length === 0) === c.valid) return { status: 'pass' };
  const detail = violations.map((v) => `${v.instancePath || '(root)'} ${v.keyword}: ${v.message}`).join('; ');
  return {
    status: 'fail',
    reason:
      `expected ${c.valid ? 'valid' : 'invalid'}; isValid returned ${isValid}, validate reported ` +
      `${violations.length} violation(s)${detail ? `: ${detail}` : ''}`,
  };
}

/** Writes next to the target and renames, so a reader never sees a half-written file. */
function writeAtomically(file, text) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

const { out } = parseArgs(process.argv.slice(2));

const dist = path.join(repoRoot, 'dist', 'index.js');
if (!existsSync(dist)) fatal(`${path.relative(process.cwd(), dist)} is missing: run \`npm run build\` first (or \`npm run conformance\`)`);
const { compile } = await import(pathToFileURL(dist).href);

const manifest = readJson(path.join(vendor, 'manifest.json'));
const conformanceVersion = readFileSync(path.join(vendor, 'CONFORMANCE_VERSION'), 'utf8').trim();
if (manifest.conformance_version !== conformanceVersion) {
  fatal(`manifest.json says conformance_version ${manifest.conformance_version}, CONFORMANCE_VERSION says ${conformanceVersion}`);
}
const pkg = readJson(path.join(repoRoot, 'package.json'));

// The sections this runner implements, looked up by name as the suite asks. A section of another
// scope (a binding bqschema does not carry) or one this runner does not know (a newer suite) is
// not run: it is reported with the reason and never fails the run (conformance-suite.txt).
const RUNNABLE = ['payload_schema', 'payload_schema_unicode'];
const isVerdictBlock = (block) =>
  block !== null &&
  typeof block === 'object' &&
  Array.isArray(block.cases) &&
  Object.prototype.hasOwnProperty.call(block, 'schema') &&
  block.cases.every((c) => c !== null && typeof c === 'object' && typeof c.valid === 'boolean' && 'data' in c);

const sections = {};
const notRun = [];
let failed = 0;
let total = 0;
for (const section of Object.keys(manifest.sections)) {
  const scope = String(manifest.sections[section]);
  const block = Object.prototype.hasOwnProperty.call(manifest, section) ? manifest[section] : undefined;
  if (scope !== 'core') {
    notRun.push(`${section} (scope ${scope} is not carried: bqschema has no bindings)`);
    continue;
  }
  if (!RUNNABLE.includes(section) || !isVerdictBlock(block)) {
    notRun.push(
      `${section} (in scope but not run: ${RUNNABLE.includes(section) ? 'its block does not have the {schema, cases} shape' : 'this runner does not know it; a newer suite section?'})`,
    );
    continue;
  }
  const compiled = compile(block.schema, {
    onWarning: (_w, message) => process.stderr.write(`conformance: warning: section ${section}: ${message}\n`),
  });
  const results = {};
  block.cases.forEach((c, index) => {
    const id = caseId(section, c, index);
    if (Object.prototype.hasOwnProperty.call(results, id)) fatal(`section ${section} has two cases with id ${JSON.stringify(id)}`);
    const result = runCase(compiled, c);
    results[id] = result;
    total++;
    if (result.status === 'fail') {
      failed++;
      process.stderr.write(`FAIL ${section} ${id}: ${result.reason}\n`);
    }
  });
  sections[section] = results;
}

const results = {
  sdk: 'bqschema',
  version: pkg.version,
  conformance_version: conformanceVersion,
  generated_at: new Date().toISOString(),
  // bqschema carries no transport or binding.
  bindings: [],
  sections,
};
writeAtomically(out, JSON.stringify(results, null, 2) + '\n');
process.stdout.write(`conformance ${conformanceVersion}: ${total - failed}/${total} cases pass; results in ${out}\n`);
process.stdout.write(`sections run: ${Object.keys(sections).join(', ') || 'none'}\n`);
for (const n of notRun) process.stdout.write(`not run: ${n}\n`);
process.exitCode = failed > 0 ? 1 : 0;
