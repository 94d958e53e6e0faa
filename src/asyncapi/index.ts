export { assembleAsyncApi, buildAsyncApi, catalogKeys, type CatalogEntry } from './build.js';
export { originOf, PAYLOAD_SCHEMA_FORMAT, type Origin, type SchemaFile, type SchemaFiles } from './bundle.js';
export { validateAsyncApi, type AsyncApiIssue } from './validate.js';
