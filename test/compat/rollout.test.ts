import { describe, expect, it } from 'vitest';
import { assessChange, rolloutOrder } from '../../src/compat/index.js';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'object',
  properties,
  ...extra,
});

describe('rolloutOrder', () => {
  it('maps the two verdicts to the four orders', () => {
    expect(rolloutOrder(true, true).order).toBe('either');
    expect(rolloutOrder(true, false).order).toBe('consumers-first');
    expect(rolloutOrder(false, true).order).toBe('producers-first');
    expect(rolloutOrder(false, false).order).toBe('new-urn');
  });

  it('gives one sentence per order, naming who goes first', () => {
    const sentences = [rolloutOrder(true, true), rolloutOrder(true, false), rolloutOrder(false, true), rolloutOrder(false, false)].map(
      (r) => r.sentence,
    );
    expect(new Set(sentences).size).toBe(4);
    for (const s of sentences) expect(s).not.toMatch(/\n/);
    expect(sentences[1]).toMatch(/^Deploy consumers first/);
    expect(sentences[2]).toMatch(/^Deploy producers first/);
    expect(sentences[3]).toMatch(/new URN/);
  });
});

describe('assessChange', () => {
  it('a widened type: backward only, consumers first', () => {
    const a = assessChange(obj({ n: { type: 'integer' } }), obj({ n: { type: 'number' } }));
    expect([a.backward.compatible, a.forward.compatible]).toEqual([true, false]);
    expect(a.rollout.order).toBe('consumers-first');
    // The forward break carries its witness: new data the old schema rejects.
    expect(a.forward.changes[0]!.witness).toEqual({ payload: { n: 0.5 }, validUnder: 'new' });
  });

  it('a narrowed bound: forward only, producers first', () => {
    const a = assessChange({ type: 'string', maxLength: 9 }, { type: 'string', maxLength: 5 });
    expect(a.rollout.order).toBe('producers-first');
    expect(a.backward.changes[0]!.witness?.payload).toBe('aaaaaa');
  });

  it('an annotation only: either order', () => {
    expect(assessChange({ type: 'string' }, { type: 'string', title: 'T' }).rollout.order).toBe('either');
  });

  it('a changed const: a new URN', () => {
    expect(assessChange({ const: 1 }, { const: 2 }).rollout.order).toBe('new-urn');
  });

  it('a constrained property removed from an open model: no order is safe (forward breaks by data too)', () => {
    const a = assessChange(obj({ a: {}, b: { type: 'string' } }), obj({ a: {} }));
    expect([a.backward.compatible, a.forward.compatible]).toEqual([false, false]);
    expect(a.rollout.order).toBe('new-urn');
    // The evidence agrees: new data the old schema rejects.
    expect(a.forward.changes[0]!.witness).toEqual({ payload: { b: null }, validUnder: 'new' });
  });

  it('a backward verdict that rests on a policy choice: the sentence promises no more than the payload shown allows', () => {
    const a = assessChange(obj({}), obj({ extra: { type: 'string' } }));
    expect(a.backward.changes[0]).toMatchObject({
      rule: 'property-added',
      breaking: false,
      policyChoice: true,
      affected: { payload: { extra: null }, validUnder: 'old' },
    });
    expect(a.rollout.order).toBe('consumers-first');
    expect(a.rollout.sentence).toBe(rolloutOrder(true, false, { backward: true }).sentence);
    expect(a.rollout.sentence).toBe(
      `${rolloutOrder(true, false).sentence} Except old data a policy choice lets through, which the new schema rejects all the same.`,
    );
    expect(rolloutOrder(true, false).sentence).not.toMatch(/policy/);
    // Either order, by the confluent policy's choice (a required property with a default).
    const d = assessChange(
      obj({ a: { type: 'string', default: 'x' } }),
      obj({ a: { type: 'string', default: 'x' } }, { required: ['a'] }),
      { policy: 'confluent' },
    );
    expect(d.rollout.order).toBe('either');
    expect(d.rollout.sentence).toMatch(
      /^Deploy in either order: .*round\. Except old data a policy choice lets through, which the new schema rejects all the same\.$/,
    );
    // A choice in a direction the order does not rely on changes nothing.
    expect(rolloutOrder(false, true, { backward: true }).sentence).toBe(rolloutOrder(false, true).sentence);
    expect(rolloutOrder(false, false, { backward: true, forward: true }).sentence).toBe(rolloutOrder(false, false).sentence);
    expect(rolloutOrder(false, true, { forward: true }).sentence).toMatch(
      /^Deploy producers first: .* Except new data a policy choice lets through, which the old schema rejects all the same\.$/,
    );
  });

  it('the policy applies to both directions', () => {
    // An optional property added to an open model: bqschema breaks forward (a field old consumers
    // lack), Confluent backward (old data may carry the name with another type).
    const a = obj({});
    const b = obj({ extra: { type: 'string' } });
    expect(assessChange(a, b).rollout.order).toBe('consumers-first');
    const confluent = assessChange(a, b, { policy: 'confluent' });
    expect(confluent.rollout.order).toBe('producers-first');
    expect(confluent.backward.changes[0]!.witness).toEqual({ payload: { extra: null }, validUnder: 'old' });
  });
});
