export { assignIds, buildSnapshot, MAX_SCHEMA_ID, schemaId } from './snapshot.js';
export type { LoadedSubject, SchemaSource, Snapshot, SubjectInput } from './snapshot.js';
export { createServer, MAX_CONNECTIONS } from './server.js';
export type { RegistryServer, RequestLog, ServerStats } from './server.js';
export { MAX_BODY_BYTES, MAX_PENDING_BYTES } from './body.js';
