export { assignIds, buildSnapshot, MAX_SCHEMA_ID, schemaId, SCHEMA_TYPE, VERSION } from './snapshot.js';
export type { BrokenSubject, IdProblem, LoadedSubject, SchemaSource, Snapshot, SubjectEntry, SubjectInput } from './snapshot.js';
export { createServer, COMPATIBILITY_LEVELS, CONTENT_TYPE, MAX_CONNECTIONS } from './server.js';
export type { CompatibilityLevel, RegistryServer, RequestLog, ServerOptions, ServerStats } from './server.js';
export { ApiError, ERROR } from './errors.js';
export type { ErrorKind } from './errors.js';
export { MAX_BODY_BYTES, MAX_PENDING_BYTES } from './body.js';
