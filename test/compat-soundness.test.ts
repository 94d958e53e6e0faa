import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSchemas } from '../src/compat/index.js';
import { compile, isSchemaObject, parsePointer, parseSchema, type SchemaNode } from '../src/validator/index.js';
import { NAMES, TYPES, VALUES, applyEdits, editsArb, rootArb } from './helpers/compat-arbitraries.js';

/*
 * Soundness: whenever compat says compatible, no value valid under the schema that must keep its
 * data (old for backward, new for forward) is rejected by the other one. The only exception is the
 * registry policy that adding an optional property is compatible even on an open schema, where
 * data could already carry that name with any value; a violation is excused only when its data
 * path passes through such a name (see `policyExcused`).
 */

const quiet = { onWarning: (): void => {} };

// ---------------------------------------------------------------- data generation

/** Data randomness comes from fast-check too, so a counterexample's data is reproduced and shrunk. */
const unit = fc.integer({ min: 0, max: 0xffff });
const rngFrom = (g: fc.GeneratorValue): Rng => () => g(() => unit) / 0x10000;

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

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

const ANY: SchemaNode = { pointer: '', always: true };

/**
 * True when the violation's data path passes through a property name that `src` left to an open
 * schema (additionalProperties absent or `true`) and `tgt` declares (with a schema other than
 * `false`, which compat compares): registry policy.
 */
function policyExcused(src: SchemaNode, tgt: SchemaNode, data: unknown, instancePath: string): boolean {
  let s = src;
  let t = tgt;
  let d = data;
  for (const token of parsePointer(instancePath)) {
    if (Array.isArray(d)) {
      s = s.items ?? ANY;
      t = t.items ?? ANY;
      d = d[Number(token)];
    } else if (isSchemaObject(d)) {
      const sp = s.properties?.find(([n]) => n === token)?.[1];
      const tp = t.properties?.find(([n]) => n === token)?.[1];
      const open = s.additional === undefined || s.additional.always === true;
      if (sp === undefined && tp !== undefined && tp.always !== false && open) return true;
      s = sp ?? s.additional ?? ANY;
      t = tp ?? t.additional ?? ANY;
      d = d[token];
    } else {
      return false;
    }
  }
  return false;
}

const trivial = (d: unknown): boolean =>
  (Array.isArray(d) && d.length === 0) || (isSchemaObject(d) && Object.keys(d).length === 0);

// ---------------------------------------------------------------- the properties

const RUNS = 10_000;

/**
 * `confluent`: Confluent's content-model rules leave nothing to policy that data could show (a
 * property added to an open model breaks), so no violation is excused there.
 */
function soundness(direction: 'backward' | 'forward', seed: number, policy: 'bqschema' | 'confluent' = 'bqschema', runs = RUNS): void {
  let compatibleRuns = 0;
  let checkedRuns = 0;
  let excused = 0;
  fc.assert(
    fc.property(rootArb, editsArb, fc.gen(), (oldSchema, edits, g) => {
      const newSchema = applyEdits(oldSchema, edits);
      const result = compareSchemas(oldSchema, newSchema, { mode: direction, policy, witnesses: false });
      if (!result.compatible) {
        // full breaks whenever either direction does.
        if (compareSchemas(oldSchema, newSchema, { mode: 'full', policy, witnesses: false }).compatible) {
          throw new Error(`full is compatible but ${direction} is not: ${JSON.stringify([oldSchema, newSchema])}`);
        }
        return;
      }
      compatibleRuns++;
      // `keep` is the schema whose valid data must stay valid under `other`.
      const [keep, other] = direction === 'backward' ? [oldSchema, newSchema] : [newSchema, oldSchema];
      const keepNode = parseSchema(keep).root;
      const otherNode = parseSchema(other).root;
      const isValid = compile(keep, quiet).isValid;
      const validate = compile(other, quiet).validate;
      const rng = rngFrom(g);
      let nonTrivial = false;
      for (let i = 0; i < 8; i++) {
        const data = valueFor(keepNode, rng, 0);
        if (!isValid(data)) continue;
        const violations = validate(data);
        const real = policy === 'confluent'
          ? violations
          : violations.filter((v) => !policyExcused(keepNode, otherNode, data, v.instancePath));
        if (violations.length > real.length) excused++;
        if (real.length > 0) {
          throw new Error(
            `compat said ${direction}-compatible, but ${JSON.stringify(data)} is valid under ` +
              `${JSON.stringify(keep)} and not under ${JSON.stringify(other)}: ${JSON.stringify(real)}; ` +
              `changes ${JSON.stringify(result.changes)}`,
          );
        }
        if (!trivial(data)) nonTrivial = true;
      }
      if (nonTrivial) checkedRuns++;
    }),
    { numRuns: runs, seed },
  );
  // Not vacuous: many runs end in a compatible verdict, checked against real data.
  expect(compatibleRuns).toBeGreaterThan(runs * 0.15);
  expect(checkedRuns).toBeGreaterThan(runs * 0.1);
  // The policy exemption is exercised but is far from the whole story.
  expect(excused).toBeLessThan(checkedRuns);
}

describe('compat soundness (fast-check)', () => {
  it('backward-compatible ⇒ every value valid under old is valid under new', () => {
    soundness('backward', 20240601);
  });

  it('forward-compatible ⇒ every value valid under new is valid under old', () => {
    soundness('forward', 20240602);
  });

  it('the confluent policy is sound with no exemption, both directions', () => {
    soundness('backward', 20240603, 'confluent', 3000);
    soundness('forward', 20240604, 'confluent', 3000);
  });
});
