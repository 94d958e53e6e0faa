import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { mask } from '../src/gdpr/index.js';

// Masking fails closed (issue 10 item 2): data whose shape the schema cannot follow, at a node
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

  test('a mark deep below counts, not only a direct child', () => {
    const s = { properties: { a: { properties: { b: { items: { properties: { c: M } } } } } } };
    expect(mask({ a: [{ b: [{ c: 'SECRET' }] }] }, s)).toEqual({ a: '***' });
    expect(mask({ a: { b: { 0: { c: 'SECRET' } } } }, s)).toEqual({ a: { b: '***' } });
    expect(mask({ a: { b: [[{ c: 'SECRET' }]] } }, s)).toEqual({ a: { b: ['***'] } });
  });
});

/*
 * Property: random schemas (properties / items / additionalProperties, random marks), and for
 * each marked path a message that carries a unique secret string there, built step by step with
 * random shape changes: an object replaced by an array of it or of its values, an array by an
 * object with index keys, the container next to the leaf replaced by the leaf itself, and random
 * unmarked noise beside. No secret may appear in the masked output.
 */
type Schema = { mark: boolean; props: Array<[string, Schema]>; items?: Schema; additional?: Schema };
type Step = { kind: 'prop'; key: string } | { kind: 'items' } | { kind: 'additional'; declared: string[] };

const KEYS = ['a', 'b', '0', 'phone'];

/** Schemas up to `depth` levels of sub-schemas. */
function schemaArb(depth: number): fc.Arbitrary<Schema> {
  const mark = fc.nat(3).map((n) => n === 0);
  if (depth === 0) return mark.map((m) => ({ mark: m, props: [] }));
  const child = schemaArb(depth - 1);
  return fc.record(
    {
      mark,
      props: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), child), { maxLength: 3, selector: ([k]) => k }),
      items: fc.option(child, { nil: undefined, freq: 2 }),
      additional: fc.option(child, { nil: undefined, freq: 2 }),
    },
    { requiredKeys: ['mark', 'props'] },
  ) as fc.Arbitrary<Schema>;
}

function toJsonSchema(s: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.mark) out['x-gdpr-sensitive'] = true;
  if (s.props.length > 0) out.properties = Object.fromEntries(s.props.map(([k, v]) => [k, toJsonSchema(v)]));
  if (s.items !== undefined) out.items = toJsonSchema(s.items);
  if (s.additional !== undefined) out.additionalProperties = toJsonSchema(s.additional);
  return out;
}

function markedPaths(s: Schema, prefix: Step[] = [], out: Step[][] = []): Step[][] {
  if (s.mark) out.push(prefix);
  for (const [key, child] of s.props) markedPaths(child, [...prefix, { kind: 'prop', key }], out);
  if (s.items) markedPaths(s.items, [...prefix, { kind: 'items' }], out);
  if (s.additional) markedPaths(s.additional, [...prefix, { kind: 'additional', declared: s.props.map(([k]) => k) }], out);
  return out;
}

function build(path: Step[], secret: string, choices: number[], noise: unknown): unknown {
  let at = 0;
  const next = (): number => choices[at++ % choices.length]!;
  let value: unknown = secret;
  if (next() % 4 === 0) value = next() % 2 === 0 ? [secret] : { z: secret }; // anything under a mark
  for (let i = path.length - 1; i >= 0; i--) {
    const step = path[i]!;
    // The container right above a bare secret may be the secret itself (a scalar where a container
    // is due). Not a wrapped one: its keys would then name other paths of the parent.
    if (i === path.length - 1 && value === secret && next() % 6 === 0) continue;
    let container: unknown;
    if (step.kind === 'items') {
      const arr: unknown[] = next() % 2 === 0 ? [noise, value] : [value];
      container = next() % 3 === 0 ? Object.fromEntries(arr.map((v, j) => [String(j), v])) : arr;
    } else {
      // An additional key never collides with a declared one (that would be another path).
      const key = step.kind === 'prop' ? step.key : `extra${step.declared.length}x`;
      const obj: Record<string, unknown> = { [key]: value };
      if (next() % 2 === 0) obj.noiseKey = noise;
      const r = next() % 5;
      container = r === 0 ? [obj] : r === 1 ? Object.values(obj) : r === 2 ? [[obj]] : obj;
    }
    value = container;
  }
  return value;
}

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
});
