// compat benchmark: `bqschema compat --registry registry.json --against HEAD` on a 1,000-URN registry.
//
//   npm run bench:compat                    # build, then 5 timed runs; prints the median
//   options: --urns N --rounds N --keep
//
// A temporary git repository holds the registry, committed; then ~10% of the schemas are edited
// (half compatibly, half breakingly), 5 URNs are added and a dozen removed (most of them
// deprecated), and every timed run is a fresh `node bin/bqschema.js` process, so the figure
// includes node's startup, both manifests, 2,000 schema documents and the git reads.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BQ = join(ROOT, 'bin', 'bqschema.js');
const TARGET_SECONDS = 3;

function parseArgs(argv) {
  const o = { urns: 1000, rounds: 5, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--keep') o.keep = true;
    else if (a === '--urns' || a === '--rounds') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
      o[a.slice(2)] = n;
    } else throw new Error(`unknown option ${a}`);
  }
  return o;
}

const DOMAINS = ['orders', 'payments', 'users', 'shipping', 'inventory', 'billing', 'catalog', 'support'];
const EVENTS = ['created', 'updated', 'cancelled', 'completed', 'failed', 'refunded', 'archived', 'restored'];

/** An event payload schema of the ten-keyword subset: ids, amounts, enums, a nested object, an array. */
function schemaFor(i) {
  const properties = {
    id: { type: 'integer', minimum: 1, description: 'Primary key.' },
    occurred_at: { type: 'string', minLength: 20, maxLength: 35, format: 'date-time' },
    status: { type: 'string', enum: ['pending', 'active', 'done', 'failed'] },
    amount: { type: 'number', minimum: 0 },
    currency: { type: 'string', minLength: 3, maxLength: 3 },
    note: { type: ['string', 'null'], maxLength: 500 },
    customer: {
      type: 'object',
      required: ['customer_id'],
      properties: {
        customer_id: { type: 'integer', minimum: 1 },
        email: { type: 'string', maxLength: 254, 'x-gdpr-sensitive': 'email' },
        tier: { type: 'string', enum: ['free', 'pro', 'enterprise'] },
      },
      additionalProperties: false,
    },
    lines: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sku', 'qty'],
        properties: { sku: { type: 'string', minLength: 1, maxLength: 64 }, qty: { type: 'integer', minimum: 1 } },
      },
    },
    version: { const: 1 },
  };
  // A varying tail of fields, so the documents differ in size as real ones do.
  for (let k = 0; k < (i * 7) % 6; k++) properties[`field_${i}_${k}`] = { type: (i + k) % 2 === 0 ? 'string' : 'integer' };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `Event ${i}`,
    type: 'object',
    required: ['id', 'occurred_at', 'status'],
    properties,
  };
}

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

function write(dir, file, value) {
  mkdirSync(dirname(join(dir, file)), { recursive: true });
  writeFileSync(join(dir, file), JSON.stringify(value, null, 2) + '\n');
}

/** Builds the repository; returns what the working tree's changes should make compat report. */
function buildRepo(dir, urns) {
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.name', 'bench');
  git(dir, 'config', 'user.email', 'bench@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  const entries = [];
  const schemas = [];
  for (let i = 0; i < urns; i++) {
    const urn = `urn:babel:${DOMAINS[i % DOMAINS.length]}:${EVENTS[Math.floor(i / DOMAINS.length) % EVENTS.length]}.e${i}`;
    const file = `schemas/${DOMAINS[i % DOMAINS.length]}/event-${i}.json`;
    const schema = schemaFor(i);
    entries.push({ urn, schema: file, owner: DOMAINS[i % DOMAINS.length], status: i % 100 === 5 ? 'deprecated' : 'active' });
    schemas.push(schema);
    write(dir, file, schema);
  }
  write(dir, 'registry.json', { schemas: entries });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'registry');

  // ~10% edited: even steps compatibly (an optional property, a wider type), odd steps breakingly.
  const expected = { breaking: 0, compatible: 0, added: 0, removed: 0 };
  const step = 10;
  for (let i = 1; i < urns; i += step) {
    const s = schemas[i];
    if (((i - 1) / step) % 2 === 0) {
      s.properties.added_later = { type: 'string' };
      s.properties.amount.type = ['number', 'string'];
      expected.compatible++;
    } else {
      s.required.push('amount');
      s.properties.currency.maxLength = 2;
      delete s.properties.note;
      expected.breaking++;
    }
    write(dir, entries[i].schema, s);
  }
  // Removed: the deprecated entries (not breaking) and two active ones (breaking).
  const removed = new Set(entries.filter((e, i) => e.status === 'deprecated' || i === 2 || i === 4).map((e) => e.urn));
  expected.removed = removed.size;
  const kept = entries.filter((e) => !removed.has(e.urn));
  for (let k = 0; k < 5; k++) {
    const file = `schemas/new/event-${k}.json`;
    write(dir, file, schemaFor(urns + k));
    kept.push({ urn: `urn:babel:new:event.e${k}`, schema: file, owner: 'new' });
    expected.added++;
  }
  write(dir, 'registry.json', { schemas: kept });
  return expected;
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-compat-'));
  try {
    const expected = buildRepo(dir, o.urns);
    const args = [BQ, 'compat', '--registry', 'registry.json', '--against', 'HEAD', '--format', 'json'];
    const times = [];
    let report;
    for (let r = 0; r < o.rounds; r++) {
      const t0 = process.hrtime.bigint();
      const run = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, NO_COLOR: '1' } });
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
      if (run.status !== 1) throw new Error(`expected exit 1 (breaking changes), got ${run.status}: ${run.stderr}`);
      report = JSON.parse(run.stdout);
    }
    const s = report.summary;
    for (const k of Object.keys(expected)) {
      if (s[k] !== expected[k]) throw new Error(`summary.${k} is ${s[k]}, expected ${expected[k]}`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(`registry: ${o.urns} URNs; working tree: ${s.breaking} breaking, ${s.compatible} compatible, ${s.added} added, ${s.removed} removed, ${s.unchanged} unchanged`);
    console.log(`runs (s): ${times.map((t) => t.toFixed(3)).join(' ')}`);
    console.log(`compat --against HEAD: median ${median.toFixed(3)} s over ${o.rounds} runs (target < ${TARGET_SECONDS} s): ${median < TARGET_SECONDS ? 'OK' : 'SLOW'}`);
    if (o.keep) console.log(`kept: ${dir}`);
  } finally {
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main();
