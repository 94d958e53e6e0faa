// The one way to read a registry: the working tree or a git ref; JSON, JSONC or YAML.
export { Registry, readSchemaFile, type RegistryOptions, type SchemaDocument } from './registry.js';
export { loadRegistry, loadRegistryAtRef } from './load.js';
export { findRegistry, MANIFEST_NAMES } from './discover.js';
export { RegistryError, RegistryNotFoundError, GitError } from './errors.js';
export { readManifest, STATUSES, type ManifestEntry } from './manifest.js';
export { readRegularFile, display, inside, type FileRef } from './source.js';
export {
  yaml,
  jsonc,
  parseText,
  parseTextUniqueKeys,
  parseJsonLine,
  formatOf,
  stripBom,
  ParseFailure,
  DEFAULT_MAX_YAML_EXPANSION,
  YAML_EXPANSION_ENV,
  type TextFormat,
} from './parse.js';
export { SourcePositions } from './positions.js';
export { firstInvalidUtf8 } from './text.js';
export { closest, didYouMean, editDistance } from './suggest.js';
// git.ts and history.ts (child_process) are imported directly by the few modules that read git.
export { dayNumber, dayOf, daysUntil, type Deprecation } from './deprecation.js';
// Types only: the history reader loads with compat --transitive alone.
export type { History } from './versions.js';
