import { describe, expect, test } from 'vitest';
import { audit, mask, sensitivePaths } from '../../src/gdpr/index.js';

// A YAML alias can make a schema object its own descendant
// (`properties: &p {child: {type: object, properties: *p}}`). The gdpr walks must end on it.

const M = { 'x-gdpr-sensitive': 'email' };

/** The issue's shape: root.properties = p, p.child.properties = p; p also holds email and phone. */
function issueSchema(): Record<string, unknown> {
  const p: Record<string, unknown> = { email: M, phone: { type: 'string' } };
  p.child = { type: 'object', properties: p };
  return { type: 'object', properties: p };
}

describe('self-referencing schemas', () => {
  test('sensitivePaths lists each path once, leaving the edge back out', () => {
    expect(sensitivePaths(issueSchema())).toEqual([
      { path: 'child.email', category: 'email' },
      { path: 'email', category: 'email' },
    ]);
  });

  test('self-loops through items and additionalProperties end too', () => {
    const s: Record<string, unknown> = { properties: { secret: M } };
    s.items = s;
    s.additionalProperties = s;
    expect(sensitivePaths(s)).toEqual([{ path: 'secret', category: 'email' }]);
  });

  test('a node reused along two paths (an alias, not a cycle) is still visited on both', () => {
    const shared = { properties: { email: M } };
    expect(sensitivePaths({ properties: { billing: shared, shipping: shared } }).map((p) => p.path)).toEqual([
      'billing.email',
      'shipping.email',
    ]);
  });

  test('audit ends and a node whose only edge leads back is a leaf', () => {
    expect(audit([{ urn: 'u', schema: issueSchema() }])).toEqual([
      { urn: 'u', path: 'child.phone' },
      { urn: 'u', path: 'phone' },
    ]);
    const address: Record<string, unknown> = {};
    address.properties = { self: address };
    // `home_address.self` leads back to `home_address`: with that edge left out, it is a leaf.
    expect(audit([{ urn: 'u', schema: { properties: { home_address: address } } }])).toEqual([{ urn: 'u', path: 'home_address' }]);
  });

  test('mask follows the data down a cycle, and fails closed inside it', () => {
    const schema = issueSchema();
    let deep: Record<string, unknown> = { email: 'bottom@x', phone: 'p' };
    for (let i = 0; i < 5000; i++) deep = { child: deep };
    let out = mask(deep, schema) as Record<string, unknown>;
    for (let i = 0; i < 5000; i++) out = out.child as Record<string, unknown>;
    expect(out).toEqual({ email: 'b***', phone: 'p' });
    // `child` holds a mark (its properties are p): an array there is redacted whole.
    expect(mask({ child: { child: [{ email: 'SECRET' }] } }, schema)).toEqual({ child: { child: '***' } });
    const s: Record<string, unknown> = { properties: { secret: M } };
    s.additionalProperties = s;
    expect(mask({ a: { b: { secret: 'abc' } }, x: [{ secret: 'SECRET' }] }, s)).toEqual({ a: { b: { secret: 'a***' } }, x: '***' });
  });
});
