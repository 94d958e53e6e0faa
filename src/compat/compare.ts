import {
  hasOwn,
  ANNOTATION_KEYWORDS, SUPPORTED_KEYWORDS, SchemaError, compile, isSchemaObject, joinPointer, jsonEqual,
  parsePointer, parseSchema, type SchemaNode,
} from '../validator/index.js';
import { ARRAY, FRACTION, NUMBERS, OBJECT, STRING, kindOf, typeKinds } from './kinds.js';
import { PAIRS, ruleMessage, ruleOrder, type RuleId, type RulePair } from './rules.js';

export type CompatMode = 'backward' | 'forward' | 'full';

export interface CompatOptions {
  /** `backward` (default): old data stays valid; `forward`: new data is valid under old; `full`: both. */
  mode?: CompatMode;
}

export interface Change {
  /** Stable kebab-case rule id (see RULES). */
  rule: RuleId;
  breaking: boolean;
  /** RFC 6901 pointer into the schemas, e.g. `/properties/amount/minimum`. */
  path: string;
  message: string;
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
type Via = 'root' | 'properties' | 'additionalProperties' | 'items';

/** An absent `additionalProperties` or `items`: no constraint. */
const ANY: SchemaNode = Object.freeze({ pointer: '', always: true });

interface Finding extends Change {
  /** Identifies the edit across directions, so `full` reports it once. */
  key: string;
  /** Breaking by registry policy rather than by data. */
  policy: boolean;
}

const acceptAll = (): boolean => true;
const acceptNone = (): boolean => false;
const ignoreWarning = (): void => {};

/** One schema: its parsed tree, the raw sub-schemas behind the nodes, and their validators. */
class Side {
  readonly root: SchemaNode;
  private readonly raws = new WeakMap<SchemaNode, unknown>();
  private readonly validators = new WeakMap<SchemaNode, (v: unknown) => boolean>();

  constructor(private readonly schema: unknown) {
    this.root = parseSchema(schema).root;
  }

  /** The raw sub-schema a node was parsed from; `undefined` for ANY (an absent keyword). */
  raw(node: SchemaNode): unknown {
    if (node === ANY) return undefined;
    if (this.raws.has(node)) return this.raws.get(node);
    let cur: unknown = this.schema;
    for (const token of parsePointer(node.pointer)) {
      cur = isSchemaObject(cur) && hasOwn(cur, token) ? cur[token] : undefined;
    }
    this.raws.set(node, cur);
    return cur;
  }

  /** Whether `node` accepts `v`: cheap checks first, then the validator itself. */
  admits(node: SchemaNode, v: unknown): boolean {
    if ((kindOf(v) & typeKinds(node.types)) === 0) return false;
    if (node.hasConst && !jsonEqual(v, node.constValue)) return false;
    return this.accepts(node)(v);
  }

  /** The validator's own verdict for a node, compiled on first use. */
  accepts(node: SchemaNode): (v: unknown) => boolean {
    if (node.always === true) return acceptAll;
    if (node.always === false) return acceptNone;
    let fn = this.validators.get(node);
    if (fn === undefined) {
      fn = compile(this.raw(node), { onWarning: ignoreWarning }).isValid;
      this.validators.set(node, fn);
    }
    return fn;
  }
}

/** A set of JSON values under the validator's equality (`1` and `1.0` are one value). */
class ValueSet {
  readonly values: unknown[] = [];
  private readonly primitives = new Set<unknown>();
  private readonly objects: unknown[] = [];

  constructor(values: readonly unknown[]) {
    for (const v of values) {
      if (this.has(v)) continue;
      this.values.push(v);
      if (typeof v === 'object' && v !== null) this.objects.push(v);
      else this.primitives.add(v);
    }
  }

  has(v: unknown): boolean {
    if (typeof v === 'object' && v !== null) return this.objects.some((o) => jsonEqual(o, v));
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
    const unsupported = SUPPORTED_KEYWORDS.has(k)
      ? k === 'items' && Array.isArray(v)
      : !ANNOTATION_KEYWORDS.has(k) && !k.startsWith('x-');
    if (unsupported) out.set(k, v);
  }
  return out;
}

const sign = (a: number, b: number): number => (a > b ? 1 : a < b ? -1 : 0);

class Comparison {
  readonly findings: Finding[] = [];

  constructor(
    private readonly dir: Direction,
    private readonly src: Side,
    private readonly tgt: Side,
  ) {}

  run(): Finding[] {
    this.node(this.src.root, this.tgt.root, '', true, 'root');
    return this.findings;
  }

  /** Appended to a narrowing that no valid value can hit. */
  private harmless(): string {
    return ` (no value valid under the ${this.dir === 'backward' ? 'old' : 'new'} schema is affected)`;
  }

  private emit(
    pair: RulePair, narrowing: boolean, breaking: boolean, path: string,
    srcValue: unknown, tgtValue: unknown, subject?: unknown, policy = false,
  ): void {
    const backward = this.dir === 'backward';
    const rule = backward === narrowing ? pair.narrow : pair.widen;
    const [oldValue, newValue] = backward ? [srcValue, tgtValue] : [tgtValue, srcValue];
    let message = ruleMessage(rule, oldValue, newValue, subject);
    if (narrowing && !breaking) message += this.harmless();
    const key = `${rule}\u0000${path}\u0000${subjectKey(subject)}`;
    this.findings.push({ rule, breaking, path, message, key, policy });
  }

  /**
   * Compares one pair of nodes. `live` is false where no value valid under `src` can reach (e.g. the
   * properties of a schema that admits no object): changes there are reported but never break.
   */
  private node(s: SchemaNode, t: SchemaNode, path: string, live: boolean, via: Via): void {
    // With an enum or const, the values valid under src are among a finite list the validator can test.
    const finite = s.enum ?? (s.hasConst ? [s.constValue] : undefined);
    if (s.always === false || t.always === false) {
      if (s.always === t.always) return;
      const narrowing = t.always === false;
      const pair = via === 'additionalProperties' ? PAIRS.additional : PAIRS.falseSchema;
      const breaking = narrowing && live && (finite === undefined || finite.some((v) => this.src.admits(s, v)));
      this.emit(pair, narrowing, breaking, path, this.src.raw(s), this.tgt.raw(t));
      return;
    }
    this.unsupported(s, t, path);
    const start = this.findings.length;
    const ts = typeKinds(s.types);
    // Kinds of value valid under src (an over-approximation).
    const kinds = finite === undefined ? ts : ts & this.kindsOf(s, finite);
    const tt = typeKinds(t.types);
    const typePath = joinPointer(path, 'type');
    if ((ts & ~tt) !== 0) this.emit(PAIRS.type, true, live && (kinds & ~tt) !== 0, typePath, s.types, t.types);
    if ((tt & ~ts) !== 0) this.emit(PAIRS.type, false, false, typePath, s.types, t.types);

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
    this.bound(PAIRS.minimum, sign(tMin, sMin), live && (kinds & NUMBERS) !== 0 && hits, joinPointer(path, 'minimum'), s.minimum, t.minimum);

    if (finite !== undefined) this.settleFinite(s, t, finite, start);
  }

  /** `order` > 0: tgt's bound is stricter (a narrowing); < 0: looser. */
  private bound(pair: RulePair, order: number, breaking: boolean, path: string, sv: unknown, tv: unknown): void {
    if (order !== 0) this.emit(pair, order > 0, order > 0 && breaking, path, sv, tv);
  }

  private kindsOf(s: SchemaNode, values: readonly unknown[]): number {
    let mask = 0;
    for (const v of values) if (!s.hasConst || jsonEqual(v, s.constValue)) mask |= kindOf(v);
    return mask;
  }

  /** When every value valid under a finite src passes tgt, no data narrowing below it can break. */
  private settleFinite(s: SchemaNode, t: SchemaNode, finite: readonly unknown[], start: number): void {
    const open = (f: Finding): boolean => f.breaking && !f.policy;
    if (!this.findings.slice(start).some(open)) return;
    const tgtAccepts = this.tgt.accepts(t);
    if (!finite.every((v) => !this.src.admits(s, v) || tgtAccepts(v))) return;
    for (let i = start; i < this.findings.length; i++) {
      const f = this.findings[i]!;
      if (!open(f)) continue;
      f.breaking = false;
      f.message += this.harmless();
    }
  }

  private objects(s: SchemaNode, t: SchemaNode, path: string, live: boolean): void {
    const reqPath = joinPointer(path, 'required');
    const sReq = new Set(s.required ?? []);
    const tReq = new Set(t.required ?? []);
    for (const name of tReq) if (!sReq.has(name)) this.emit(PAIRS.required, true, live, reqPath, undefined, undefined, name);
    for (const name of sReq) if (!tReq.has(name)) this.emit(PAIRS.required, false, false, reqPath, undefined, undefined, name);

    const sProps = new Map(s.properties ?? []);
    const tProps = new Map(t.properties ?? []);
    for (const [name, sp] of sProps) {
      const p = joinPointer(path, 'properties', name);
      const tp = tProps.get(name);
      if (tp !== undefined) this.node(sp, tp, p, live, 'properties');
      else this.emit(PAIRS.property, true, live, p, undefined, undefined, name, true);
    }
    for (const [name, tp] of tProps) {
      if (sProps.has(name)) continue;
      const p = joinPointer(path, 'properties', name);
      this.emit(PAIRS.property, false, false, p, undefined, undefined, name, true);
      // additionalProperties governed the name before: a schema there is compared, and so is a new
      // `false` (a prohibition, not a field); otherwise an open schema leaves the name to policy.
      const governed = s.additional ?? ANY;
      if (governed.always === undefined || (tp.always === false && governed.always === true)) {
        this.node(governed, tp, p, live, 'properties');
      }
    }
    if (s.additional !== undefined || t.additional !== undefined) {
      const p = joinPointer(path, 'additionalProperties');
      this.node(s.additional ?? ANY, t.additional ?? ANY, p, live, 'additionalProperties');
    }
  }

  private values(s: SchemaNode, t: SchemaNode, path: string, live: boolean): void {
    const enumPath = joinPointer(path, 'enum');
    if (t.enum !== undefined && s.enum === undefined) {
      this.emit(PAIRS.enum, true, live, enumPath, undefined, t.enum);
    } else if (t.enum === undefined && s.enum !== undefined) {
      this.emit(PAIRS.enum, false, false, enumPath, s.enum, undefined);
    } else if (t.enum !== undefined && s.enum !== undefined) {
      const sv = new ValueSet(s.enum);
      const tv = new ValueSet(t.enum);
      for (const v of sv.values) {
        if (!tv.has(v)) this.emit(PAIRS.enumValue, true, live && this.src.admits(s, v), enumPath, undefined, undefined, v);
      }
      for (const v of tv.values) {
        if (!sv.has(v)) this.emit(PAIRS.enumValue, false, false, enumPath, undefined, undefined, v);
      }
    }

    const constPath = joinPointer(path, 'const');
    if (t.hasConst && !s.hasConst) {
      this.emit(PAIRS.const, true, live, constPath, undefined, t.constValue);
    } else if (!t.hasConst && s.hasConst) {
      this.emit(PAIRS.const, false, false, constPath, s.constValue, undefined);
    } else if (t.hasConst && s.hasConst && !jsonEqual(s.constValue, t.constValue)) {
      // Every value valid under src equals its const, which tgt now rejects.
      const breaking = live && this.src.admits(s, s.constValue);
      this.emit(PAIRS.constChanged, true, breaking, constPath, s.constValue, t.constValue);
    }
  }

  private unsupported(s: SchemaNode, t: SchemaNode, path: string): void {
    const a = unsupportedEntries(this.src.raw(s));
    const b = unsupportedEntries(this.tgt.raw(t));
    for (const [k, v] of a) {
      if (!b.has(k)) this.emit(PAIRS.unsupported, false, false, joinPointer(path, k), v, undefined, k);
      else if (!jsonEqual(v, b.get(k))) this.emit(PAIRS.unsupported, false, false, joinPointer(path, k), v, b.get(k), k);
    }
    for (const [k, v] of b) {
      if (!a.has(k)) this.emit(PAIRS.unsupported, false, false, joinPointer(path, k), undefined, v, k);
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
  const mode = options.mode ?? 'backward';
  if (mode !== 'backward' && mode !== 'forward' && mode !== 'full') {
    throw new TypeError(`unknown compat mode ${JSON.stringify(mode)} (expected backward, forward or full)`);
  }
  const oldSide = new Side(oldSchema);
  const newSide = new Side(newSchema);
  const merged = new Map<string, Finding>();
  for (const dir of mode === 'full' ? (['backward', 'forward'] as const) : [mode]) {
    let findings: Finding[];
    try {
      findings = dir === 'backward'
        ? new Comparison(dir, oldSide, newSide).run()
        : new Comparison(dir, newSide, oldSide).run();
    } catch (err) {
      if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compare');
      throw err;
    }
    for (const f of findings) {
      const seen = merged.get(f.key);
      if (seen === undefined) merged.set(f.key, f);
      else if (f.breaking && !seen.breaking) {
        seen.breaking = true;
        seen.message = f.message;
      }
    }
  }
  // Grouped by location, then in RULES order, so the report does not depend on the direction.
  const changes = [...merged.values()]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : ruleOrder(a.rule) - ruleOrder(b.rule)))
    .map(({ rule, breaking, path, message }) => ({ rule, breaking, path, message }));
  return { compatible: changes.every((c) => !c.breaking), changes };
}
