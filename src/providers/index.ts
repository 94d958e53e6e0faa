export type { AsyncProvider, Provider, SchemaAnswer } from './provider.js';
export { MapProvider, type ProviderOptions } from './map-provider.js';
export { HttpProvider, type HttpProviderOptions } from './http-provider.js';
export { DirProvider, type DirProviderOptions } from './dir-provider.js';
export {
  readManifest, readRegistryText, loadManifest, loadSchemaFile, schemaPath, parseJsonText, RegistryError,
  type Manifest, type ManifestEntry, type ManifestProblem, type ParseText, type RegistryErrorKind,
} from './manifest.js';
