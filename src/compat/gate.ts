import { dayOf, RegistryError, type History, type Registry, type SchemaDocument } from '../registry/index.js';
import { compile, SchemaError, type CompiledSchema } from '../validator/index.js';
import type { Change } from './compare.js';
import { judgeCorpus, weighExceptions, type CorpusDocument, type LoadedExceptions } from './evidence.js';
import { schemaFingerprint } from './exceptions.js';
import type { CompatLevel } from './levels.js';
import { compareRegistries, comparePair, type SchemaProblem, type UrnReport } from './registry.js';
import {
  exceptRows,
  pairVerdict,
  reachedServices,
  registryVerdict,
  type Doc,
  type PairVerdict,
  type RegistryFindings,
  type RegistryVerdict,
  type Row,
  type Verdicts,
} from './verdict.js';
import { teamsOf } from './reach.js';
// Types only: the transitive check loads with --transitive alone.
import type { TransitiveWindow } from './transitive.js';
import type { CompatPolicy } from './rules.js';

/*
 * compat's gate, whole: what the CLI loaded (two schema documents or two registries, the
 * exceptions file, the corpus's documents, the git history of a --transitive window, today's date)
 * in one options object, the verdict out; rendering it is the CLI's. Nothing here calls back into
 * the CLI: the corpus arrives as a stream of documents its reader makes, consumed here, and the
 * history as read.
 */

/** How strict the comparison is, and with what leeway. */
interface CompatSettings {
  level: CompatLevel;
  policy: CompatPolicy;
  /** Unknown keywords used on purpose: the new schema may introduce them (docs/contract.md §14). */
  allowKeywords: ReadonlySet<string>;
}

/** The evidence a verdict weighs besides the schemas, as loaded. */
interface CompatEvidence {
  /** The exceptions file's entries, when there is one. */
  exceptions?: LoadedExceptions;
  /** The corpus's documents, when one was given (read as they are judged). */
  corpus?: AsyncIterable<readonly CorpusDocument[]>;
  /** Today, for exceptions' expiry. */
  now: Date;
}

export interface PairGate extends CompatSettings, CompatEvidence {
  oldFile: string;
  newFile: string;
  /** The URN the two schemas are registered under: which corpus messages apply, and the exceptions' scope. */
  urn?: string;
  older: SchemaDocument | SchemaProblem;
  newer: SchemaDocument | SchemaProblem;
}

const unread = (d: SchemaDocument | SchemaProblem): d is SchemaProblem => 'side' in d;

/** Two schema files' verdict: their changes, weighed with the exceptions and the corpus. */
export async function pairGate(gate: PairGate): Promise<PairVerdict> {
  const { older, newer, urn } = gate;
  const problems = [older, newer].filter(unread);
  const result =
    problems.length > 0
      ? { changes: [] as Change[], problems, rollout: undefined }
      : comparePair((older as SchemaDocument).value, (newer as SchemaDocument).value, gate.level, {
          policy: gate.policy,
          allowKeywords: gate.allowKeywords,
        });
  const { changes, rollout } = result;
  const v: Verdicts = {};
  if (gate.exceptions !== undefined && urn !== undefined) {
    const fingerprints = new Map<string, string>(unread(older) ? [] : [[urn, schemaFingerprint(older.value)]]);
    v.exceptions = weighExceptions(gate.exceptions, new Map([[urn, changes]]), fingerprints, gate.now);
  }
  if (gate.corpus !== undefined && urn !== undefined) {
    let schema: CompiledSchema | undefined;
    if (!unread(newer)) {
      try {
        schema = compile(newer.value, { onWarning: () => {} });
      } catch (err) {
        if (!(err instanceof SchemaError)) throw err;
      }
    }
    if (schema !== undefined) {
      const target = { key: urn, schema };
      v.corpus = await judgeCorpus(gate.corpus, (u) => (u === urn ? target : undefined), [urn]);
    }
  }
  const newDoc = unread(newer) ? undefined : { name: newer.file.shown, text: newer.text };
  return pairVerdict({
    oldFile: gate.oldFile,
    newFile: gate.newFile,
    urn,
    v,
    changes,
    problems: result.problems,
    rollout,
    newDoc,
    level: gate.level,
    policy: gate.policy,
  });
}

export interface RegistryGate extends CompatSettings, CompatEvidence {
  /** The registry at the ref; undefined when there was none there (every URN is added). */
  base: Registry | undefined;
  current: Registry;
  against: RegistryFindings['against'];
  working: RegistryFindings['working'];
  looked: RegistryFindings['looked'];
  /**
   * `--transitive`: the window of git history the CLI read; each URN's breaks against its earlier
   * versions there are added to its row (before exceptions and the corpus weigh them).
   */
  history?: History;
  /** `--mention`: name the teams of the services the failing changes reach (the pull-request comment mentions them). */
  mention?: boolean;
}

/** The working registry's verdict against the one at a git ref: a row per URN, weighed with the exceptions and the corpus. */
export async function registryGate(gate: RegistryGate): Promise<RegistryVerdict> {
  const { current } = gate;
  const rows: Row[] = compareRegistries(gate.base, current, gate.level, {
    policy: gate.policy,
    fingerprints: gate.exceptions !== undefined,
    allowKeywords: gate.allowKeywords,
    today: dayOf(gate.now.getTime()),
  });
  const window = gate.history ? await transitiveWindow(rows, gate.history, gate) : undefined;
  const v: Verdicts = {};
  if (gate.exceptions !== undefined) {
    const findings = new Map(rows.filter((r) => r.changes.length > 0).map((r) => [r.urn, r.changes] as const));
    const fingerprints = new Map(rows.filter((r) => r.baseline !== undefined).map((r) => [r.urn, r.baseline!] as const));
    v.exceptions = weighExceptions(gate.exceptions, findings, fingerprints, gate.now);
    exceptRows(rows, v);
  }
  const changed = rows.filter((r) => r.status === 'compatible' || r.status === 'breaking');
  if (gate.corpus !== undefined) {
    const schemas = new Map<string, { key: string; schema: CompiledSchema }>();
    const wanted = new Set(changed.map((r) => r.urn));
    v.corpus = await judgeCorpus(
      gate.corpus,
      (urn) => {
        if (!wanted.has(urn)) return undefined;
        let t = schemas.get(urn);
        if (t === undefined) {
          t = { key: urn, schema: current.compiled(urn)! };
          schemas.set(urn, t);
        }
        return t;
      },
      changed.map((r) => r.urn),
    );
    const byUrn = new Map(v.corpus.urns.map((u) => [u.urn, u]));
    for (const r of changed) r.corpus = byUrn.get(r.urn);
  }
  const docOf = (r: UrnReport): Doc | undefined => {
    if (r.file === undefined) return undefined;
    try {
      const d = current.document(r.urn);
      return { name: d.file.shown, text: d.text };
    } catch {
      return undefined;
    }
  };
  return registryVerdict({
    rows,
    v,
    manifestName: current.manifest.shown,
    manifestText: current.manifestText,
    docOf,
    level: gate.level,
    policy: gate.policy,
    against: gate.against,
    working: gate.working,
    looked: gate.looked,
    ...(window ? { window } : {}),
    ...(gate.mention ? { mention: teamsOf(reachedServices(rows, v), [...current.services, ...(gate.base?.services ?? [])]) } : {}),
  });
}

/** A URN's schema in a registry, or undefined where it has none (or it cannot be read: compared as absent). */
function schemaValue(registry: Registry | undefined, urn: string): unknown {
  if (registry === undefined || !registry.has(urn)) return undefined;
  try {
    return registry.document(urn).value;
  } catch (err) {
    if (err instanceof RegistryError) return undefined;
    throw err;
  }
}

/** Adds each URN's breaks against its earlier versions in the window to its row; the window's counts. */
async function transitiveWindow(rows: Row[], history: History, gate: RegistryGate): Promise<TransitiveWindow> {
  // Loaded with --transitive alone: most runs compare with one ref.
  const { checkTransitive } = await import('./transitive.js');
  const { base, current } = gate;
  const counts = checkTransitive(rows, {
    history: history.versions,
    now: (urn) => schemaValue(current, urn),
    base: (urn) => schemaValue(base, urn),
    level: gate.level,
    policy: gate.policy,
    taken: new Set([...(base?.urns() ?? []), ...current.urns(), ...history.versions.keys()]),
    deprecations: { entry: (urn) => base?.entry(urn), today: dayOf(gate.now.getTime()) },
  });
  return {
    ...(history.since ? { since: { ref: history.since.ref, commit: history.since.commit } } : {}),
    commits: history.commits,
    ...counts,
    skipped: counts.skipped + history.unreadable.length,
  };
}
