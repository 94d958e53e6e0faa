import { hasOwn, type SchemaNode } from '../validator/index.js';
import { accepts } from '../validator/interpret.js';
import { ARRAY, BOOLEAN, FRACTION, INTEGER, NULL, OBJECT, STRING, typeKinds } from './kinds.js';
import type { RuleId } from './rules.js';
import { ANY, governing, type Side } from './side.js';

/*
 * Witnesses: a whole data document that one schema accepts and the other rejects, the proof of a
 * breaking change. A comparison records, for each breaking finding, the chain of node pairs from
 * the root to where it found the change; the prover searches a small set of values at the end of
 * the chain (boundary values of the two nodes, built from their keywords), wraps each in the
 * least the enclosing schemas need (their required properties), and returns the first document
 * the validator itself confirms: valid under one root, invalid under the other.
 *
 * The search itself reads the parsed nodes (`fits`), since compiling a validator for every sub-schema
 * it visits costs more than the comparison; only the final check of a whole document compiles.
 */

export type Via = 'root' | 'properties' | 'additionalProperties' | 'items';

/** One level of the path to a change: how data reaches it, and the node of each role there. */
export interface Step {
  via: Via;
  /** The property name, for `properties`. */
  key?: string;
  /** The node of the schema whose valid data must stay valid (`keep`). */
  s: SchemaNode;
  /** The node of the schema that must accept it (`other`). */
  t: SchemaNode;
}

/** A payload that proves a break: valid under the schema named, rejected by the other. */
export interface Witness {
  payload: unknown;
  validUnder: 'old' | 'new';
}

/**
 * Why a breaking change has no witness: a break by policy no data shows, none was found (rare), or
 * the comparison's witness budget was spent on earlier changes (WITNESS_BUDGET).
 */
export type WitnessReason = 'policy' | 'not-found' | 'budget';

export const NONE: unique symbol = Symbol('none');
/** The budget ran out during a search: this change and every later one go without a witness. */
export const SPENT: unique symbol = Symbol('spent');
type Found = unknown;

/**
 * Values the witness search of one comparison may build (a property or array element set, a
 * candidate tried), shared by every change and both directions. The search is bounded by this, not
 * by the schemas: a witness is the size of the object it fills, so 10,000 newly required names
 * would otherwise build 10,000 witnesses of 10,000 properties (quadratic time and output).
 */
export const WITNESS_BUDGET = 250_000;

/** What is left of WITNESS_BUDGET for one comparison. */
export class Budget {
  constructor(public left = WITNESS_BUDGET) {}
  get spent(): boolean {
    return this.left <= 0;
  }
  /** Takes `n` units; throws SpentError when there are none left. */
  take(n = 1): void {
    this.left -= n;
    if (this.left < 0) throw new SpentError();
  }
}

class SpentError extends Error {}

/** Reads of a whole-document check (Side.weight) per budget unit: a wide schema's checks stay within the budget, not n². */
const READS_PER_UNIT = 16;

/** Candidate values tried at the end of a chain before giving up. */
const MAX_TRIES = 200;
/** Nesting the search and the filler values go down to. */
const MAX_DEPTH = 6;
/** Strings longer than this are not built (a bound that high is not worth a payload). */
const MAX_STRING = 65_536;

/**
 * An own data property, even for `__proto__` (the one name assignment does not define). Other
 * names are assigned: defineProperty on an object of thousands of properties cost most of a run.
 */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

const freshKeys = new WeakMap<SchemaNode, WeakMap<SchemaNode, string>>();

/** A property name neither node declares, to reach `additionalProperties` (once per pair of nodes). */
function freshKey(a: SchemaNode, b: SchemaNode): string {
  let byB = freshKeys.get(a);
  if (byB === undefined) freshKeys.set(a, (byB = new WeakMap()));
  let key = byB.get(b);
  if (key !== undefined) return key;
  const taken = new Set([...(a.properties ?? []), ...(b.properties ?? [])].map(([n]) => n));
  key = 'extra';
  for (let i = 2; taken.has(key); i++) key = `extra${i}`;
  byB.set(b, key);
  return key;
}

const zero = (n: number): number => n + 0; // folds -0

/**
 * A deep copy of a JSON value, so a witness shares nothing with the schemas (enum values) or other
 * witnesses; structuredClone took 5 µs a property, most of a wide search.
 */
function copy(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copy);
  const out: Record<string, unknown> = {};
  const o = v as Record<string, unknown>;
  for (const key of Object.keys(o)) setOwn(out, key, copy(o[key]));
  return out;
}

export class Prover {
  private tries = 0;

  /**
   * `keep`: the schema whose valid data must stay valid; `other`: the one that rejects the witness;
   * `budget`: what the search may still build, shared by the comparison's provers.
   */
  constructor(
    private readonly keep: Side,
    private readonly other: Side,
    private readonly budget = new Budget(),
  ) {}

  /**
   * A root document `keep` accepts and `other` rejects, reached through `steps`; NONE when none is
   * found, SPENT when the budget ran out (now or before).
   */
  prove(steps: readonly Step[], rule: RuleId, subject: unknown): Found | typeof NONE | typeof SPENT {
    if (this.budget.spent) return SPENT;
    const last = steps[steps.length - 1];
    // Nothing to find where the other schema accepts anything (a property removed from an open model).
    if (last === undefined || last.t.always === true || last.s.always === false) return NONE;
    const keepRoot = this.keep.accepts(this.keep.root);
    const otherRoot = this.other.accepts(this.other.root);
    const check = Math.ceil((this.keep.weight + this.other.weight) / READS_PER_UNIT);
    const keepLocal = fitter(last.s);
    const otherLocal = fitter(last.t);
    this.tries = 0;
    try {
      for (const v of this.local(last.s, last.t, rule, subject)) {
        if (++this.tries > MAX_TRIES) break;
        this.budget.take();
        if (!keepLocal(v) || otherLocal(v)) continue;
        const doc = this.embed(v, steps);
        if (doc === NONE) continue;
        this.budget.take(check);
        if (keepRoot(doc) && !otherRoot(doc)) return copy(doc);
      }
    } catch (err) {
      if (err instanceof SpentError) return SPENT;
      throw err;
    }
    return NONE;
  }

  /** An own property set on a value the search builds, paid for from the budget. */
  private put(o: Record<string, unknown>, key: string, value: unknown): void {
    this.budget.take();
    setOwn(o, key, value);
  }

  /** Candidates at the change itself: the rule's own subject first, then boundary values. */
  private *local(k: SchemaNode, o: SchemaNode, rule: RuleId, subject: unknown): Generator<unknown> {
    if ((rule === 'required-added' || rule === 'required-removed') && typeof subject === 'string') {
      const obj = this.object(k, o, subject, 0);
      if (obj !== NONE) yield obj;
    }
    if (rule === 'enum-value-removed' || rule === 'enum-value-added') yield subject;
    yield* this.candidates(k, o, 0);
  }

  /** Values `k` may accept, those at the edges of `o` early, smallest first. */
  private *candidates(k: SchemaNode, o: SchemaNode, depth: number): Generator<unknown> {
    if (k.always === false) return;
    if (k.enum !== undefined) yield* k.enum;
    if (k.hasConst) yield k.constValue;
    const kinds = typeKinds(k.types);
    if (kinds & NULL) yield null;
    if (kinds & BOOLEAN) yield* [true, false];
    if (kinds & INTEGER) yield* integers(k, o);
    if (kinds & FRACTION) yield* fractions(k, o);
    if (kinds & STRING) yield* strings(k, o);
    if (kinds & ARRAY) {
      yield [];
      if (depth < 2) {
        const ki = k.items ?? ANY;
        const oi = o.items ?? ANY;
        const one = this.sample(ki, oi, depth + 1, false);
        if (one !== NONE) yield [one];
        for (const v of this.distinct(ki, oi, depth + 1)) yield [v];
      }
    }
    if (kinds & OBJECT) {
      const base = this.object(k, o, undefined, depth);
      if (base === NONE) return;
      yield base;
      if (depth >= 2) return;
      const fresh = freshKey(k, o);
      const extra = this.sample(governing(k, fresh), governing(o, fresh), depth + 1, false);
      if (extra !== NONE) {
        const obj = this.object(k, o, fresh, depth);
        if (obj !== NONE) {
          this.put(obj as Record<string, unknown>, fresh, extra);
          yield obj;
        }
      }
      const names = new Set([...(k.properties ?? []), ...(o.properties ?? [])].map(([n]) => n));
      names.add(fresh);
      for (const name of names) {
        for (const v of this.distinct(governing(k, name), governing(o, name), depth + 1)) {
          const obj = this.object(k, o, name, depth);
          if (obj === NONE) break;
          this.put(obj as Record<string, unknown>, name, v);
          yield obj;
        }
      }
    }
  }

  /** Values `k` accepts and `o` rejects (for nested positions). */
  private *distinct(k: SchemaNode, o: SchemaNode, depth: number): Generator<unknown> {
    const keep = fitter(k);
    const other = fitter(o);
    for (const v of this.candidates(k, o, depth)) {
      if (++this.tries > MAX_TRIES) return;
      if (keep(v) && !other(v)) yield v;
    }
  }

  /** Wraps the value found at the end of `steps` into a root document, level by level. */
  private embed(v: unknown, steps: readonly Step[]): Found | typeof NONE {
    let value = v;
    for (let i = steps.length - 1; i >= 1; i--) {
      const step = steps[i]!;
      const parent = steps[i - 1]!;
      if (step.via === 'items') {
        this.budget.take();
        value = [value];
        continue;
      }
      const key = step.via === 'properties' && step.key !== undefined ? step.key : freshKey(parent.s, parent.t);
      const obj = this.object(parent.s, parent.t, key, 0);
      if (obj === NONE) return NONE;
      this.put(obj as Record<string, unknown>, key, value);
      value = obj;
    }
    return value;
  }

  /**
   * The least object `k` accepts (its required properties, filled), leaving `skip` to the caller;
   * properties `o` requires are filled too where a value both accept exists, so the witness shows
   * one break rather than several.
   */
  private object(k: SchemaNode, o: SchemaNode, skip: string | undefined, depth: number): Found | typeof NONE {
    if ((typeKinds(k.types) & OBJECT) === 0 || depth > MAX_DEPTH) return NONE;
    const obj: Record<string, unknown> = {};
    for (const name of k.required ?? []) {
      if (name === skip || hasOwn(obj, name)) continue;
      const v = this.sample(governing(k, name), governing(o, name), depth + 1, false);
      if (v === NONE) return NONE;
      this.put(obj, name, v);
    }
    for (const name of o.required ?? []) {
      if (name === skip || hasOwn(obj, name)) continue;
      const v = this.sample(governing(k, name), governing(o, name), depth + 1, true);
      if (v !== NONE) this.put(obj, name, v);
    }
    return obj;
  }

  /** A value `k` accepts, one `o` accepts too when there is one; with `both`, only such a value. */
  private sample(k: SchemaNode, o: SchemaNode, depth: number, both: boolean): Found | typeof NONE {
    if (depth > MAX_DEPTH || k.always === false) return NONE;
    const keep = fitter(k);
    const other = fitter(o);
    let fallback: unknown = NONE;
    for (const v of this.basics(k, o, depth)) {
      if (!keep(v)) continue;
      if (other(v)) return v;
      if (fallback === NONE) fallback = v;
    }
    return both ? NONE : fallback;
  }

  /** A short list of plain values `k` may accept, one or two of each kind. */
  private *basics(k: SchemaNode, o: SchemaNode, depth: number): Generator<unknown> {
    if (k.enum !== undefined) yield* k.enum;
    if (k.hasConst) yield k.constValue;
    const kinds = typeKinds(k.types);
    if (kinds & NULL) yield null;
    if (kinds & BOOLEAN) yield true;
    if (kinds & INTEGER) yield* integers(k, o);
    if (kinds & FRACTION) yield* fractions(k, o);
    if (kinds & STRING) yield* strings(k, o);
    if (kinds & ARRAY) yield [];
    if (kinds & OBJECT) {
      const obj = this.object(k, o, undefined, depth);
      if (obj !== NONE) yield obj;
    }
  }
}

/** Integers at `k`'s minimum, just under `o`'s, and around zero; all at or above `k`'s minimum. */
function integers(k: SchemaNode, o: SchemaNode): number[] {
  const lo = k.minimum ?? -Infinity;
  const out = new Set<number>();
  if (k.minimum !== undefined) out.add(zero(Math.ceil(k.minimum)));
  else out.add(0);
  if (o.minimum !== undefined) out.add(zero(Math.ceil(o.minimum) - 1));
  for (const n of [0, 1, -1]) out.add(n);
  return [...out].filter((n) => n >= lo && Number.isFinite(n));
}

/** Non-integers at `k`'s minimum, just under `o`'s, and around zero. */
function fractions(k: SchemaNode, o: SchemaNode): number[] {
  const lo = k.minimum ?? -Infinity;
  const out = new Set<number>();
  if (k.minimum !== undefined) for (const d of [0, 0.5, 0.25]) out.add(k.minimum + d);
  if (o.minimum !== undefined) for (const d of [0.5, 0.25]) out.add(o.minimum - d);
  for (const n of [0.5, -0.5, 1.5]) out.add(n);
  return [...out].filter((n) => n >= lo && Number.isFinite(n) && !Number.isInteger(n));
}

/** Strings at the length bounds of both nodes (just past `o`'s), within `k`'s. */
function strings(k: SchemaNode, o: SchemaNode): string[] {
  const lo = Math.max(k.minLength ?? 0, 0);
  const hi = Math.max(k.maxLength ?? Infinity, 0); // a negative maxLength acts as 0
  const lengths = new Set<number>([lo]);
  if (o.minLength !== undefined) lengths.add(o.minLength - 1);
  if (o.maxLength !== undefined) lengths.add(o.maxLength + 1);
  if (hi !== Infinity) lengths.add(hi);
  lengths.add(0);
  lengths.add(1);
  return [...lengths].filter((n) => n >= lo && n <= hi && n <= MAX_STRING).map((n) => 'a'.repeat(n));
}

/**
 * Whether `v` satisfies `node`: the validator's own interpreter (src/validator/interpret.ts), on a
 * part of a parsed schema. It only steers the search; every document returned is checked with the
 * compiled validator.
 */
export const fits = (node: SchemaNode, v: unknown): boolean => accepts(node, v);

const fitter =
  (node: SchemaNode) =>
  (v: unknown): boolean =>
    fits(node, v);

/**
 * A payload on one line for text and markdown reports: its JSON (U+2028/U+2029 escaped too), cut
 * to at most `max` characters with `…`, never inside a surrogate pair. JSON output prints it whole.
 */
export function previewPayload(payload: unknown, max = 80): string {
  const json = (JSON.stringify(payload) ?? 'null').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  if (json.length <= max) return json;
  let cut = Math.max(max - 1, 0);
  const code = json.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return json.slice(0, cut) + '…';
}

/** The data steps a schema path leads to: a property name, or `*` for any array item / other key. */
function dataSteps(schemaPath: string, subject: unknown): Array<string | typeof EVERY> {
  const tokens = schemaPath
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const steps: Array<string | typeof EVERY> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === 'properties' && i + 1 < tokens.length) steps.push(tokens[++i]!);
    else if (t === 'items' || t === 'additionalProperties') steps.push(EVERY);
    else break; // a keyword of the node itself (type, enum, required, minimum, …)
  }
  // required-added/-removed name the property in `subject`: the break is at that key.
  if (typeof subject === 'string' && /\/required(\/|$)/.test(schemaPath)) steps.push(subject);
  return steps;
}
const EVERY: unique symbol = Symbol('any');

/** The JSON of a value, line separators escaped as previewPayload does. */
const json = (v: unknown): string => (JSON.stringify(v) ?? 'null').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * A witness previewed around the place that breaks: the values on the way to the schema path (and
 * the property a `required` change names) are shown, their siblings elided as `…`, so a long
 * payload is never cut before the part that matters. A payload that fits in `max` is shown whole;
 * the value at the place is itself previewed in `max` at most.
 */
export function previewWitness(payload: unknown, schemaPath: string, subject?: unknown, max = 80): string {
  const whole = json(payload);
  if (whole.length <= max) return whole;
  const steps = dataSteps(schemaPath, subject);
  const render = (v: unknown, at: number): string => {
    if (at >= steps.length || v === null || typeof v !== 'object') return previewPayload(v, max);
    const step = steps[at]!;
    if (Array.isArray(v)) {
      if (step !== EVERY || v.length === 0) return previewPayload(v, max);
      return `[${render(v[0], at + 1)}${v.length > 1 ? ',…' : ''}]`;
    }
    const keys = Object.keys(v);
    const key = step === EVERY ? keys[0] : keys.includes(step) ? step : undefined;
    // The key is absent (a property the new schema requires): the object, with what it does hold elided.
    if (key === undefined) return keys.length === 0 ? '{}' : '{…}';
    const i = keys.indexOf(key);
    const child = `${json(key)}:${render((v as Record<string, unknown>)[key], at + 1)}`;
    return `{${i > 0 ? '…,' : ''}${child}${i < keys.length - 1 ? ',…' : ''}}`;
  };
  return render(payload, 0);
}
