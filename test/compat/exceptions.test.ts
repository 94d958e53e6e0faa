import { describe, expect, it } from 'vitest';
import {
  ExceptionsError,
  applyExceptions,
  compareSchemas,
  exceptionPath,
  parseExceptions,
  schemaFingerprint,
  type Change,
  type CompatException,
} from '../../src/compat/index.js';

const FILE = 'bqschema-exceptions.yaml';
const URN = 'urn:babel:orders:created';

const OLD = { type: 'object', properties: { id: { type: 'integer' }, note: { type: 'string', maxLength: 9 }, a: {}, b: {} } };
const NEW = {
  type: 'object',
  required: ['a', 'b'],
  properties: { id: { type: 'integer' }, note: { type: 'string', maxLength: 5 }, a: {}, b: {} },
};
const FP = schemaFingerprint(OLD);
const changes = compareSchemas(OLD, NEW).changes;
const findings = new Map<string, readonly Change[]>([[URN, changes]]);
const fingerprints = new Map([[URN, FP]]);
const at = (iso: string): Date => new Date(`${iso}T12:00:00Z`);

/** An entry as a parsed file gives it; a key given as undefined is left out. */
function entry(over: Record<string, unknown> = {}): Record<string, unknown> {
  const e: Record<string, unknown> = {
    urn: URN,
    rule: 'max-length-lowered',
    path: '/properties/note/maxLength',
    fingerprint: FP,
    reason: 'notes were never longer than 5',
    owner: 'team-orders',
    expires: '2026-12-31',
    ...over,
  };
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
  return e;
}
const parse = (...entries: Array<Record<string, unknown>>): CompatException[] => parseExceptions({ exceptions: entries }, FILE);

describe('the changes the tests rely on', () => {
  it('three breaking changes: a lowered maxLength and two required properties', () => {
    expect(changes.filter((c) => c.breaking).map((c) => [c.rule, exceptionPath(c)])).toEqual([
      ['max-length-lowered', '/properties/note/maxLength'],
      ['required-added', '/required/a'],
      ['required-added', '/required/b'],
    ]);
  });
});

describe('applyExceptions', () => {
  it('an exception suppresses exactly its finding; the others still fail', () => {
    const out = applyExceptions(findings, parse(entry()), { now: at('2026-06-01'), fingerprints });
    expect(out.suppressed.map((s) => s.change.rule)).toEqual(['max-length-lowered']);
    expect(out.suppressed[0]!.exception.owner).toBe('team-orders');
    expect(out.unexcused.map((u) => exceptionPath(u.change))).toEqual(['/required/a', '/required/b']);
    expect(out.failed).toBe(true);
  });

  it('one of two changes at the same path (required) is named by its subject', () => {
    const out = applyExceptions(findings, parse(entry({ rule: 'required-added', path: '/required/a' })), {
      now: at('2026-06-01'),
      fingerprints,
    });
    expect(out.suppressed.map((s) => s.change.subject)).toEqual(['a']);
    expect(out.unexcused.map((u) => exceptionPath(u.change))).toEqual(['/properties/note/maxLength', '/required/b']);
  });

  it('every break excepted: the gate passes', () => {
    const all = parse(
      entry(),
      entry({ rule: 'required-added', path: '/required/a' }),
      entry({ rule: 'required-added', path: '/required/b' }),
    );
    const out = applyExceptions(findings, all, { now: at('2026-06-01'), fingerprints });
    expect(out.suppressed).toHaveLength(3);
    expect(out.unexcused).toEqual([]);
    expect(out.failed).toBe(false);
  });

  it('expires is the last day it applies (UTC): the day after, it is expired and fails the gate', () => {
    const all = parse(
      entry(),
      entry({ rule: 'required-added', path: '/required/a' }),
      entry({ rule: 'required-added', path: '/required/b' }),
    );
    const onTheDay = applyExceptions(findings, all, { now: new Date('2026-12-31T23:59:59Z'), fingerprints });
    expect(onTheDay.failed).toBe(false);
    const after = applyExceptions(findings, all, { now: new Date('2027-01-01T00:00:00Z'), fingerprints });
    expect(after.expired).toHaveLength(3);
    expect(after.suppressed).toEqual([]);
    expect(after.unexcused).toHaveLength(3);
    expect(after.failed).toBe(true);
    expect(after.expired[0]!.message).toBe(
      `${FILE}: exception 1 ("${URN}"): expired on 2026-12-31 (owner team-orders): max-length-lowered at /properties/note/maxLength breaks again until it is reviewed and renewed, or fixed`,
    );
  });

  it('an expired exception fails the gate even when its break is gone', () => {
    const out = applyExceptions(new Map([[URN, []]]), parse(entry({ expires: '2020-01-01' })), { now: at('2026-06-01'), fingerprints });
    expect(out.unexcused).toEqual([]);
    expect(out.failed).toBe(true);
  });

  it('a fingerprint that no longer matches the old schema is stale: reported, suppressing nothing', () => {
    const moved = new Map([[URN, schemaFingerprint({ ...OLD, title: 'moved on' })]]);
    const out = applyExceptions(findings, parse(entry()), { now: at('2026-06-01'), fingerprints: moved });
    expect(out.stale).toHaveLength(1);
    expect(out.stale[0]!.message).toContain('changed since the review');
    expect(out.suppressed).toEqual([]);
    expect(out.unexcused).toHaveLength(3);
    const gone = applyExceptions(findings, parse(entry()), { now: at('2026-06-01'), fingerprints: new Map() });
    expect(gone.stale[0]!.message).toContain('has no old schema');
  });

  it('an exception with no matching break is unused: reported, not failing', () => {
    const out = applyExceptions(new Map([[URN, changes.filter((c) => c.rule !== 'max-length-lowered')]]), parse(entry()), {
      now: at('2026-06-01'),
      fingerprints,
    });
    expect(out.unused).toHaveLength(1);
    expect(out.unused[0]!.message).toContain('no breaking change matches it');
    // A matching rule at another path, or another URN, is not its finding.
    const elsewhere = applyExceptions(findings, parse(entry({ path: '/properties/id/maxLength' }), entry({ urn: 'urn:other' })), {
      now: at('2026-06-01'),
      fingerprints: new Map([
        [URN, FP],
        ['urn:other', FP],
      ]),
    });
    expect(elsewhere.unused).toHaveLength(2);
    expect(elsewhere.suppressed).toEqual([]);
  });

  it('a non-breaking change is never "suppressed"', () => {
    const compatible = compareSchemas(OLD, { ...OLD, properties: { ...OLD.properties, note: { type: 'string', maxLength: 20 } } }).changes;
    const out = applyExceptions(new Map([[URN, compatible]]), parse(entry({ rule: 'max-length-raised' })), {
      now: at('2026-06-01'),
      fingerprints,
    });
    expect(out.suppressed).toEqual([]);
    expect(out.unused).toHaveLength(1);
    expect(out.failed).toBe(false);
  });
});

describe('parseExceptions', () => {
  it('reads a document or a bare list; null is none', () => {
    expect(parseExceptions(null, FILE)).toEqual([]);
    expect(parseExceptions({}, FILE)).toEqual([]);
    const [e] = parseExceptions([entry()], FILE);
    expect(e).toEqual({ ...entry(), source: `${FILE}: exception 1 ("${URN}")` });
    expect(parse(entry({ path: '' }))[0]!.path).toBe('');
  });

  const BAD: Array<[string, unknown, string]> = [
    ['not a list', { exceptions: 'x' }, `${FILE}: "exceptions" must be a list of entries, got "x"`],
    ['an unknown top-level key', { exception: [] }, `${FILE}: unknown top-level key "exception" (expected "exceptions")`],
    [
      'an entry that is not a mapping',
      [42],
      `${FILE}: exception 1: must be a mapping of urn, rule, path, fingerprint, reason, owner, expires, got 42`,
    ],
    ['a missing field', [entry({ owner: undefined })], `${FILE}: exception 1 ("${URN}"): owner is missing`],
    [
      'an unknown key',
      [entry({ expiry: '2026-01-01' })],
      `${FILE}: exception 1 ("${URN}"): unknown key "expiry" (expected urn, rule, path, fingerprint, reason, owner, expires)`,
    ],
    ['an empty reason', [entry({ reason: '  ' })], `${FILE}: exception 1 ("${URN}"): reason must not be empty`],
    [
      'an unknown rule',
      [entry({ rule: 'field-renamed' })],
      `${FILE}: exception 1 ("${URN}"): rule "field-renamed" is not a compat rule (see compat --list-rules)`,
    ],
    [
      'a rule named __proto__',
      [entry({ rule: '__proto__' })],
      `${FILE}: exception 1 ("${URN}"): rule "__proto__" is not a compat rule (see compat --list-rules)`,
    ],
    [
      'a path that is no pointer',
      [entry({ path: 'properties/note' })],
      `${FILE}: exception 1 ("${URN}"): path must be a JSON pointer ("" or starting with "/"), got "properties/note"`,
    ],
    [
      'a bad fingerprint',
      [entry({ fingerprint: 'abc' })],
      `${FILE}: exception 1 ("${URN}"): fingerprint must be "sha256:" and 64 lowercase hex digits, got "abc"`,
    ],
    [
      'a date that is no date',
      [entry({ expires: '2026-02-30' })],
      `${FILE}: exception 1 ("${URN}"): expires must be a date YYYY-MM-DD, got "2026-02-30"`,
    ],
    ['a date as a number', [entry({ expires: 20261231 })], `${FILE}: exception 1 ("${URN}"): expires must be a string, got 20261231`],
    [
      'a repeated entry',
      [entry(), entry({ reason: 'again' })],
      `${FILE}: exception 2 ("${URN}"): repeats exception 1 ("${URN}") (same urn, rule, path and fingerprint)`,
    ],
    ['a second entry is named by its number', [entry(), entry({ urn: '' })], `${FILE}: exception 2: urn must not be empty`],
  ];
  for (const [name, doc, message] of BAD) {
    it(`refuses ${name} with one line naming the file and entry`, () => {
      let err: unknown;
      try {
        parseExceptions(doc, FILE);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ExceptionsError);
      expect((err as Error).message).toBe(message);
    });
  }

  it('hostile text stays on one line in messages', () => {
    expect(() => parseExceptions([entry({ urn: 'a\nb', rule: 'x\u2028y' })], FILE)).toThrow(/^[^\n]*$/);
  });
});

describe('schemaFingerprint', () => {
  it('ignores key order and formatting, not content', () => {
    const a = { type: 'object', properties: { x: { type: 'string' }, y: { minimum: 1 } } };
    const b = JSON.parse('{ "properties": { "y": { "minimum": 1.0 }, "x": { "type": "string" } }, "type": "object" }');
    expect(schemaFingerprint(a)).toBe(schemaFingerprint(b));
    expect(schemaFingerprint(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(schemaFingerprint(a)).not.toBe(schemaFingerprint({ ...a, title: 't' }));
    expect(schemaFingerprint([1, 2])).not.toBe(schemaFingerprint([2, 1]));
    expect(schemaFingerprint(true)).not.toBe(schemaFingerprint(false));
  });

  it('is the sha256 of the canonical JSON', async () => {
    const { createHash } = await import('node:crypto');
    // Keys sorted by code unit ("__proto__" as an own key), U+2028 as JSON.stringify writes it.
    const text = '{"a":[1,"\u2028",null],"b":{"__proto__":{},"c":true}}';
    const value = JSON.parse('{"b":{"c":true,"__proto__":{}},"a":[1,"\\u2028",null]}');
    expect(schemaFingerprint(value)).toBe('sha256:' + createHash('sha256').update(text, 'utf8').digest('hex'));
  });
});
