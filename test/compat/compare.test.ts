import { describe, expect, it } from 'vitest';
import { RULES, compareSchemas, type Change, type ComparingLevel } from '../../src/compat/index.js';
import { SchemaError, compile } from '../../src/validator/index.js';

const MODES: ComparingLevel[] = ['backward', 'forward', 'full'];

/** The changes reduced to what a verdict is made of. */
const shape = (changes: Change[]): Array<Pick<Change, 'rule' | 'breaking' | 'path'>> =>
  changes.map(({ rule, breaking, path }) => ({ rule, breaking, path }));

interface RuleCase {
  name: string;
  /** `old → new` is the narrowing edit: breaking backward; `new → old` is its relaxation. */
  old: unknown;
  new: unknown;
  rule: string;
  reverse: string;
  path: string;
  /** Substrings the narrowing's message must contain (what changed, old → new). */
  says?: string[];
}

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'object',
  properties,
  ...extra,
});

const CASES: RuleCase[] = [
  {
    name: 'a property schema becomes false',
    rule: 'schema-became-false',
    reverse: 'schema-no-longer-false',
    old: obj({ a: { type: 'string' } }),
    new: obj({ a: false }),
    path: '/properties/a',
  },
  { name: 'the root becomes false', rule: 'schema-became-false', reverse: 'schema-no-longer-false', old: true, new: false, path: '' },
  { name: '{} becomes false', rule: 'schema-became-false', reverse: 'schema-no-longer-false', old: {}, new: false, path: '' },
  {
    name: 'items becomes false',
    rule: 'schema-became-false',
    reverse: 'schema-no-longer-false',
    old: { type: 'array', items: true },
    new: { type: 'array', items: false },
    path: '/items',
  },
  {
    name: 'number → integer',
    rule: 'type-narrowed',
    reverse: 'type-widened',
    old: obj({ n: { type: 'number' } }),
    new: obj({ n: { type: 'integer' } }),
    path: '/properties/n/type',
    says: ['"number"', '"integer"', 'non-integer numbers'],
  },
  {
    name: 'a type removed from a union',
    rule: 'type-narrowed',
    reverse: 'type-widened',
    old: { type: ['string', 'null'] },
    new: { type: 'string' },
    path: '/type',
    says: ['["string","null"]', '"string"', 'null'],
  },
  {
    name: 'type added where there was none',
    rule: 'type-narrowed',
    reverse: 'type-widened',
    old: obj({ v: {} }),
    new: obj({ v: { type: 'string' } }),
    path: '/properties/v/type',
    says: ['any type', '"string"'],
  },
  {
    name: 'an existing property becomes required',
    rule: 'required-added',
    reverse: 'required-removed',
    old: obj({ a: {} }),
    new: obj({ a: {} }, { required: ['a'] }),
    path: '/required',
    says: ['"a"'],
  },
  {
    name: 'a property with an empty schema removed from an open schema',
    rule: 'property-removed',
    reverse: 'property-added',
    old: obj({ a: {}, b: {} }),
    new: obj({ a: {} }),
    path: '/properties/b',
    says: ['"b"'],
  },
  {
    name: 'a property removed from a closed schema',
    rule: 'property-removed',
    reverse: 'property-added',
    old: obj({ a: {}, b: {} }, { additionalProperties: false }),
    new: obj({ a: {} }, { additionalProperties: false }),
    path: '/properties/b',
  },
  {
    name: 'additionalProperties absent → false',
    rule: 'additional-properties-closed',
    reverse: 'additional-properties-opened',
    old: obj({ a: {} }),
    new: obj({ a: {} }, { additionalProperties: false }),
    path: '/additionalProperties',
    says: ['absent', 'false'],
  },
  {
    name: 'additionalProperties true → false',
    rule: 'additional-properties-closed',
    reverse: 'additional-properties-opened',
    old: obj({}, { additionalProperties: true }),
    new: obj({}, { additionalProperties: false }),
    path: '/additionalProperties',
  },
  {
    name: 'additionalProperties schema → false',
    rule: 'additional-properties-closed',
    reverse: 'additional-properties-opened',
    old: obj({}, { additionalProperties: { type: 'string' } }),
    new: obj({}, { additionalProperties: false }),
    path: '/additionalProperties',
    says: ['{"type":"string"}'],
  },
  {
    name: 'additionalProperties open → a schema (a narrowing from any)',
    rule: 'type-narrowed',
    reverse: 'type-widened',
    old: obj({}),
    new: obj({}, { additionalProperties: { type: 'string' } }),
    path: '/additionalProperties/type',
  },
  {
    name: 'additionalProperties schema → stricter schema',
    rule: 'minimum-raised',
    reverse: 'minimum-lowered',
    old: obj({}, { additionalProperties: { minimum: 0 } }),
    new: obj({}, { additionalProperties: { minimum: 1 } }),
    path: '/additionalProperties/minimum',
  },
  {
    name: 'enum added where absent',
    rule: 'enum-added',
    reverse: 'enum-removed',
    old: { type: 'string' },
    new: { type: 'string', enum: ['a', 'b'] },
    path: '/enum',
    says: ['["a","b"]'],
  },
  {
    name: 'an enum value removed',
    rule: 'enum-value-removed',
    reverse: 'enum-value-added',
    old: { enum: ['a', 'b', 3] },
    new: { enum: ['a', 'b'] },
    path: '/enum',
    says: ['3'],
  },
  { name: 'const added', rule: 'const-added', reverse: 'const-removed', old: {}, new: { const: 'x' }, path: '/const', says: ['"x"'] },
  {
    name: 'minLength raised',
    rule: 'min-length-raised',
    reverse: 'min-length-lowered',
    old: { type: 'string', minLength: 1 },
    new: { type: 'string', minLength: 2 },
    path: '/minLength',
    says: ['1', '2'],
  },
  {
    name: 'minLength added',
    rule: 'min-length-raised',
    reverse: 'min-length-lowered',
    old: { type: 'string' },
    new: { type: 'string', minLength: 2 },
    path: '/minLength',
    says: ['2', 'added'],
  },
  {
    name: 'maxLength lowered',
    rule: 'max-length-lowered',
    reverse: 'max-length-raised',
    old: { type: 'string', maxLength: 5 },
    new: { type: 'string', maxLength: 3 },
    path: '/maxLength',
    says: ['5', '3'],
  },
  {
    name: 'maxLength added',
    rule: 'max-length-lowered',
    reverse: 'max-length-raised',
    old: obj({ s: { type: 'string' } }),
    new: obj({ s: { type: 'string', maxLength: 0 } }),
    path: '/properties/s/maxLength',
  },
  {
    name: 'minimum raised',
    rule: 'minimum-raised',
    reverse: 'minimum-lowered',
    old: { type: 'number', minimum: 0 },
    new: { type: 'number', minimum: 0.5 },
    path: '/minimum',
    says: ['0', '0.5'],
  },
  {
    name: 'minimum added',
    rule: 'minimum-raised',
    reverse: 'minimum-lowered',
    old: obj({ amount: { type: 'number' } }),
    new: obj({ amount: { type: 'number', minimum: 0 } }),
    path: '/properties/amount/minimum',
  },
  {
    name: 'items added where absent (a narrowing from any)',
    rule: 'type-narrowed',
    reverse: 'type-widened',
    old: { type: 'array' },
    new: { type: 'array', items: { type: 'string' } },
    path: '/items/type',
  },
  {
    name: 'items compared recursively',
    rule: 'max-length-lowered',
    reverse: 'max-length-raised',
    old: { type: 'array', items: { type: 'string', maxLength: 9 } },
    new: { type: 'array', items: { type: 'string', maxLength: 8 } },
    path: '/items/maxLength',
  },
];

const ruleById = new Map(RULES.map((r) => [r.id, r]));

/** Asserts the single change `rule` at `path`, and which modes it breaks in. */
function expectVerdicts(a: unknown, b: unknown, rule: string, path: string, breaks: Record<ComparingLevel, boolean>): Change[] {
  for (const mode of MODES) {
    const r = compareSchemas(a, b, { level: mode });
    expect(shape(r.changes), mode).toEqual([{ rule, breaking: breaks[mode], path }]);
    expect(r.compatible, mode).toBe(!breaks[mode]);
  }
  return compareSchemas(a, b).changes; // backward is the default
}

describe('each rule, both directions, every mode', () => {
  for (const c of CASES) {
    describe(c.name, () => {
      it(`${c.rule}: breaking backward and full, compatible forward`, () => {
        const changes = expectVerdicts(c.old, c.new, c.rule, c.path, { backward: true, forward: false, full: true });
        for (const s of c.says ?? []) expect(changes[0]!.message).toContain(s);
      });

      it(`${c.reverse}: the relaxation is compatible backward, breaking forward and full`, () => {
        expectVerdicts(c.new, c.old, c.reverse, c.path, { backward: false, forward: true, full: true });
      });

      it('RULES documents both ids with the verdicts observed', () => {
        // property-removed breaks forward too, from an open model that constrained it (below).
        expect(ruleById.get(c.rule)?.breaks).toBe(c.rule === 'property-removed' ? 'both' : 'backward');
        expect(ruleById.get(c.reverse)?.breaks).toBe('forward');
      });
    });
  }
});

describe('a constrained property removed from an open schema', () => {
  const old = obj({ a: {}, b: { type: 'integer', minimum: 3 } });
  const neu = obj({ a: {} });
  const valid = (schema: unknown, v: unknown): boolean => compile(schema, { onWarning: () => {} }).isValid(v);

  it('breaks forward by data: new producers may send under "b" a value old consumers reject, shown by a witness', () => {
    const r = compareSchemas(old, neu, { level: 'forward' });
    expect(shape(r.changes)).toEqual([{ rule: 'property-removed', breaking: true, path: '/properties/b' }]);
    const c = r.changes[0]!;
    expect(c.message).toBe(
      'property "b" removed from an open model: new producers may send any value under it, and the old schema rejects some',
    );
    expect(c.witness?.validUnder).toBe('new');
    expect(valid(neu, c.witness!.payload)).toBe(true);
    expect(valid(old, c.witness!.payload)).toBe(false);
  });

  it('breaks backward by policy, and full shows the data witness rather than the policy', () => {
    const back = compareSchemas(old, neu).changes[0]!;
    expect(back).toMatchObject({ rule: 'property-removed', breaking: true, witness: null, witnessReason: 'policy' });
    const full = compareSchemas(old, neu, { level: 'full' });
    expect(shape(full.changes)).toEqual([{ rule: 'property-removed', breaking: true, path: '/properties/b' }]);
    expect(full.changes[0]!.witness?.validUnder).toBe('new');
  });

  it('any constraint counts, nested ones too; an empty schema, true, or one already covered by additionalProperties does not', () => {
    const forward = (b: unknown, extra: Record<string, unknown> = {}) =>
      compareSchemas(obj({ b }, extra), obj({}, extra), { level: 'forward' }).compatible;
    for (const b of [
      { type: 'string' },
      { enum: [1] },
      { const: 'x' },
      { minLength: 2 },
      { maxLength: 0 },
      { minimum: 0 },
      false,
      { type: 'object', required: ['x'] },
      { properties: { x: { type: 'string' } } },
      { additionalProperties: false },
      { items: { type: 'string' } },
    ]) {
      expect(forward(b), JSON.stringify(b)).toBe(false);
    }
    for (const b of [{}, true, { description: 'any' }, { pattern: '^a' }, { minLength: 0 }])
      expect(forward(b), JSON.stringify(b)).toBe(true);
    // A closed model: new producers cannot send "b" at all.
    expect(forward({ type: 'string' }, { additionalProperties: false })).toBe(true);
  });

  it('adding it back (backward) is compatible by the bqschema policy, which the change names with the payload it affects', () => {
    const c = compareSchemas(neu, old).changes.find((x) => x.rule === 'property-added')!;
    expect(c.breaking).toBe(false);
    expect(c.policyChoice).toBe(true);
    expect(c.message).toBe('property "b" added (a policy choice: data may already carry "b" with a value the new schema rejects)');
    expect(c.affected?.validUnder).toBe('old');
    expect(valid(neu, c.affected!.payload)).toBe(true);
    expect(valid(old, c.affected!.payload)).toBe(false);
    // An empty schema rejects nothing: no choice to name.
    const empty = compareSchemas(neu, obj({ a: {}, b: {} })).changes.find((x) => x.rule === 'property-added')!;
    expect(empty.policyChoice).toBeUndefined();
    expect(empty.affected).toBeUndefined();
  });
});

describe('const changed', () => {
  it('breaks in every mode, both ways', () => {
    for (const [a, b] of [
      [{ const: 1 }, { const: 2 }],
      [{ const: 2 }, { const: 1 }],
    ]) {
      expectVerdicts(a, b, 'const-changed', '/const', { backward: true, forward: true, full: true });
    }
    expect(compareSchemas({ const: 1 }, { const: 2 }).changes[0]!.message).toBe('const changed from 1 to 2');
    expect(ruleById.get('const-changed')?.breaks).toBe('both');
  });

  it('is harmless when the old const was never valid', () => {
    const r = compareSchemas({ type: 'string', const: 1 }, { type: 'string', const: 2 });
    expect(shape(r.changes)).toEqual([{ rule: 'const-changed', breaking: false, path: '/const' }]);
  });
});

describe('type as a set', () => {
  it('integer and number listed together equal number', () => {
    expect(compareSchemas({ type: ['number', 'integer'] }, { type: 'number' }).changes).toEqual([]);
    expect(compareSchemas({ type: 'number' }, { type: ['integer', 'number'] }, { level: 'full' }).changes).toEqual([]);
  });

  it('order and repetition do not matter', () => {
    expect(compareSchemas({ type: ['string', 'null'] }, { type: ['null', 'string', 'null'] }, { level: 'full' }).changes).toEqual([]);
  });

  it('one edit that removes one type and adds another is narrowed and widened', () => {
    const old = { type: ['string', 'null'] };
    const neu = { type: ['string', 'integer'] };
    expect(shape(compareSchemas(old, neu).changes)).toEqual([
      { rule: 'type-narrowed', breaking: true, path: '/type' },
      { rule: 'type-widened', breaking: false, path: '/type' },
    ]);
    expect(shape(compareSchemas(old, neu, { level: 'forward' }).changes)).toEqual([
      { rule: 'type-narrowed', breaking: false, path: '/type' },
      { rule: 'type-widened', breaking: true, path: '/type' },
    ]);
    expect(shape(compareSchemas(old, neu, { level: 'full' }).changes)).toEqual([
      { rule: 'type-narrowed', breaking: true, path: '/type' },
      { rule: 'type-widened', breaking: true, path: '/type' },
    ]);
  });

  it('adding a type to a union is compatible', () => {
    const r = compareSchemas({ type: 'string' }, { type: ['string', 'null'] });
    expect(r.compatible).toBe(true);
    expect(r.changes[0]!.message).toBe('type widened from "string" to ["string","null"]: now accepts null');
  });
});

describe('properties and the registry policy', () => {
  it('adding an optional property is compatible, on an open schema too', () => {
    for (const extra of [{}, { additionalProperties: true }, { additionalProperties: false }]) {
      const r = compareSchemas(obj({ a: {} }, extra), obj({ a: {}, b: { type: 'integer' } }, extra));
      expect(shape(r.changes)).toEqual([{ rule: 'property-added', breaking: false, path: '/properties/b' }]);
    }
  });

  it('adding a required property is breaking (required-added), the property itself is not', () => {
    const r = compareSchemas(obj({ a: {} }), obj({ a: {}, b: {} }, { required: ['b'] }));
    expect(shape(r.changes)).toEqual([
      { rule: 'property-added', breaking: false, path: '/properties/b' },
      { rule: 'required-added', breaking: true, path: '/required' },
    ]);
  });

  it('renaming is a removal and an addition', () => {
    const r = compareSchemas(obj({ amount: { type: 'number' } }), obj({ total: { type: 'number' } }));
    expect(shape(r.changes)).toEqual([
      { rule: 'property-removed', breaking: true, path: '/properties/amount' },
      { rule: 'property-added', breaking: false, path: '/properties/total' },
    ]);
  });

  it('a property added where additionalProperties was a schema is compared against it', () => {
    const old = obj({}, { additionalProperties: { type: 'number' } });
    const narrower = compareSchemas(old, obj({ x: { type: 'integer' } }, { additionalProperties: { type: 'number' } }));
    expect(shape(narrower.changes)).toEqual([
      { rule: 'property-added', breaking: false, path: '/properties/x' },
      { rule: 'type-narrowed', breaking: true, path: '/properties/x/type' },
    ]);
    const wider = compareSchemas(obj({}, { additionalProperties: { type: 'integer' } }), obj({ x: { type: 'number' } }));
    expect(wider.compatible).toBe(true);
    expect(shape(wider.changes)).toContainEqual({ rule: 'type-widened', breaking: false, path: '/properties/x/type' });
  });

  it('a property added as false on an open schema is a prohibition, not a field', () => {
    const r = compareSchemas(obj({ a: {} }), obj({ a: {}, b: false }));
    expect(shape(r.changes)).toEqual([
      { rule: 'schema-became-false', breaking: true, path: '/properties/b' },
      { rule: 'property-added', breaking: false, path: '/properties/b' },
    ]);
    expect(
      compareSchemas(obj({ a: {} }, { additionalProperties: false }), obj({ a: {}, b: false }, { additionalProperties: false })).compatible,
    ).toBe(true);
  });

  it('a property added where additionalProperties was false cannot clash with old data', () => {
    const r = compareSchemas(
      obj({}, { additionalProperties: false }),
      obj({ x: { type: 'string', minLength: 3 } }, { additionalProperties: false }),
    );
    expect(r.compatible).toBe(true);
  });

  it('properties are looked up as own properties', () => {
    const old = JSON.parse('{"properties":{"__proto__":{"type":"string"},"constructor":{"type":"string"}}}');
    const r = compareSchemas(old, { properties: {} });
    expect(shape(r.changes)).toEqual([
      { rule: 'property-removed', breaking: true, path: '/properties/__proto__' },
      { rule: 'property-removed', breaking: true, path: '/properties/constructor' },
    ]);
    expect(compareSchemas(obj({}), obj({ toString: {} })).compatible).toBe(true);
  });
});

describe('annotations never produce a change', () => {
  const base = obj({ email: { type: 'string', maxLength: 200 } }, { required: ['email'] });
  const annotated = {
    ...obj(
      {
        email: {
          type: 'string',
          maxLength: 200,
          'x-gdpr-sensitive': 'email',
          title: 'E-mail',
          description: 'contact',
          examples: ['a@b.c'],
          default: '',
          $comment: 'pii',
          'x-owner': 'crm',
        },
      },
      { required: ['email'] },
    ),
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'urn:x',
    title: 'Order',
    'x-gdpr-sensitive': true,
  };
  for (const mode of MODES) {
    it(`adding and removing them (${mode})`, () => {
      expect(compareSchemas(base, annotated, { level: mode })).toEqual({ compatible: true, changes: [] });
      expect(compareSchemas(annotated, base, { level: mode })).toEqual({ compatible: true, changes: [] });
    });
  }
});

describe('unsupported keywords', () => {
  const old = obj({ a: { type: 'string', pattern: '^a', maximum: 5 } });
  const neu = obj({ a: { type: 'string', pattern: '^b', format: 'email' } });
  for (const mode of MODES) {
    it(`a change is a non-breaking notice (${mode})`, () => {
      const r = compareSchemas(old, neu, { level: mode });
      expect(r.compatible).toBe(true);
      expect(shape(r.changes)).toEqual([
        { rule: 'unsupported-keyword-changed', breaking: false, path: '/properties/a/format' },
        { rule: 'unsupported-keyword-changed', breaking: false, path: '/properties/a/maximum' },
        { rule: 'unsupported-keyword-changed', breaking: false, path: '/properties/a/pattern' },
      ]);
      for (const c of r.changes) expect(c.message).toContain('not checked');
    });
  }

  it('messages name the keyword and its values', () => {
    const messages = compareSchemas(old, neu).changes.map((c) => c.message);
    expect(messages).toEqual([
      'unsupported keyword "format" added ("email"): not checked',
      'unsupported keyword "maximum" removed (was 5): not checked',
      'unsupported keyword "pattern" changed from "^a" to "^b": not checked',
    ]);
  });

  it('an unchanged unsupported keyword is silent', () => {
    expect(compareSchemas({ pattern: '^a' }, { pattern: '^a', title: 't' }).changes).toEqual([]);
  });

  it('the tuple form of items is unsupported: a notice, and the items it replaces are compared as absent', () => {
    const r = compareSchemas({ type: 'array', items: [{ type: 'string' }] }, { type: 'array', items: [{ type: 'integer' }] });
    expect(shape(r.changes)).toEqual([{ rule: 'unsupported-keyword-changed', breaking: false, path: '/items' }]);
  });

  it('RULES lists it as never breaking', () => {
    expect(ruleById.get('unsupported-keyword-changed')?.breaks).toBe('never');
  });
});

describe('bounds are normalised as the validator applies them', () => {
  const same: Array<[string, unknown, unknown]> = [
    ['minLength 2 → 2.7 (truncated)', { minLength: 2 }, { minLength: 2.7 }],
    ['maxLength 3 → 3.9', { maxLength: 3 }, { maxLength: 3.9 }],
    ['maxLength -0.5 → 0', { maxLength: -0.5 }, { maxLength: 0 }],
    ['minLength absent → 0', {}, { minLength: 0 }],
    ['minLength absent → -3 (no effect)', {}, { minLength: -3 }],
    ['minLength absent → Infinity (ignored)', {}, { minLength: Infinity }],
    ['maxLength absent → NaN (ignored)', {}, { maxLength: NaN }],
    ['minimum absent → -Infinity (ignored)', {}, { minimum: -Infinity }],
  ];
  for (const [name, a, b] of same) {
    it(`${name}: no change`, () => {
      expect(compareSchemas(a, b, { level: 'full' }).changes).toEqual([]);
    });
  }

  it('minLength 2.7 → 3 is a raise from the applied 2', () => {
    const r = compareSchemas({ type: 'string', minLength: 2.7 }, { type: 'string', minLength: 3 });
    expect(shape(r.changes)).toEqual([{ rule: 'min-length-raised', breaking: true, path: '/minLength' }]);
    expect(r.changes[0]!.message).toBe('minLength raised from 2 to 3');
  });
});

describe('enum and const use numeric equality', () => {
  it('1 and 1.0 are one value', () => {
    const old = JSON.parse('{"enum":[1,2.5,[1]],"const":1}');
    const neu = JSON.parse('{"enum":[1.0,2.50,[1.0]],"const":1.0}');
    expect(compareSchemas(old, neu, { level: 'full' }).changes).toEqual([]);
  });

  it('-0 equals 0 and object key order is irrelevant', () => {
    const r = compareSchemas({ enum: [-0, { a: 1, b: [2] }], const: -0 }, { enum: [0, { b: [2], a: 1 }], const: 0 }, { level: 'full' });
    expect(r.changes).toEqual([]);
  });

  it('a repeated enum value is one value', () => {
    expect(compareSchemas({ enum: ['a', 'a', 'b'] }, { enum: ['b', 'a'] }, { level: 'full' }).changes).toEqual([]);
  });

  it('but "1" is not 1 and true is not 1', () => {
    const r = compareSchemas({ enum: [1, true] }, { enum: ['1', 1] });
    expect(shape(r.changes)).toEqual([
      { rule: 'enum-value-removed', breaking: true, path: '/enum' },
      { rule: 'enum-value-added', breaking: false, path: '/enum' },
    ]);
  });
});

describe('keywords only constrain the values they apply to', () => {
  it('minLength where only integers are valid changes nothing a valid value hits', () => {
    const r = compareSchemas({ type: 'integer' }, { type: 'integer', minLength: 3 });
    expect(r.compatible).toBe(true);
    expect(shape(r.changes)).toEqual([{ rule: 'min-length-raised', breaking: false, path: '/minLength' }]);
    expect(r.changes[0]!.message).toContain('no value valid under the old schema is affected');
  });

  it('minimum where only strings are valid, properties where no object is valid', () => {
    expect(compareSchemas({ type: 'string' }, { type: 'string', minimum: 3 }).compatible).toBe(true);
    const r = compareSchemas(
      { type: 'string', properties: { a: { type: 'string' } } },
      { type: 'string', properties: { a: { type: 'integer' } }, required: ['a'] },
    );
    expect(r.compatible).toBe(true);
  });

  it('but a union that admits strings is constrained', () => {
    expect(compareSchemas({ type: ['integer', 'string'] }, { type: ['integer', 'string'], minLength: 3 }).compatible).toBe(false);
  });

  it('a raised minimum between two integers does not affect integers', () => {
    expect(compareSchemas({ type: 'integer', minimum: 0.5 }, { type: 'integer', minimum: 1 }).compatible).toBe(true);
    expect(compareSchemas({ type: 'integer', minimum: 0.5 }, { type: 'integer', minimum: 1.5 }).compatible).toBe(false);
    expect(compareSchemas({ type: 'number', minimum: 0.5 }, { type: 'number', minimum: 1 }).compatible).toBe(false);
  });

  it('an enum is checked value by value', () => {
    const old = { type: 'string', enum: ['abc', 'abcd'] };
    expect(compareSchemas(old, { ...old, minLength: 3, maxLength: 4 }).compatible).toBe(true);
    expect(compareSchemas(old, { ...old, minLength: 4 }).compatible).toBe(false);
    expect(compareSchemas({ enum: ['a', 'b'] }, { enum: ['a', 'b'], type: 'string' }).compatible).toBe(true);
    expect(compareSchemas({ const: 3 }, { type: 'integer', minimum: 2, enum: [3, 4] }).compatible).toBe(true);
  });

  it('every kind in a mixed enum counts', () => {
    expect(compareSchemas({ enum: [1, 'abc'] }, { enum: [1, 'abc'], maxLength: 2 }).compatible).toBe(false);
    expect(compareSchemas({ enum: [1, 'ab'] }, { enum: [1, 'ab'], maxLength: 2 }).compatible).toBe(true);
  });

  it('removing an enum value the old schema never accepted is harmless', () => {
    const r = compareSchemas({ type: 'string', enum: ['a', 1] }, { type: 'string', enum: ['a'] });
    expect(shape(r.changes)).toEqual([{ rule: 'enum-value-removed', breaking: false, path: '/enum' }]);
  });

  it('a schema that accepts nothing can become false', () => {
    expect(compareSchemas({ enum: [] }, false).compatible).toBe(true);
    expect(compareSchemas({ type: 'string', const: 1 }, false).compatible).toBe(true);
  });
});

describe('malformed supported keywords have no effect, as in the validator', () => {
  it('changes between malformed values are not changes', () => {
    expect(compareSchemas({ minLength: '3', required: 'a', enum: 'x' }, { minLength: '5', required: 'b', enum: 'y' }).changes).toEqual([]);
    expect(compareSchemas({ type: 'strng' }, { type: 42 }).changes).toEqual([]);
  });

  it('fixing a malformed keyword is adding it', () => {
    expect(shape(compareSchemas({ type: 'strng' }, { type: 'string' }).changes)).toEqual([
      { rule: 'type-narrowed', breaking: true, path: '/type' },
    ]);
    expect(shape(compareSchemas({ required: 'a' }, { required: ['a'] }).changes)).toEqual([
      { rule: 'required-added', breaking: true, path: '/required' },
    ]);
  });

  it('a malformed property schema is not a declared property', () => {
    const r = compareSchemas({ properties: { a: 5 }, additionalProperties: false }, { properties: { a: {} }, additionalProperties: false });
    expect(shape(r.changes)).toEqual([{ rule: 'property-added', breaking: false, path: '/properties/a' }]);
  });
});

describe('paths are RFC 6901 pointers', () => {
  it('escapes ~ and / in property names', () => {
    const r = compareSchemas(obj({ 'a/b~c': { type: 'string' } }), obj({ 'a/b~c': { type: 'string', minLength: 1 } }));
    expect(shape(r.changes)).toEqual([{ rule: 'min-length-raised', breaking: true, path: '/properties/a~1b~0c/minLength' }]);
  });

  it('nested properties, items and additionalProperties', () => {
    const old = obj({ lines: { type: 'array', items: obj({ sku: { type: 'string' } }, { additionalProperties: { type: 'number' } }) } });
    const neu = obj({
      lines: { type: 'array', items: obj({ sku: { type: 'string', maxLength: 8 } }, { additionalProperties: { type: 'integer' } }) },
    });
    expect(shape(compareSchemas(old, neu).changes)).toEqual([
      { rule: 'type-narrowed', breaking: true, path: '/properties/lines/items/additionalProperties/type' },
      { rule: 'max-length-lowered', breaking: true, path: '/properties/lines/items/properties/sku/maxLength' },
    ]);
  });
});

describe('report order', () => {
  it('is by path, then RULES order, whatever the mode', () => {
    const old = obj({ b: { type: 'number', pattern: 'x' }, a: { enum: [1, 2] } });
    const neu = obj({ a: { enum: [2, 3] }, b: { type: 'integer', format: 'y' }, c: {} });
    const paths = (mode: ComparingLevel): string[] => compareSchemas(old, neu, { level: mode }).changes.map((c) => `${c.path} ${c.rule}`);
    const expected = [
      '/properties/a/enum enum-value-removed',
      '/properties/a/enum enum-value-added',
      '/properties/b/format unsupported-keyword-changed',
      '/properties/b/pattern unsupported-keyword-changed',
      '/properties/b/type type-narrowed',
      '/properties/c property-added',
    ];
    for (const mode of MODES) expect(paths(mode)).toEqual(expected);
  });
});

describe('full mode', () => {
  it('reports each edit once, breaking if either direction breaks', () => {
    const old = obj({ a: { type: 'string', minLength: 2 }, b: {} }, { required: ['a'] });
    const neu = obj({ a: { type: 'string', minLength: 1 }, c: {} }, { required: ['a', 'c'] });
    const full = compareSchemas(old, neu, { level: 'full' });
    const backward = compareSchemas(old, neu, { level: 'backward' });
    const forward = compareSchemas(old, neu, { level: 'forward' });
    const key = (c: Change): string => `${c.rule} ${c.path} ${c.message}`;
    expect(new Set(full.changes.map(key)).size).toBe(full.changes.length);
    expect(full.changes.map((c) => `${c.rule} ${c.path}`).sort()).toEqual(
      [...new Set([...backward.changes, ...forward.changes].map((c) => `${c.rule} ${c.path}`))].sort(),
    );
    for (const c of full.changes) {
      const either = [...backward.changes, ...forward.changes].filter((d) => d.rule === c.rule && d.path === c.path);
      expect(c.breaking).toBe(either.some((d) => d.breaking));
    }
  });
});

describe('RULES', () => {
  it('has unique kebab-case ids and a one-line description each', () => {
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    for (const r of RULES) {
      expect(r.id).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(r.description.length).toBeGreaterThan(10);
      expect(r.description).not.toContain('\n');
    }
  });

  it('names every rule the cases above exercise', () => {
    // property-resurrected comes from history or the manifest's retired names, never from two schemas (test/compat/tombstones.e2e.test.ts).
    const used = new Set([
      ...CASES.flatMap((c) => [c.rule, c.reverse]),
      'const-changed',
      'unsupported-keyword-changed',
      'property-resurrected',
    ]);
    expect([...used].sort()).toEqual(RULES.map((r) => r.id).sort());
  });
});

describe('input errors', () => {
  it('rejects an unknown mode', () => {
    expect(() => compareSchemas({}, {}, { level: 'sideways' as ComparingLevel })).toThrow(TypeError);
  });

  it('rejects a schema that is not an object or a boolean', () => {
    expect(() => compareSchemas([], {})).toThrow(SchemaError);
    expect(() => compareSchemas({}, 'string')).toThrow(SchemaError);
  });

  it('a schema nested too deeply is a SchemaError, not a stack overflow', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { items: deep };
    expect(() => compareSchemas(deep, deep)).toThrow(SchemaError);
  });
});
