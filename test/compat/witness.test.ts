import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSchemas, previewPayload, previewWitness, type Change, type ComparingLevel } from '../../src/compat/index.js';
import { compile } from '../../src/validator/index.js';
import { applyEdits, editsArb, rootArb } from '../helpers/compat-arbitraries.js';

const quiet = { onWarning: (): void => {} };
const valid = (schema: unknown, data: unknown): boolean => compile(schema, quiet).isValid(data);

/** Asserts a witness the way a reader would check it: valid under one schema, rejected by the other. */
function verifies(w: { payload: unknown; validUnder: 'old' | 'new' }, oldSchema: unknown, newSchema: unknown): boolean {
  const [yes, no] = w.validUnder === 'old' ? [oldSchema, newSchema] : [newSchema, oldSchema];
  return valid(yes, w.payload) && !valid(no, w.payload);
}

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'object',
  properties,
  ...extra,
});

function only(a: unknown, b: unknown, options: Parameters<typeof compareSchemas>[2] = {}): Change {
  const breaking = compareSchemas(a, b, options).changes.filter((c) => c.breaking);
  expect(breaking).toHaveLength(1);
  return breaking[0]!;
}

describe('witnesses, one rule at a time', () => {
  it('number → integer: a fraction at the property, inside the least object the root needs', () => {
    const a = obj({ id: { type: 'string' }, n: { type: 'number' } }, { required: ['id', 'n'] });
    const b = obj({ id: { type: 'string' }, n: { type: 'integer' } }, { required: ['id', 'n'] });
    const c = only(a, b);
    expect(c.witness).toEqual({ payload: { id: '', n: 0.5 }, validUnder: 'old' });
    expect(c.witnessReason).toBeUndefined();
  });

  it('required-added: the object without the property', () => {
    const c = only(obj({ a: { type: 'string' } }), obj({ a: { type: 'string' } }, { required: ['a'] }));
    expect(c.witness).toEqual({ payload: {}, validUnder: 'old' });
  });

  it('bounds: just past the new bound', () => {
    expect(only({ type: 'string', maxLength: 5 }, { type: 'string', maxLength: 3 }).witness?.payload).toBe('aaaa');
    expect(only({ type: 'string' }, { type: 'string', minLength: 2 }).witness?.payload).toBe('');
    expect(only({ type: 'integer', minimum: 0 }, { type: 'integer', minimum: 3 }).witness?.payload).toBe(0);
    expect(only({ type: 'number', minimum: 1 }, { type: 'integer', minimum: 1 }).witness?.payload).toBe(1.5);
  });

  it('enum and const: the value removed, the old constant', () => {
    expect(only({ enum: ['a', 'b', 'c'] }, { enum: ['a', 'c'] }).witness?.payload).toBe('b');
    expect(only({ const: 'x' }, { const: 'y' }).witness?.payload).toBe('x');
    expect(only({ type: 'string' }, { type: 'string', enum: ['x'] }).witness?.payload).toBe('');
  });

  it('a change deep in items and additionalProperties is wrapped up to the root', () => {
    const a = { type: 'array', items: obj({}, { additionalProperties: { type: ['string', 'null'] } }) };
    const b = { type: 'array', items: obj({}, { additionalProperties: { type: 'string' } }) };
    expect(only(a, b).witness).toEqual({ payload: [{ extra: null }], validUnder: 'old' });
  });

  it('the fresh name for additionalProperties avoids the declared ones', () => {
    const a = obj({ extra: { type: 'string' } });
    const b = obj({ extra: { type: 'string' } }, { additionalProperties: false });
    const c = only(a, b);
    expect(c.rule).toBe('additional-properties-closed');
    expect(c.witness?.payload).toEqual({ extra2: null });
  });

  it('forward: valid under the new schema, rejected by the old', () => {
    const c = only({ type: 'integer' }, { type: 'number' }, { level: 'forward' });
    expect(c.witness).toEqual({ payload: 0.5, validUnder: 'new' });
  });

  it('full: the witness of whichever direction breaks', () => {
    const changes = compareSchemas(obj({ a: { type: 'string' } }, { required: ['a'] }), obj({ a: { type: 'string', maxLength: 3 } }), {
      level: 'full',
    }).changes;
    const byRule = new Map(changes.map((c) => [c.rule, c]));
    expect(byRule.get('max-length-lowered')?.witness).toEqual({ payload: { a: 'aaaa' }, validUnder: 'old' });
    expect(byRule.get('required-removed')?.witness).toEqual({ payload: {}, validUnder: 'new' });
  });

  it('a payload of null is a witness, told apart from none by the wrapper', () => {
    const c = only({ type: ['string', 'null'] }, { type: 'string' });
    expect(c.witness).toEqual({ payload: null, validUnder: 'old' });
  });

  it('only breaking changes carry witness fields; witnesses: false leaves them out', () => {
    const a = obj({ a: { type: 'string' } });
    const b = obj({ a: { type: 'integer' }, z: {} });
    for (const c of compareSchemas(a, b).changes) {
      if (!c.breaking) expect(Object.keys(c).sort()).toEqual(['breaking', 'message', 'path', 'rule']);
    }
    for (const c of compareSchemas(a, b, { witnesses: false }).changes) {
      expect(Object.keys(c).sort()).toEqual(['breaking', 'message', 'path', 'rule']);
    }
  });

  it('the payload is a copy: it shares nothing with the schemas', () => {
    const a = { enum: [{ k: [1] }, { k: [2] }] };
    const b = { enum: [{ k: [1] }] };
    const c = only(a, b);
    expect(c.witness?.payload).toEqual({ k: [2] });
    expect(c.witness?.payload).not.toBe(a.enum[1]);
  });
});

describe('breaks by policy', () => {
  it('a property removed from an open model: no witness that way, the other way shown', () => {
    const c = only(obj({ a: {}, b: { type: 'string' } }), obj({ a: {} }));
    expect(c.rule).toBe('property-removed');
    expect(c.witness).toBeNull();
    expect(c.witnessReason).toBe('policy');
    // What an old consumer rejects: new data may carry anything under "b".
    expect(c.otherWitness).toEqual({ payload: { b: null }, validUnder: 'new' });
  });

  it('removed from an open model, its schema accepting anything: no witness either way', () => {
    const c = only(obj({ a: {}, b: {} }), obj({ a: {} }));
    expect(c).toMatchObject({ witness: null, witnessReason: 'policy' });
    expect(c.otherWitness).toBeUndefined();
  });

  it('removed from a closed model: a real break, with a witness', () => {
    const c = only(obj({ b: { type: 'string' } }, { additionalProperties: false }), obj({}, { additionalProperties: false }));
    expect(c.witness).toEqual({ payload: { b: '' }, validUnder: 'old' });
  });

  it('forward, a property added: the policy break the other way round', () => {
    const c = only(obj({}), obj({ b: { type: 'integer' } }), { level: 'forward' });
    expect(c.rule).toBe('property-added');
    expect(c).toMatchObject({ witness: null, witnessReason: 'policy', otherWitness: { payload: { b: null }, validUnder: 'old' } });
  });
});

describe('hostile property names', () => {
  const names = ['__proto__', 'constructor', '*/', '<script>', '"q"', 'back\\slash', 'line\u2028sep', '\u0001ctl', ''];
  for (const name of names) {
    it(`${JSON.stringify(name)} is an own property of the witness`, () => {
      const a = JSON.parse(
        `{"type":"object","required":[${JSON.stringify(name)}],"properties":{${JSON.stringify(name)}:{"type":["string","null"]}}}`,
      );
      const b = JSON.parse(
        `{"type":"object","required":[${JSON.stringify(name)}],"properties":{${JSON.stringify(name)}:{"type":"string"}}}`,
      );
      const c = only(a, b);
      const payload = c.witness?.payload as Record<string, unknown>;
      expect(Object.prototype.hasOwnProperty.call(payload, name)).toBe(true);
      expect(payload[name]).toBeNull();
      expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
      expect(verifies(c.witness!, a, b)).toBe(true);
      expect(JSON.parse(JSON.stringify(payload))).toEqual(payload);
    });
  }
});

describe('every witness verifies (fast-check)', () => {
  const RUNS = 5000;
  const MODES: ComparingLevel[] = ['backward', 'forward', 'full'];

  it(`over ${RUNS} generated pairs, each mode and policy`, () => {
    let breaking = 0;
    let witnessed = 0;
    let policy = 0;
    let notFound = 0;
    let affected = 0;
    const missed: string[] = [];
    fc.assert(
      fc.property(
        rootArb,
        editsArb,
        fc.constantFrom(...MODES),
        fc.constantFrom('bqschema' as const, 'confluent' as const),
        (a, edits, mode, pol) => {
          const b = applyEdits(a, edits);
          const result = compareSchemas(a, b, { level: mode, policy: pol });
          for (const c of result.changes) {
            if (!c.breaking) {
              expect(c.witness).toBeUndefined();
              // A policy choice's payload is real data it lets fail: valid under one schema, rejected by
              // the other (old data backward; forward, under confluent, new data).
              if (c.affected !== undefined) {
                affected++;
                expect(c.policyChoice).toBe(true);
                if (mode === 'backward' || pol === 'bqschema') expect(c.affected.validUnder).toBe('old');
                if (!verifies(c.affected, a, b))
                  throw new Error(`affected payload does not verify: ${JSON.stringify({ a, b, mode, pol, c })}`);
              }
              continue;
            }
            breaking++;
            if (c.witness) {
              witnessed++;
              const ok = verifies(c.witness, a, b);
              if (!ok) throw new Error(`witness does not verify: ${JSON.stringify({ a, b, mode, pol, c })}`);
              if (mode === 'backward') expect(c.witness.validUnder).toBe('old');
              if (mode === 'forward') expect(c.witness.validUnder).toBe('new');
              expect(JSON.parse(JSON.stringify(c.witness.payload))).toEqual(c.witness.payload);
            } else if (c.witnessReason === 'policy') {
              policy++;
              expect(c.witness).toBeNull();
              // Only the property rules are policy; every other break is about data.
              expect(['property-removed', 'property-added']).toContain(c.rule);
              if (c.otherWitness && !verifies(c.otherWitness, a, b)) {
                throw new Error(`other witness does not verify: ${JSON.stringify({ a, b, mode, pol, c })}`);
              }
            } else {
              expect(c).toMatchObject({ witness: null, witnessReason: 'not-found' });
              notFound++;
              if (missed.length < 5) missed.push(JSON.stringify({ a, b, mode, pol, rule: c.rule, path: c.path }));
            }
          }
        },
      ),
      { numRuns: RUNS, seed: 20261201 },
    );
    console.log(
      `witness property: ${breaking} breaking changes, ${witnessed} witnessed, ${policy} by policy, ${notFound} not found, ${affected} policy choices with their payload`,
    );
    if (notFound > 0) console.log(`examples not found:\n${missed.join('\n')}`);
    // Not vacuous, and a witness not found is rare (each is a false alarm of the rules, or a search miss).
    expect(breaking).toBeGreaterThan(RUNS * 0.3);
    expect(witnessed).toBeGreaterThan(breaking * 0.8);
    expect(policy).toBeGreaterThan(0);
    expect(affected).toBeGreaterThan(0);
    expect(notFound, missed.join('\n')).toBeLessThan(breaking * 0.02);
  });
});

describe('previewPayload', () => {
  it('one line of JSON, cut with an ellipsis', () => {
    expect(previewPayload({ a: 'x\ny' })).toBe('{"a":"x\\ny"}');
    expect(previewPayload('\u2028\u2029')).toBe('"\\u2028\\u2029"');
    expect(previewPayload(null)).toBe('null');
    const long = previewPayload({ s: 'a'.repeat(500) }, 40);
    expect(long).toHaveLength(40);
    expect(long.endsWith('…')).toBe(true);
    expect(previewPayload('a'.repeat(10), 12)).toBe('"aaaaaaaaaa"');
  });

  it('never splits a surrogate pair', () => {
    const p = previewPayload('😀😀😀😀😀😀', 5); // 4 code units kept would end inside the second pair
    expect(p).toBe('"😀…');
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(p)).toBe(false);
  });
});

describe('every rule that can break has a witness (or is a break by policy)', () => {
  const o = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
  // [rule, old, new, mode]: the rule breaks in that mode.
  const CASES: Array<[string, unknown, unknown, ComparingLevel]> = [
    ['schema-became-false', o({ a: {} }), o({ a: false }), 'backward'],
    ['schema-no-longer-false', o({ a: false }), o({ a: {} }), 'forward'],
    ['type-narrowed', { type: ['string', 'integer'] }, { type: 'string' }, 'backward'],
    ['type-widened', { type: 'string' }, { type: ['string', 'integer'] }, 'forward'],
    ['required-added', o({ a: {} }), o({ a: {} }, { required: ['a'] }), 'backward'],
    ['required-removed', o({ a: {} }, { required: ['a'] }), o({ a: {} }), 'forward'],
    ['property-removed', o({ a: { type: 'string' } }, { additionalProperties: false }), o({}, { additionalProperties: false }), 'backward'],
    ['property-added', o({}, { additionalProperties: false }), o({ a: { type: 'string' } }, { additionalProperties: false }), 'forward'],
    ['additional-properties-closed', o({}), o({}, { additionalProperties: false }), 'backward'],
    ['additional-properties-opened', o({}, { additionalProperties: false }), o({}), 'forward'],
    ['enum-added', { type: 'string' }, { type: 'string', enum: ['a'] }, 'backward'],
    ['enum-removed', { type: 'string', enum: ['a'] }, { type: 'string' }, 'forward'],
    ['enum-value-removed', { enum: ['a', 'b'] }, { enum: ['a'] }, 'backward'],
    ['enum-value-added', { enum: ['a'] }, { enum: ['a', 'b'] }, 'forward'],
    ['const-added', { type: 'integer' }, { type: 'integer', const: 3 }, 'backward'],
    ['const-removed', { type: 'integer', const: 3 }, { type: 'integer' }, 'forward'],
    ['const-changed', { const: 3 }, { const: 4 }, 'backward'],
    ['const-changed', { const: 3 }, { const: 4 }, 'forward'],
    ['min-length-raised', { type: 'string', minLength: 1 }, { type: 'string', minLength: 3 }, 'backward'],
    ['min-length-lowered', { type: 'string', minLength: 3 }, { type: 'string', minLength: 1 }, 'forward'],
    ['max-length-lowered', { type: 'string', maxLength: 3 }, { type: 'string', maxLength: 1 }, 'backward'],
    ['max-length-raised', { type: 'string', maxLength: 1 }, { type: 'string' }, 'forward'],
    ['minimum-raised', { type: 'number', minimum: 0.5 }, { type: 'number', minimum: 0.75 }, 'backward'],
    ['minimum-lowered', { type: 'integer', minimum: 5 }, { type: 'integer', minimum: -5 }, 'forward'],
  ];
  for (const [rule, a, b, mode] of CASES) {
    it(`${rule} (${mode})`, () => {
      const c = only(a, b, { level: mode });
      expect(c.rule).toBe(rule);
      expect(c.witness, JSON.stringify(c)).not.toBeNull();
      expect(verifies(c.witness!, a, b)).toBe(true);
      expect(c.witness!.validUnder).toBe(mode === 'backward' ? 'old' : 'new');
    });
  }
});

describe('liveness: a change below a node that accepts nothing breaks nothing', () => {
  it('a property of an object no value satisfies (a required name that only false admits)', () => {
    const a = { type: 'object', required: ['x'], properties: { x: false, n: { type: 'number' } } };
    const b = { type: 'object', required: ['x'], properties: { x: false, n: { type: 'integer' } } };
    expect(compareSchemas(a, b).compatible).toBe(true);
  });

  it('a string node whose minLength exceeds its maxLength', () => {
    expect(
      compareSchemas({ type: 'string', minLength: 3, maxLength: 1 }, { type: 'string', minLength: 3, maxLength: 1, enum: ['a'] })
        .compatible,
    ).toBe(true);
  });

  it('null or booleans only: judged by those values', () => {
    expect(compareSchemas({ type: 'null' }, { type: 'null', const: null }).compatible).toBe(true);
    const c = only({ type: 'boolean' }, { type: 'boolean', enum: [true] });
    expect(c.witness?.payload).toBe(false);
  });
});

describe('previewWitness: the part that breaks is shown, the rest elided', () => {
  const names = ['rider_id', 'email', 'phone', 'name', 'city', 'country', 'signup_ip', 'device', 'locale', 'referrer'];
  const props = Object.fromEntries(names.map((k) => [k, { type: 'string', minLength: 4 }]));
  const old = {
    type: 'object',
    properties: { ...props, marketing_opt_in: { type: 'boolean' } },
    required: names,
    additionalProperties: false,
  };
  const now = { type: 'object', properties: props, required: names, additionalProperties: false };

  it("the issue's case: a removed marketing_opt_in at the end of a long witness", () => {
    const c = compareSchemas(old, now, { level: 'backward' }).changes.find((x) => x.rule === 'property-removed')!;
    const w = c.witness!;
    expect(JSON.stringify(w.payload).length).toBeGreaterThan(80);
    expect(previewPayload(w.payload)).not.toContain('marketing_opt_in'); // what it used to show
    expect(previewWitness(w.payload, c.path, c.subject)).toBe(
      `{…,"marketing_opt_in":${JSON.stringify((w.payload as Record<string, unknown>).marketing_opt_in)}}`,
    );
  });

  it('follows properties, items and additionalProperties; a missing required key shows its object', () => {
    const long = 'x'.repeat(90);
    const payload = { a: long, lines: [{ b: long, sku: 'z' }, { sku: 'y' }], extra: { k: { deep: 1, other: long } } };
    expect(previewWitness(payload, '/properties/lines/items/properties/sku/minLength')).toBe('{…,"lines":[{…,"sku":"z"},…],…}');
    expect(previewWitness(payload, '/properties/extra/additionalProperties/properties/deep/minimum')).toBe(
      '{…,"extra":{"k":{"deep":1,…}}}',
    );
    expect(previewWitness(payload, '/properties/lines/items/required', 'id')).toBe('{…,"lines":[{…},…],…}');
    // A payload that fits is shown whole; a long value at the place is itself previewed.
    expect(previewWitness({ a: 1 }, '/properties/a/minimum')).toBe('{"a":1}');
    expect(previewWitness(payload, '/properties/a/minLength')).toBe(`{"a":${previewPayload(long)},…}`);
  });

  it('a raised minLength in a wide object previews that field', () => {
    const c = compareSchemas(
      old,
      { ...now, properties: { ...props, email: { type: 'string', minLength: 9 } }, additionalProperties: false },
      { level: 'backward' },
    ).changes.find((x) => x.rule === 'min-length-raised')!;
    expect(previewWitness(c.witness!.payload, c.path, c.subject)).toMatch(/"email":"/);
  });
});
