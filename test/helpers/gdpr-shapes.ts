import fc from 'fast-check';

/*
 * Property: random schemas (properties / items / additionalProperties, random marks, with or
 * without a `type` naming the shapes their keywords describe), and for each marked path a message
 * that carries a unique secret string there, built step by step with random shape changes the
 * schema does not describe: an object replaced by an array of it or of its values, an array by an
 * object with index keys, the container next to the leaf replaced by the leaf itself, and random
 * unmarked noise beside. No secret may appear in the masked output.
 */
export type Schema = { mark: boolean; typed: boolean; props: Array<[string, Schema]>; items?: Schema; additional?: Schema };
export type Step = { parent: Schema } & ({ kind: 'prop'; key: string } | { kind: 'items' } | { kind: 'additional' });

const KEYS = ['a', 'b', '0', 'phone'];

/** Schemas up to `depth` levels of sub-schemas. */
export function schemaArb(depth: number): fc.Arbitrary<Schema> {
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
export function toJsonSchema(s: Schema, allTyped = false): Record<string, unknown> {
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

export function markedPaths(s: Schema, prefix: Step[] = [], out: Step[][] = []): Step[][] {
  if (s.mark) out.push(prefix);
  for (const [key, child] of s.props) markedPaths(child, [...prefix, { parent: s, kind: 'prop', key }], out);
  if (s.items) markedPaths(s.items, [...prefix, { parent: s, kind: 'items' }], out);
  if (s.additional) markedPaths(s.additional, [...prefix, { parent: s, kind: 'additional' }], out);
  return out;
}

export function build(path: Step[], secret: string, choices: number[], noise: unknown): unknown {
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
