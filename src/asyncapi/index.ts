export {
  buildAsyncApi, catalogKeys, DEFAULT_TITLE, DEFAULT_VERSION, PAYLOAD_SCHEMA_FORMAT,
  type AsyncApiOptions, type CatalogEntry,
} from './build.js';
export { mergeKeyIssues } from './merge-keys.js';
export { validateAsyncApi, type AsyncApiIssue } from './validate.js';
