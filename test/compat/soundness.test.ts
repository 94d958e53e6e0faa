import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSchemas, type Change, type ComparingLevel, type CompatPolicy, type UrnReport } from '../../src/compat/index.js';
import { sunsetRemovals } from '../../src/compat/registry.js';
import { checkTransitive, type PastVersion } from '../../src/compat/transitive.js';
import { dayNumber, type ManifestEntry } from '../../src/registry/index.js';
import { canonicalKey } from '../../src/validator/equality.js';
import { compile, hasOwn, isSchemaObject, parsePointer, parseSchema, type SchemaNode } from '../../src/validator/index.js';
import { preview } from '../../src/validator/compile.js';
import { interpret } from '../../src/validator/interpret.js';
import { NAMES, TYPES, VALUES, applyEdits, editsArb, rootArb, type Schema } from '../helpers/compat-arbitraries.js';

/*
 * Soundness: whenever compat says compatible, no payload refutes it. Backward: nothing valid under
 * the old schema is rejected by the new one; forward: nothing valid under the new one is rejected
 * by the old one; full: neither. Every mode is checked under both policies, on random schema pairs
 * over the ten keywords, with two searches for a refuting payload: data shaped like the schema that
 * keeps its data (`valueFor`), and data aimed at the edges of the other schema (`aimedAt`: values
 * just past its bounds, outside its enum, of a type it lacks, under names only it declares), which
 * is what finds a property whose constraint is dropped.
 *
 * Only a policy choice may be refuted: adding an optional property to an open model is compatible
 * by the bqschema policy, backward (data may already carry the name with any value), and a
 * property required on one side only, declaring a default there, is compatible by the confluent
 * policy either way round (Confluent's REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED; no validator applies
 * a default). Each such refutation must be named by the verdict: a change marked `policyChoice`,
 * whose `affected` payload the validators confirm.
 *
 * A property the old manifest deprecated, removed on or after its sunset, is no longer breaking by
 * policy (compat --against): with every top-level name deprecated past its sunset, an excused
 * removal must never be refuted by a payload either (a closed model, a constrained
 * additionalProperties or, forward, a typed property keeps it breaking), against the ref and against
 * every earlier version of a transitive window. BQ_COMPAT_SUNSET_RUNS=<n> runs more pairs per mode.
 *
 * BQ_COMPAT_RUNS=<n> runs more pairs per mode and policy; BQ_COMPAT_SEED=<n> another seed (a
 * failure prints the seed and the pair).
 *
 * Transitive windows (compat --transitive): a chain of versions, each a few edits of the one
 * before, and a new schema; a payload valid under ANY earlier version of the window that the new
 * schema rejects (backward; forward the other way round) must fail the URN, unless the comparison
 * with that version names it a policy choice; and each break reported against an earlier version
 * carries a witness the validators confirm against that version. BQ_COMPAT_TRANSITIVE_RUNS=<n>
 * runs more windows.
 */

const quiet = { onWarning: (): void => {} };
const RUNS = Number(process.env['BQ_COMPAT_RUNS'] ?? 2000);
const SEED = Number(process.env['BQ_COMPAT_SEED'] ?? 20240601);
/** Payloads tried per compatible direction: half shaped like the schema, half aimed at the other. */
const TRIES = 12;

// ---------------------------------------------------------------- data generation

/**
 * Data randomness: a small generator (mulberry32) seeded by fast-check, one seed per pair, so a
 * counterexample's data is reproduced with its pair. Drawing each number through fc.gen() instead
 * (a record of every draw, for shrinking) was most of the search's time and garbage.
 */
const seedArb = fc.noShrink(fc.noBias(fc.integer()));
function rngFrom(seed: number): Rng {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

const ANY: SchemaNode = { pointer: '', always: true };

/** The node that governs property `name` of an object under `node` (declared, else additionalProperties). */
function governing(node: SchemaNode, name: string): SchemaNode {
  if (node.always !== undefined) return node;
  return node.properties?.find(([n]) => n === name)?.[1] ?? node.additional ?? ANY;
}

function randomValue(rng: Rng, depth: number): unknown {
  const r = rng();
  if (depth > 2 || r < 0.6) return structuredClone(pick(rng, VALUES));
  if (r < 0.8) {
    const o: Record<string, unknown> = {};
    for (const n of NAMES) if (rng() < 0.3) o[n] = randomValue(rng, depth + 1);
    return o;
  }
  return Array.from({ length: Math.floor(rng() * 3) }, () => randomValue(rng, depth + 1));
}

/** A value shaped like `node` wants (usually valid under it, sometimes deliberately off). */
function valueFor(node: SchemaNode, rng: Rng, depth: number): unknown {
  if (node.always !== undefined || rng() < 0.05) return randomValue(rng, depth);
  if (node.enum && node.enum.length > 0 && rng() < 0.8) return structuredClone(pick(rng, node.enum));
  if (node.hasConst && rng() < 0.8) return structuredClone(node.constValue);
  const type = pick(rng, node.types ?? TYPES);
  switch (type) {
    case 'string': {
      const lo = Math.max(node.minLength ?? 0, 0);
      const hi = Math.max(Math.min(node.maxLength ?? lo + 3, lo + 4), lo);
      const len = lo + Math.floor(rng() * (hi - lo + 1));
      return Array.from({ length: len }, () => pick(rng, ['a', 'b', '\u{1F600}'])).join('');
    }
    case 'integer':
      return (node.minimum === undefined ? -2 : Math.ceil(node.minimum)) + Math.floor(rng() * 4);
    case 'number':
      return (node.minimum ?? -2) + pick(rng, [0, 0.5, 1, 1.25, 3]);
    case 'boolean':
      return rng() < 0.5;
    case 'null':
      return null;
    case 'array':
      if (depth > 3) return [];
      return Array.from({ length: Math.floor(rng() * 3) }, () =>
        node.items ? valueFor(node.items, rng, depth + 1) : randomValue(rng, depth + 1),
      );
    default: {
      const o: Record<string, unknown> = {};
      if (depth > 3) return o;
      const props = new Map(node.properties ?? []);
      for (const name of NAMES) {
        const declared = props.get(name);
        const wanted = node.required?.includes(name) ? 0.95 : declared ? 0.6 : 0.25;
        if (rng() >= wanted) continue;
        const governing = declared ?? node.additional;
        o[name] = governing ? valueFor(governing, rng, depth + 1) : randomValue(rng, depth + 1);
      }
      return o;
    }
  }
}

/** One value of each JSON type, to try where a schema admits only some types. */
const ONE_OF_EACH: readonly unknown[] = [null, true, 0, 0.5, '', [], {}];

/** Values at and just past `node`'s own keywords: what a node like it is most likely to reject. */
function edges(node: SchemaNode): unknown[] {
  const out: unknown[] = [...ONE_OF_EACH];
  if (node.enum) for (const v of node.enum) out.push(v, typeof v === 'number' ? v + 1 : typeof v === 'string' ? `${v}b` : null);
  if (node.hasConst) out.push(node.constValue);
  if (node.minimum !== undefined) {
    const m = node.minimum;
    out.push(m, m - 0.5, Math.ceil(m) - 1, Math.ceil(m), m + 0.5);
  }
  for (const bound of [node.minLength, node.maxLength]) {
    if (bound === undefined) continue;
    const n = Math.max(Math.trunc(bound), 0);
    for (const len of [n - 1, n, n + 1]) if (len >= 0) out.push('a'.repeat(len), '\u{1F600}'.repeat(len));
  }
  return out;
}

/**
 * Checkers for the nodes of one schema: the validator's own interpreter (its no-codegen path) run
 * on the parsed node, so the search is steered by what is enforced without compiling every
 * sub-schema. Only steering: every payload is judged by compiled validators of the whole schemas.
 */
class Checkers {
  private readonly cache = new WeakMap<SchemaNode, (v: unknown) => boolean>();
  of(node: SchemaNode): (v: unknown) => boolean {
    if (node.always === true) return () => true;
    if (node.always === false) return () => false;
    let fn = this.cache.get(node);
    if (fn === undefined) {
      fn = interpret(node, preview, new Map()).isValid;
      this.cache.set(node, fn);
    }
    return fn;
  }
}

/**
 * A value `keep` accepts that `other` may well reject: at each place, a value at `other`'s edges
 * that `keep`'s validator accepts and `other`'s rejects when there is one, else one shaped like
 * `keep`; objects carry every name either side declares (names only `other` declares too), arrays
 * a few items, each aimed the same way.
 */
function aimedAt(keep: SchemaNode, other: SchemaNode, k: Checkers, o: Checkers, rng: Rng, depth: number): unknown {
  const keepOk = k.of(keep);
  const otherOk = o.of(other);
  if (rng() < 0.5) {
    const hits = [...edges(other), ...edges(keep)].filter((v) => keepOk(v) && !otherOk(v));
    if (hits.length > 0) return structuredClone(pick(rng, hits));
  }
  const shaped = valueFor(keep, rng, depth);
  if (depth > 3 || shaped === null || typeof shaped !== 'object') return shaped;
  if (Array.isArray(shaped)) {
    const n = shaped.length > 0 ? shaped.length : 1;
    return Array.from({ length: n }, () => aimedAt(keep.items ?? ANY, other.items ?? ANY, k, o, rng, depth + 1));
  }
  const obj = shaped as Record<string, unknown>;
  const names = new Set([...(keep.properties ?? []), ...(other.properties ?? [])].map(([n]) => n));
  for (const n of other.required ?? []) names.add(n);
  for (const name of names) {
    if (rng() < 0.3 && !keep.required?.includes(name)) {
      delete obj[name];
      continue;
    }
    obj[name] = aimedAt(governing(keep, name), governing(other, name), k, o, rng, depth + 1);
  }
  return obj;
}

// ---------------------------------------------------------------- what may be refuted

interface Excuse {
  /** The change that must name the policy choice. */
  rule: 'property-added' | 'required-added' | 'required-removed';
  path: string;
  subject?: string;
}

/**
 * The policy choice a refutation falls under, if any. `keep` is the schema the data is valid
 * under, `other` the one that rejects it, `otherSchema` the latter's raw document (for `default`,
 * an annotation the node tree drops). bqschema, backward only: the data path passes through a
 * property name the old schema leaves to an open model and the new one declares. confluent,
 * either way round: a `required` of the rejecting schema, for a property that declares a default
 * there, which the keeping schema does not require (backward a required-added, forward a
 * required-removed: Confluent's REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED with the roles swapped).
 */
function policyChoice(
  policy: CompatPolicy,
  dir: 'backward' | 'forward',
  keepRoot: SchemaNode,
  otherRoot: SchemaNode,
  otherSchema: unknown,
  data: unknown,
  v: { instancePath: string; keyword: string },
): Excuse | undefined {
  let s = keepRoot;
  let t = otherRoot;
  let d = data;
  const tokens = parsePointer(v.instancePath);
  for (const token of tokens) {
    if (Array.isArray(d)) {
      s = s.always === undefined ? (s.items ?? ANY) : s;
      t = t.always === undefined ? (t.items ?? ANY) : t;
      d = d[Number(token)];
    } else if (isSchemaObject(d)) {
      const sp = s.always === undefined ? s.properties?.find(([n]) => n === token)?.[1] : undefined;
      const tp = t.always === undefined ? t.properties?.find(([n]) => n === token)?.[1] : undefined;
      const open = s.always === true || s.additional === undefined || s.additional.always === true;
      if (policy === 'bqschema' && dir === 'backward' && sp === undefined && tp !== undefined && tp.always !== false && open) {
        return { rule: 'property-added', path: tp.pointer };
      }
      s = governing(s, token);
      t = governing(t, token);
      d = d[token];
    } else {
      return undefined;
    }
  }
  if (policy === 'confluent' && v.keyword === 'required' && isSchemaObject(d) && t.always === undefined) {
    const missing = (t.required ?? []).filter((n) => !hasOwn(d as object, n) && !(s.always === undefined && s.required?.includes(n)));
    const withDefault = (n: string): boolean => {
      const p = t.properties?.find(([x]) => x === n)?.[1];
      return p !== undefined && declaresDefault(otherSchema, p.pointer);
    };
    const first = missing[0];
    if (first !== undefined && missing.every(withDefault)) {
      return { rule: dir === 'backward' ? 'required-added' : 'required-removed', path: `${t.pointer}/required`, subject: first };
    }
  }
  return undefined;
}

function declaresDefault(schema: unknown, pointer: string): boolean {
  let raw = schema;
  for (const t of parsePointer(pointer)) raw = isSchemaObject(raw) && hasOwn(raw, t) ? raw[t] : undefined;
  return isSchemaObject(raw) && hasOwn(raw, 'default');
}

// ---------------------------------------------------------------- the property

interface Tally {
  pairs: number;
  compatible: number;
  payloads: number;
  policyChoices: number;
  /** With `sunset`: removals no longer breaking because their sunset has passed. */
  excused?: number;
}

/** An old manifest entry that deprecates every name the arbitraries use, with a sunset long past. */
const SUNSET_ENTRY: ManifestEntry = {
  urn: 'urn:t:u',
  schema: 'u.json',
  index: 0,
  deprecatedProperties: new Map(NAMES.map((n) => [n, { since: '2025-01-01', sunset: '2026-01-01' }])),
};
const SUNSET_TODAY = dayNumber('2026-06-01');

/** The schema with each top-level property's schema replaced by `{}` (any value). */
function looseProperties(schema: Schema): Schema {
  if (!isSchemaObject(schema) || !isSchemaObject(schema.properties)) return schema;
  return { ...schema, properties: Object.fromEntries(Object.keys(schema.properties).map((k) => [k, {}])) };
}

/**
 * Data valid under `keep` that `other` rejects, found by either search; undefined when none is.
 * Payloads are judged by the validator's interpreter (test/validator/interpret.e2e.test.ts holds it to
 * the generated code on these same arbitraries; compiling two validators per pair cost most of a
 * run), and a refutation is confirmed by the compiled validators before it is reported.
 */
function refute(
  keep: unknown,
  other: unknown,
  rng: Rng,
  t: Tally,
): { data: unknown; violations: Array<{ instancePath: string; keyword: string }> } | undefined {
  const keepRoot = parseSchema(keep).root;
  const otherRoot = parseSchema(other).root;
  const k = new Checkers();
  const o = new Checkers();
  const isValid = k.of(keepRoot);
  const validate = interpret(otherRoot, preview, new Map()).validate;
  for (let i = 0; i < TRIES; i++) {
    const data = i % 2 === 0 ? valueFor(keepRoot, rng, 0) : aimedAt(keepRoot, otherRoot, k, o, rng, 0);
    if (!isValid(data)) continue;
    t.payloads++;
    const violations = validate(data);
    if (violations.length === 0) continue;
    if (!compile(keep as Schema, quiet).isValid(data) || compile(other as Schema, quiet).isValid(data)) {
      throw new Error(
        `the interpreter and the compiled validators disagree on ${JSON.stringify(data)} under ${JSON.stringify([keep, other])}`,
      );
    }
    return { data, violations };
  }
  return undefined;
}

/** The change a refutation must be excused by: marked a policy choice, with a confirmed payload valid under `keep`, rejected by `other`. */
function namedChoice(
  changes: readonly Change[],
  excuse: Excuse,
  keep: unknown,
  other: unknown,
  validUnder: 'old' | 'new',
): Change | undefined {
  const c = changes.find(
    (ch) =>
      ch.rule === excuse.rule &&
      ch.path === excuse.path &&
      !ch.breaking &&
      ch.policyChoice === true &&
      (excuse.subject === undefined || ch.subject !== undefined),
  );
  if (c === undefined || c.affected === undefined) return undefined;
  const ok =
    c.affected.validUnder === validUnder &&
    compile(keep as Schema, quiet).isValid(c.affected.payload) &&
    !compile(other as Schema, quiet).isValid(c.affected.payload);
  return ok ? c : undefined;
}

function soundness(mode: ComparingLevel, policy: CompatPolicy, seed: number, runs: number, sunset = false): Tally {
  const t: Tally = { pairs: 0, compatible: 0, payloads: 0, policyChoices: 0, excused: 0 };
  const run = fc.check(
    fc.property(rootArb, editsArb, seedArb, fc.boolean(), (drawn, edits, seed, loosen) => {
      t.pairs++;
      // With `sunset`, half the old schemas accept any value under their top-level properties: the
      // only removals `full` (and a forward check) can excuse.
      const oldSchema = sunset && loosen ? looseProperties(drawn) : drawn;
      const newSchema = applyEdits(oldSchema, edits);
      const compared = compareSchemas(oldSchema, newSchema, { level: mode, policy, witnesses: false });
      const changes = sunset ? sunsetRemovals(compared.changes, SUNSET_ENTRY, oldSchema, newSchema, mode, SUNSET_TODAY) : compared.changes;
      const result = { compatible: changes.every((c) => !c.breaking), changes };
      const excused = changes.filter((c, i) => compared.changes[i]!.breaking && !c.breaking).length;
      if (!result.compatible) return;
      t.excused! += excused;
      t.compatible++;
      // full breaks whenever either direction does.
      if (mode === 'full' && !sunset) {
        for (const dir of ['backward', 'forward'] as const) {
          if (!compareSchemas(oldSchema, newSchema, { level: dir, policy, witnesses: false }).compatible) {
            throw new Error(`full is compatible but ${dir} is not: ${JSON.stringify([oldSchema, newSchema])}`);
          }
        }
      }
      const rng = rngFrom(seed);
      const directions = mode === 'full' ? (['backward', 'forward'] as const) : [mode];
      for (const dir of directions) {
        const [keep, other] = dir === 'backward' ? [oldSchema, newSchema] : [newSchema, oldSchema];
        const found = refute(keep, other, rng, t);
        if (found === undefined) continue;
        const say = (why: string): Error =>
          new Error(
            `compat said ${mode}-compatible (policy ${policy}), but ${JSON.stringify(found.data)} is valid under ${dir === 'backward' ? 'old' : 'new'} ` +
              `and rejected by ${dir === 'backward' ? 'new' : 'old'} (${JSON.stringify(found.violations)}): ${why}; ` +
              `old ${JSON.stringify(oldSchema)}, new ${JSON.stringify(newSchema)}, changes ${JSON.stringify(result.changes)}`,
          );
        const keepRoot = parseSchema(keep).root;
        const otherRoot = parseSchema(other).root;
        for (const v of found.violations) {
          const excuse = policyChoice(policy, dir, keepRoot, otherRoot, other, found.data, v);
          if (excuse === undefined) throw say('no policy choice covers it');
          // The verdict names it: the change is a policy choice, with a payload the validators confirm.
          const named = compareSchemas(oldSchema, newSchema, { level: mode, policy });
          if (namedChoice(named.changes, excuse, keep, other, dir === 'backward' ? 'old' : 'new') === undefined) {
            throw say(`the ${excuse.rule} change at ${excuse.path} is not named a policy choice with its affected payload`);
          }
        }
        t.policyChoices++;
      }
    }),
    { numRuns: runs, seed },
  );
  if (run.failed) {
    const why = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
    throw new Error(`seed ${run.seed}, path ${run.counterexamplePath}: ${why}`);
  }
  // Not vacuous: many pairs end in a compatible verdict, checked against real payloads.
  expect(t.compatible).toBeGreaterThan(runs * 0.1);
  expect(t.payloads).toBeGreaterThan(t.compatible * 2);
  return t;
}

describe('compat soundness (fast-check): no payload refutes a compatible verdict', () => {
  const cases: Array<[ComparingLevel, CompatPolicy, number]> = [
    ['backward', 'bqschema', SEED],
    ['forward', 'bqschema', SEED + 1],
    ['full', 'bqschema', SEED + 2],
    ['backward', 'confluent', SEED + 3],
    ['forward', 'confluent', SEED + 4],
    ['full', 'confluent', SEED + 5],
  ];
  for (const [mode, policy, seed] of cases) {
    it(`${mode}, policy ${policy}: ${RUNS} pairs`, { timeout: Math.max(60_000, RUNS * 40) }, () => {
      const t = soundness(mode, policy, seed, RUNS);
      // Only backward (alone or as half of full) leaves room for a policy choice, and it is far from the whole story.
      if (mode === 'forward' && policy === 'bqschema') expect(t.policyChoices).toBe(0);
      expect(t.policyChoices).toBeLessThan(t.compatible / 2);
      console.log(
        `compat soundness ${mode}/${policy}: ${t.pairs} pairs, ${t.compatible} compatible, ${t.payloads} payloads tried, ${t.policyChoices} refuted only by a named policy choice`,
      );
    });
  }
});

const SUNSET_RUNS = Number(process.env['BQ_COMPAT_SUNSET_RUNS'] ?? 600);

describe('compat soundness (fast-check): a property removed past its sunset is excused only where no payload refutes it', () => {
  const cases: Array<[ComparingLevel, number]> = [
    ['backward', SEED + 20],
    ['full', SEED + 21],
    ['forward', SEED + 22],
  ];
  for (const [mode, seed] of cases) {
    it(
      `${mode}, policy bqschema: ${SUNSET_RUNS} pairs, every top-level name deprecated past its sunset`,
      { timeout: Math.max(60_000, SUNSET_RUNS * 40) },
      () => {
        const t = soundness(mode, 'bqschema', seed, SUNSET_RUNS, true);
        // Not vacuous: removals are excused, then payloads are tried against them (forward never breaks by policy alone).
        if (mode !== 'forward') expect(t.excused).toBeGreaterThan(0);
        console.log(
          `compat sunset soundness ${mode}: ${t.pairs} pairs, ${t.compatible} compatible, ${t.excused} removals excused, ${t.payloads} payloads tried`,
        );
      },
    );
  }
});

describe('the search finds what it is for (so a pass is not vacuous)', () => {
  // A property whose schema constrained it, removed from an open model: new producers may send any
  // value there, which old consumers reject. Only a search aimed at the removed schema finds it.
  it('finds a payload new producers may send that old consumers reject, for a removed constrained property', () => {
    const oldSchema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer', minimum: 3 } } };
    const newSchema = { type: 'object', properties: { a: { type: 'string' } } };
    const t: Tally = { pairs: 0, compatible: 0, payloads: 0, policyChoices: 0 };
    let found = 0;
    fc.assert(
      fc.property(seedArb, (seed) => {
        if (refute(newSchema, oldSchema, rngFrom(seed), t) !== undefined) found++;
      }),
      { numRuns: 50, seed: SEED },
    );
    expect(found).toBeGreaterThan(25);
  });

  it('finds old data carrying a name an open model now declares (the policy choice)', () => {
    const oldSchema = { type: 'object', properties: { a: { type: 'string' } } };
    const newSchema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } };
    const t: Tally = { pairs: 0, compatible: 0, payloads: 0, policyChoices: 0 };
    let found = 0;
    fc.assert(
      fc.property(seedArb, (seed) => {
        if (refute(oldSchema, newSchema, rngFrom(seed), t) !== undefined) found++;
      }),
      { numRuns: 50, seed: SEED },
    );
    expect(found).toBeGreaterThan(10);
  });
});

// ---------------------------------------------------------------- transitive windows

const TRANSITIVE_RUNS = Number(process.env['BQ_COMPAT_TRANSITIVE_RUNS'] ?? 300);

function transitiveSoundness(
  mode: 'backward' | 'forward',
  seed: number,
  runs: number,
  sunset = false,
): { windows: number; refuted: number; reported: number } {
  const policy: CompatPolicy = 'bqschema';
  const tally = { windows: 0, refuted: 0, reported: 0 };
  const t: Tally = { pairs: 0, compatible: 0, payloads: 0, policyChoices: 0 };
  const run = fc.check(
    fc.property(rootArb, fc.array(editsArb, { minLength: 2, maxLength: 4 }), seedArb, (drawn, steps, seed) => {
      tally.windows++;
      const first = sunset ? looseProperties(drawn) : drawn;
      const chain: Schema[] = [first];
      for (const edits of steps) chain.push(applyEdits(chain[chain.length - 1]!, edits));
      const now = chain.pop()!;
      const base = chain[chain.length - 1]!;
      const history: PastVersion[] = [];
      for (const value of chain) {
        const key = canonicalKey(value);
        if (!history.some((h) => h.key === key))
          history.push({
            version: history.length + 1,
            value,
            key,
            commit: `c${history.length + 1}`.padEnd(40, '0'),
            date: '2026-01-01T00:00:00Z',
          });
      }
      const compared = compareSchemas(base, now, { level: mode, policy, witnesses: false });
      const changes = sunset ? sunsetRemovals(compared.changes, SUNSET_ENTRY, base, now, mode, SUNSET_TODAY) : compared.changes;
      const direct = { compatible: changes.every((c) => !c.breaking), changes };
      const row: UrnReport = {
        urn: 'urn:t:u',
        status: direct.compatible ? 'compatible' : 'breaking',
        breaking: !direct.compatible,
        changes: direct.changes,
        problems: [],
      };
      checkTransitive([row], {
        history: new Map([['urn:t:u', history]]),
        now: () => now,
        base: () => base,
        level: mode,
        policy,
        taken: new Set(),
        ...(sunset ? { deprecations: { entry: () => SUNSET_ENTRY, today: SUNSET_TODAY } } : {}),
      });
      const rng = rngFrom(seed);
      const nowKey = canonicalKey(now);
      const baseKey = canonicalKey(base);
      for (const v of history) {
        if (v.key === nowKey || v.key === baseKey) continue;
        const [keep, other] = mode === 'backward' ? [v.value, now] : [now, v.value];
        const found = refute(keep, other, rng, t);
        if (found === undefined) continue;
        tally.refuted++;
        if (row.breaking) {
          tally.reported++;
          continue;
        }
        // Not failed: only a policy choice named by the comparison with that version may excuse it.
        const named = compareSchemas(v.value, now, { level: mode, policy });
        for (const violation of found.violations) {
          const excuse = policyChoice(policy, mode, parseSchema(keep).root, parseSchema(other).root, other, found.data, violation);
          if (excuse === undefined || namedChoice(named.changes, excuse, keep, other, mode === 'backward' ? 'old' : 'new') === undefined) {
            throw new Error(
              `${JSON.stringify(found.data)} is valid under ${mode === 'backward' ? `version ${v.version}` : 'the new schema'} and rejected by ${mode === 'backward' ? 'the new schema' : `version ${v.version}`}, and the URN passed: versions ${JSON.stringify(chain)}, new ${JSON.stringify(now)}`,
            );
          }
        }
      }
      // Each break against an earlier version: its witness is valid under that version and rejected by the new schema (backward), or the other way round.
      for (const c of row.changes) {
        if (c.earlier === undefined || !c.witness) continue;
        const v = history.find((h) => h.version === c.earlier!.version)!;
        const [valid, rejects] = c.witness.validUnder === 'old' ? [v.value, now] : [now, v.value];
        expect(compile(valid as Schema, quiet).isValid(c.witness.payload)).toBe(true);
        expect(compile(rejects as Schema, quiet).isValid(c.witness.payload)).toBe(false);
      }
    }),
    { numRuns: runs, seed },
  );
  if (run.failed) {
    const why = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
    throw new Error(`seed ${run.seed}, path ${run.counterexamplePath}: ${why}`);
  }
  return tally;
}

describe('compat soundness over transitive windows (fast-check): a payload of any earlier version the new schema rejects fails the URN', () => {
  for (const [mode, seed] of [
    ['backward', SEED + 10],
    ['forward', SEED + 11],
  ] as const) {
    it(`${mode}: ${TRANSITIVE_RUNS} windows of 2 to 4 versions`, { timeout: Math.max(60_000, TRANSITIVE_RUNS * 200) }, () => {
      const tally = transitiveSoundness(mode, seed, TRANSITIVE_RUNS);
      // Not vacuous: earlier versions are refuted, and reported.
      expect(tally.refuted).toBeGreaterThan(TRANSITIVE_RUNS * 0.1);
      expect(tally.reported).toBeGreaterThan(0);
      console.log(
        `compat transitive soundness ${mode}: ${tally.windows} windows, ${tally.refuted} earlier versions refuted by a payload, ${tally.reported} of them failing the URN`,
      );
    });
  }
  for (const [mode, seed] of [
    ['backward', SEED + 12],
    ['forward', SEED + 13],
  ] as const) {
    it(
      `${mode}, every top-level name deprecated past its sunset: ${TRANSITIVE_RUNS} windows`,
      { timeout: Math.max(60_000, TRANSITIVE_RUNS * 200) },
      () => {
        const tally = transitiveSoundness(mode, seed, TRANSITIVE_RUNS, true);
        expect(tally.refuted).toBeGreaterThan(0);
        console.log(
          `compat transitive sunset soundness ${mode}: ${tally.windows} windows, ${tally.refuted} earlier versions refuted by a payload, ${tally.reported} of them failing the URN`,
        );
      },
    );
  }
});
