import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCsharp, generateGo, generatePhp, generateTypes, schemaType, typeNames } from '../../src/types/index.js';
import { uniqueName } from '../../src/types/notes.js';

// Enums of tens of thousands of values are generated in time linear in the values: the TypeScript
// union tells values apart by canonical key and reads their peers from one shape (it compared every
// pair: 20,000 values took 18 s), and a name taken n times is suffixed without searching from _2
// each time (20,000 enum values whose names are all punctuation took 30-37 s in Go, PHP and C#).
// Speed is shown by `npm run bench:scale`; these tests hold the results.

const PUNCTUATION = '!#$%&()*+,./:;<=>?@[]^_{|}~-';
/** n distinct strings with no letter or digit: every one gets the same identifier before its suffix. */
function punctuation(n: number): string[] {
  const out: string[] = [];
  for (const a of PUNCTUATION) for (const b of PUNCTUATION) for (const c of PUNCTUATION) if (out.length < n) out.push(a + b + c);
  return out;
}

const entry = (e: unknown) => ({ urn: 'urn:x:big', schema: { type: 'object', required: ['e'], properties: { e: e } } });

describe('a 20,000-value enum', () => {
  it('TypeScript: one literal per distinct value, in order, repeats (by JSON equality) once', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => `v${i}`);
    const type = schemaType({ enum: [...values, 'v7', 'v19999'] });
    expect(type.split(' | ')).toEqual(values.map((v) => JSON.stringify(v)));
    expect(schemaType({ enum: Array.from({ length: 20_000 }, (_, i) => (i % 2 === 0 ? i : i - 1 + 0.0)) }).split(' | ')).toHaveLength(
      10_000,
    );
  });

  it('TypeScript: objects exclude the keys their peers have, at every depth', () => {
    // The output itself grows with the square (each object names every key it lacks): 1,000 objects.
    const values = Array.from({ length: 1_000 }, (_, i) => ({ t: { [`n${i % 3}`]: i }, [`k${i}`]: i }));
    const members = schemaType({ enum: values }).split(' } | { ');
    expect(members).toHaveLength(1_000);
    // Its own keys, then the 999 keys of the others; inside t, the other two nested keys.
    expect(members[0]!.startsWith('{ t: { n0: 0; n1?: never; n2?: never }; k0: 0; k1?: never; k2?: never; ')).toBe(true);
    expect(members[1]!.startsWith('t: { n1: 1; n0?: never; n2?: never }; k1: 1; k0?: never; k2?: never; ')).toBe(true);
    expect(members.map((m) => m.match(/\?: never/g)?.length)).toEqual(values.map(() => 999 + 2));
  });

  // Go, PHP and C# spell a name of symbols only by its code points (`*/` → U2AU2F): their values
  // share one word instead (`a!#$`, `a!#%`, … are all `A`).
  it.each([
    ['Go', generateGo, /\bBigEA(?:_\d+)?\s+BigE = /g, 'a'],
    ['PHP', generatePhp, /^ {4}case A(?:_\d+)? = /gm, 'a'],
    ['C#', generateCsharp, /public const string A(?:_\d+)? = /g, 'a'],
  ])('%s: 20,000 values with one base name get 20,000 distinct names, the first free suffix each', (_lang, generate, pattern, word) => {
    const values = punctuation(20_000).map((p) => word + p);
    const out = generate([entry({ enum: values })]);
    const names = [...out.matchAll(pattern)].map((m) => m[0]);
    expect(names).toHaveLength(20_000);
    expect(new Set(names).size).toBe(20_000);
    // The same names as searching from _2 each time: base, base_2, …, base_20000, in value order.
    const suffixes = names.map((n) => /_(\d+)/.exec(n)?.[1] ?? '1');
    expect(suffixes).toEqual(values.map((_, i) => String(i + 1)));
  });

  it('TypeScript module text holds every value', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => `v${i}`);
    const out = generateTypes([entry({ enum: values })]);
    expect(out.match(/"v\d+"/g)).toHaveLength(20_000);
  });
});

describe('uniqueName: the first free suffix, whatever was taken before', () => {
  /** The definition: base if free, else the smallest n ≥ 2 with base_n free. */
  const reference = (taken: Set<string>, base: string): string => {
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    return name;
  };

  it('agrees with searching from _2 on random interleavings of names taken by hand and by it', () => {
    // BQ_NAMES_RUNS=2000 for a longer run; BQ_NAMES_SEED=<seed> replays a reported failure.
    const runs = Number(process.env.BQ_NAMES_RUNS ?? 200);
    const base = fc.constantFrom('A', 'B', 'A_2');
    const step = fc.oneof(
      base.map((b) => ({ kind: 'unique' as const, name: b })),
      fc.tuple(base, fc.integer({ min: 1, max: 8 })).map(([b, n]) => ({ kind: 'take' as const, name: n === 1 ? b : `${b}_${n}` })),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const fast = new Set<string>();
        const slow = new Set<string>();
        for (const s of steps) {
          if (s.kind === 'take') {
            fast.add(s.name);
            slow.add(s.name);
          } else {
            expect(uniqueName(fast, s.name)).toBe(reference(slow, s.name));
          }
        }
      }),
      { numRuns: runs, seed: Number(process.env.BQ_NAMES_SEED ?? 20_535) },
    );
  });

  it('typeNames: 5,000 URNs with one base name are Base, Base_2, … Base_5000', () => {
    const urns = Array.from({ length: 5_000 }, (_, i) => `urn:x:${'-'.repeat(i % 2)}same${'.'.repeat(Math.floor(i / 2))}`);
    const names = [...typeNames(urns).values()];
    expect(new Set(names).size).toBe(5_000);
    expect(names.filter((n) => /^Same(_\d+)?$/.test(n))).toHaveLength(5_000);
  });
});
