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

/*
 * Property: random schemas (properties / items / additionalProperties, random marks, with or
 * without a `type` naming the shapes their keywords describe), and for each marked path a message
 * that carries a unique secret string there, built step by step with random shape changes the
 * schema does not describe: an object replaced by an array of it or of its values, an array by an
 * object with index keys, the container next to the leaf replaced by the leaf itself, and random
 * unmarked noise beside. No secret may appear in the masked output.
 */
type Schema = { mark: boolean; typed: boolean; props: Array<[string, Schema]>; items?: Schema; additional?: Schema };
type Step = { parent: Schema } & ({ kind: 'prop'; key: string } | { kind: 'items' } | { kind: 'additional' });

const KEYS = ['a', 'b', '0', 'phone'];

/** Schemas up to `depth` levels of sub-schemas. */
function schemaArb(depth: number): fc.Arbitrary<Schema> {
  const mark = fc.nat(3).map((n) => n === 0);
  if (depth === 0) return fc.record({ mark, typed: fc.boolean(), props: fc.constant([]) });
  const child = schemaArb(depth - 1);
  return fc.record(
    {
      mark,
      typed: fc.boolean(),
      props: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), child), { maxLength: 3, selector: ([k]) => k }),
      items: fc.option(child, { nil: undefined, freq: 2 }),
      additional: fc.option(child, { nil: undefined, freq: 2 }),
    },
    { requiredKeys: ['mark', 'typed', 'props'] },
  ) as fc.Arbitrary<Schema>;
}

const describesObjects = (s: Schema): boolean => s.props.length > 0 || s.additional !== undefined;

/** `allTyped` gives every node a `type`; otherwise only the nodes drawn `typed` have one. */
function toJsonSchema(s: Schema, allTyped = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.typed || allTyped) {
    const types = [...(describesObjects(s) ? ['object'] : []), ...(s.items !== undefined ? ['array'] : [])];
    out.type = types.length === 0 ? ['string', 'null'] : types.length === 1 ? types[0] : types;
  }
  if (s.mark) out['x-gdpr-sensitive'] = true;
  if (s.props.length > 0) out.properties = Object.fromEntries(s.props.map(([k, v]) => [k, toJsonSchema(v, allTyped)]));
  if (s.items !== undefined) out.items = toJsonSchema(s.items, allTyped);
  if (s.additional !== undefined) out.additionalProperties = toJsonSchema(s.additional, allTyped);
  return out;
}

function markedPaths(s: Schema, prefix: Step[] = [], out: Step[][] = []): Step[][] {
  if (s.mark) out.push(prefix);
  for (const [key, child] of s.props) markedPaths(child, [...prefix, { parent: s, kind: 'prop', key }], out);
  if (s.items) markedPaths(s.items, [...prefix, { parent: s, kind: 'items' }], out);
  if (s.additional) markedPaths(s.additional, [...prefix, { parent: s, kind: 'additional' }], out);
  return out;
}

function build(path: Step[], secret: string, choices: number[], noise: unknown): unknown {
  let at = 0;
  const next = (): number => choices[at++ % choices.length]!;
  let value: unknown = secret;
  if (next() % 4 === 0) value = next() % 2 === 0 ? [secret] : { z: secret }; // anything under a mark
  for (let i = path.length - 1; i >= 0; i--) {
    const step = path[i]!;
    // Shapes the parent's `type` admits and its keywords describe are not shape changes: data there
    // is followed by those keywords (an array by `items`), and the secret would sit at another path.
    const arrayDescribed = step.parent.typed && step.parent.items !== undefined;
    const objectDescribed = step.parent.typed && describesObjects(step.parent);
    // The container right above a bare secret may be the secret itself (a scalar where a container
    // is due; typed containers never admit strings here). Not a wrapped one: its keys would then
    // name other paths of the parent.
    if (i === path.length - 1 && value === secret && next() % 6 === 0) continue;
    let container: unknown;
    if (step.kind === 'items') {
      const arr: unknown[] = next() % 2 === 0 ? [noise, value] : [value];
      container = !objectDescribed && next() % 3 === 0 ? Object.fromEntries(arr.map((v, j) => [String(j), v])) : arr;
    } else {
      // An additional key never collides with a declared one (that would be another path).
      const key = step.kind === 'prop' ? step.key : 'extraKey';
      const obj: Record<string, unknown> = { [key]: value };
      if (next() % 2 === 0) obj.noiseKey = noise;
      const r = arrayDescribed ? 4 : next() % 5;
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
