import {
  canonicalKey,
  hasOwn,
  ANNOTATION_KEYWORDS,
  SUPPORTED_KEYWORDS,
  SchemaError,
  isSchemaObject,
  joinPointer,
  jsonEqual,
  type SchemaNode,
} from '../validator/index.js';
import { ARRAY, BOOLEAN, FRACTION, NULL, NUMBERS, OBJECT, STRING, typeKinds } from './kinds.js';
import type { ComparingLevel } from './levels.js';
import { PAIRS, ruleMessage, ruleOrder, type CompatPolicy, type RuleId, type RulePair } from './rules.js';
import { ANY, Side } from './side.js';
import { Budget, NONE, Prover, SPENT, type Step, type Via, type Witness, type WitnessReason } from './witness.js';

export interface CompatOptions {
  /** `backward` (default): old data stays valid; `forward`: new data is valid under old; `full`: both. */
  level?: ComparingLevel;
  /**
   * `bqschema` (default): the registry's rules (a declared property is never removed; adding an
   * optional one is compatible). `confluent`: Confluent's JSON Schema content-model rules as far as
   * the ten keywords express them (see each rule's `note`).
   */
  policy?: CompatPolicy;
  /** Build a witness for every breaking change (default true). */
  witnesses?: boolean;
}

export interface Change {
  /** Stable kebab-case rule id (see RULES). */
  rule: RuleId;
  breaking: boolean;
  /** RFC 6901 pointer into the schemas, e.g. `/properties/amount/minimum`. */
  path: string;
  message: string;
  /**
   * Breaking changes only: a whole payload that proves the break, checked with the validator (valid
   * under the schema `validUnder` names, rejected by the other), or null with `witnessReason`.
   */
  witness?: Witness | null;
  witnessReason?: WitnessReason;
  /** With `witnessReason: 'policy'`: a payload that breaks the other way (what the old schema rejects, for a backward break), where one exists. */
  otherWitness?: Witness;
  /** Compatible only by a policy choice that data can refute (docs/cli/compat.md). */
  policyChoice?: true;
  /** With `policyChoice` and witnesses: a payload the choice lets fail, checked with the validator. */
  affected?: Witness;
  /** What the change is about where `path` does not name it: the property (`required-*`) or the value (`enum-value-*`). */
  subject?: unknown;
  /**
   * Breaking changes of a registry that names the URN's services: the consumers the change breaks
   * (it breaks backward) and the producers whose new data old consumers reject (it breaks forward).
   */
  reach?: { consumers?: readonly string[]; producers?: readonly string[] };
  /** `compat --transitive`: the earlier version of the URN the change breaks (not the one compared with). */
  earlier?: EarlierVersion;
}

/** An earlier version of a URN's schema, from the registry's git history. */
interface EarlierVersion {
  /** Its number in the URN's history (1 the oldest read). */
  version: number;
  /** The oldest commit of the window that has it, and that commit's date (ISO 8601). */
  commit: string;
  date: string;
  /** The later versions the same change breaks too, by number. */
  also?: number[];
}

export interface CompatResult {
  /** True when no change is breaking. */
  compatible: boolean;
  changes: Change[];
}

/*
 * One comparison has two roles: `src`, whose every valid value must stay valid, and `tgt`, which
 * must accept it. Backward is (old, new); forward swaps the schemas, so each rule is written once,
 * in role terms, and `emit` names the edit (old → new) the finding stands for.
 */
type Direction = 'backward' | 'forward';

/** One edit a rule found, in role terms: what `emit` makes a Finding of for the direction compared. */
interface Edit {
  pair: RulePair;
  /** tgt accepts less than src here. */
  narrowing: boolean;
  breaking: boolean;
  path: string;
  /** The value on each side where the message quotes it (a type, a bound, an enum). */
  src?: unknown;
  tgt?: unknown;
  /** What the change is about where `path` does not name it: the property (`required-*`) or the value (`enum-value-*`). */
  subject?: unknown;
  /** Breaking by registry policy rather than by data. */
  policy?: boolean;
  /** The step below the current node the change is about (a property), when it is not the node itself. */
  at?: Step;
  /** Why a narrowing does not break, when it is policy rather than unreachable data. */
  excuse?: string;
}

interface Finding extends Change {
  /** Identifies the edit across directions, so `full` reports it once. */
  key: string;
  /** Breaking by registry policy rather than by data. */
  policy: boolean;
  /** Change.policyChoice; `steps` lead to the affected payload. */
  choice?: boolean;
  /** What the message adds while `choice` holds (a finite list of values can make it moot). */
  choiceNote?: string;
  dir: Direction;
  /** Breaking findings: the node pairs from the root to the change, for the witness. */
  steps?: Step[];
}

/**
 * A set of JSON values under the validator's equality (`1` and `1.0` are one value). Objects and
 * arrays are kept by canonical key, so membership is a hash lookup: comparing two 100k-entry enums
 * of objects is linear, not pairwise (a DoS on serve's /compatibility otherwise).
 */
class ValueSet {
  readonly values: unknown[] = [];
  private readonly primitives = new Set<unknown>();
  private readonly objects = new Set<string>();

  constructor(values: readonly unknown[]) {
    for (const v of values) {
      if (typeof v === 'object' && v !== null) {
        const key = canonicalKey(v);
        if (this.objects.has(key)) continue;
        this.objects.add(key);
      } else {
        if (this.primitives.has(v)) continue;
        this.primitives.add(v);
      }
      this.values.push(v);
    }
  }

  has(v: unknown): boolean {
    if (typeof v === 'object' && v !== null) return this.objects.has(canonicalKey(v));
    return this.primitives.has(v);
  }
}

function subjectKey(subject: unknown): string {
  if (subject === undefined) return '';
  try {
    return JSON.stringify(subject) ?? String(subject);
  } catch {
    return String(subject);
  }
}

/** Keywords the validator does not enforce (annotations aside); the tuple form of `items` is one. */
function unsupportedEntries(raw: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isSchemaObject(raw)) return out;
  for (const k of Object.keys(raw)) {
    const v = raw[k];
    const unsupported = SUPPORTED_KEYWORDS.has(k) ? k === 'items' && Array.isArray(v) : !ANNOTATION_KEYWORDS.has(k) && !k.startsWith('x-');
    if (unsupported) out.set(k, v);
  }
  return out;
}

const sign = (a: number, b: number): number => (a > b ? 1 : a < b ? -1 : 0);

class Comparison {
  readonly findings: Finding[] = [];
  /** The node pairs from the root to the one being compared. */
  private readonly stack: Step[] = [];

  constructor(
    private readonly dir: Direction,
    private readonly src: Side,
    private readonly tgt: Side,
    private readonly policy: CompatPolicy,
  ) {}

  run(): Finding[] {
    this.node(this.src.root, this.tgt.root, '', true, 'root');
    return this.findings;
  }

  /** Appended to a narrowing that no valid value can hit. */
  private harmless(): string {
    return ` (no value valid under the ${this.dir === 'backward' ? 'old' : 'new'} schema is affected)`;
  }

  /** The edit (src → tgt, in role terms) as a finding: its rule for this direction, its message, its key. */
  private emit(edit: Edit): Finding {
    const { pair, narrowing, breaking, path, subject, policy = false, at, excuse } = edit;
    const backward = this.dir === 'backward';
    const rule = backward === narrowing ? pair.narrow : pair.widen;
    const [oldValue, newValue] = backward ? [edit.src, edit.tgt] : [edit.tgt, edit.src];
    let message = ruleMessage(rule, oldValue, newValue, subject);
    if (narrowing && !breaking) message += excuse ?? this.harmless();
    const key = `${rule}\u0000${path}\u0000${subjectKey(subject)}`;
    const finding: Finding = { rule, breaking, path, message, key, policy, dir: this.dir, subject };
    if (breaking) finding.steps = at ? [...this.stack, at] : this.stack.slice();
    this.findings.push(finding);
    return finding;
  }

  /**
   * Compares one pair of nodes. `live` is false where no value valid under `src` can reach (e.g. the
   * properties of a schema that admits no object): changes there are reported but never break.
   */
  private node(s: SchemaNode, t: SchemaNode, path: string, live: boolean, via: Via, key?: string): void {
    this.stack.push({ via, key, s, t });
    try {
      this.compareNodes(s, t, path, live, via);
    } finally {
      this.stack.pop();
    }
  }

  private compareNodes(s: SchemaNode, t: SchemaNode, path: string, live: boolean, via: Via): void {
    // With an enum or const, the values valid under src are among a finite list the validator can test.
    let finite = s.enum ?? (s.hasConst ? [s.constValue] : undefined);
    if (s.always === false || t.always === false) {
      if (s.always === t.always) return;
      const narrowing = t.always === false;
      const pair = via === 'additionalProperties' ? PAIRS.additional : PAIRS.falseSchema;
      const breaking = narrowing && live && this.src.kinds(s) !== 0;
      this.emit({ pair, narrowing, breaking, path, src: this.src.raw(s), tgt: this.tgt.raw(t) });
      return;
    }
    this.unsupported(s, t, path);
    const start = this.findings.length;
    const ts = typeKinds(s.types);
    // Kinds of value valid under src (an over-approximation).
    const kinds = this.src.kinds(s);
    // Nothing valid under src reaches a node that accepts nothing: no change below it can break.
    if (kinds === 0) live = false;
    // Only null and booleans: as finite as an enum.
    if (finite === undefined && kinds !== 0 && (kinds & ~(NULL | BOOLEAN)) === 0) {
      finite = [...((kinds & NULL) !== 0 ? [null] : []), ...((kinds & BOOLEAN) !== 0 ? [true, false] : [])];
    }
    const tt = typeKinds(t.types);
    const typePath = joinPointer(path, 'type');
    if ((ts & ~tt) !== 0)
      this.emit({ pair: PAIRS.type, narrowing: true, breaking: live && (kinds & ~tt) !== 0, path: typePath, src: s.types, tgt: t.types });
    if ((tt & ~ts) !== 0) this.emit({ pair: PAIRS.type, narrowing: false, breaking: false, path: typePath, src: s.types, tgt: t.types });

    this.objects(s, t, path, live && (kinds & OBJECT) !== 0);
    if (s.items !== undefined || t.items !== undefined) {
      this.node(s.items ?? ANY, t.items ?? ANY, joinPointer(path, 'items'), live && (kinds & ARRAY) !== 0, 'items');
    }
    this.values(s, t, path, live);

    const liveString = live && (kinds & STRING) !== 0;
    const minLength = (n: SchemaNode): number => Math.max(n.minLength ?? 0, 0);
    const maxLength = (n: SchemaNode): number => (n.maxLength === undefined ? Infinity : Math.max(n.maxLength, 0));
    this.bound(PAIRS.minLength, sign(minLength(t), minLength(s)), liveString, joinPointer(path, 'minLength'), s.minLength, t.minLength);
    this.bound(PAIRS.maxLength, sign(maxLength(s), maxLength(t)), liveString, joinPointer(path, 'maxLength'), s.maxLength, t.maxLength);

    const sMin = s.minimum ?? -Infinity;
    const tMin = t.minimum ?? -Infinity;
    // Integers at or above a minimum m are those at or above ceil(m).
    const hits = (kinds & FRACTION) !== 0 || Math.ceil(tMin) > Math.ceil(sMin);
    this.bound(
      PAIRS.minimum,
      sign(tMin, sMin),
      live && (kinds & NUMBERS) !== 0 && hits,
      joinPointer(path, 'minimum'),
      s.minimum,
      t.minimum,
    );

    if (finite !== undefined) this.settleFinite(s, t, finite, start);
  }

  /** `order` > 0: tgt's bound is stricter (a narrowing); < 0: looser. */
  private bound(pair: RulePair, order: number, breaking: boolean, path: string, sv: unknown, tv: unknown): void {
    if (order !== 0) this.emit({ pair, narrowing: order > 0, breaking: order > 0 && breaking, path, src: sv, tgt: tv });
  }

  /** When every value valid under a finite src passes tgt, no data narrowing below it can break. */
  private settleFinite(s: SchemaNode, t: SchemaNode, finite: readonly unknown[], start: number): void {
    const open = (f: Finding): boolean => (f.breaking && !f.policy) || f.choice === true;
    if (!this.findings.slice(start).some(open)) return;
    const tgtAccepts = this.tgt.accepts(t);
    if (!finite.every((v) => !this.src.admits(s, v) || tgtAccepts(v))) return;
    for (let i = start; i < this.findings.length; i++) {
      const f = this.findings[i]!;
      if (!open(f)) continue;
      // A policy choice no value of the list can refute is no choice at all.
      if (f.choice === true) {
        f.choice = false;
        continue;
      }
      f.breaking = false;
      f.message += this.harmless();
    }
  }

  private objects(s: SchemaNode, t: SchemaNode, path: string, live: boolean): void {
    const confluent = this.policy === 'confluent';
    const reqPath = joinPointer(path, 'required');
    const sReq = new Set(s.required ?? []);
    const tReq = new Set(t.required ?? []);
    const tProps = new Map(t.properties ?? []);
    for (const name of tReq) {
      if (sReq.has(name)) continue;
      // Confluent: a required property that declares a default is compatible (REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED).
      const tp = tProps.get(name);
      const raw = tp === undefined ? undefined : this.tgt.raw(tp);
      const excused = confluent && isSchemaObject(raw) && hasOwn(raw, 'default');
      const excuse = excused ? ' (it declares a default: compatible under the confluent policy)' : undefined;
      const f = this.emit({
        pair: PAIRS.required,
        narrowing: true,
        breaking: live && !excused,
        path: reqPath,
        subject: name,
        policy: excused,
        excuse,
      });
      const refuted =
        this.dir === 'backward' ? 'old data without it is rejected' : 'data new producers send without it is rejected by the old schema';
      if (excused && live) this.choose(f, `: a policy choice, since ${refuted} (no validator applies a default)`);
    }
    for (const name of sReq)
      if (!tReq.has(name)) this.emit({ pair: PAIRS.required, narrowing: false, breaking: false, path: reqPath, subject: name });

    const sProps = new Map(s.properties ?? []);
    for (const [name, sp] of sProps) {
      const p = joinPointer(path, 'properties', name);
      const tp = tProps.get(name);
      if (tp !== undefined) this.node(sp, tp, p, live, 'properties', name);
      else if (confluent) this.removedUnderConfluent(sp, t, p, live, name);
      else
        this.emit({
          pair: PAIRS.property,
          narrowing: true,
          breaking: live,
          path: p,
          subject: name,
          policy: true,
          at: this.at(name, sp, t.additional ?? ANY),
        });
    }
    for (const [name, tp] of tProps) {
      if (sProps.has(name)) continue;
      const p = joinPointer(path, 'properties', name);
      const governed = s.additional ?? ANY;
      if (confluent && governed.always === true) {
        // An open model: any non-empty schema for the name breaks (PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL).
        const breaking = live && tp.always !== true;
        this.emit({
          pair: PAIRS.property,
          narrowing: false,
          breaking,
          path: p,
          subject: name,
          policy: true,
          at: this.at(name, governed, tp),
        });
        continue;
      }
      // additionalProperties governed the name before: a schema there is compared, and so is a new
      // `false` (a prohibition, not a field).
      if (governed.always === undefined || (tp.always === false && governed.always === true)) {
        this.emit({ pair: PAIRS.property, narrowing: false, breaking: false, path: p, subject: name, policy: true });
        this.node(governed, tp, p, live, 'properties', name);
        continue;
      }
      if (this.dir === 'forward' && governed.always === true) {
        // Removed from an open model: new data may carry any value there, which the old schema
        // still checks (Confluent's forward check alike).
        const breaking = this.rejectsSome(governed, tp, p, live, name);
        const f = this.emit({
          pair: PAIRS.property,
          narrowing: false,
          breaking,
          path: p,
          subject: name,
          at: breaking ? this.at(name, governed, tp) : undefined,
        });
        if (breaking) f.message += ' from an open model: new producers may send any value under it, and the old schema rejects some';
        continue;
      }
      const f = this.emit({ pair: PAIRS.property, narrowing: false, breaking: false, path: p, subject: name, policy: true });
      // An open model leaves the name to policy, though old data may already carry it.
      if (governed.always === true && this.rejectsSome(governed, tp, p, live, name)) {
        this.choose(
          f,
          ` (a policy choice: data may already carry ${JSON.stringify(name)} with a value the new schema rejects)`,
          this.at(name, governed, tp),
        );
      }
    }
    if (s.additional !== undefined || t.additional !== undefined) {
      const p = joinPointer(path, 'additionalProperties');
      this.node(s.additional ?? ANY, t.additional ?? ANY, p, live, 'additionalProperties');
    }
  }

  /** Whether `t` rejects (or leaves to a policy choice) a value `s` lets through: a comparison whose findings are dropped. */
  private rejectsSome(s: SchemaNode, t: SchemaNode, p: string, live: boolean, name: string): boolean {
    const start = this.findings.length;
    this.node(s, t, p, live, 'properties', name);
    return this.findings.splice(start).some((f) => f.breaking || f.choice === true);
  }

  /** Marks a compatible finding a policy choice that data can refute, which `note` says; `at` as for `emit`. */
  private choose(f: Finding, note: string, at?: Step): void {
    f.choice = true;
    f.choiceNote = note;
    f.steps = at ? [...this.stack, at] : this.stack.slice();
  }

  /** The step to property `name`, governed by `s` in src and `t` in tgt (for a property only one side declares). */
  private at(name: string, s: SchemaNode, t: SchemaNode): Step {
    return { via: 'properties', key: name, s, t };
  }

  /**
   * A property src declares and tgt does not, by Confluent's content models: removed from an open
   * model it is compatible; a schema in `additionalProperties` is compared with it; a closed model
   * breaks unless the property was `false`.
   */
  private removedUnderConfluent(sp: SchemaNode, t: SchemaNode, p: string, live: boolean, name: string): void {
    const governed = t.additional ?? ANY;
    if (governed.always === undefined) {
      this.emit({ pair: PAIRS.property, narrowing: true, breaking: false, path: p, subject: name, policy: true });
      this.node(sp, governed, p, live, 'properties', name);
      return;
    }
    const breaking = live && governed.always === false && sp.always !== false;
    this.emit({ pair: PAIRS.property, narrowing: true, breaking, path: p, subject: name, at: this.at(name, sp, governed) });
  }

  private values(s: SchemaNode, t: SchemaNode, path: string, live: boolean): void {
    const enumPath = joinPointer(path, 'enum');
    if (t.enum !== undefined && s.enum === undefined) {
      this.emit({ pair: PAIRS.enum, narrowing: true, breaking: live, path: enumPath, tgt: t.enum });
    } else if (t.enum === undefined && s.enum !== undefined) {
      this.emit({ pair: PAIRS.enum, narrowing: false, breaking: false, path: enumPath, src: s.enum });
    } else if (t.enum !== undefined && s.enum !== undefined) {
      const sv = new ValueSet(s.enum);
      const tv = new ValueSet(t.enum);
      for (const v of sv.values) {
        if (!tv.has(v))
          this.emit({ pair: PAIRS.enumValue, narrowing: true, breaking: live && this.src.admits(s, v), path: enumPath, subject: v });
      }
      for (const v of tv.values) {
        if (!sv.has(v)) this.emit({ pair: PAIRS.enumValue, narrowing: false, breaking: false, path: enumPath, subject: v });
      }
    }

    const constPath = joinPointer(path, 'const');
    if (t.hasConst && !s.hasConst) {
      this.emit({ pair: PAIRS.const, narrowing: true, breaking: live, path: constPath, tgt: t.constValue });
    } else if (!t.hasConst && s.hasConst) {
      this.emit({ pair: PAIRS.const, narrowing: false, breaking: false, path: constPath, src: s.constValue });
    } else if (t.hasConst && s.hasConst && !jsonEqual(s.constValue, t.constValue)) {
      // Every value valid under src equals its const, which tgt now rejects.
      const breaking = live && this.src.admits(s, s.constValue);
      this.emit({ pair: PAIRS.constChanged, narrowing: true, breaking, path: constPath, src: s.constValue, tgt: t.constValue });
    }
  }

  private unsupported(s: SchemaNode, t: SchemaNode, path: string): void {
    const a = unsupportedEntries(this.src.raw(s));
    const b = unsupportedEntries(this.tgt.raw(t));
    for (const [k, v] of a) {
      if (!b.has(k))
        this.emit({ pair: PAIRS.unsupported, narrowing: false, breaking: false, path: joinPointer(path, k), src: v, subject: k });
      else if (!jsonEqual(v, b.get(k)))
        this.emit({
          pair: PAIRS.unsupported,
          narrowing: false,
          breaking: false,
          path: joinPointer(path, k),
          src: v,
          tgt: b.get(k),
          subject: k,
        });
    }
    for (const [k, v] of b) {
      if (!a.has(k))
        this.emit({ pair: PAIRS.unsupported, narrowing: false, breaking: false, path: joinPointer(path, k), tgt: v, subject: k });
    }
  }
}

/**
 * Compares two schemas of the ten-keyword subset. `backward` (the default): every value valid
 * under `oldSchema` stays valid under `newSchema`, and a declared property is never removed
 * (adding an optional one is allowed: registry policy). `forward` is the same comparison with the
 * schemas swapped; `full` reports both, a change breaking if it breaks either way. Pure: throws
 * SchemaError only when a schema is not an object or a boolean, or is nested too deeply.
 */
export function compareSchemas(oldSchema: unknown, newSchema: unknown, options: CompatOptions = {}): CompatResult {
  const level = options.level ?? 'backward';
  if (level !== 'backward' && level !== 'forward' && level !== 'full') {
    throw new TypeError(`unknown compatibility level ${JSON.stringify(level)} (expected backward, forward or full)`);
  }
  const policy = options.policy ?? 'bqschema';
  if (policy !== 'bqschema' && policy !== 'confluent') {
    throw new TypeError(`unknown compat policy ${JSON.stringify(policy)} (expected bqschema or confluent)`);
  }
  const oldSide = new Side(oldSchema);
  const newSide = new Side(newSchema);
  const merged = new Map<string, Finding>();
  for (const dir of level === 'full' ? (['backward', 'forward'] as const) : [level]) {
    let findings: Finding[];
    try {
      findings =
        dir === 'backward' ? new Comparison(dir, oldSide, newSide, policy).run() : new Comparison(dir, newSide, oldSide, policy).run();
    } catch (err) {
      if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compare');
      throw err;
    }
    for (const f of findings) {
      const seen = merged.get(f.key);
      // A breaking finding wins (its message and witness), by data over by policy, and a policy choice over a plain one.
      const wins =
        seen === undefined ||
        (f.breaking && (!seen.breaking || (seen.policy && !f.policy))) ||
        (!f.breaking && !seen.breaking && f.choice === true && seen.choice !== true);
      if (wins) merged.set(f.key, f);
    }
  }
  const witnesses = options.witnesses ?? true;
  const provers = new Provers(oldSide, newSide);
  // Grouped by location, then in RULES order, so the report does not depend on the direction.
  const changes = [...merged.values()]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : ruleOrder(a.rule) - ruleOrder(b.rule)))
    .map((f): Change => {
      const change: Change = {
        rule: f.rule,
        breaking: f.breaking,
        path: f.path,
        message: f.choice === true ? f.message + (f.choiceNote ?? '') : f.message,
      };
      if (SUBJECT_RULES.has(f.rule)) change.subject = f.subject;
      if (f.breaking) return witnesses ? { ...change, ...provers.prove(f) } : change;
      if (f.choice !== true) return change;
      change.policyChoice = true;
      const affected = witnesses ? provers.affected(f) : undefined;
      return affected === undefined ? change : { ...change, affected };
    });
  return { compatible: changes.every((c) => !c.breaking), changes };
}

/** Rules whose path is shared by several changes (one per name or value): their Change names its subject. */
const SUBJECT_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  'required-added',
  'required-removed',
  'enum-value-removed',
  'enum-value-added',
]);

type Proven = Pick<Change, 'witness' | 'witnessReason' | 'otherWitness'>;

/** The witness of each breaking finding, in the direction it breaks; for a policy break, the other way too. */
class Provers {
  private readonly cache = new Map<Direction, Prover>();
  /** One budget for the whole comparison: its changes are proved in report order until it runs out. */
  private readonly budget = new Budget();

  constructor(
    private readonly oldSide: Side,
    private readonly newSide: Side,
  ) {}

  private get(dir: Direction): Prover {
    let p = this.cache.get(dir);
    if (p === undefined) {
      p = dir === 'backward' ? new Prover(this.oldSide, this.newSide, this.budget) : new Prover(this.newSide, this.oldSide, this.budget);
      this.cache.set(dir, p);
    }
    return p;
  }

  /** For a policy choice: a payload valid under the schema that keeps its data, rejected by the other. */
  affected(f: Finding): Witness | undefined {
    if (f.steps === undefined) return undefined;
    let found: unknown;
    try {
      found = this.get(f.dir).prove(f.steps, f.rule, f.subject);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      return undefined;
    }
    if (found === NONE || found === SPENT) return undefined;
    return { payload: found, validUnder: f.dir === 'backward' ? 'old' : 'new' };
  }

  prove(f: Finding): Proven {
    if (f.steps === undefined) return { witness: null, witnessReason: 'not-found' };
    let found: unknown;
    try {
      found = this.get(f.dir).prove(f.steps, f.rule, f.subject);
    } catch (err) {
      // Too deep a document to validate is a witness not found, never a crash of the comparison.
      if (!(err instanceof RangeError)) throw err;
      found = NONE;
    }
    if (found === SPENT) return { witness: null, witnessReason: 'budget' };
    const validUnder = f.dir === 'backward' ? 'old' : 'new';
    if (found !== NONE) return { witness: { payload: found, validUnder } };
    if (!f.policy) return { witness: null, witnessReason: 'not-found' };
    const reverse: Direction = f.dir === 'backward' ? 'forward' : 'backward';
    const steps = f.steps.map((st) => ({ ...st, s: st.t, t: st.s }));
    let other: unknown = NONE;
    try {
      other = this.get(reverse).prove(steps, f.rule, f.subject);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
    const proven: Proven = { witness: null, witnessReason: 'policy' };
    if (other !== NONE && other !== SPENT) proven.otherWitness = { payload: other, validUnder: validUnder === 'old' ? 'new' : 'old' };
    return proven;
  }
}
