import { randomBytes } from 'node:crypto';
import { assignIds } from '../registry/ids.js';
import type { CompiledSchema } from '../validator/index.js';

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
}

/** A subject whose schema loaded: its answers are encoded once, here, not per request. */
export interface LoadedSubject {
  readonly ok: true;
  readonly name: string;
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

/** A subject in the manifest whose schema file could not be loaded: answered with a backend error. */
export interface BrokenSubject {
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
  /** Schema id → subject. An id two subjects claim is in neither: both are broken. */
  readonly byId: ReadonlyMap<number, SubjectEntry>;
  readonly broken: readonly BrokenSubject[];
  /** `GET /subjects`. */
  readonly subjectsBody: Buffer;
  /** The HTML catalog answered at `/catalog`, when the server was given one. */
  readonly catalog?: { readonly headers: Readonly<Record<string, string>>; readonly body: Buffer };
}

/** The only version a subject has: a URN names one schema, a changed schema is a new URN. */
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
export { assignIds, MAX_SCHEMA_ID, schemaId, type IdProblem } from '../registry/ids.js';

function subjectInputs(source: SchemaSource): SubjectInput[] {
  return source.urns().map((item) => {
    const input: SubjectInput = typeof item === 'string' ? { urn: item } : { urn: item.urn, id: item.id };
    if (input.id === undefined && source.idFor !== undefined) input.id = source.idFor(input.urn);
    return input;
  });
}

/**
 * Loads every schema of the source now. A schema that fails to load does not stop the build: its
 * subject is kept and marked broken with the reason, and so is a subject whose id is invalid or
 * shared (an id must name one schema).
 */
export function buildSnapshot(source: SchemaSource): Snapshot {
  const inputs = subjectInputs(source);
  const { ids, problems } = assignIds(inputs);
  const idProblem = new Map(problems.map((p) => [p.urn, p]));
  const subjects = [...new Set(inputs.map((i) => i.urn))].sort();
  const bySubject = new Map<string, SubjectEntry>();
  const byId = new Map<number, SubjectEntry>();
  const broken: BrokenSubject[] = [];
  subjects.forEach((name) => {
    const problem = idProblem.get(name);
    const id = problem?.id ?? ids.get(name)!;
    const idVersionsBody = json([{ subject: name, version: VERSION }]);
    const idSubjectsBody = json([name]);
    let entry: SubjectEntry;
    try {
      if (problem !== undefined) throw new Error(problem.message);
      const schema = schemaText(source.schemaFor(name));
      entry = {
        ok: true, name, id, schema,
        document: JSON.parse(schema),
        versionBody: json({ subject: name, version: VERSION, id, schemaType: SCHEMA_TYPE, schema }),
        registerBody: json({ id, version: VERSION, schemaType: SCHEMA_TYPE, schema }),
        idBody: json({ schemaType: SCHEMA_TYPE, schema }),
        schemaBody: Buffer.from(schema, 'utf8'),
        idVersionsBody, idSubjectsBody,
      };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      entry = { ok: false, name, id, error, idVersionsBody, idSubjectsBody };
      broken.push(entry);
    }
    bySubject.set(name, entry);
    if (problem === undefined) byId.set(id, entry);
  });
  return Object.freeze({ subjects: Object.freeze(subjects), bySubject, byId, broken: Object.freeze(broken), subjectsBody: json(subjects) });
}
