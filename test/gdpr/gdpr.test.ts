import { describe, expect, test } from 'vitest';
import { audit, isPiiName, mask, parsePiiPattern, sensitivePaths } from '../../src/gdpr/index.js';

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/** A customer event exercising every walked keyword. */
const customer = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Customer registered',
  type: 'object',
  required: ['id', 'email'],
  properties: {
    id: { type: 'integer' },
    email: { type: 'string', 'x-gdpr-sensitive': 'email', description: 'contact address' },
    name: { type: 'string', 'x-gdpr-sensitive': true },
    phone: { type: ['string', 'null'], 'x-gdpr-sensitive': 'phone' },
    nickname: { type: 'string', 'x-gdpr-sensitive': false },
    note: { type: 'string', 'x-gdpr-sensitive': '' },
    score: { type: 'number', 'x-gdpr-sensitive': 0 },
    address: {
      type: 'object',
      'x-gdpr-sensitive': 'address',
      properties: { street: { type: 'string' }, city: { type: 'string', 'x-gdpr-sensitive': 'city' } },
    },
    orders: {
      type: 'array',
      items: {
        type: 'object',
        properties: { sku: { type: 'string' }, card_number: { type: 'string', 'x-gdpr-sensitive': 'card' } },
      },
    },
    attributes: { type: 'object', additionalProperties: { type: 'string', 'x-gdpr-sensitive': 'attribute' } },
  },
};

describe('sensitivePaths', () => {
  test('lists every marked node with its category, sorted by path', () => {
    expect(sensitivePaths(customer)).toEqual([
      { path: 'address', category: 'address' },
      { path: 'address.city', category: 'city' },
      { path: 'attributes.*', category: 'attribute' },
      { path: 'email', category: 'email' },
      { path: 'name', category: '' },
      { path: 'note', category: '' },
      { path: 'orders[].card_number', category: 'card' },
      { path: 'phone', category: 'phone' },
      { path: 'score', category: '' },
    ]);
  });

  test('only false leaves a node unmarked: any other marker is malformed and marks it, with no category', () => {
    const schema = {
      properties: {
        a: { 'x-gdpr-sensitive': false },
        b: { 'x-gdpr-sensitive': '' },
        c: { 'x-gdpr-sensitive': 1 },
        d: { 'x-gdpr-sensitive': null },
        e: { 'x-gdpr-sensitive': ['email'] },
        f: { 'x-gdpr-sensitive': 'true' },
      },
    };
    expect(sensitivePaths(schema)).toEqual([
      { path: 'b', category: '' },
      { path: 'c', category: '' },
      { path: 'd', category: '' },
      { path: 'e', category: '' },
      { path: 'f', category: 'true' },
    ]);
  });

  test('the root, root items and root additionalProperties use "", [] and *', () => {
    expect(sensitivePaths({ 'x-gdpr-sensitive': true })).toEqual([{ path: '', category: '' }]);
    expect(sensitivePaths({ items: { items: { 'x-gdpr-sensitive': 'x' } } })).toEqual([{ path: '[][]', category: 'x' }]);
    expect(sensitivePaths({ additionalProperties: { properties: { a: { 'x-gdpr-sensitive': 'y' } } } })).toEqual([
      { path: '*.a', category: 'y' },
    ]);
  });

  test('special characters in property names are backslash-escaped, so paths stay unambiguous', () => {
    const m = { 'x-gdpr-sensitive': true };
    const schema = {
      properties: {
        'a.b': m,
        a: { properties: { b: m } },
        '*': m,
        'x[]': m,
        'back\\slash': m,
        '': { 'x-gdpr-sensitive': true, properties: { '': m } },
      },
      additionalProperties: m,
    };
    const paths = sensitivePaths(schema).map((p) => p.path);
    expect(paths).toEqual(['*', '.', '..', '\\*', 'a.b', 'a\\.b', 'back\\\\slash', 'x\\[\\]']);
    expect(new Set(paths).size).toBe(paths.length);
  });

  test('sorting is by UTF-16 code units, not locale', () => {
    const m = { 'x-gdpr-sensitive': true };
    const paths = sensitivePaths({ properties: { b: m, B: m, é: m, a: m, Z: m } }).map((p) => p.path);
    expect(paths).toEqual(['B', 'Z', 'a', 'b', 'é']);
  });

  test('boolean schemas, tuple items and inherited keys are not walked', () => {
    const m = { 'x-gdpr-sensitive': true };
    const props = Object.create({ inherited: m }) as Record<string, unknown>;
    props.own = true;
    expect(sensitivePaths({ properties: props, items: [m], additionalProperties: false })).toEqual([]);
    expect(sensitivePaths(true)).toEqual([]);
  });

  test('a schema nested deeper than the call stack allows is walked', () => {
    let schema: Record<string, unknown> = { 'x-gdpr-sensitive': 'deep' };
    for (let i = 0; i < 20_000; i++) schema = { items: schema };
    expect(sensitivePaths(schema)).toEqual([{ path: '[]'.repeat(20_000), category: 'deep' }]);
  });
});

describe('audit', () => {
  test('reports PII-named leaves without a marker, sorted by URN then path', () => {
    const schemas = [
      {
        urn: 'urn:b',
        schema: {
          properties: {
            customer_email: { type: 'string' },
            billingAddress: { type: 'string' },
            dateOfBirth: { type: 'string' },
            PHONE: { type: 'string' },
            creditCard: { type: 'string' },
            order_id: { type: 'integer' },
            email: { type: 'string', 'x-gdpr-sensitive': 'email' },
          },
        },
      },
      { urn: 'urn:a', schema: { properties: { ssn: { type: 'string' }, passport: { type: 'string', 'x-gdpr-sensitive': true } } } },
    ];
    expect(audit(schemas)).toEqual([
      { urn: 'urn:a', path: 'ssn' },
      { urn: 'urn:b', path: 'PHONE' },
      { urn: 'urn:b', path: 'billingAddress' },
      { urn: 'urn:b', path: 'creditCard' },
      { urn: 'urn:b', path: 'customer_email' },
      { urn: 'urn:b', path: 'dateOfBirth' },
    ]);
  });

  test('false is a reviewed opt-out; a "" marker is malformed and marks the field (masking fails closed)', () => {
    const schema = { properties: { email: { 'x-gdpr-sensitive': false }, phone: { 'x-gdpr-sensitive': '' }, contact_email: {} } };
    expect(audit([{ urn: 'u', schema }])).toEqual([{ urn: 'u', path: 'contact_email' }]);
  });

  test('containers are not flagged; the leaves under a PII-named container are', () => {
    const schema = {
      properties: {
        address: { type: 'object', properties: { street: { type: 'string' }, zip: { type: 'string' } } },
        emails: { type: 'array', items: { type: 'string' } },
        phones: { additionalProperties: { type: 'string' } },
        contact: { type: 'object', properties: { mail: { type: 'string' }, preferred: { type: 'boolean' } } },
      },
    };
    expect(audit([{ urn: 'u', schema }])).toEqual([
      { urn: 'u', path: 'address.street' },
      { urn: 'u', path: 'address.zip' },
      { urn: 'u', path: 'contact.mail' },
      { urn: 'u', path: 'emails[]' },
      { urn: 'u', path: 'phones.*' },
    ]);
  });

  test('a container that declares no sub-schema is its own leaf', () => {
    const schema = { properties: { address: { type: 'object' }, phones: { type: 'array', items: true } } };
    expect(audit([{ urn: 'u', schema }])).toEqual([
      { urn: 'u', path: 'address' },
      { urn: 'u', path: 'phones[]' },
    ]);
  });

  test('a marked container covers its subtree; a false sub-schema admits nothing', () => {
    const schema = {
      properties: {
        address: { 'x-gdpr-sensitive': 'address', properties: { street: {}, email: {} } },
        orders: { items: { 'x-gdpr-sensitive': true, properties: { card_number: {} } } },
        email: false,
      },
    };
    expect(audit([{ urn: 'u', schema }])).toEqual([]);
  });

  test('array items and additionalProperties leaves are checked by their own property names', () => {
    const schema = {
      properties: {
        orders: { type: 'array', items: { properties: { card_number: { type: 'string' }, sku: { type: 'string' } } } },
        extra: { additionalProperties: { properties: { iban: { type: 'string' } } } },
      },
    };
    expect(audit([{ urn: 'u', schema }])).toEqual([
      { urn: 'u', path: 'extra.*.iban' },
      { urn: 'u', path: 'orders[].card_number' },
    ]);
  });

  test('a custom pattern replaces the default one', () => {
    const schema = { properties: { email: { type: 'string' }, LicensePlate: { type: 'string' } } };
    expect(audit([{ urn: 'u', schema }], parsePiiPattern('license_?plate'))).toEqual([{ urn: 'u', path: 'LicensePlate' }]);
  });

  test('a global regex gives the same answer on every property (no lastIndex carry-over)', () => {
    const schema = { properties: { email: {}, email2: {}, email3: {} } };
    expect(audit([{ urn: 'u', schema }], /email/g)).toHaveLength(3);
  });

  test('the default matcher is case-insensitive and matches name tokens (more in test/gdpr/pii-names.test.ts)', () => {
    for (const name of ['E_MAIL', 'msisdn', 'tckn', 'national_id', 'nationalId', 'iban', 'card_number', 'cvv', 'dob', 'x_ssn_y']) {
      expect(isPiiName(name), name).toBe(true);
    }
    for (const name of ['order_id', 'amount', 'sku', 'status']) expect(isPiiName(name), name).toBe(false);
  });

  test('parsePiiPattern rejects an invalid or empty regex with a clear error', () => {
    expect(() => parsePiiPattern('(unclosed')).toThrow(/invalid PII pattern "\(unclosed"/);
    expect(() => parsePiiPattern('')).toThrow(/empty/);
    expect(parsePiiPattern('Foo').test('xfOOx')).toBe(true);
  });
});

describe('mask', () => {
  const message = {
    id: 7,
    email: 'alice@x.com',
    name: '😀lice',
    phone: null,
    nickname: 'ally',
    note: 'plain',
    score: 3,
    address: { street: 'Main 1', city: 'Ankara' },
    orders: [
      { sku: 'A1', card_number: '4111111111111111' },
      { sku: 'B2', card_number: '' },
    ],
    attributes: { eyes: 'blue', tier: 'gold' },
    undeclared: { deep: 'kept' },
  };

  test('redacts every marked value and copies the rest unchanged', () => {
    const before = structuredClone(message);
    const input = deepFreeze(structuredClone(message));
    const out = mask(input, customer);
    expect(out).toEqual({
      id: 7,
      email: 'a***',
      name: '😀***',
      phone: '***',
      nickname: 'ally',
      note: 'p***',
      score: '***',
      address: '***',
      orders: [
        { sku: 'A1', card_number: '4***' },
        { sku: 'B2', card_number: '***' },
      ],
      attributes: { eyes: 'b***', tier: 'g***' },
      undeclared: { deep: 'kept' },
    });
    expect(input).toEqual(before);
  });

  test('union-typed fields: a string keeps its first code point, null becomes ***', () => {
    const schema = customer;
    expect(mask({ phone: '+90 555' }, schema)).toEqual({ phone: '+***' });
    expect(mask({ phone: null }, schema)).toEqual({ phone: '***' });
  });

  test('non-string marked values become ***', () => {
    const schema = { additionalProperties: { 'x-gdpr-sensitive': 'any' } };
    const input = deepFreeze({ n: 42, b: false, z: null, o: { a: 1 }, a: [1, 2], s: '' });
    expect(mask(input, schema)).toEqual({ n: '***', b: '***', z: '***', o: '***', a: '***', s: '***' });
  });

  test('the first code point is a whole surrogate pair, and a lone surrogate counts as one', () => {
    const schema = { 'x-gdpr-sensitive': true };
    expect(mask('😀x', schema)).toBe('😀***');
    expect(mask('\uD83Dabc', schema)).toBe('\uD83D***');
    expect(mask('', schema)).toBe('***');
    expect(mask('é', schema)).toBe('é***');
  });

  test('a declared property is never treated as additional, even with a boolean schema', () => {
    const schema = { properties: { keep: true }, additionalProperties: { 'x-gdpr-sensitive': true } };
    expect(mask({ keep: 'visible', other: 'hidden' }, schema)).toEqual({ keep: 'visible', other: 'h***' });
  });

  test('categories do not change the redaction; only a false marker leaves values alone', () => {
    const schema = {
      properties: {
        a: { 'x-gdpr-sensitive': 'email' },
        b: { 'x-gdpr-sensitive': false },
        c: { 'x-gdpr-sensitive': '' },
        d: { 'x-gdpr-sensitive': 1 },
        e: { 'x-gdpr-sensitive': {} },
        f: { 'x-gdpr-sensitive': [] },
        g: { 'x-gdpr-sensitive': null },
      },
    };
    expect(mask({ a: 'xyz', b: 'xyz', c: 'xyz', d: 'xyz', e: 'xyz', f: 'xyz', g: 'xyz' }, schema)).toEqual({
      a: 'x***',
      b: 'xyz',
      c: 'x***',
      d: 'x***',
      e: 'x***',
      f: 'x***',
      g: 'x***',
    });
  });

  test('an own "__proto__" key stays a key and inherited keys are ignored', () => {
    const schema = { additionalProperties: { 'x-gdpr-sensitive': true } };
    const input = JSON.parse('{"__proto__": "secret", "a": "bee"}') as Record<string, unknown>;
    const out = mask(input, schema) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"__proto__":"s***","a":"b***"}');
    const child = Object.create({ inherited: 'x' }) as Record<string, unknown>;
    child.own = 'yes';
    expect(mask(child, schema)).toEqual({ own: 'y***' });
  });

  test('data deeper than the schema is kept by reference; 100k levels do not overflow', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const input = { email: 'bob@x', payload: deep };
    const out = mask(input, { properties: { email: { 'x-gdpr-sensitive': true }, payload: { items: {} } } }) as Record<string, unknown>;
    expect(out.email).toBe('b***');
    expect(out).not.toBe(input);
    expect((out.payload as unknown[])[0]).toBe((deep as unknown[])[0]);
    expect(input.email).toBe('bob@x');
  });

  test('a schema that marks nothing, or is boolean, returns equal data', () => {
    expect(mask({ a: [1, { b: 2 }] }, { properties: { a: { items: { type: 'object' } } } })).toEqual({ a: [1, { b: 2 }] });
    expect(mask('x', true)).toBe('x');
  });
});
