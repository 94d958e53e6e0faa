export type { Provider } from './provider.js';
export { MapProvider, type ProviderOptions } from './map-provider.js';
export { DirProvider, type DirProviderOptions } from './dir-provider.js';
export { RegistryError, type RegistryErrorKind, type ManifestEntry } from '../registry/index.js';
