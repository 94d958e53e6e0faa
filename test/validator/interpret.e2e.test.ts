// Where code generation from strings is refused, compile() walks the
// schema tree instead (src/validator/interpret.ts). A differential test: the interpreter and the
// generated code give the same isValid and the same violations (order, paths, messages) on every
// contract case, every JSON-Schema-Test-Suite draft-07 case (out-of-scope groups too: both must
// ignore the same keywords) and a generated corpus; then the built library, run under
// `node --disallow-code-generation-from-strings`, gives the contract's verdicts and the same
// violations as generated code.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, parseSchema } from '../../src/validator/index.js';
import { preview } from '../../src/validator/compile.js';
import { interpret } from '../../src/validator/interpret.js';
import { rootArb, VALUES } from '../helpers/compat-arbitraries.js';
import { contractPairs, suitePairs, type Pair } from '../helpers/validator-cases.js';
import { markedPairs } from '../helpers/pii.js';

const ROOT = join(import.meta.dirname, '..', '..');

// The generated corpus: BQ_INTERPRET_RUNS=<n> runs more schemas, BQ_INTERPRET_SEED=<n> another seed.
// 1,000 schemas, each with up to 6 values, write each of rootArb's keywords (the rarest one node in
// 13) many times over, alone and together: a keyword applied past a failed `type` the walk skipped
// is found here and by no contract or JSON-Schema-Test-Suite case.
const RUNS = Number(process.env['BQ_INTERPRET_RUNS'] ?? 1000);
const SEED = Number(process.env['BQ_INTERPRET_SEED'] ?? 20260524);

type Forms = { generated: ReturnType<typeof compile>; walked: ReturnType<typeof interpret> } | undefined;
/**
 * Made once per schema object: the cases of one schema (a suite group's tests, a generated schema's
 * values) are judged by the same two validators, as an application reuses one (so a validator that
 * kept state between calls would show here too).
 */
const made = new WeakMap<object, Forms>();

/** Both forms of one schema, or undefined when it does not compile (then neither form exists). */
function forms(schema: unknown): Forms {
  const key = typeof schema === 'object' && schema !== null ? schema : undefined;
  if (key !== undefined && made.has(key)) return made.get(key);
  let generated;
  try {
    generated = compile(schema, { onWarning: () => {} });
  } catch {
    generated = undefined;
  }
  const f = generated === undefined ? undefined : { generated, walked: interpret(parseSchema(schema).root, preview, new Map()) };
  if (key !== undefined) made.set(key, f);
  return f;
}

/** Both forms agree on `p`; the generated code's violations, or undefined when the schema does not compile. */
function same(p: Pair): ReturnType<ReturnType<typeof compile>['validate']> | undefined {
  const f = forms(p.schema);
  if (f === undefined) return undefined;
  expect(f.walked.isValid(p.data), p.what).toBe(f.generated.isValid(p.data));
  const violations = f.generated.validate(p.data);
  expect(f.walked.validate(p.data), p.what).toEqual(violations);
  return violations;
}

describe('the interpreter equals the generated code', () => {
  it('on every contract case (ours and the shared ones)', () => {
    const pairs = contractPairs();
    expect(pairs.length).toBeGreaterThan(100);
    for (const p of pairs) same(p);
  });

  it('on every JSON-Schema-Test-Suite draft-07 case', () => {
    const pairs = suitePairs();
    expect(pairs.length).toBeGreaterThan(250);
    for (const p of pairs) same(p);
  });

  it(`on a generated corpus (${RUNS} schemas × values)`, () => {
    const data = fc.oneof(
      fc.constantFrom(...VALUES),
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c', 'a/b', '~t', 'x'), fc.jsonValue({ maxDepth: 2 })),
    );
    fc.assert(
      fc.property(rootArb, fc.array(data, { minLength: 1, maxLength: 6 }), (schema, values) => {
        for (const d of values) same({ what: JSON.stringify({ schema, d }), schema, data: d });
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('the interpreter words personal data as the generated code does', () => {
  it('on 400 schemas that mark it (every marker shape, under every keyword)', () => {
    const pairs = markedPairs(400, 3505);
    const worded = pairs.filter((p) => same(p)?.some((v) => / got an? (negative )?(integer|number)$/.test(v.message)));
    expect(worded.length).toBeGreaterThan(20);
  });
});

describe('compile() under node --disallow-code-generation-from-strings', () => {
  it("gives the contract's verdicts, and the generated code's violations and warnings", () => {
    const pairs = contractPairs();
    const script = `
      import { compile } from ${JSON.stringify(join(ROOT, 'dist', 'validator', 'index.js'))};
      let evalRefused = false;
      try { new Function('return 1'); } catch { evalRefused = true; }
      const pairs = JSON.parse(process.argv[1]);
      const out = pairs.map((p) => {
        try {
          const c = compile(p.schema, { onWarning: () => {} });
          const data = p.text === undefined ? p.data : JSON.parse(p.text);
          return { valid: c.isValid(data), violations: c.validate(data), warnings: c.warnings };
        } catch (err) { return { error: err.message }; }
      });
      console.log(JSON.stringify({ evalRefused, out }));
    `;
    const r = spawnSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script, JSON.stringify(pairs)],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    expect(r.stderr).toBe('');
    const got = JSON.parse(r.stdout) as {
      evalRefused: boolean;
      out: Array<{ valid?: boolean; violations?: unknown; warnings?: unknown; error?: string }>;
    };
    expect(got.evalRefused).toBe(true); // the flag really refused code generation
    pairs.forEach((p, i) => {
      const o = got.out[i]!;
      expect(o.error, p.what).toBeUndefined();
      expect(o.valid, p.what).toBe(p.valid);
      const c = compile(p.schema, { onWarning: () => {} });
      expect(o.violations, p.what).toEqual(c.validate(p.data));
      expect(o.warnings, p.what).toEqual(JSON.parse(JSON.stringify(c.warnings)));
    });
  });
});
