import { compile, type CompiledSchema, type SchemaWarning } from '../validator/index.js';
import { loadManifest, loadSchemaFile, RegistryError, type Manifest, type ManifestEntry, type ParseText } from './manifest.js';
import type { ProviderOptions } from './map-provider.js';
import type { Provider } from './provider.js';

export interface DirProviderOptions extends ProviderOptions {
  /** Parser for the manifest and schema files (default: JSON with a BOM accepted). */
  parse?: ParseText;
  /** Read schema files outside the manifest's directory (refused by default). */
  allowOutsidePaths?: boolean;
}

/**
 * The registry bridge: reads a registry.json manifest once, then loads and compiles each URN's
 * schema file on first use and caches it. A file that cannot be loaded throws each time it is asked
 * for (a consumer retries), naming the URN and the file; an unknown URN returns `undefined`.
 */
export class DirProvider implements Provider {
  readonly manifest: Manifest;
  /** Warnings of the schemas loaded so far, each naming its URN. */
  readonly warnings: SchemaWarning[] = [];
  private readonly entries = new Map<string, ManifestEntry>();
  private readonly cache = new Map<string, CompiledSchema>();

  constructor(
    registryPath: string,
    readonly options: DirProviderOptions = {},
  ) {
    this.manifest = loadManifest(registryPath, options.parse);
    for (const entry of this.manifest.entries) this.entries.set(entry.urn, entry);
  }

  schemaFor(urn: string): CompiledSchema | undefined {
    const cached = this.cache.get(urn);
    if (cached !== undefined) return cached;
    const entry = this.entries.get(urn);
    if (entry === undefined) return undefined;
    const schema = loadSchemaFile(this.manifest, entry, { parse: this.options.parse, allowOutside: this.options.allowOutsidePaths });
    let compiled: CompiledSchema;
    try {
      compiled = compile(schema, { urn, onWarning: this.options.onWarning });
    } catch (err) {
      throw new RegistryError('malformed', entry.schema, `schema for ${urn} (${entry.schema}): ${(err as Error).message}`, urn);
    }
    this.cache.set(urn, compiled);
    this.warnings.push(...compiled.warnings);
    return compiled;
  }

  /** The registered URNs, in manifest order. */
  urns(): string[] {
    return [...this.entries.keys()];
  }

  entry(urn: string): ManifestEntry | undefined {
    return this.entries.get(urn);
  }
}
