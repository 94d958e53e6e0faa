import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareRegistries, remedyText, type CompatLevel } from '../../src/compat/index.js';
import { registryGate } from '../../src/compat/gate.js';
import { dayNumber, readManifest, Registry } from '../../src/registry/index.js';
import { compile } from '../../src/validator/index.js';
import { removeTempTrees, tempTree } from '../helpers/cli.js';

// A property the manifest deprecates (`deprecatedProperties`) may be removed from the URN's schema
// on or after its sunset, as the OLD manifest says, and only where no payload can refute the
// removal; before the sunset the removal breaks and says how many days remain.

afterAll(removeTempTrees);

const URN = 'urn:t:orders:placed';
const COUPON = { since: '2026-01-31', sunset: '2026-06-30', replacement: 'discounts', reason: 'discounts replace coupons' };
const OLD = { type: 'object', properties: { id: { type: 'integer' }, coupon: { type: 'string' } } };
const NEW = { type: 'object', properties: { id: { type: 'integer' } } };

function registry(schema: unknown, entry: object = {}): Registry {
  const dir = tempTree({
    'registry.json': JSON.stringify({ schemas: [{ urn: URN, schema: 'u.json', ...entry }] }),
    'u.json': JSON.stringify(schema),
  });
  return Registry.workingTree(join(dir, 'registry.json'));
}

const deprecating = { deprecatedProperties: { coupon: COUPON } };
const row = (base: Registry, current: Registry, day: string | undefined, level: CompatLevel = 'backward') =>
  compareRegistries(base, current, level, day === undefined ? {} : { today: dayNumber(day)! })[0]!;
const removal = (r: ReturnType<typeof row>) => r.changes.find((c) => c.rule === 'property-removed' && c.path === '/properties/coupon')!;

describe('manifest: deprecatedProperties', () => {
  it('is read as a map from property name to its deprecation, and leaves the URN active', () => {
    const read = readManifest({ schemas: [{ urn: URN, schema: 'u.json', deprecatedProperties: { coupon: COUPON, 'a/b': {} } }] });
    expect(read.issues).toEqual([]);
    expect(read.entries[0]!.status).toBeUndefined();
    expect(read.entries[0]!.deprecated).toBeUndefined();
    expect([...read.entries[0]!.deprecatedProperties!]).toEqual([
      ['coupon', COUPON],
      ['a/b', {}],
    ]);
  });

  it('a wrong shape or a day that does not exist is fatal, at its place; an unknown key and a sunset before since are not', () => {
    const problems = readManifest({
      schemas: [
        {
          urn: URN,
          schema: 'u.json',
          deprecatedProperties: {
            coupon: { sunset: '2026-02-30' },
            'x/y': 'soon',
            note: { sunst: '2026-06-30', since: '2026-07-01', sunset: '2026-06-30' },
          },
        },
      ],
    }).issues.map(({ pointer, message, fatal }) => ({ pointer, message, fatal }));
    expect(problems).toEqual([
      {
        pointer: '/schemas/0/deprecatedProperties/coupon/sunset',
        fatal: true,
        message:
          'entry 0: "deprecatedProperties.coupon.sunset" is "2026-02-30", not a real calendar day; write it as YYYY-MM-DD, e.g. "2026-06-30"',
      },
      {
        pointer: '/schemas/0/deprecatedProperties/x~1y',
        fatal: true,
        message:
          'entry 0: "deprecatedProperties.x/y" must be an object such as {"since": "2026-01-31", "sunset": "2026-06-30", "reason": "…"}',
      },
      {
        pointer: '/schemas/0/deprecatedProperties/note/sunst',
        fatal: false,
        message:
          'entry 0: "deprecatedProperties.note" has an unknown key "sunst" (did you mean "sunset"?); known: since, sunset, replacement, reason',
      },
      {
        pointer: '/schemas/0/deprecatedProperties/note/sunset',
        fatal: false,
        message:
          'entry 0: "deprecatedProperties.note.sunset" 2026-06-30 is before "deprecatedProperties.note.since" 2026-07-01; a property\'s sunset comes on or after the day it was deprecated',
      },
    ]);
    expect(readManifest({ schemas: [{ urn: URN, schema: 'u.json', deprecatedProperties: ['coupon'] }] }).issues).toEqual([
      {
        pointer: '/schemas/0/deprecatedProperties',
        fatal: true,
        urn: URN,
        message:
          'entry 0: "deprecatedProperties" must be an object from property name to its deprecation, e.g. {"coupon": {"since": "2026-01-31", "sunset": "2026-06-30", "reason": "…"}}',
      },
    ]);
  });
});

describe('compareRegistries: removing a deprecated property', () => {
  const base = registry(OLD, deprecating);
  const current = registry(NEW);

  it('before the sunset the removal breaks, and says how many days remain', () => {
    const r = row(base, current, '2026-06-01');
    expect(r).toMatchObject({ status: 'breaking', breaking: true });
    expect(removal(r)).toMatchObject({ breaking: true, witnessReason: 'policy' });
    expect(removal(r).message).toMatch(
      /; "coupon" is deprecated until its sunset 2026-06-30 \(29 days from now\): remove it on that day or later$/,
    );
    expect(removal(row(base, current, '2026-06-29')).message).toContain('(1 day from now)');
    // The remedy is to wait, not to mint a new URN: on the sunset nothing else breaks.
    expect(remedyText(r.remedy!)).toBe(`keep coupon in ${URN}'s schema until its sunset 2026-06-30 (29 days from now), then remove it`);
  });

  it('the remedy waits for the last sunset of several, and is a new URN when anything else breaks or data refutes the removal', () => {
    const two = registry(
      { type: 'object', properties: { id: {}, coupon: {}, promo: {} } },
      { deprecatedProperties: { coupon: COUPON, promo: { sunset: '2026-09-30' } } },
    );
    const r = row(two, registry({ type: 'object', properties: { id: {} } }), '2026-06-01');
    expect(remedyText(r.remedy!)).toBe(
      `keep coupon and promo in ${URN}'s schema until the last sunset 2026-09-30 (121 days from now), then remove them`,
    );
    const alsoNarrowed = row(base, registry({ type: 'object', properties: { id: { type: 'integer', minimum: 1 } } }), '2026-06-01');
    expect(alsoNarrowed.remedy).toMatchObject({ kind: 'new-urn' });
    const closed = row(base, registry({ ...NEW, additionalProperties: false }), '2026-06-01');
    expect(closed.remedy).toMatchObject({ kind: 'new-urn' });
  });

  it('without a known today no sunset has come', () => {
    const r = row(base, current, undefined);
    expect(r.breaking).toBe(true);
    expect(removal(r).message).toMatch(/; "coupon" is deprecated until its sunset 2026-06-30: remove it on that day or later$/);
  });

  it('on the sunset and after it the removal from an open model passes, with no witness and no remedy', () => {
    for (const day of ['2026-06-30', '2026-07-01', '2031-01-01']) {
      const r = row(base, current, day);
      expect(r, day).toMatchObject({ status: 'compatible', breaking: false });
      expect(r.remedy, day).toBeUndefined();
      // Backward holds once the removal is allowed; forward does not (new producers may send any value under "coupon").
      expect(r.rollout?.order, day).toBe('consumers-first');
      const c = removal(r);
      expect(c.breaking).toBe(false);
      expect(c.witness).toBeUndefined();
      expect(c.message).toMatch(/; "coupon" is deprecated and past its sunset 2026-06-30: its removal is allowed$/);
    }
  });

  it("the old manifest's word counts: a deprecation added in the same change excuses nothing", () => {
    expect(row(registry(OLD), registry(NEW, deprecating), '2027-01-01').breaking).toBe(true);
  });

  it('a deprecation without a sunset lets the property go, as a URN deprecated without one', () => {
    expect(row(registry(OLD, { deprecatedProperties: { coupon: { reason: 'r' } } }), current, '2026-06-01').breaking).toBe(false);
  });

  it('only the named top-level property: another removal, or a nested one of the same name, still breaks', () => {
    const nestedOld = {
      type: 'object',
      properties: { coupon: { type: 'string' }, inner: { type: 'object', properties: { coupon: { type: 'string' } } } },
    };
    const nestedNew = { type: 'object', properties: { coupon: { type: 'string' }, inner: { type: 'object', properties: {} } } };
    const r = row(registry(nestedOld, deprecating), registry(nestedNew), '2027-01-01');
    expect(r.breaking).toBe(true);
    expect(r.changes.filter((c) => c.breaking).map((c) => c.path)).toEqual(['/properties/inner/properties/coupon']);
    const both = row(
      registry({ type: 'object', properties: { coupon: {}, id: {} } }, deprecating),
      registry({ type: 'object' }),
      '2027-01-01',
    );
    expect(both.changes.filter((c) => c.breaking).map((c) => c.path)).toEqual(['/properties/id']);
  });

  it('never a false green: a closed model or a constrained additionalProperties rejects old data, and the break keeps its witness', () => {
    for (const additionalProperties of [false, { type: 'integer' }]) {
      const closed = { ...NEW, additionalProperties };
      const r = row(base, registry(closed), '2027-01-01');
      expect(r.breaking, JSON.stringify(additionalProperties)).toBe(true);
      const c = removal(r);
      expect(c.breaking).toBe(true);
      expect(c.message).toMatch(
        /; "coupon" is deprecated and past its sunset 2026-06-30, but data refutes the removal, so the sunset does not excuse it$/,
      );
      // The witness is real: old data the new schema rejects.
      expect(c.witness?.validUnder).toBe('old');
      expect(compile(OLD).isValid(c.witness!.payload)).toBe(true);
      expect(compile(closed).isValid(c.witness!.payload)).toBe(false);
    }
  });

  it('forward and full: new producers may send any value under the name, which the typed old property rejects', () => {
    for (const level of ['full', 'forward'] as const) {
      const r = row(base, current, '2027-01-01', level);
      expect(r.breaking, level).toBe(true);
      const c = removal(r);
      expect(c.witness?.validUnder).toBe('new');
      expect(compile(NEW).isValid(c.witness!.payload)).toBe(true);
      expect(compile(OLD).isValid(c.witness!.payload)).toBe(false);
    }
    // An old property that accepted anything: nothing to refute, full passes past the sunset (and breaks before it).
    const loose = registry({ type: 'object', properties: { id: { type: 'integer' }, coupon: {} } }, deprecating);
    expect(row(loose, current, '2027-01-01', 'full').breaking).toBe(false);
    expect(row(loose, current, '2026-06-01', 'full').breaking).toBe(true);
  });
});

describe('registryGate: the verdict carries it', () => {
  const gate = (now: string) =>
    registryGate({
      base: registry(OLD, deprecating),
      current: registry(NEW),
      level: 'backward',
      policy: 'bqschema',
      allowKeywords: new Set(),
      now: new Date(`${now}T12:00:00Z`),
      against: { ref: 'main', commit: 'c'.repeat(40), registry: 'registry.json', found: true },
      working: 'registry.json',
    });

  it("fails before the sunset and passes from it on (today is the gate's `now`)", async () => {
    const early = await gate('2026-06-29');
    expect(early.compatible).toBe(false);
    expect(early.summary).toMatchObject({ breaking: 1 });
    const late = await gate('2026-06-30');
    expect(late.compatible).toBe(true);
    expect(late.summary).toMatchObject({ breaking: 0 });
  });
});
