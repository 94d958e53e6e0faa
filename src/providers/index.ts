export type { AsyncProvider, Provider, SchemaAnswer } from './provider.js';
export { MapProvider, type ProviderOptions } from './map-provider.js';
export { HttpProvider, type HttpProviderOptions } from './http-provider.js';
export { DirProvider, type DirProviderOptions } from './dir-provider.js';
export { RegistryError, type RegistryErrorKind } from '../registry/errors.js';
export type { ManifestEntry } from '../registry/manifest.js';
