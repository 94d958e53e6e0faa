import {
  dayNumber,
  daysUntil,
  RegistryError,
  type Deprecation,
  type FileRef,
  type ManifestEntry,
  type Registry,
} from '../registry/index.js';
import { joinPointer, jsonEqual, lintSchema, parseSchema, SchemaError, unknownMessage, type SchemaNode } from '../validator/index.js';
import { compareSchemas, type Change, type CompatResult } from './compare.js';
import { schemaFingerprint } from './exceptions.js';
import type { CompatLevel, ComparingLevel } from './levels.js';
import { retiredChanges } from './retired.js';
import { restsOnPolicy, rolloutOrder, type Rollout } from './rollout.js';
import { RULES, type CompatPolicy } from './rules.js';
import { changeReach, rolloutWithServices, urnServices, type UrnServices } from './reach.js';
// Types only: serve's compat worker loads this module from dist/, where src/report does not ship.
import type { Span } from '../report/text.js';

type Code = Extract<Span, { tone: string }> & { tone: 'code' };

/** How pairs are compared: the policy, and whether breaking changes get a witness (default true). */
export interface PairOptions {
  policy?: CompatPolicy;
  witnesses?: boolean;
  /** Unknown keywords used on purpose: the new schema may introduce them (docs/contract.md §14). */
  allowKeywords?: ReadonlySet<string>;
}

export interface RegistriesOptions extends PairOptions {
  /** Give each URN present on both sides its `baseline` fingerprint (for exceptions; it hashes every old schema). */
  fingerprints?: boolean;
  /**
   * Today, as days since 1970-01-01 (`dayOf`): a deprecated URN with a `sunset` may be removed on
   * that day or later. Without it, no sunset has passed (a removal before one is breaking).
   */
  today?: number;
}

/** `invalid`: a schema on either side cannot be read, or has a malformed keyword: the gate fails. */
type UrnStatus = 'unchanged' | 'compatible' | 'breaking' | 'added' | 'removed' | 'invalid';

/** What to do about a breaking change. */
export type Remedy =
  | { kind: 'new-urn'; urn?: string; next?: string }
  | { kind: 'deprecate'; urn: string }
  /** A deprecated URN removed before its sunset: `days` remain (undefined: today is not known). */
  | { kind: 'sunset'; urn: string; sunset: string; days?: number; replacement?: string }
  /** Deprecated properties removed before their sunset (the latest one's): nothing else breaks, and on that day nothing will. */
  | { kind: 'property-sunset'; urn: string; properties: string[]; sunset: string; days?: number };

/** A schema that cannot be compared: unreadable, unparseable, or with a malformed keyword. */
export interface SchemaProblem {
  /** `old` or `new`. */
  side: 'old' | 'new';
  message: string;
  /** For a malformed keyword: its schema object and name. */
  pointer?: string;
  keyword?: string;
  /** For an unknown keyword: the supported keyword it is nearest to (what the typo replaced). */
  suggestion?: string;
  file?: FileRef;
}

export interface UrnReport {
  urn: string;
  status: UrnStatus;
  /** Whether this URN fails the gate. */
  breaking: boolean;
  changes: Change[];
  problems: SchemaProblem[];
  remedy?: Remedy;
  /** A removed URN that was `"status": "deprecated"`. */
  deprecated?: boolean;
  /** The schema file in the new registry (absent for a removed URN). */
  file?: FileRef;
  /** The entry's index in the new manifest (absent for a removed URN). */
  index?: number;
  /** A changed URN (compatible or breaking): the order its producers and consumers deploy in. */
  rollout?: Rollout;
  /** With `fingerprints`: `schemaFingerprint` of the old schema, for URNs present on both sides (what exceptions are scoped to). */
  baseline?: string;
  /** The URN's producers and consumers as the manifest names them (the old manifest's for a removed URN). */
  services?: UrnServices;
}

/** Breaking changes first, each group in the engine's order (by path, then rule). */
export const breakingFirst = (changes: Change[]): Change[] => [...changes.filter((c) => c.breaking), ...changes.filter((c) => !c.breaking)];

/** The name to register a breaking schema under: `.v2`, or the next `.vN`, skipping names already taken. */
export function nextUrn(urn: string, taken: ReadonlySet<string>): string {
  const m = /^(.*)\.v(\d+)$/.exec(urn);
  const stem = m ? m[1]! : urn;
  let n = m ? BigInt(m[2]!) + 1n : 2n;
  while (taken.has(`${stem}.v${n}`)) n++;
  return `${stem}.v${n}`;
}

/** The remedy's words, the URNs and suffixes it names as code (markdown puts them in code spans). */
export function remedySpans(r: Remedy): Array<string | Code> {
  const code = (text: string): Code => ({ text, tone: 'code' });
  if (r.kind === 'sunset') {
    const left = r.days === undefined ? '' : ` (${r.days} day${r.days === 1 ? '' : 's'} from now)`;
    const to: Array<string | Code> = r.replacement === undefined ? [] : ['; its consumers move to ', code(r.replacement)];
    return ['keep ', code(r.urn), ` registered until its sunset ${r.sunset}${left}, then remove it`, ...to];
  }
  if (r.kind === 'property-sunset') {
    const left = r.days === undefined ? '' : ` (${r.days} day${r.days === 1 ? '' : 's'} from now)`;
    const names: Array<string | Code> = r.properties.flatMap((p, i) => [
      ...(i === 0 ? [] : [i === r.properties.length - 1 ? ' and ' : ', ']),
      code(p),
    ]);
    return [
      'keep ',
      ...names,
      ' in ',
      code(r.urn),
      `'s schema until ${r.properties.length === 1 ? 'its sunset' : 'the last sunset'} ${r.sunset}${left}, then remove ${r.properties.length === 1 ? 'it' : 'them'}`,
    ];
  }
  if (r.kind === 'deprecate') {
    return ['keep ', code(r.urn), ' registered with "status": "deprecated" until its consumers have moved off it, then remove it'];
  }
  if (r.urn === undefined || r.next === undefined) {
    return [
      'mint a new URN for the new schema (the URN with ',
      code('.v2'),
      ' appended, or the next ',
      code('.vN'),
      ') instead of changing the registered one',
    ];
  }
  return ['mint a new URN for the new schema, e.g. ', code(r.next), ', and leave ', code(r.urn), ' as it is'];
}

/** The remedy in words. */
export const remedyText = (r: Remedy): string =>
  remedySpans(r)
    .map((s) => (typeof s === 'string' ? s : s.text))
    .join('');

/**
 * The malformed keywords of a schema (docs/contract.md §8): they would not be enforced, so a
 * comparison that ignored them could call a typo `compatible`.
 */
export function malformedKeywords(schema: unknown, side: 'old' | 'new'): SchemaProblem[] {
  let lint: ReturnType<typeof lintSchema>;
  try {
    lint = lintSchema(schema);
  } catch (err) {
    // A schema the validator cannot read (nested past the stack): a problem of that side, not a crash.
    if (err instanceof SchemaError) return [{ side, message: `${side} schema: ${err.message}` }];
    throw err;
  }
  return lint.map((i) => ({
    side,
    pointer: i.pointer,
    keyword: i.keyword,
    message: `${side} schema: malformed keyword "${i.keyword}" at ${i.pointer === '' ? 'the schema root' : i.pointer}: ${i.message}; it would not be enforced`,
  }));
}

/** The unknown keywords of a schema, as `pointer` + `keyword` (none when the validator cannot read it). */
function unknownIn(schema: unknown): Array<{ pointer: string; keyword: string; suggestion?: string }> {
  try {
    return parseSchema(schema).warnings.filter((w) => w.kind === 'unknown');
  } catch (err) {
    if (err instanceof SchemaError) return []; // malformedKeywords reports it
    throw err;
  }
}

/**
 * The unknown keywords the new schema introduces (docs/contract.md §14): at a place where the old
 * schema (absent for a new URN) has no such keyword. Most are typos (`requried`): a comparison
 * that took them for extensions would call a dropped constraint `compatible`.
 */
export function unknownKeywords(newSchema: unknown, oldSchema: unknown, allow: ReadonlySet<string> = new Set()): SchemaProblem[] {
  const before = new Set(oldSchema === undefined ? [] : unknownIn(oldSchema).map((w) => joinPointer(w.pointer, w.keyword)));
  return unknownIn(newSchema)
    .filter((w) => !allow.has(w.keyword) && !before.has(joinPointer(w.pointer, w.keyword)))
    .map((w) => ({
      side: 'new',
      pointer: w.pointer,
      keyword: w.keyword,
      ...(w.suggestion === undefined ? {} : { suggestion: w.suggestion }),
      message: `new schema: ${unknownMessage(w)}`,
    }));
}

/**
 * Whether a change is about a keyword that has a problem (or lies inside its value), or about the
 * keyword a typo replaced (`requried` for `required`: "no longer required" is the typo's doing).
 */
function involves(problems: readonly SchemaProblem[], path: string): boolean {
  const under = (at: string): boolean => path === at || path.startsWith(`${at}/`);
  return problems.some(
    (p) =>
      p.keyword !== undefined &&
      p.pointer !== undefined &&
      (under(joinPointer(p.pointer, p.keyword)) || (p.suggestion !== undefined && under(joinPointer(p.pointer, p.suggestion)))),
  );
}

export interface PairResult extends CompatResult {
  problems: SchemaProblem[];
  /** When the schemas could be compared: both directions' verdicts as a deployment order. */
  rollout?: Rollout;
}

/**
 * Level `none` checks nothing: every change is listed, none breaks (and so none has a witness).
 * The rollout still tells the truth about both directions.
 */
function levelNone(result: CompatResult): CompatResult {
  return {
    compatible: true,
    changes: result.changes.map((c) => {
      const { witness: _w, witnessReason: _r, otherWitness: _o, ...rest } = c;
      return { ...rest, breaking: false };
    }),
  };
}

/**
 * Compares two schema documents; a malformed keyword on either side, or an unknown keyword the new
 * schema introduces, is a problem that makes the pair incompatible (never `compatible` on a
 * constraint nobody enforces). A change about such a keyword is that problem, not a change of its
 * own, and there is no rollout order for a pair that must not ship.
 */
export function comparePair(oldSchema: unknown, newSchema: unknown, level: CompatLevel, options: PairOptions = {}): PairResult {
  const problems = [
    ...malformedKeywords(oldSchema, 'old'),
    ...malformedKeywords(newSchema, 'new'),
    ...unknownKeywords(newSchema, oldSchema, options.allowKeywords),
  ];
  const policy = options.policy ?? 'bqschema';
  let result: CompatResult;
  let rollout: Rollout;
  try {
    const compared: ComparingLevel = level === 'none' ? 'backward' : level;
    result = compareSchemas(oldSchema, newSchema, { level: compared, policy, witnesses: level !== 'none' && options.witnesses !== false });
    // The rollout needs each direction's verdict on its own; no witnesses for those.
    const verdict = (l: ComparingLevel): CompatResult =>
      l === compared && level !== 'none' ? result : compareSchemas(oldSchema, newSchema, { level: l, policy, witnesses: false });
    const backward = verdict('backward');
    const forward = verdict('forward');
    rollout = rolloutOrder(backward.compatible, forward.compatible, { backward: restsOnPolicy(backward), forward: restsOnPolicy(forward) });
    if (level === 'none') result = levelNone(result);
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    return { compatible: false, changes: [], problems: [...problems, { side: 'new', message: `cannot compare: ${err.message}` }] };
  }
  if (problems.length > 0) {
    const changes = result.changes.filter((c) => !involves(problems, c.path));
    return { compatible: false, changes: breakingFirst(changes), problems };
  }
  return { ...result, changes: breakingFirst(result.changes), problems, rollout };
}

const RULES_BY_ID = new Map(RULES.map((r) => [r.id, r]));

const STATUS_RANK: Record<UrnStatus, number> = { invalid: 0, breaking: 1, compatible: 2, added: 3, removed: 4, unchanged: 5 };
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A registry's document for a URN, or the problem that keeps it from being read. */
function read(registry: Registry, urn: string, side: 'old' | 'new'): { value: unknown; file?: FileRef } | SchemaProblem {
  try {
    const doc = registry.document(urn);
    return { value: doc.value, file: doc.file };
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    return { side, message: `${side === 'old' ? `at ${registry.source.label}: ` : ''}${err.message}` };
  }
}

/**
 * Why a URN may not be removed yet, or undefined when it may: an active URN must be deprecated
 * first; a deprecated one with a sunset stays until that day (today unknown: it has not come).
 */
function removalRemedy(entry: ManifestEntry, today: number | undefined): Remedy | undefined {
  if (entry.status !== 'deprecated') return { kind: 'deprecate', urn: entry.urn };
  const sunset = entry.deprecated?.sunset;
  if (sunset === undefined) return undefined;
  const days = today === undefined ? undefined : daysUntil(sunset, today);
  if (days !== undefined && days <= 0) return undefined;
  const replacement = entry.deprecated?.replacement;
  return {
    kind: 'sunset',
    urn: entry.urn,
    sunset,
    ...(days === undefined ? {} : { days }),
    ...(replacement === undefined ? {} : { replacement }),
  };
}

/** The root node of a schema as the validator enforces it, or undefined when it cannot be read. */
function rootOf(schema: unknown): SchemaNode | undefined {
  try {
    return parseSchema(schema).root;
  } catch (err) {
    if (err instanceof SchemaError) return undefined;
    throw err;
  }
}

/**
 * Whether no payload can refute the removal of top-level property `name`: old data carrying it
 * stays valid under the new schema (its root leaves the name to an `additionalProperties` that
 * accepts anything: absent, `true` or `{}`), and, where new data must satisfy the old schema
 * (forward, full), the old schema accepted any value under it. Anything else (a closed model, a
 * constrained `additionalProperties`, a typed property under forward) is a break data can show.
 */
function removalUnrefuted(oldSchema: unknown, newSchema: unknown, name: string, level: CompatLevel): boolean {
  const before = rootOf(oldSchema);
  const after = rootOf(newSchema);
  if (before === undefined || after === undefined || after.always === false) return false;
  if (after.always !== true) {
    if ((after.properties ?? []).some(([n]) => n === name)) return false;
    if (after.additional !== undefined && after.additional.always !== true) return false;
  }
  if (level === 'backward') return true;
  const was = (before.properties ?? []).find(([n]) => n === name)?.[1];
  return was === undefined || was.always === true;
}

const pointerToken = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The removals of top-level properties the old manifest deprecated: on or after the sunset (or
 * with none), a removal breaking by policy only is no longer breaking; one data refutes keeps its
 * witness and says why the sunset does not excuse it; before the sunset the message says how many
 * days remain. The old manifest's word counts: a deprecation is announced before the removal.
 */
export function sunsetRemovals(
  changes: Change[],
  old: ManifestEntry | undefined,
  oldSchema: unknown,
  newSchema: unknown,
  level: CompatLevel,
  today: number | undefined,
): Change[] {
  const deprecated = old?.deprecatedProperties;
  if (deprecated === undefined || deprecated.size === 0) return changes;
  const byPath = new Map<string, { name: string; d: Deprecation }>(
    [...deprecated].map(([name, d]) => [`/properties/${pointerToken(name)}`, { name, d }]),
  );
  return changes.map((c) => {
    const hit = c.rule === 'property-removed' && c.breaking ? byPath.get(c.path) : undefined;
    if (hit === undefined) return c;
    const { name, d } = hit;
    const days = d.sunset === undefined ? undefined : today === undefined ? Infinity : daysUntil(d.sunset, today);
    if (days !== undefined && days > 0) {
      const left = days === Infinity ? '' : ` (${days} day${days === 1 ? '' : 's'} from now)`;
      return {
        ...c,
        message: `${c.message}; ${JSON.stringify(name)} is deprecated until its sunset ${d.sunset}${left}: remove it on that day or later`,
      };
    }
    const passed = d.sunset === undefined ? 'deprecated' : `deprecated and past its sunset ${d.sunset}`;
    const refuted = (c.witness !== undefined && c.witness !== null) || !removalUnrefuted(oldSchema, newSchema, name, level);
    if (refuted)
      return {
        ...c,
        message: `${c.message}; ${JSON.stringify(name)} is ${passed}, but data refutes the removal, so the sunset does not excuse it`,
      };
    const { witness: _w, witnessReason: _r, otherWitness: _o, reach: _reach, ...rest } = c;
    return { ...rest, breaking: false, message: `${c.message}; ${JSON.stringify(name)} is ${passed}: its removal is allowed` };
  });
}

/**
 * When every break of a URN is the removal of a property the old manifest deprecates, before its
 * sunset, and no payload refutes it (so on that day it passes): wait for the sunset, not a new URN.
 */
function waitForSunset(
  urn: string,
  changes: readonly Change[],
  old: ManifestEntry | undefined,
  oldSchema: unknown,
  newSchema: unknown,
  level: CompatLevel,
  today: number | undefined,
): Remedy | undefined {
  const deprecated = old?.deprecatedProperties;
  if (deprecated === undefined) return undefined;
  const waiting: Array<{ name: string; sunset: string; day: number }> = [];
  for (const c of changes) {
    if (!c.breaking) continue;
    if (c.rule !== 'property-removed') return undefined;
    const name = [...deprecated.keys()].find((n) => c.path === `/properties/${pointerToken(n)}`);
    const sunset = name === undefined ? undefined : deprecated.get(name)!.sunset;
    if (name === undefined || sunset === undefined || (c.witness !== undefined && c.witness !== null)) return undefined;
    if (!removalUnrefuted(oldSchema, newSchema, name, level)) return undefined;
    waiting.push({ name, sunset, day: dayNumber(sunset)! });
  }
  if (waiting.length === 0) return undefined;
  const last = waiting.reduce((a, b) => (b.day > a.day ? b : a));
  return {
    kind: 'property-sunset',
    urn,
    properties: waiting.map((w) => w.name),
    sunset: last.sunset,
    ...(today === undefined ? {} : { days: daysUntil(last.sunset, today) }),
  };
}

/**
 * The rollout once deprecated properties past their sunset are excused: each direction's verdict
 * as the gate gives it, so an allowed removal does not read "mint a new URN".
 */
function sunsetRollout(oldSchema: unknown, newSchema: unknown, old: ManifestEntry | undefined, options: RegistriesOptions): Rollout {
  const verdict = (level: ComparingLevel): CompatResult => {
    const r = compareSchemas(oldSchema, newSchema, { level, policy: options.policy ?? 'bqschema', witnesses: false });
    const changes = sunsetRemovals(r.changes, old, oldSchema, newSchema, level, options.today);
    return { compatible: changes.every((c) => !c.breaking), changes };
  };
  const backward = verdict('backward');
  const forward = verdict('forward');
  return rolloutOrder(backward.compatible, forward.compatible, { backward: restsOnPolicy(backward), forward: restsOnPolicy(forward) });
}

/**
 * Each URN of either registry, failing ones first, then by status and URN. `base` undefined: the
 * manifest did not exist there, every URN is added. A URN whose schema cannot be read, or has a
 * malformed keyword, on either side is `invalid` and fails the gate.
 */
export function compareRegistries(
  base: Registry | undefined,
  current: Registry,
  level: CompatLevel,
  options: RegistriesOptions = {},
): UrnReport[] {
  const taken = new Set([...(base?.urns() ?? []), ...current.urns()]);
  const reports: UrnReport[] = [];
  for (const entry of current.entries) {
    const urn = entry.urn;
    const now = read(current, urn, 'new');
    const head = { urn, index: entry.index, ...('value' in now && now.file ? { file: now.file } : {}) };
    const was = base?.has(urn) ? read(base, urn, 'old') : undefined;
    const problems = [...('value' in now ? malformedKeywords(now.value, 'new') : [now])];
    if (was !== undefined && !('value' in was)) problems.push(was);
    const retired = (old: unknown): Change[] => ('value' in now ? retiredChanges(entry.retired, old, now.value, level) : []);
    if (was === undefined) {
      // A new URN introduces every unknown keyword it has.
      // One by one: a schema may have more unknown keywords than a call takes arguments.
      if ('value' in now) for (const p of unknownKeywords(now.value, undefined, options.allowKeywords)) problems.push(p);
      const back = retired(undefined);
      if (problems.length > 0) reports.push({ ...head, status: 'invalid', breaking: true, changes: [], problems });
      else if (back.some((c) => c.breaking))
        reports.push({
          ...head,
          status: 'breaking',
          breaking: true,
          changes: back,
          problems,
          remedy: { kind: 'new-urn', urn, next: nextUrn(urn, taken) },
        });
      else reports.push({ ...head, status: 'added', breaking: false, changes: back, problems });
      continue;
    }
    if (problems.length > 0 || !('value' in now) || !('value' in was)) {
      reports.push({ ...head, status: 'invalid', breaking: true, changes: [], problems });
      continue;
    }
    const baseline = options.fingerprints ? schemaFingerprint(was.value) : undefined;
    if (jsonEqual(was.value, now.value)) {
      // The document, not its path: a schema file that moved with the same content is unchanged.
      reports.push({ ...head, status: 'unchanged', breaking: false, changes: [], problems, ...(baseline ? { baseline } : {}) });
      continue;
    }
    const paired = comparePair(was.value, now.value, level, options);
    const sunsetted = sunsetRemovals(paired.changes, base?.entry(urn), was.value, now.value, level, options.today);
    const compared =
      sunsetted === paired.changes
        ? paired
        : {
            ...paired,
            compatible: paired.problems.length === 0 && !sunsetted.some((c) => c.breaking),
            changes: breakingFirst(sunsetted),
            ...(paired.rollout ? { rollout: sunsetRollout(was.value, now.value, base?.entry(urn), options) } : {}),
          };
    const back = retired(was.value);
    const result =
      back.length === 0
        ? compared
        : {
            ...compared,
            compatible: compared.compatible && !back.some((c) => c.breaking),
            changes: breakingFirst([...compared.changes, ...back]),
          };
    if (result.problems.length > 0) {
      reports.push({
        ...head,
        status: 'invalid',
        breaking: true,
        changes: result.changes,
        problems: result.problems,
        ...(baseline ? { baseline } : {}),
      });
      continue;
    }
    const breaking = !result.compatible;
    const services = urnServices(entry);
    // Level none breaks nothing, so reaches no one.
    const changes =
      services === undefined || level === 'none'
        ? result.changes
        : result.changes.map((c) => {
            const rule = RULES_BY_ID.get(c.rule);
            const reach = changeReach(
              c,
              level,
              rule === undefined ? undefined : options.policy === 'confluent' ? rule.confluentBreaks : rule.breaks,
              services,
            );
            return reach === undefined ? c : { ...c, reach };
          });
    reports.push({
      ...head,
      status: breaking ? 'breaking' : 'compatible',
      breaking,
      changes,
      problems,
      ...(baseline ? { baseline } : {}),
      ...(services === undefined ? {} : { services }),
      ...(result.rollout ? { rollout: rolloutWithServices(result.rollout, services) } : {}),
      ...(breaking
        ? {
            remedy: waitForSunset(urn, changes, base?.entry(urn), was.value, now.value, level, options.today) ?? {
              kind: 'new-urn',
              urn,
              next: nextUrn(urn, taken),
            },
          }
        : {}),
    });
  }
  for (const entry of base?.entries ?? []) {
    const urn = entry.urn;
    if (current.has(urn)) continue;
    const deprecated = entry.status === 'deprecated';
    const services = urnServices(entry);
    const remedy = removalRemedy(entry, options.today);
    reports.push({
      urn,
      status: 'removed',
      breaking: remedy !== undefined,
      changes: [],
      problems: [],
      ...(services === undefined ? {} : { services }),
      ...(deprecated ? { deprecated } : {}),
      ...(remedy ? { remedy } : {}),
    });
  }
  return reports.sort(
    (a, b) => Number(b.breaking) - Number(a.breaking) || STATUS_RANK[a.status] - STATUS_RANK[b.status] || byCodeUnits(a.urn, b.urn),
  );
}
