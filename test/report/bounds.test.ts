// The bounds the end-to-end tests cross with small inputs, through their test-only knobs
// (BQSCHEMA_TEST_SARIF_CAP, BQSCHEMA_TEST_SPOOL_BYTES): the real ones are GitHub's 25,000 results a
// SARIF run and a spool that spills to a temporary file past 8 MiB, and a knob that is not a whole
// number within them changes nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { Spool, SPOOL_MEMORY_BYTES, spoolMemoryBytes } from '../../src/cli/spool.js';
import { MAX_RESULTS, resultsCap, SarifCap } from '../../src/report/sarif.js';

const saved = { cap: process.env.BQSCHEMA_TEST_SARIF_CAP, spool: process.env.BQSCHEMA_TEST_SPOOL_BYTES };
afterEach(() => {
  for (const [key, value] of [
    ['BQSCHEMA_TEST_SARIF_CAP', saved.cap],
    ['BQSCHEMA_TEST_SPOOL_BYTES', saved.spool],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('SARIF: at most 25,000 results a run (GitHub code scanning)', () => {
  it('keeps 25,000 and leaves out the 25,001st', () => {
    delete process.env.BQSCHEMA_TEST_SARIF_CAP;
    expect(MAX_RESULTS).toBe(25_000);
    expect(resultsCap()).toBe(25_000);
    const cap = new SarifCap();
    for (let i = 0; i < 25_001; i++) cap.offer('note');
    expect(cap.quotas()).toEqual({ error: 0, warning: 0, note: 25_000 });
    expect(cap.omitted()).toEqual({ error: 0, warning: 0, note: 1 });
  });

  it('BQSCHEMA_TEST_SARIF_CAP lowers it, and only to a whole number from 1 to 25,000', () => {
    process.env.BQSCHEMA_TEST_SARIF_CAP = '250';
    expect(resultsCap()).toBe(250);
    const cap = new SarifCap();
    for (let i = 0; i < 251; i++) cap.offer('error');
    expect(cap.omitted()).toEqual({ error: 1, warning: 0, note: 0 });
    for (const bad of ['', '0', '-1', '2.5', '1e3', ' 250', '25001', '99999999', 'x']) {
      process.env.BQSCHEMA_TEST_SARIF_CAP = bad;
      expect(resultsCap(), JSON.stringify(bad)).toBe(25_000);
    }
  });
});

describe('a spool holds 8 MiB in memory, then spills to a temporary file', () => {
  it('8 MiB stay in memory; one byte more goes to disk', () => {
    delete process.env.BQSCHEMA_TEST_SPOOL_BYTES;
    expect(SPOOL_MEMORY_BYTES).toBe(8 * 1024 * 1024);
    expect(spoolMemoryBytes()).toBe(8 * 1024 * 1024);
    const s = new Spool();
    s.add('k', 'x'.repeat(8 * 1024 * 1024));
    expect(s.onDisk).toBe(false);
    s.add('k', 'y');
    expect(s.onDisk).toBe(true);
    s.close();
  });

  it('BQSCHEMA_TEST_SPOOL_BYTES lowers it, and only to a whole number from 1 to 8 MiB', () => {
    process.env.BQSCHEMA_TEST_SPOOL_BYTES = '100';
    expect(spoolMemoryBytes()).toBe(100);
    const s = new Spool();
    s.add('k', 'x'.repeat(100));
    expect(s.onDisk).toBe(false);
    s.add('k', 'y');
    expect(s.onDisk).toBe(true);
    s.close();
    for (const bad of ['', '0', '-1', '1.5', '1e3', '100 ', String(8 * 1024 * 1024 + 1), '999999999', 'x']) {
      process.env.BQSCHEMA_TEST_SPOOL_BYTES = bad;
      expect(spoolMemoryBytes(), JSON.stringify(bad)).toBe(8 * 1024 * 1024);
    }
  });
});
