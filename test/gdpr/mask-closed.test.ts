import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { mask } from '../../src/gdpr/index.js';
import { build, markedPaths, schemaArb, toJsonSchema, type Schema } from '../helpers/gdpr-shapes.js';

// Masking fails closed: data whose shape the schema cannot follow, at a node
// below which something is marked, is redacted whole instead of passed through.

const M = { 'x-gdpr-sensitive': true };

describe('mask: data of another shape than the schema', () => {
  const schema = {
    type: 'object',
    properties: {
      user: { type: 'object', properties: { id: { type: 'integer' }, phone: { type: 'string', ...M } } },
      tags: { type: 'array', items: { type: 'string', ...M } },
      extra: { type: 'object', additionalProperties: M },
      note: { type: 'string' },
    },
  };

  test("the issue's example: an array for an object, an object for an array", () => {
    const out = mask(JSON.parse('{"user":[{"phone":"SECRET1"}],"tags":{"0":"SECRET2"},"note":"kept"}'), schema);
    expect(out).toEqual({ user: '***', tags: '***', note: 'kept' });
  });

  test('an array where additionalProperties holds a mark, a scalar where an object holds one', () => {
    expect(mask({ extra: ['SECRET'] }, schema)).toEqual({ extra: '***' });
    expect(mask({ user: 'SECRET', extra: 42, tags: true }, schema)).toEqual({ user: 'S***', extra: '***', tags: '***' });
  });

  test('null carries nothing and is kept; so are shapes the schema does not mark under', () => {
    expect(mask({ user: null, tags: null }, schema)).toEqual({ user: null, tags: null });
    // note holds no mark: any shape passes, as before
    expect(mask({ note: ['a', { b: 'c' }] }, schema)).toEqual({ note: ['a', { b: 'c' }] });
  });

  test('well-shaped data is masked field by field, as before', () => {
    const data = { user: { id: 1, phone: '+90' }, tags: ['ab', 'cd'], extra: { k: 'vv' }, note: 'n' };
    expect(mask(data, schema)).toEqual({ user: { id: 1, phone: '+***' }, tags: ['a***', 'c***'], extra: { k: 'v***' }, note: 'n' });
  });

  test('an object with keyword-mixed schema: a mark under items redacts an object even when properties exist', () => {
    const s = { properties: { a: { type: 'string' } }, items: M };
    expect(mask({ a: 'x', 0: 'SECRET' }, s)).toBe('***');
  });

  test('a shape the node declares in `type` and describes by its keywords is followed, not redacted', () => {
    const both = { type: ['object', 'array'], properties: { a: { type: 'string' } }, items: M };
    expect(mask({ a: 'x' }, both)).toEqual({ a: 'x' });
    expect(mask(['ab'], both)).toEqual(['a***']);
    // declared but not described: an array with no items schema cannot be followed
    expect(mask(['SECRET'], { type: ['object', 'array'], properties: { p: M } })).toBe('***');
    // a scalar the type admits is kept; one it does not admit is redacted
    const s = { type: ['object', 'string'], properties: { p: M } };
    expect(mask('plain', s)).toBe('plain');
    expect(mask(42, s)).toBe('***');
    expect(mask(7, { type: 'integer', properties: { p: M } })).toBe(7);
  });

  test('a mark deep below counts, not only a direct child', () => {
    const s = { properties: { a: { properties: { b: { items: { properties: { c: M } } } } } } };
    expect(mask({ a: [{ b: [{ c: 'SECRET' }] }] }, s)).toEqual({ a: '***' });
    expect(mask({ a: { b: { 0: { c: 'SECRET' } } } }, s)).toEqual({ a: { b: '***' } });
    expect(mask({ a: { b: [[{ c: 'SECRET' }]] } }, s)).toEqual({ a: { b: ['***'] } });
  });
});

describe('mask: property — no marked string survives any shape', () => {
  test('random schemas, random marked paths, random shape changes (2,000 runs)', () => {
    let secrets = 0;
    fc.assert(
      fc.property(
        schemaArb(4),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 40 }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.stringMatching(/^[a-z]{4,8}$/),
        (tree, choices, noise, salt) => {
          const schema = toJsonSchema(tree);
          markedPaths(tree).forEach((path, n) => {
            const secret = `SECRET-${salt}-${n}`;
            const out = JSON.stringify(mask(build(path, secret, choices.slice(n % choices.length).concat(choices), noise), schema));
            secrets++;
            if (out.includes(secret)) throw new Error(`leaked ${secret}: ${out} under ${JSON.stringify(schema)}`);
          });
        },
      ),
      { numRuns: 2000 },
    );
    expect(secrets).toBeGreaterThan(1000);
  });

  test('well-shaped data: unmarked leaves outside any mark stay visible (500 runs)', () => {
    /** Data that follows the schema exactly, a unique string at each leaf; which strings must stay. */
    function wellShaped(s: Schema, tag: string, marked: boolean, visible: string[]): unknown {
      const inMark = marked || s.mark;
      const leaf = s.props.length === 0 && s.items === undefined && s.additional === undefined;
      if (leaf) {
        if (!inMark) visible.push(tag);
        return tag;
      }
      if (s.items !== undefined && s.props.length === 0 && s.additional === undefined) {
        return [wellShaped(s.items, `${tag}[0]`, inMark, visible), wellShaped(s.items, `${tag}[1]`, inMark, visible)];
      }
      const out: Record<string, unknown> = {};
      for (const [k, child] of s.props) out[k] = wellShaped(child, `${tag}.${k}`, inMark, visible);
      if (s.additional !== undefined) out.extraKey = wellShaped(s.additional, `${tag}.*`, inMark, visible);
      return out;
    }
    fc.assert(
      fc.property(schemaArb(4), (tree) => {
        const visible: string[] = [];
        const data = wellShaped(tree, 'v', false, visible);
        const out = JSON.stringify(mask(data, toJsonSchema(tree, true)));
        for (const v of visible) if (!out.includes(JSON.stringify(v))) throw new Error(`over-masked ${v}: ${out}`);
      }),
      { numRuns: 500 },
    );
  });
});
