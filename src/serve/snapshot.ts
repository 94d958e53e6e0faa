import type { CompiledSchema } from '../validator/index.js';

/** What a snapshot is built from: a provider that can list its URNs (MapProvider, DirProvider). */
export interface SchemaSource {
  urns(): string[];
  schemaFor(urn: string): CompiledSchema | undefined;
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
  /** Subject names (URNs) in code-unit order; a subject's id is its position + 1. */
  readonly subjects: readonly string[];
  readonly bySubject: ReadonlyMap<string, SubjectEntry>;
  /** Indexed by id - 1. */
  readonly byId: readonly SubjectEntry[];
  readonly broken: readonly BrokenSubject[];
  /** `GET /subjects`. */
  readonly subjectsBody: Buffer;
}

/** The only version a subject has: a URN names one schema, a changed schema is a new URN. */
export const VERSION = 1;
export const SCHEMA_TYPE = 'JSON';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

function schemaText(compiled: CompiledSchema | undefined): string {
  if (compiled === undefined) throw new Error('the provider has no schema for it');
  const text = JSON.stringify(compiled.schema) as string | undefined;
  if (text === undefined) throw new Error('the schema cannot be written as JSON');
  return text;
}

/**
 * Loads every schema of the source now. A schema that fails to load does not stop the build: its
 * subject is kept (ids do not shift) and marked broken with the reason.
 */
export function buildSnapshot(source: SchemaSource): Snapshot {
  const subjects = [...new Set(source.urns())].sort();
  const bySubject = new Map<string, SubjectEntry>();
  const byId: SubjectEntry[] = [];
  const broken: BrokenSubject[] = [];
  subjects.forEach((name, index) => {
    const id = index + 1;
    const idVersionsBody = json([{ subject: name, version: VERSION }]);
    const idSubjectsBody = json([name]);
    let entry: SubjectEntry;
    try {
      const schema = schemaText(source.schemaFor(name));
      entry = {
        ok: true, name, id, schema,
        document: JSON.parse(schema),
        versionBody: json({ subject: name, version: VERSION, id, schemaType: SCHEMA_TYPE, schema }),
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
    byId.push(entry);
  });
  return Object.freeze({ subjects: Object.freeze(subjects), bySubject, byId: Object.freeze(byId), broken: Object.freeze(broken), subjectsBody: json(subjects) });
}
