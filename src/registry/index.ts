// The one way to read a registry: the working tree or a git ref; JSON, JSONC or YAML.
export { Registry, registryAtRef, readSchemaFile, registryParseOptions, type AtRefOptions, type RegistryAtRef, type RegistryOptions, type SchemaDocument, type LocatedProblem } from './registry.js';
export { loadRegistry, loadRegistryAtRef, type LoadOptions } from './load.js';
export { findRegistry, MANIFEST_NAMES, REGISTRY_ENV, type FoundRegistry, type RegistryOrigin } from './discover.js';
export { RegistryError, RegistryNotFoundError, GitError, type RegistryErrorKind } from './errors.js';
export { readManifest, isUrnSyntax, type FoundBy, ENTRY_KEYS, MANIFEST_KEYS, STATUSES, type ManifestEntry, type ManifestProblem } from './manifest.js';
export { WorkingTree, MemorySource, readRegularFile, display, inside, MAX_REGISTRY_FILE, type FileRef, type Source, type WorkingTreeOptions } from './source.js';
export {
  yaml, jsonc, parseText, parseTextUniqueKeys, parseJsonLine, formatOf, lineCol, stripBom, ParseFailure, DEFAULT_MAX_YAML_EXPANSION, YAML_EXPANSION_ENV,
  type ParseOptions, type TextFormat,
} from './parse.js';
export { SourcePositions, locateJson, type Position } from './positions.js';
export { decodeUtf8, EncodingError, firstInvalidUtf8 } from './text.js';
export { closest, didYouMean, editDistance } from './suggest.js';
// git.ts and history.ts (child_process) are imported directly by the few modules that read git.
