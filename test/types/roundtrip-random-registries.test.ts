import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../../src/types/index.js';
import { compile, hasOwn, isSchemaObject, jsonEqual } from '../../src/validator/index.js';
import { RawJson, type RoundTripCase, type RoundTripResult } from '../helpers/roundtrip-common.js';
import { roundTripPhp } from '../helpers/roundtrip-php.js';
import { checkPythonLiterals, roundTripPython } from '../helpers/roundtrip-python.js';
import { literal, typeCheck } from '../helpers/tsc.js';
import { registryArb, type GeneratedRegistry, type GeneratedUrn } from '../helpers/types-registries.js';

/*
 * Generated types compile and round-trip on registries nobody wrote by hand (docs/types.md,
 * "Proof"). Random registries over the ten keywords with hostile and colliding names, and random
 * valid data for each URN (helpers/types-registries.ts); for each language:
 *   - the module compiles: mypy --strict (Python), php (PHP: every file loaded, no warning),
 *     go vet + gofmt -l (Go), javac with the Jackson jars (Java), mcs (C#), tsc --strict (TypeScript);
 *   - every valid message, read with the language's standard JSON library through the generated
 *     types and written back, is JSON equal to what was read (integers written 1.0 or 1e2
 *     included) and valid under the schema;
 *   - a message with a wrong JSON type at a declared scalar property is refused: when read (Go,
 *     Java, C#, PHP), or by the type checker on the data written as a literal (Python's mypy,
 *     TypeScript's tsc), which also accepts every valid message.
 * Each toolchain starts once per batch of registries, not once per case. A fixed seed in
 * `npm test`; BQ_TYPES_RUNS=<registries> for more (shared with test/types/agree.test.ts),
 * BQ_TYPES_SEED=<seed> for another draw.
 */

const RUNS = Number(process.env.BQ_TYPES_RUNS ?? 40);
const SEED = Number(process.env.BQ_TYPES_SEED ?? 36_036);
/** Registries per toolchain run. */
const BATCH = 60;

const registries: GeneratedRegistry[] = fc.sample(registryArb, { seed: SEED, numRuns: RUNS });

type Runner = (cases: readonly RoundTripCase[]) => Promise<RoundTripResult[]>;

interface Item {
  registry: number;
  urn: GeneratedUrn;
}

const valueOf = (d: unknown): unknown => (d instanceof RawJson ? JSON.parse(d.text) : d);
const textOf = (d: unknown): string => (d instanceof RawJson ? d.text : literal(d));

function about(reg: number, u: GeneratedUrn, what: string): string {
  const line = `registry #${reg} (seed ${SEED}) ${JSON.stringify(u.urn)}: ${what}; schema ${JSON.stringify(u.schema)}`;
  return line.length > 1500 ? `${line.slice(0, 1500)}…` : line;
}

/** Every URN of every registry, in batches of BATCH registries. */
function batches(): Item[][] {
  const out: Item[][] = [];
  for (let i = 0; i < registries.length; i += BATCH) {
    out.push(registries.slice(i, i + BATCH).flatMap((r, k) => r.urns.map((urn) => ({ registry: i + k, urn }))));
  }
  return out;
}

interface Tally {
  modules: number;
  messages: number;
  wrong: number;
  problems: string[];
}

/**
 * How a language's output is judged: `same` says how what was written back differs from what was
 * read (undefined: it does not, under the language's null rule, docs/types.md); `cannotRead` says
 * why the language refuses a valid message on purpose (documented; undefined: it must read it).
 */
interface Judge {
  same: (schema: unknown, input: unknown, back: unknown) => string | undefined;
  cannotRead?: (schema: unknown, data: unknown) => string | undefined;
  /** Why the language cannot see a wrong type at `path` (documented; undefined: it must refuse the data). */
  cannotSee?: (schema: unknown, data: unknown, path: readonly string[]) => string | undefined;
}

/** Python, PHP: JSON equal, null kept apart from absent. */
const EXACT: Judge = { same: (_schema, input, back) => (jsonEqual(input, back) ? undefined : 'not equal') };

/** Runs a language's round trips and returns what went wrong (empty when all is well). */
async function roundTrips(run: Runner, refusesWrong: boolean, judge: Judge = EXACT): Promise<Tally> {
  const tally: Tally = { modules: 0, messages: 0, wrong: 0, problems: [] };
  for (const items of batches()) {
    const cases: RoundTripCase[] = items.map(({ registry, urn }) => ({
      registry: registries[registry]!.entries,
      urn: urn.urn,
      data: [...urn.valid, ...urn.wrong.map((w) => w.data)],
    }));
    const results = await run(cases);
    const failedModules = new Set<number>();
    results.forEach((result, i) => {
      const { registry, urn } = items[i]!;
      if (!result.compiled) {
        if (!failedModules.has(registry))
          tally.problems.push(about(registry, urn, `the module does not compile: ${result.error.slice(0, 600)}`));
        failedModules.add(registry);
        return;
      }
      const check = compile(urn.schema, { onWarning: () => {} });
      urn.valid.forEach((d, k) => {
        tally.messages++;
        const outcome = result.outcomes[k]!;
        const refusable = judge.cannotRead?.(urn.schema, valueOf(d));
        if (!outcome.ok) {
          if (refusable === undefined)
            tally.problems.push(about(registry, urn, `valid data ${textOf(d)} is refused: ${outcome.error.slice(0, 400)}`));
          return;
        }
        const differs = judge.same(urn.schema, valueOf(d), outcome.value);
        if (differs !== undefined)
          tally.problems.push(about(registry, urn, `valid data ${textOf(d)} comes back as ${outcome.text} (${differs})`));
        else if (!check.isValid(outcome.value))
          tally.problems.push(about(registry, urn, `valid data ${textOf(d)} comes back invalid: ${outcome.text}`));
      });
      urn.wrong.forEach((w, k) => {
        tally.wrong++;
        const outcome = result.outcomes[urn.valid.length + k]!;
        if (refusesWrong && outcome.ok && judge.cannotSee?.(urn.schema, w.data, w.path) === undefined)
          tally.problems.push(
            about(
              registry,
              urn,
              `wrong data (at ${w.path.map((p) => JSON.stringify(p)).join('.')}) ${literal(w.data)} is read and written as ${outcome.text}`,
            ),
          );
      });
    });
    tally.modules += new Set(items.map((i) => i.registry)).size;
  }
  return tally;
}

/** The data without the keys an open object does not declare (no TypedDict can say them: mypy refuses them in a literal). */
function declaredOnly(schema: unknown, v: unknown): unknown {
  if (!isSchemaObject(schema) || hasOwn(schema, 'enum') || hasOwn(schema, 'const')) return v;
  if (Array.isArray(v)) return v.map((x) => declaredOnly(schema.items, x));
  if (!isSchemaObject(v)) return v;
  const props = isSchemaObject(schema.properties) ? schema.properties : {};
  // Without properties, a dict of what additionalProperties says (or of anything).
  const free = Object.keys(props).length === 0;
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const value = hasOwn(props, k) ? declaredOnly(props[k], v[k]) : free ? declaredOnly(schema.additionalProperties, v[k]) : undefined;
    if (hasOwn(props, k) || free) Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
  }
  return o;
}

/** Names TypeScript gives every object (docs/types.md: an undeclared key with one of them takes its type from Object, not the index signature). */
const OBJECT_MEMBERS = new Set([
  'constructor',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__proto__',
]);
const holdsObjectMember = (v: unknown): boolean =>
  Array.isArray(v)
    ? v.some(holdsObjectMember)
    : isSchemaObject(v) && Object.keys(v).some((k) => OBJECT_MEMBERS.has(k) || holdsObjectMember(v[k]));

/**
 * What the Go, Java and C# generators' branch adds: each language's runner, and the null rule and
 * the documented refusals they are judged by (test/helpers/roundtrip-expect.ts), loaded when they
 * are in the tree.
 */
async function helper<T>(file: string, name: string): Promise<T | undefined> {
  const path = join(import.meta.dirname, '..', 'helpers', `${file}.ts`);
  if (!existsSync(path)) return undefined;
  const module = (await import(path)) as Record<string, T>;
  return module[name];
}

type Lang = 'go' | 'java' | 'csharp';
type SameUnderNullRule = (schema: unknown, input: unknown, back: unknown, lang: Lang) => string | undefined;
type CannotRead = (schema: unknown, data: unknown) => string | undefined;
type CannotSee = (schema: unknown, data: unknown, path: readonly string[], lang: Lang) => string | undefined;

function report(lang: string, tally: Tally, ms: number): void {
  console.info(
    `${lang}: ${registries.length} registries, ${tally.modules} modules, ${tally.messages} valid and ${tally.wrong} wrong messages in ${(ms / 1000).toFixed(1)} s; ${tally.problems.length} problems`,
  );
}

describe(`generated types on ${RUNS} random registries (seed ${SEED})`, { timeout: Math.max(120_000, RUNS * 10_000) }, () => {
  it('the generator draws what the property needs: every keyword, hostile names, valid and wrong data', () => {
    const text = JSON.stringify(registries.map((r) => r.entries));
    for (const k of [
      '"type"',
      '"properties"',
      '"required"',
      '"additionalProperties"',
      '"items"',
      '"enum"',
      '"const"',
      '"minLength"',
      '"maxLength"',
      '"minimum"',
    ]) {
      expect(text).toContain(k);
    }
    const urns = registries.flatMap((r) => r.urns);
    expect(urns.filter((u) => isSchemaObject(u.schema) && !hasOwn(u.schema, 'type')).length).toBeGreaterThan(0);
    expect(urns.reduce((n, u) => n + u.valid.length, 0)).toBeGreaterThan(RUNS);
    expect(urns.reduce((n, u) => n + u.wrong.length, 0)).toBeGreaterThan(RUNS / 4);
    expect(urns.some((u) => u.valid.some((d) => d instanceof RawJson && /\d(\.0|e0)\b/.test(d.text)))).toBe(true);
    // Every valid message is valid, every wrong one is not: the generator checks with the validator.
    for (const u of urns) {
      const check = compile(u.schema, { onWarning: () => {} });
      for (const d of u.valid) expect(check.isValid(valueOf(d))).toBe(true);
      for (const w of u.wrong) expect(check.isValid(w.data)).toBe(false);
    }
  });

  it('Python: mypy --strict passes, json round-trips every valid message, mypy refuses every wrong one and accepts every valid one', async () => {
    const start = Date.now();
    const tally = await roundTrips(roundTripPython, false);
    for (const items of batches()) {
      const cases: RoundTripCase[] = items.map(({ registry, urn }) => ({
        registry: registries[registry]!.entries,
        urn: urn.urn,
        data: [...urn.valid.map((d) => declaredOnly(urn.schema, valueOf(d))), ...urn.wrong.map((w) => declaredOnly(urn.schema, w.data))],
      }));
      const checked = await checkPythonLiterals(cases);
      checked.forEach((errors, i) => {
        const { registry, urn } = items[i]!;
        urn.valid.forEach((d, k) => {
          if (errors[k] !== null)
            tally.problems.push(about(registry, urn, `mypy refuses valid data ${literal(cases[i]!.data[k])}: ${errors[k]}`));
        });
        urn.wrong.forEach((w, k) => {
          if (errors[urn.valid.length + k] === null)
            tally.problems.push(
              about(registry, urn, `mypy accepts wrong data (at ${w.path.map((p) => JSON.stringify(p)).join('.')}) ${literal(w.data)}`),
            );
        });
      });
    }
    report('Python', tally, Date.now() - start);
    expect(tally.problems).toEqual([]);
  });

  it('PHP: every file loads, json_decode + fromArray + json_encode round-trip every valid message, a wrong type is refused', async () => {
    const start = Date.now();
    const tally = await roundTrips(roundTripPhp, true);
    report('PHP', tally, Date.now() - start);
    expect(tally.problems).toEqual([]);
  });

  it('TypeScript: tsc --strict passes, accepts every valid message and refuses every wrong one as a literal', () => {
    const start = Date.now();
    const problems: string[] = [];
    let messages = 0;
    registries.forEach((r, ri) => {
      const module = generateTypes(r.entries);
      const lines: Array<{ urn: GeneratedUrn; text: string; valid: boolean }> = [];
      for (const u of r.urns) {
        // An Object member's name under an index signature is typed by Object (docs/types.md): not asserted.
        for (const d of u.valid) if (!holdsObjectMember(valueOf(d))) lines.push({ urn: u, text: literal(valueOf(d)), valid: true });
        for (const w of u.wrong) if (!holdsObjectMember(w.data)) lines.push({ urn: u, text: literal(w.data), valid: false });
      }
      messages += lines.length;
      const first = module.split('\n').length;
      const source = module + lines.map((l, i) => `const x${i}: BqMessages[${literal(l.urn.urn)}] = ${l.text};`).join('\n') + '\n';
      const errors = new Map<number, string>();
      for (const d of typeCheck({ [`test/__types_roundtrip_${ri}.ts`]: source })) {
        const i = d.line - first;
        if (i < 0 || i >= lines.length)
          problems.push(`registry #${ri}: the TypeScript module does not compile: line ${d.line}: ${d.message}`);
        else errors.set(i, d.message);
      }
      lines.forEach((l, i) => {
        if (l.valid && errors.has(i)) problems.push(about(ri, l.urn, `tsc refuses valid data ${l.text}: ${errors.get(i)}`));
        if (!l.valid && !errors.has(i)) problems.push(about(ri, l.urn, `tsc accepts wrong data ${l.text}`));
      });
    });
    console.info(
      `TypeScript: ${registries.length} registries, ${messages} messages in ${((Date.now() - start) / 1000).toFixed(1)} s; ${problems.length} problems`,
    );
    expect(problems).toEqual([]);
  });

  for (const [lang, id, file, name] of [
    ['Go', 'go', 'roundtrip-go', 'roundTripGo'],
    ['Java', 'java', 'roundtrip-java', 'roundTripJava'],
    ['C#', 'csharp', 'roundtrip-csharp', 'roundTripCsharp'],
  ] as const) {
    it(`${lang}: the module compiles, its standard JSON library round-trips every valid message (under its null rule), a wrong type is refused`, async (ctx) => {
      const run = await helper<Runner>(file, name);
      const same = await helper<SameUnderNullRule>('roundtrip-expect', 'sameUnderNullRule');
      // They come with the Go, Java and C# generators' own branch (test/helpers/<file>.ts).
      if (run === undefined || same === undefined) return ctx.skip(`test/helpers/${file}.ts and roundtrip-expect.ts are not in this tree`);
      const judge: Judge = { same: (schema, input, back) => same(schema, input, back, id) };
      if (id === 'csharp') judge.cannotRead = await helper<CannotRead>('roundtrip-expect', 'csharpCannotRead');
      // Where a language documents that it cannot see a wrong type (a scalar its library coerces, an object it reads as a map).
      const unseen = await helper<CannotSee>('roundtrip-expect', 'wrongTypeUnseen');
      if (unseen !== undefined) judge.cannotSee = (schema, data, path) => unseen(schema, data, path, id);
      const start = Date.now();
      const tally = await roundTrips(run, true, judge);
      report(lang, tally, Date.now() - start);
      expect(tally.problems).toEqual([]);
    });
  }
});
