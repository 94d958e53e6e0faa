// Precompiled validators. `bqschema compile` writes one ES module of every URN's
// validator (src/compile/module.ts), which imports only `bqschema/standalone`. Here the
// module is imported under `node --disallow-code-generation-from-strings` (a child node, through a
// node_modules/bqschema link to this checkout, so the package's own exports resolve it) and must
// give compile()'s verdicts, violations (instancePath, schemaPath, keyword, message, in order) and
// warnings on every contract case, every JSON-Schema-Test-Suite draft-07 case and a generated
// corpus; then the command on the example registry, its --check, and its output as a Provider.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, SchemaError } from '../../src/validator/index.js';
import { standaloneModule } from '../../src/compile/module.js';
import { valueLiteral } from '../../src/validator/codegen.js';
import { rootArb, VALUES } from '../helpers/compat-arbitraries.js';
import { contractPairs, suitePairs, type Pair } from '../helpers/validator-cases.js';
import { markedPairs } from '../helpers/pii.js';
import { bq, ROOT } from '../helpers/cli.js';

function generatedPairs(): Pair[] {
  const data = fc.oneof(
    fc.constantFrom(...VALUES),
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'a/b', '~t', 'x', '__proto__'), fc.jsonValue({ maxDepth: 2 })),
  );
  const out: Pair[] = [];
  fc.sample(fc.tuple(rootArb, fc.array(data, { minLength: 1, maxLength: 4 })), { numRuns: 600, seed: 24 }).forEach(
    ([schema, values], i) => {
      for (const d of values)
        out.push({ what: `generated #${i}: ${JSON.stringify({ schema, d })}`, schema, data: d, text: JSON.stringify(d) });
    },
  );
  return out;
}

let work = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-standalone-'));
  // `bqschema/standalone` resolves through this checkout's package.json exports, as in a project.
  mkdirSync(join(work, 'node_modules'));
  symlinkSync(ROOT, join(work, 'node_modules', 'bqschema'));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Answer {
  valid: boolean;
  violations: unknown;
  warnings: unknown;
}

/** Imports `file` (in `work`) under the flag and runs each case's data through its URN's validator. */
function runStandalone(file: string, cases: Array<{ urn: string; text: string }>): { evalRefused: boolean; out: Answer[] } {
  const casesFile = join(work, `${file}.cases.json`);
  writeFileSync(casesFile, JSON.stringify(cases));
  const script = `
    import { readFileSync } from 'node:fs';
    let evalRefused = false;
    try { new Function('return 1'); } catch { evalRefused = true; }
    const { validators } = await import(${JSON.stringify(join(work, file))});
    const cases = JSON.parse(readFileSync(${JSON.stringify(casesFile)}, 'utf8'));
    const out = cases.map(({ urn, text }) => {
      const v = validators.get(urn);
      const data = JSON.parse(text);
      return { valid: v.isValid(data), violations: v.validate(data), warnings: v.warnings };
    });
    console.log(JSON.stringify({ evalRefused, out }));
  `;
  const r = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
    cwd: work,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as { evalRefused: boolean; out: Answer[] };
}

/** One module over every distinct schema of `pairs`; each pair's answer equals compile()'s. */
function differential(name: string, pairs: Pair[]): void {
  const urns = new Map<string, string>();
  // compile() once a URN (with its URN, which its messages name), as the module holds one validator a URN.
  const compiled = new Map<string, ReturnType<typeof compile>>();
  const entries: Array<{ urn: string; schema: unknown }> = [];
  const cases: Array<{ urn: string; text: string; pair: Pair }> = [];
  let refused = 0;
  for (const p of pairs) {
    const key = JSON.stringify(p.schema);
    let urn = urns.get(key);
    if (urn === undefined) {
      // Hostile URNs: __proto__ first, then every other one with quotes, a line break, a script
      // end, a line separator and a comment end.
      const n = entries.length;
      const fresh = n === 0 ? '__proto__' : n % 2 === 1 ? `urn:"q'${n}\n</script>\u2028*/` : `urn:t:${n}`;
      urn = fresh;
      let compiles = true;
      try {
        compiled.set(fresh, compile(p.schema, { urn: fresh, onWarning: () => {} }));
      } catch (err) {
        expect(err, p.what).toBeInstanceOf(SchemaError);
        compiles = false;
      }
      // A schema compile() refuses is refused by the module writer too, naming its URN.
      if (!compiles) {
        expect(() => standaloneModule([{ urn: fresh, schema: p.schema }]), p.what).toThrow(SchemaError);
        refused++;
        urns.set(key, '');
        continue;
      }
      urns.set(key, urn);
      entries.push({ urn, schema: p.schema });
    }
    if (urn !== '') cases.push({ urn, text: p.text ?? JSON.stringify(p.data), pair: p });
  }
  const file = `${name}.js`;
  writeFileSync(join(work, file), standaloneModule(entries));
  const got = runStandalone(file, cases);
  expect(got.evalRefused).toBe(true); // the flag really refused code generation
  expect(got.out).toHaveLength(cases.length);
  cases.forEach(({ urn, text, pair }, i) => {
    const c = compiled.get(urn)!;
    const data = JSON.parse(text) as unknown;
    const o = got.out[i]!;
    expect(o.valid, pair.what).toBe(c.isValid(data));
    if (pair.valid !== undefined) expect(o.valid, pair.what).toBe(pair.valid);
    expect(o.violations, pair.what).toEqual(c.validate(data));
    expect(o.warnings, pair.what).toEqual(JSON.parse(JSON.stringify(c.warnings)));
  });
  expect(refused).toBeLessThan(entries.length);
}

describe('the standalone module equals compile(), imported under --disallow-code-generation-from-strings', { timeout: 120_000 }, () => {
  it("on every contract case (the shared ones and ours), with the contract's verdicts", () => {
    const pairs = contractPairs();
    expect(pairs.length).toBeGreaterThan(100);
    differential('contract', pairs);
  });

  it('on every JSON-Schema-Test-Suite draft-07 case', () => {
    const pairs = suitePairs();
    expect(pairs.length).toBeGreaterThan(250);
    differential('suite', pairs);
  });

  it('on a generated corpus (600 schemas × values)', () => {
    differential('generated', generatedPairs());
  });

  it('on schemas that mark personal data: the same redacted wording (300 schemas × values)', () => {
    const pairs = markedPairs(300, 35);
    differential('marked', pairs);
    // The corpus has marked values to word: compile() redacts some of them.
    expect(
      pairs.some((p) =>
        compile(p.schema, { onWarning: () => {} })
          .validate(p.data)
          .some((v) => / got an? (negative )?(integer|number)$/.test(v.message) || v.instancePath.includes('/***')),
      ),
    ).toBe(true);
  });

  it('on constants JSON cannot write and on keys JSON.parse must keep own: ±Infinity, __proto__, large enums', () => {
    const proto = JSON.parse('{"__proto__": {"a": 1}}') as unknown;
    const big = Array.from({ length: 40 }, (_, i) => ({ n: i }));
    const pairs: Pair[] = (
      [
        { what: 'const [Infinity]', schema: { const: [Infinity, 1] }, text: '[1e400, 1]' },
        { what: 'const [Infinity] vs null', schema: { const: [Infinity, 1] }, text: '[null, 1]' },
        { what: 'minimum -Infinity', schema: { minimum: -Infinity, enum: [-Infinity, 1] }, text: '-1e400' },
        { what: 'const own __proto__', schema: { const: proto }, text: '{"__proto__": {"a": 1}}' },
        { what: 'const own __proto__ vs empty', schema: { const: proto }, text: '{}' },
        { what: 'enum of 40 objects', schema: { enum: big }, text: '{"n": 39}' },
        { what: 'enum of 40 objects, miss', schema: { enum: big }, text: '{"n": 40}' },
        { what: 'enum of 20 primitives', schema: { enum: [...Array.from({ length: 19 }, (_, i) => i), 'x'] }, text: '"x"' },
        {
          what: 'names with quotes and separators',
          schema: JSON.parse(
            '{"type":"object","required":["a\\"b","\\u2028","</script>"],"properties":{"__proto__":{"type":"string"}},"additionalProperties":false}',
          ),
          text: '{"a\\"b":1,"\\u2028":2,"__proto__":3}',
        },
      ] as Array<{ what: string; schema: unknown; text: string }>
    ).map((p) => ({ ...p, data: JSON.parse(p.text) as unknown }));
    differential('literals', pairs);
  });
});

describe('valueLiteral, the one builder of module constants', () => {
  it('writes JSON values as JSON text in a string literal, and others as exact literals', () => {
    expect(valueLiteral({ a: [1, 'x'] }).source).toBe('J("{\\"a\\":[1,\\"x\\"]}")');
    expect(valueLiteral(new Set([1, 'a'])).source).toBe('new Set(J("[1,\\"a\\"]"))');
    expect(valueLiteral([Infinity, { __proto__: null, x: -Infinity }]).source).toBe('[Infinity,{["x"]:(-Infinity)}]');
    expect(valueLiteral('\u2028"').source).toBe('"\\u2028\\""');
    expect(valueLiteral(Number.NaN).source).toBe('NaN');
  });
  it('refuses what is not JSON (an instance, a function, undefined)', () => {
    expect(() => valueLiteral(new Date(0))).toThrow(TypeError);
    expect(() => valueLiteral(() => 1)).toThrow(TypeError);
    expect(() => valueLiteral(undefined)).toThrow(TypeError);
  });
});

describe('bqschema compile on the example registry', { timeout: 60_000 }, () => {
  const registry = join(ROOT, 'registry.example.json');

  it("writes a module whose validators and provider give every example message compile()'s answer, without code generation", async () => {
    const out = join(work, 'example-validators.js');
    const r = await bq(['compile', '--registry', registry, '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Wrote ${out}: 4 validators\n`);
    const dirs = ['valid', 'invalid'].map((d) => join(ROOT, 'examples', 'messages', d));
    // Every envelope of the examples: the .json files and each NDJSON line that parses to one.
    const texts = dirs.flatMap((d) =>
      readdirSync(d).flatMap((f) => {
        const text = readFileSync(join(d, f), 'utf8');
        return f.endsWith('.json') ? [text] : f.endsWith('.ndjson') ? text.split('\n') : [];
      }),
    );
    const messages = texts.flatMap((t) => {
      try {
        const m = JSON.parse(t) as { job?: unknown; data: unknown };
        return typeof m.job === 'string' ? [m as { job: string; data: unknown }] : [];
      } catch {
        return [];
      }
    });
    expect(messages.length).toBeGreaterThan(8);
    const script = `
      import { check, wrap } from 'bqschema';
      import { validators, provider } from ${JSON.stringify(out)};
      const messages = JSON.parse(process.argv[1]);
      const handled = wrap(provider, async () => 'ok', { unknownUrn: 'reject', onWarning: () => {} });
      const out = [];
      for (const m of messages) {
        const verdict = await handled(m).then(() => 'ok', (e) => e.code);
        out.push({ urns: [...validators.keys()], violations: check(provider, m.job, m.data), verdict, frozen: validators.has(m.job) && Object.isFrozen(validators.get(m.job)) });
      }
      console.log(JSON.stringify(out));
    `;
    const run = spawnSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script, JSON.stringify(messages)],
      { cwd: work, encoding: 'utf8' },
    );
    expect(run.stderr).toBe('');
    const got = JSON.parse(run.stdout) as Array<{ urns: string[]; violations: unknown[]; verdict: string; frozen: boolean }>;
    const manifest = JSON.parse(readFileSync(registry, 'utf8')) as { schemas: Array<{ urn: string }> };
    const { DirProvider, check, wrap } = await import('../../src/index.js');
    type Envelope = import('../../src/index.js').Envelope;
    const reference = new DirProvider(registry, { onWarning: () => {} });
    const handled = wrap(reference, async () => 'ok', { unknownUrn: 'reject', onWarning: () => {} });
    const verdicts = await Promise.all(
      messages.map((m) =>
        handled(m as Envelope).then(
          () => 'ok',
          (e: { code: string }) => e.code,
        ),
      ),
    );
    expect(new Set(verdicts)).toEqual(new Set(['ok', 'BQ_INVALID_PAYLOAD', 'BQ_UNKNOWN_URN', 'BQ_INVALID_ENVELOPE']));
    let invalid = 0;
    messages.forEach((m, i) => {
      const o = got[i]!;
      expect(o.urns).toEqual(manifest.schemas.map((s) => s.urn));
      const expected = check(reference, m.job, m.data);
      expect(o.violations, m.job).toEqual(expected);
      const known = reference.urns().includes(m.job);
      expect(o.verdict, m.job).toBe(verdicts[i]);
      expect(o.frozen).toBe(known);
      if (expected.length > 0) invalid++;
    });
    expect(invalid).toBeGreaterThan(0);
    expect(invalid).toBeLessThan(messages.length);
  });

  it('--check: 0 when current, 1 with one line when out of date or missing, and it writes nothing', async () => {
    // The module the first test wrote with this registry, copied: compile -o is proven there.
    const out = join(work, 'checked.js');
    copyFileSync(join(work, 'example-validators.js'), out);
    const current = await bq(['compile', '--registry', registry, '-o', out, '--check']);
    expect([current.code, current.stdout, current.stderr]).toEqual([0, `${out} is up to date (4 validators)\n`, '']);
    writeFileSync(out, readFileSync(out, 'utf8').replace('maxLength', 'maxLengtH'));
    const stale = await bq(['compile', '--registry', registry, '-o', out, '--check']);
    expect([stale.code, stale.stderr]).toEqual([
      1,
      `bqschema: ${out} is out of date; regenerate it with bqschema compile --registry ${registry} -o ${out}\n`,
    ]);
    expect(readFileSync(out, 'utf8')).toContain('maxLengtH');
    const missing = await bq(['compile', '--registry', registry, '-o', join(work, 'none.js'), '--check']);
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `bqschema: ${join(work, 'none.js')} does not exist; generate it with bqschema compile --registry ${registry} -o ${join(work, 'none.js')}\n`,
    ]);
    const noFile = await bq(['compile', '--registry', registry, '--check']);
    expect([noFile.code, noFile.stderr]).toEqual([2, 'bqschema: --check compares a file: give it with -o <file>\n']);
  });

  it('stdout without -o is the same module', async () => {
    const r = await bq(['compile', '--registry', registry]);
    expect(r.code).toBe(0);
    const out = join(work, 'example-validators.js');
    expect(r.stdout).toBe(readFileSync(out, 'utf8'));
  });

  it('a module written for another runtime version refuses to load, saying to write it again', () => {
    const file = join(work, 'old.js');
    writeFileSync(file, readFileSync(join(work, 'example-validators.js'), 'utf8').replace('const R = 1;', 'const R = 0;'));
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(file)})`], {
      cwd: work,
      encoding: 'utf8',
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      'this validators module was written for bqschema/standalone runtime 0, and this bqschema has runtime 1: write it again with bqschema compile',
    );
  });
});
