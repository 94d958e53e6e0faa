import { describe, expect, it } from 'vitest';
import {
  COMPAT_LEVELS,
  CompatNameError,
  assessChange,
  compareSchemas,
  parseCompatLevel,
  parseCompatPolicy,
  type Change,
  type ComparingLevel,
  type CompatPolicy,
} from '../../src/compat/index.js';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'object',
  properties,
  ...extra,
});

const run = (a: unknown, b: unknown, policy: CompatPolicy, mode: ComparingLevel = 'backward') =>
  compareSchemas(a, b, { level: mode, policy });
const breaking = (changes: Change[]): Array<[string, string]> => changes.filter((c) => c.breaking).map((c) => [c.rule, c.path]);

/** Each case pins both policies' backward verdicts and the breaking rules they cite. */
interface PolicyCase {
  name: string;
  old: unknown;
  new: unknown;
  bqschema: Array<[string, string]>;
  confluent: Array<[string, string]>;
}

const CASES: PolicyCase[] = [
  {
    name: 'optional property added to an open model (PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL)',
    old: obj({ a: {} }),
    new: obj({ a: {}, b: { type: 'string' } }),
    bqschema: [],
    confluent: [['property-added', '/properties/b']],
  },
  {
    name: 'property with an empty schema added to an open model',
    old: obj({ a: {} }),
    new: obj({ a: {}, b: {} }),
    bqschema: [],
    confluent: [],
  },
  {
    name: 'property removed from an open model (PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL)',
    old: obj({ a: {}, b: { type: 'string' } }),
    new: obj({ a: {} }),
    bqschema: [['property-removed', '/properties/b']],
    confluent: [],
  },
  {
    name: 'property removed from a closed model',
    old: obj({ b: { type: 'string' } }, { additionalProperties: false }),
    new: obj({}, { additionalProperties: false }),
    bqschema: [['property-removed', '/properties/b']],
    confluent: [['property-removed', '/properties/b']],
  },
  {
    name: 'property removed, covered by a partially open model',
    old: obj({ b: { type: 'string' } }, { additionalProperties: false }),
    new: obj({}, { additionalProperties: { type: 'string' } }),
    bqschema: [['property-removed', '/properties/b']],
    confluent: [],
  },
  {
    name: 'property removed, not covered by a partially open model',
    old: obj({ b: { type: 'number' } }, { additionalProperties: false }),
    new: obj({}, { additionalProperties: { type: 'string' } }),
    bqschema: [['property-removed', '/properties/b']],
    confluent: [['type-narrowed', '/properties/b/type']],
  },
  {
    name: 'required property with a default (REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED)',
    old: obj({ a: { type: 'string' } }),
    new: obj({ a: { type: 'string', default: 'x' } }, { required: ['a'] }),
    bqschema: [['required-added', '/required']],
    confluent: [],
  },
  {
    name: 'required property without a default',
    old: obj({ a: { type: 'string' } }),
    new: obj({ a: { type: 'string' } }, { required: ['a'] }),
    bqschema: [['required-added', '/required']],
    confluent: [['required-added', '/required']],
  },
  {
    name: 'optional property added to a closed model (OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL)',
    old: obj({}, { additionalProperties: false }),
    new: obj({ b: { type: 'string' } }, { additionalProperties: false }),
    bqschema: [],
    confluent: [],
  },
  {
    name: 'property added, not covered by a partially open model',
    old: obj({}, { additionalProperties: { type: 'string' } }),
    new: obj({ b: { type: 'number' } }, { additionalProperties: { type: 'string' } }),
    bqschema: [['type-narrowed', '/properties/b/type']],
    confluent: [['type-narrowed', '/properties/b/type']],
  },
  {
    name: 'the rules on values agree: type, bounds, enum',
    old: obj({ n: { type: 'number' }, s: { type: 'string', maxLength: 5 }, e: { enum: [1, 2] } }),
    new: obj({ n: { type: 'integer' }, s: { type: 'string', maxLength: 3 }, e: { enum: [1] } }),
    bqschema: [
      ['enum-value-removed', '/properties/e/enum'],
      ['type-narrowed', '/properties/n/type'],
      ['max-length-lowered', '/properties/s/maxLength'],
    ],
    confluent: [
      ['enum-value-removed', '/properties/e/enum'],
      ['type-narrowed', '/properties/n/type'],
      ['max-length-lowered', '/properties/s/maxLength'],
    ],
  },
];

describe('bqschema and confluent policies, backward', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const bq = run(c.old, c.new, 'bqschema');
      const cf = run(c.old, c.new, 'confluent');
      expect(breaking(bq.changes)).toEqual(c.bqschema);
      expect(breaking(cf.changes)).toEqual(c.confluent);
      expect(bq.compatible).toBe(c.bqschema.length === 0);
      expect(cf.compatible).toBe(c.confluent.length === 0);
    });
  }

  it('the default is bqschema', () => {
    const c = CASES[0]!;
    expect(compareSchemas(c.old, c.new)).toEqual(run(c.old, c.new, 'bqschema'));
  });

  it("confluent's open-model break is a data break: its witness is old data the new schema rejects", () => {
    const c = run(obj({}), obj({ b: { type: 'string' } }), 'confluent').changes[0]!;
    expect(c.witness).toEqual({ payload: { b: null }, validUnder: 'old' });
  });

  it('a required property with a default says why it is compatible under confluent', () => {
    const c = run(CASES[6]!.old, CASES[6]!.new, 'confluent').changes.find((x) => x.rule === 'required-added')!;
    expect(c.breaking).toBe(false);
    expect(c.message).toContain('declares a default');
  });

  it('an unknown policy is a TypeError naming it', () => {
    expect(() => compareSchemas({}, {}, { policy: 'avro' as CompatPolicy })).toThrow(/unknown compat policy "avro"/);
  });
});

describe('policies in forward mode (the schemas swap roles)', () => {
  it('a property added to a closed model: both break forward; confluent shows it with data', () => {
    const a = obj({}, { additionalProperties: false });
    const b = obj({ b: { type: 'string' } }, { additionalProperties: false });
    const bq = run(a, b, 'bqschema', 'forward').changes;
    const cf = run(a, b, 'confluent', 'forward').changes;
    expect(breaking(bq)).toEqual([['property-added', '/properties/b']]);
    expect(breaking(cf)).toEqual([['property-added', '/properties/b']]);
    expect(cf[0]!.witness).toEqual({ payload: { b: '' }, validUnder: 'new' });
  });

  it('a property removed from an open model breaks forward, under either policy, only when its schema constrains', () => {
    for (const policy of ['bqschema', 'confluent'] as const) {
      expect(run(obj({ b: { type: 'string' } }), obj({}), policy, 'forward').compatible, policy).toBe(false);
      expect(run(obj({ b: {} }), obj({}), policy, 'forward').compatible, policy).toBe(true);
      // Both show it with data: what new producers may send under "b" that old consumers reject.
      expect(run(obj({ b: { type: 'string' } }), obj({}), policy, 'forward').changes[0]!.witness, policy).toEqual({
        payload: { b: null },
        validUnder: 'new',
      });
    }
  });

  it('a required property with a default is a policy choice of confluent, named with the old data it rejects', () => {
    const c = run(CASES[6]!.old, CASES[6]!.new, 'confluent').changes.find((x) => x.rule === 'required-added')!;
    expect(c).toMatchObject({ breaking: false, policyChoice: true, affected: { payload: {}, validUnder: 'old' } });
    expect(c.message).toBe(
      'property "a" is now required (it declares a default: compatible under the confluent policy): a policy choice, since old data without it is rejected (no validator applies a default)',
    );
  });

  // Found by the soundness property (seed 4246): with the roles swapped, forward, the old schema
  // requires a property with a default and the new one does not; Confluent calls that compatible
  // too, and data new producers send without it is rejected by old consumers.
  it('confluent, forward: a required property with a default no longer required is a policy choice, named with new data the old schema rejects', () => {
    const old = obj({ c: { type: 'string', default: 'x' } }, { required: ['c'] });
    const now = obj({ c: { type: 'string', default: 'x' } });
    for (const mode of ['forward', 'full'] as const) {
      const r = run(old, now, 'confluent', mode);
      expect(r.compatible, mode).toBe(true);
      const c = r.changes.find((x) => x.rule === 'required-removed')!;
      expect(c, mode).toMatchObject({ breaking: false, policyChoice: true, affected: { payload: {}, validUnder: 'new' } });
      expect(c.message).toBe(
        'property "c" is no longer required (it declares a default: compatible under the confluent policy): a policy choice, since data new producers send without it is rejected by the old schema (no validator applies a default)',
      );
    }
    // bqschema gives no such excuse: forward breaks.
    expect(run(old, now, 'bqschema', 'forward').compatible).toBe(false);
    // The rollout does not promise old consumers accept everything new producers send.
    const rollout = assessChange(old, now, { policy: 'confluent' }).rollout;
    expect(rollout.order).toBe('either');
    expect(rollout.sentence).toMatch(/round\. Except new data a policy choice lets through, which the old schema rejects all the same\.$/);
  });

  it('a choice no value can refute is not named one: an enum whose every value the new schema accepts', () => {
    const old = { type: 'object', enum: [{}, { b: 'x' }] };
    const now = { ...old, properties: { b: { type: 'string' } } };
    const c = run(old, now, 'bqschema').changes.find((x) => x.rule === 'property-added')!;
    expect(c).toEqual({ rule: 'property-added', breaking: false, path: '/properties/b', message: 'property "b" added' });
    // Where a listed value is rejected, it is.
    const rejected = run({ ...old, enum: [{}, { b: 1 }] }, { ...now, enum: [{}, { b: 1 }] }, 'bqschema').changes.find(
      (x) => x.rule === 'property-added',
    )!;
    expect(rejected).toMatchObject({ policyChoice: true, affected: { payload: { b: 1 }, validUnder: 'old' } });
  });
});

describe('parseCompatLevel and parseCompatPolicy', () => {
  it('accept any case', () => {
    for (const [text, level] of [
      ['BACKWARD', 'backward'],
      ['backward', 'backward'],
      ['Full', 'full'],
      ['forward', 'forward'],
      ['NONE', 'none'],
      ['nOnE', 'none'],
    ] as const) {
      expect(parseCompatLevel(text)).toBe(level);
    }
    expect(COMPAT_LEVELS).toEqual(['backward', 'forward', 'full', 'none']);
    expect(parseCompatPolicy('Confluent')).toBe('confluent');
    expect(parseCompatPolicy('BQSCHEMA')).toBe('bqschema');
  });

  it('refuse anything else with one line naming the value and the choices', () => {
    for (const bad of ['', ' backward', 'back', 'FULL_TRANSITIVE', '__proto__', 'constructor', 'x\ny']) {
      let err: unknown;
      try {
        parseCompatLevel(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(CompatNameError);
      const message = (err as Error).message;
      expect(message).toContain(JSON.stringify(bad));
      expect(message).toContain('expected backward, forward, full, none');
      expect(message.split('\n')).toHaveLength(1);
    }
    expect(() => parseCompatLevel('BACKWARD_TRANSITIVE')).toThrow(/transitive levels are not supported/);
    expect(() => parseCompatPolicy('avro')).toThrow('unknown compat policy "avro" (expected bqschema, confluent, in any case)');
  });
});
