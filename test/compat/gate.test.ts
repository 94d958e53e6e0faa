import { describe, expect, it } from 'vitest';
import { pairGate, type PairGate } from '../../src/compat/gate.js';
import { parseExceptions, schemaFingerprint, type CorpusDocument } from '../../src/compat/index.js';
import type { SchemaDocument } from '../../src/registry/index.js';

/*
 * compat's gate takes what the CLI loaded in one options object and gives the verdict: the rules,
 * the exceptions and the corpus are weighed inside src/compat, with no call back up to the CLI.
 */

const URN = 'urn:babel:orders:created';
const OLD = { type: 'object', properties: { id: { type: 'integer' }, note: { type: 'string' } } };
const NEW = { type: 'object', required: ['note'], properties: { id: { type: 'integer' }, note: { type: 'string' } } };
const doc = (value: unknown, name: string): SchemaDocument => ({
  urn: URN,
  file: { path: `/r/${name}`, shown: name },
  text: JSON.stringify(value),
  value,
});

const EXCEPTION = {
  urn: URN,
  rule: 'required-added',
  path: '/required/note',
  fingerprint: schemaFingerprint(OLD),
  reason: 'every producer sends a note',
  owner: 'team-orders',
  expires: '2026-12-31',
};
const exceptions = { file: 'bqschema-exceptions.yaml', entries: parseExceptions({ exceptions: [EXCEPTION] }, 'bqschema-exceptions.yaml') };

async function* corpus(...data: unknown[]): AsyncIterable<readonly CorpusDocument[]> {
  yield data.map((d, i) => ({ kind: 'doc' as const, file: 'corpus.ndjson', line: i + 1, text: JSON.stringify({ job: URN, data: d }) }));
}

const gate = (over: Partial<PairGate> = {}): PairGate => ({
  level: 'backward',
  policy: 'bqschema',
  allowKeywords: new Set(),
  now: new Date('2026-06-01T12:00:00Z'),
  oldFile: 'old.json',
  newFile: 'new.json',
  urn: URN,
  older: doc(OLD, 'old.json'),
  newer: doc(NEW, 'new.json'),
  ...over,
});

describe('pairGate: two schemas, their exceptions and corpus, one call', () => {
  it('a newly required property breaks backward compatibility, and names the remedy', async () => {
    const v = await pairGate(gate());
    expect(v.compatible).toBe(false);
    expect(v.summary).toMatchObject({ breaking: 1, errors: 0 });
    expect(v.changes.filter((c) => c.breaking).map((c) => c.rule)).toEqual(['required-added']);
    expect(v.remedy).toMatchObject({ kind: 'new-urn', urn: URN });
  });

  it('forward compatibility is another question: the same change passes it', async () => {
    expect((await pairGate(gate({ level: 'forward' }))).compatible).toBe(true);
  });

  it("an exception excuses the break until it expires (the date is the caller's)", async () => {
    const excused = await pairGate(gate({ exceptions }));
    expect(excused.compatible).toBe(true);
    expect(excused.summary).toMatchObject({ breaking: 0, excepted: 1 });
    const expired = await pairGate(gate({ exceptions, now: new Date('2027-01-02T00:00:00Z') }));
    expect(expired.compatible).toBe(false);
    expect(expired.v.exceptions?.outcome.expired).toHaveLength(1);
  });

  it('the corpus is judged against the new schema: a message without the newly required property fails it', async () => {
    const passing = await pairGate(gate({ exceptions, corpus: corpus({ id: 1, note: 'a' }, { id: 2, note: 'b' }) }));
    expect(passing.v.corpus).toMatchObject({ documents: 2, failed: false });
    expect(passing.compatible).toBe(true);
    const failing = await pairGate(gate({ exceptions, corpus: corpus({ id: 1, note: 'a' }, { id: 2 }) }));
    expect(failing.v.corpus?.failed).toBe(true);
    expect(failing.v.corpus?.urns[0]?.rejected).toBe(1);
    expect(failing.compatible).toBe(false);
  });

  it('a schema that could not be read is a problem, never a pass', async () => {
    const v = await pairGate(gate({ older: { side: 'old', message: 'old.json:1:1: invalid JSON' } }));
    expect(v.compatible).toBe(false);
    expect(v.problems).toEqual([{ side: 'old', message: 'old.json:1:1: invalid JSON' }]);
    expect(v.summary.errors).toBe(1);
  });
});
