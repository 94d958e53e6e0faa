// compat benchmark: `bqschema compat --registry registry.json --against HEAD` on a 1,000-URN registry.
//
//   npm run bench:compat                    # build, then 5 timed runs; prints the median
//   options: --urns N --rounds N --corpus N (messages, default 100000; 0: skip) --keep
//
// A temporary git repository holds the registry, committed; then ~10% of the schemas are edited
// (half compatibly, half breakingly), 5 URNs are added and a dozen removed (most of them
// deprecated), and every timed run is a fresh `node bin/bqschema.js` process, so the figure
// includes node's startup, both manifests, 2,000 schema documents and the git reads. Witnesses are
// on (compat builds and verifies one for every breaking change) and the rollout order is computed
// for every changed URN. A second series adds `--corpus` with N generated envelopes (NDJSON).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BQ = join(ROOT, 'bin', 'bqschema.js');
const TARGET_SECONDS = 3;

function parseArgs(argv) {
  const o = { urns: 1000, rounds: 5, corpus: 100_000, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--keep') o.keep = true;
    else if (a === '--urns' || a === '--rounds' || a === '--corpus') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < (a === '--corpus' ? 0 : 1)) throw new Error(`${a} needs a positive integer`);
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
  return { expected, kept, changed: new Set(entries.filter((e, i) => i % step === 1).map((e) => e.urn)) };
}

/** N envelopes over every kept URN; a few lack `amount` or carry a 3-letter currency, which the breaking edits reject. */
function writeCorpus(dir, kept, n) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const urn = kept[(i * 7919) % kept.length].urn;
    const data = { id: i + 1, occurred_at: '2026-01-01T00:00:00.000Z', status: 'active', currency: i % 3 === 0 ? 'EU' : 'EUR' };
    if (i % 5 !== 0) data.amount = i % 1000;
    lines.push(JSON.stringify({ job: urn, data, meta: { id: `m-${i}`, schema_version: 1 }, attempts: 0 }));
  }
  writeFileSync(join(dir, 'corpus.ndjson'), lines.join('\n') + '\n');
  let expectedChecked = 0;
  return (changed) => {
    if (expectedChecked === 0) for (let i = 0; i < n; i++) if (changed.has(kept[(i * 7919) % kept.length].urn)) expectedChecked++;
    return expectedChecked;
  };
}

function timed(dir, args, rounds) {
  const times = [];
  let report;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      env: { ...process.env, NO_COLOR: '1' },
    });
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (run.status !== 1) throw new Error(`expected exit 1 (breaking changes), got ${run.status}: ${run.stderr}`);
    report = JSON.parse(run.stdout);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { times, median: sorted[Math.floor(sorted.length / 2)], report };
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = mkdtempSync(join(os.tmpdir(), 'bqschema-bench-compat-'));
  try {
    const { expected, kept, changed } = buildRepo(dir, o.urns);
    const args = [BQ, 'compat', '--registry', 'registry.json', '--against', 'HEAD', '--format', 'json'];
    const plain = timed(dir, args, o.rounds);
    const report = plain.report;
    const s = report.summary;
    for (const k of Object.keys(expected)) {
      if (s[k] !== expected[k]) throw new Error(`summary.${k} is ${s[k]}, expected ${expected[k]}`);
    }
    // Witnesses on: every breaking change has one (or says why not), and each changed URN a rollout.
    const breaks = report.urns.flatMap((u) => u.changes.filter((c) => c.breaking));
    const witnessed = breaks.filter((c) => c.witness !== undefined && c.witness !== null).length;
    if (breaks.some((c) => c.witness === undefined)) throw new Error('a breaking change has no witness field');
    if (report.urns.some((u) => (u.status === 'breaking' || u.status === 'compatible') && u.rollout === undefined))
      throw new Error('a changed URN has no rollout');
    console.log(
      `registry: ${o.urns} URNs; working tree: ${s.breaking} breaking, ${s.compatible} compatible, ${s.added} added, ${s.removed} removed, ${s.unchanged} unchanged`,
    );
    console.log(
      `witnesses: ${witnessed} of ${breaks.length} breaking changes (the rest are breaks by policy, with the other direction's witness)`,
    );
    console.log(`runs (s): ${plain.times.map((t) => t.toFixed(3)).join(' ')}`);
    console.log(
      `compat --against HEAD: median ${plain.median.toFixed(3)} s over ${o.rounds} runs (target < ${TARGET_SECONDS} s): ${plain.median < TARGET_SECONDS ? 'OK' : 'SLOW'}`,
    );
    if (o.corpus > 0) {
      const checkedFor = writeCorpus(dir, kept, o.corpus);
      const withCorpus = timed(dir, [...args, '--corpus', 'corpus.ndjson'], o.rounds);
      const c = withCorpus.report;
      const checked = c.urns.reduce((n, u) => n + (u.corpus?.checked ?? 0), 0);
      if (checked !== checkedFor(changed)) throw new Error(`corpus: ${checked} messages checked, expected ${checkedFor(changed)}`);
      if (c.corpus.documents !== o.corpus) throw new Error(`corpus: ${c.corpus.documents} documents read, expected ${o.corpus}`);
      console.log(
        `corpus: ${o.corpus} envelopes, ${checked} of changed URNs checked, ${c.summary.corpusRejected} rejected, ${c.corpus.ignored} of unchanged URNs skipped`,
      );
      console.log(`runs (s): ${withCorpus.times.map((t) => t.toFixed(3)).join(' ')}`);
      console.log(`compat --against HEAD --corpus (${o.corpus} messages): median ${withCorpus.median.toFixed(3)} s over ${o.rounds} runs`);
    }
    if (o.keep) console.log(`kept: ${dir}`);
  } finally {
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main();
