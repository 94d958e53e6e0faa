import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/index.js';
import { assignIds, buildSnapshot, MAX_SCHEMA_ID, schemaId, type SchemaSource, type SubjectInput } from '../../src/serve/index.js';

const schema = compile({ type: 'object' });
function source(items: Array<string | SubjectInput>, ids: Record<string, number> = {}): SchemaSource {
  return { urns: () => items, schemaFor: () => schema, idFor: (urn) => ids[urn] };
}
const idsOf = (items: Array<string | SubjectInput>, explicit: Record<string, number> = {}): Map<string, number> =>
  new Map([...buildSnapshot(source(items, explicit)).bySubject].map(([urn, e]) => [urn, e.id]));

describe('schemaId', () => {
  it("is the first 31 bits of the URN's SHA-256, positive and within the Confluent id range", () => {
    for (const urn of ['urn:babel:orders:created', '__proto__', 'urn:ünï\u2028', '']) {
      const expected = createHash('sha256').update(Buffer.from(urn, 'utf8')).digest().readUInt32BE(0) >>> 1;
      expect(schemaId(urn)).toBe(expected || 1);
      expect(schemaId(urn)).toBeGreaterThan(0);
      expect(schemaId(urn)).toBeLessThanOrEqual(MAX_SCHEMA_ID);
    }
    expect(schemaId('urn:babel:orders:created')).toBe(221598811);
  });
});

describe('ids are stable', () => {
  it("adding and removing URNs changes no other URN's id", () => {
    const base = Array.from({ length: 50 }, (_, i) => `urn:babel:svc:event${i}`);
    const before = idsOf(base);
    // Remove every third URN, add URNs that sort before, between and after the others.
    const changed = [...base.filter((_, i) => i % 3 !== 0), 'urn:a:first', 'urn:babel:svc:event10a', 'urn:zzz:last'];
    const after = idsOf(changed);
    for (const urn of changed) if (before.has(urn)) expect(after.get(urn), urn).toBe(before.get(urn));
    expect(after.get('urn:a:first')).toBe(schemaId('urn:a:first'));
    // And the ids are served: the version body carries the same id.
    const snap = buildSnapshot(source(changed));
    const entry = snap.bySubject.get('urn:babel:svc:event1')!;
    expect(entry.ok && JSON.parse(entry.versionBody.toString()).id).toBe(before.get('urn:babel:svc:event1'));
    expect(snap.byId.get(before.get('urn:babel:svc:event1')!)).toBe(entry);
  });

  it('an explicit id wins, from idFor or from a {urn, id} item, and does not move others', () => {
    const ids = idsOf(['urn:a', { urn: 'urn:b', id: 7 }, 'urn:c'], { 'urn:c': 42 });
    expect(ids).toEqual(
      new Map([
        ['urn:a', schemaId('urn:a')],
        ['urn:b', 7],
        ['urn:c', 42],
      ]),
    );
    const snap = buildSnapshot(source(['urn:a', { urn: 'urn:b', id: 7 }]));
    expect(snap.byId.get(7)?.name).toBe('urn:b');
    expect(snap.broken).toEqual([]);
  });
});

describe('id collisions are detected and reported, never served', () => {
  it('two explicit ids alike: both subjects are broken, naming each other', () => {
    const snap = buildSnapshot(source([{ urn: 'urn:a', id: 5 }, { urn: 'urn:b', id: 5 }, 'urn:c']));
    expect(snap.broken.map((b) => b.name)).toEqual(['urn:a', 'urn:b']);
    expect(snap.broken[0]!.error).toBe('schema id 5 of urn:a is also the id of urn:b: give one of them an explicit "id" in the manifest');
    expect(snap.byId.has(5)).toBe(false);
    expect(snap.bySubject.get('urn:c')!.ok).toBe(true);
  });

  it("an explicit id equal to another URN's derived id", () => {
    const { issues: problems } = assignIds([{ urn: 'urn:x', id: schemaId('urn:y') }, { urn: 'urn:y' }]);
    expect(problems.map((p) => p.urn)).toEqual(['urn:x', 'urn:y']);
  });

  it('two derived ids alike (a real SHA-256 prefix collision, found by search)', () => {
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; pair === undefined; i++) {
      const urn = `urn:c:${i}`;
      const id = schemaId(urn);
      const other = seen.get(id);
      if (other !== undefined) pair = [other, urn];
      seen.set(id, urn);
    }
    const snap = buildSnapshot(source([...pair, 'urn:fine']));
    expect(snap.broken.map((b) => b.name).sort()).toEqual([...pair].sort());
    expect(snap.broken[0]!.error).toMatch(/^schema id \d+ of urn:c:\d+ is also the id of urn:c:\d+/);
    expect(snap.byId.has(schemaId(pair[0]))).toBe(false);
  });

  it('an explicit id out of range is a problem too', () => {
    for (const id of [0, -1, 1.5, MAX_SCHEMA_ID + 1, Number.NaN]) {
      const { issues: problems, ids } = assignIds([{ urn: 'urn:a', id }]);
      expect(problems, String(id)).toHaveLength(1);
      expect(problems[0]!.message).toMatch(/is not an integer from 1 to 2147483647/);
      expect(ids.has('urn:a')).toBe(false);
    }
  });
});
