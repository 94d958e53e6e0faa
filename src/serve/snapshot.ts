import { createHash, randomBytes } from 'node:crypto';
import { assignIds, MAX_SCHEMA_ID } from '../registry/ids.js';
import { canonicalKey, type CompiledSchema } from '../validator/index.js';

/** A registered URN with its explicit schema id, when the manifest gives one. */
export interface SubjectInput {
  urn: string;
  id?: number;
}

/**
 * What a snapshot is built from: a provider that can list its URNs (MapProvider, DirProvider).
 * `urns()` may list `{urn, id?}` items; `idFor(urn)` may give a URN's explicit id. Without an
 * explicit id, a URN's id is derived from the URN alone (`schemaId`).
 */
export interface SchemaSource {
  urns(): Array<string | SubjectInput>;
  schemaFor(urn: string): CompiledSchema | null | undefined;
  idFor?(urn: string): number | undefined;
  /**
   * `serve --history`: the URN's earlier schemas, oldest first, each distinct and none equal to
   * today's (which is the last version). Without it a subject has one version.
   */
  earlier?(urn: string): readonly unknown[];
}

/** One version of a subject whose schema loaded: its answers are encoded once, here, not per request. */
export interface LoadedVersion {
  readonly ok: true;
  readonly name: string;
  /** 1 for the oldest; a subject without history has version 1 only. */
  readonly version: number;
  readonly id: number;
  /** The registered schema as JSON text (a YAML or JSONC file is served as JSON). */
  readonly schema: string;
  /** `schema` parsed back: what a posted schema is compared with. */
  readonly document: unknown;
  /** `{subject, version, id, schemaType, schema}`. */
  readonly versionBody: Buffer;
  /** `{id, version, schemaType, schema}`: the answer to registering the registered schema again (Confluent's RegisterSchemaResponse). */
  readonly registerBody: Buffer;
  /** `{schemaType, schema}`. */
  readonly idBody: Buffer;
  /** The schema text alone (`…/schema` endpoints). */
  readonly schemaBody: Buffer;
  /** `[{subject, version}]`. */
  readonly idVersionsBody: Buffer;
  /** `[subject]`. */
  readonly idSubjectsBody: Buffer;
}

/** A subject whose schema loaded: its latest version, and every version (oldest first, the last is this one). */
export interface LoadedSubject extends LoadedVersion {
  readonly versions: readonly LoadedVersion[];
  /** `[1, 2, …]`: `GET /subjects/{s}/versions`. */
  readonly versionsBody: Buffer;
}

/** A subject in the manifest whose schema file could not be loaded: answered with a backend error. */
interface BrokenSubject {
  readonly ok: false;
  readonly name: string;
  readonly id: number;
  readonly error: string;
  readonly idVersionsBody: Buffer;
  readonly idSubjectsBody: Buffer;
}

export type SubjectEntry = LoadedSubject | BrokenSubject;

/** Everything the server answers from; never changed once built (a reload builds a new one). */
export interface Snapshot {
  /** Subject names (URNs) in code-unit order. */
  readonly subjects: readonly string[];
  readonly bySubject: ReadonlyMap<string, SubjectEntry>;
  /** Schema id → subject (or one of its earlier versions). An id two subjects claim is in neither: both are broken. */
  readonly byId: ReadonlyMap<number, SubjectEntry | LoadedVersion>;
  readonly broken: readonly BrokenSubject[];
  /** `GET /subjects`. */
  readonly subjectsBody: Buffer;
  /** The HTML catalog answered at `/catalog`, when the server was given one. */
  readonly catalog?: { readonly headers: Readonly<Record<string, string>>; readonly body: Buffer };
}

/** The only version a subject has without `--history`: a URN names one schema, a changed schema is a new URN. */
export const VERSION = 1;
export const SCHEMA_TYPE = 'JSON';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

/**
 * A schema as JSON text. JSON.stringify writes ±Infinity as `null`, which would publish `{"const":
 * 1e400}` as `{"const": null}`: they are written as `1e999`/`-1e999`, JSON numbers that every
 * parser reads back as the same infinity (docs/contract.md §13).
 */
export function schemaJson(schema: unknown): string | undefined {
  const marker = `\u0000bqschema-infinity-${randomBytes(8).toString('hex')}`;
  let infinite = false;
  const text = JSON.stringify(schema, (_key, v: unknown) => {
    if (v === Infinity || v === -Infinity) {
      infinite = true;
      return v > 0 ? `${marker}+` : `${marker}-`;
    }
    return v;
  }) as string | undefined;
  if (!infinite || text === undefined) return text;
  const quoted = JSON.stringify(marker).slice(0, -1);
  return text.split(`${quoted}+"`).join('1e999').split(`${quoted}-"`).join('-1e999');
}

function schemaText(compiled: CompiledSchema | null | undefined): string {
  if (compiled === undefined || compiled === null) throw new Error('the provider has no schema for it');
  const text = schemaJson(compiled.schema);
  if (text === undefined) throw new Error('the schema cannot be written as JSON');
  return text;
}

// Ids are the registry's (a manifest entry may give one); serve answers with them.
export { assignIds, MAX_SCHEMA_ID, schemaId } from '../registry/ids.js';

function subjectInputs(source: SchemaSource): SubjectInput[] {
  return source.urns().map((item) => {
    const input: SubjectInput = typeof item === 'string' ? { urn: item } : { urn: item.urn, id: item.id };
    if (input.id === undefined && source.idFor !== undefined) input.id = source.idFor(input.urn);
    return input;
  });
}

/**
 * The id of a subject's later version (2, 3, …): derived from the URN and the schema's canonical
 * JSON, so the same content keeps its id across restarts and commits; one taken already moves on
 * to the next free number (in subject, then version, order).
 */
function versionId(urn: string, document: unknown, taken: Set<number>): number {
  let id =
    createHash('sha256')
      .update(`${urn}\u0000${canonicalKey(document)}`, 'utf8')
      .digest()
      .readUInt32BE(0) >>> 1 || 1;
  while (taken.has(id)) id = id >= MAX_SCHEMA_ID ? 1 : id + 1;
  taken.add(id);
  return id;
}

function loadedVersion(name: string, version: number, id: number, schema: string): LoadedVersion {
  return {
    ok: true,
    name,
    version,
    id,
    schema,
    document: JSON.parse(schema),
    versionBody: json({ subject: name, version, id, schemaType: SCHEMA_TYPE, schema }),
    registerBody: json({ id, version, schemaType: SCHEMA_TYPE, schema }),
    idBody: json({ schemaType: SCHEMA_TYPE, schema }),
    schemaBody: Buffer.from(schema, 'utf8'),
    idVersionsBody: json([{ subject: name, version }]),
    idSubjectsBody: json([name]),
  };
}

/**
 * Loads every schema of the source now. A schema that fails to load does not stop the build: its
 * subject is kept and marked broken with the reason, and so is a subject whose id is invalid or
 * shared (an id must name one schema). With the source's `earlier`, each distinct schema of a
 * subject is a version: version 1 (the oldest) has the subject's id, each later one an id derived
 * from its content.
 */
export function buildSnapshot(source: SchemaSource): Snapshot {
  const inputs = subjectInputs(source);
  const { ids, issues } = assignIds(inputs);
  const idIssue = new Map(issues.map((p) => [p.urn, p]));
  const subjects = [...new Set(inputs.map((i) => i.urn))].sort();
  const bySubject = new Map<string, SubjectEntry>();
  const byId = new Map<number, SubjectEntry | LoadedVersion>();
  const broken: BrokenSubject[] = [];
  const taken = new Set<number>([...ids.values(), ...issues.map((p) => p.id)]);
  subjects.forEach((name) => {
    const problem = idIssue.get(name);
    const id = problem?.id ?? ids.get(name)!;
    let entry: SubjectEntry;
    try {
      if (problem !== undefined) throw new Error(problem.message);
      const schema = schemaText(source.schemaFor(name));
      const earlier = (source.earlier?.(name) ?? []).map((doc) => schemaJson(doc)).filter((t): t is string => t !== undefined);
      const versions: LoadedVersion[] = [];
      [...earlier, schema].forEach((text, i) => {
        const version = i + 1;
        versions.push(loadedVersion(name, version, version === 1 ? id : versionId(name, JSON.parse(text), taken), text));
      });
      const latest = versions[versions.length - 1]!;
      entry = { ...latest, versions, versionsBody: json(versions.map((v) => v.version)) };
      versions[versions.length - 1] = entry;
      for (const v of versions.slice(0, -1)) byId.set(v.id, v);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      entry = { ok: false, name, id, error, idVersionsBody: json([{ subject: name, version: VERSION }]), idSubjectsBody: json([name]) };
      broken.push(entry);
    }
    bySubject.set(name, entry);
    if (problem === undefined) byId.set(entry.id, entry);
  });
  return Object.freeze({ subjects: Object.freeze(subjects), bySubject, byId, broken: Object.freeze(broken), subjectsBody: json(subjects) });
}
