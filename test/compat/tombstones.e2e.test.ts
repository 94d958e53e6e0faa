import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { retiredChanges } from '../../src/compat/retired.js';
import { resurrectedAt } from '../../src/compat/transitive.js';
import { readManifest } from '../../src/registry/manifest.js';
import { bq, expectExit, expectOneLineError, removeTempTrees } from '../helpers/cli.js';
import { manifest, objectSchema, Repo } from '../helpers/git-repo.js';

/*
 * Tombstones: a property name an earlier version declared, removed since, must not come back with a
 * schema the old data does not satisfy (`property-resurrected`). History finds it (compat
 * --transitive, with a witness from the old version); the manifest's `retired` list says it
 * without history (a break by the registry's rules, no payload).
 */

afterAll(removeTempTrees);

const URN = 'urn:bq:orders:created';
const WITH_A = (type: string): string => objectSchema({ id: { type: 'string' }, a: { type } });
const WITHOUT_A = objectSchema({ id: { type: 'string' } });

describe('property-resurrected from history', () => {
  it("a name back with another type breaks the version that had it, with that version's data as the witness", async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ [URN]: 'orders.json' }), 'orders.json': WITH_A('string') });
    r.commit({ 'orders.json': WITHOUT_A });
    r.commit({ 'orders.json': WITH_A('integer') });
    const t = await bq(['compat', '--transitive', '--format', 'json'], { cwd: r.dir });
    expectExit(t, 1);
    const change = (JSON.parse(t.stdout) as { urns: Array<{ changes: Array<Record<string, unknown>> }> }).urns[0]!.changes[0]!;
    expect(change).toMatchObject({
      rule: 'property-resurrected',
      breaking: true,
      schemaPath: '/properties/a',
      subject: 'a',
      witness: { payload: { a: '' }, validUnder: 'old' },
      earlier: { version: 1 },
    });
  });

  it('a name back with a schema the old data satisfies is no break', async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ [URN]: 'orders.json' }), 'orders.json': WITH_A('string') });
    r.commit({ 'orders.json': WITHOUT_A });
    r.commit({ 'orders.json': objectSchema({ id: { type: 'string' }, a: { type: ['string', 'integer'] } }) });
    expectExit(await bq(['compat', '--transitive'], { cwd: r.dir }), 0);
  });

  it('resurrectedAt walks keywords: a property named "properties", nested objects, items', () => {
    const old = { properties: { properties: { type: 'string' }, o: { properties: { x: { type: 'string' } } } } };
    const now = { properties: { properties: { type: 'integer' }, o: { properties: { x: { type: 'integer' } } } } };
    const gone = { properties: { o: { properties: {} } } };
    expect(resurrectedAt('/properties/properties/type', old, now, [gone])).toEqual({
      pointer: '/properties/properties',
      name: 'properties',
    });
    expect(resurrectedAt('/properties/o/properties/x/type', old, now, [gone])).toEqual({
      pointer: '/properties/o/properties/x',
      name: 'x',
    });
    expect(resurrectedAt('/properties/o/properties/x/type', old, now, [old])).toBeUndefined(); // never removed
    expect(resurrectedAt('/type', old, now, [gone])).toBeUndefined();
  });
});

describe("the manifest's retired names", () => {
  it('declaring a retired name again fails compat --against without history (backward, full); forward lists it', async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ [URN]: 'orders.json' }, { [URN]: { retired: ['a'] } }), 'orders.json': WITHOUT_A });
    writeFileSync(join(r.dir, 'orders.json'), WITH_A('string'));
    const t = await bq(['compat', '--against', 'HEAD'], { cwd: r.dir });
    expectExit(t, 1);
    expect(t.stdout).toContain(
      'breaking    /properties/a  property "a" declared again after it was removed, with a schema data written under an earlier version does not satisfy (it is retired in the manifest)  [property-resurrected]',
    );
    expect(t.stdout).toContain('no payload shows it: policy');
    expectExit(await bq(['compat', '--against', 'HEAD', '--mode', 'full'], { cwd: r.dir }), 1);
    // Forward: new data is checked against old consumers; the tombstone is about old data, so it is listed, not breaking.
    const forward = await bq(['compat', '--against', 'HEAD', '--mode', 'forward'], { cwd: r.dir });
    expect(forward.stdout).toMatch(/compatible  \/properties\/a  property "a" declared again .*\[property-resurrected\]/);
  });

  it('a new URN that declares a retired name fails too', async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ 'urn:bq:other': 'other.json' }), 'other.json': WITHOUT_A });
    writeFileSync(
      join(r.dir, 'registry.json'),
      manifest({ 'urn:bq:other': 'other.json', [URN]: 'orders.json' }, { [URN]: { retired: ['a'] } }),
    );
    writeFileSync(join(r.dir, 'orders.json'), WITH_A('string'));
    const t = await bq(['compat', '--against', 'HEAD', '--format', 'json'], { cwd: r.dir });
    expectExit(t, 1);
    const row = (JSON.parse(t.stdout) as { urns: Array<{ urn: string; status: string; changes: Array<{ rule: string }> }> }).urns.find(
      (u) => u.urn === URN,
    )!;
    expect(row.status).toBe('breaking');
    expect(row.changes.map((c) => c.rule)).toEqual(['property-resurrected']);
  });

  it('retired must be an array of names: anything else makes the manifest unusable, in one line', async () => {
    expect(readManifest({ schemas: [{ urn: URN, schema: 'o.json', retired: 'a' }] }).issues).toEqual([
      {
        pointer: '/schemas/0/retired',
        message: 'entry 0: "retired" must be an array of property names, e.g. ["coupon"]',
        fatal: true,
        urn: URN,
      },
    ]);
    const r = new Repo();
    r.commit({
      'registry.json': JSON.stringify({ schemas: [{ urn: URN, schema: 'orders.json', retired: [1] }] }),
      'orders.json': WITHOUT_A,
    });
    const t = await bq(['compat', '--against', 'HEAD'], { cwd: r.dir });
    expectOneLineError(t, /retired" must be an array of property names/, 1);
  });

  it('retiredChanges: only names the new schema declares and the old one does not', () => {
    const old = JSON.parse(WITH_A('string'));
    const now = JSON.parse(WITH_A('integer'));
    expect(retiredChanges(['a'], old, now, 'backward')).toEqual([]);
    expect(retiredChanges(['a', 'b'], JSON.parse(WITHOUT_A), now, 'backward').map((c) => [c.rule, c.path, c.breaking])).toEqual([
      ['property-resurrected', '/properties/a', true],
    ]);
    expect(retiredChanges(['a'], undefined, now, 'none')[0]!.breaking).toBe(false);
  });
});
