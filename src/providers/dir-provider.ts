import type { Deprecation } from '../registry/deprecation.js';
import type { ManifestEntry } from '../registry/manifest.js';
import { Registry } from '../registry/registry.js';
import type { CompiledSchema, SchemaWarning } from '../validator/index.js';
import type { ProviderOptions } from './map-provider.js';
import type { Provider } from './provider.js';

export interface DirProviderOptions extends ProviderOptions {
  /** Read schema files outside the manifest's directory (refused by default). */
  allowOutsidePaths?: boolean;
  /**
   * The most values YAML aliases may add to one registry file (default 100,000, as the CLI): a
   * file past it fails to load, naming the limit.
   */
  maxYamlExpansion?: number;
}

/**
 * The registry bridge: reads a registry manifest once (JSON, JSONC or YAML, as the CLI does), then
 * loads and compiles each URN's schema file on first use and caches it. A file that cannot be
 * loaded throws a RegistryError each time it is asked for (a consumer retries), naming the URN and
 * the file; an unknown URN returns `undefined`. A key repeated in one object of the manifest or of a
 * schema file is such a failure (never a silent last-wins), naming the key and both places.
 */
export class DirProvider implements Provider {
  /** The registry layer this provider reads through: the same reader every CLI command uses. */
  readonly registry: Registry;
  /** Warnings of the schemas loaded so far, each naming its URN. */
  readonly warnings: SchemaWarning[] = [];
  private readonly reported = new Set<string>();

  constructor(
    registryPath: string,
    readonly options: DirProviderOptions = {},
  ) {
    this.registry = Registry.workingTree(registryPath, {
      allowOutsidePaths: options.allowOutsidePaths,
      strict: options.strict,
      onWarning: options.onWarning,
      maxYamlExpansion: options.maxYamlExpansion,
    }).requireUsable();
  }

  schemaFor(urn: string): CompiledSchema | undefined {
    const compiled = this.registry.compiled(urn);
    if (compiled !== undefined && !this.reported.has(urn)) {
      this.reported.add(urn);
      for (const w of compiled.warnings) this.warnings.push(w); // one by one: a call's arguments are bounded, a schema's warnings are not
    }
    return compiled;
  }

  /** The registered URNs, in manifest order. */
  urns(): string[] {
    return this.registry.urns();
  }

  entry(urn: string): ManifestEntry | undefined {
    return this.registry.entry(urn);
  }

  /** The manifest's deprecation of the URN (`{}` for `"status": "deprecated"` alone), else undefined. */
  deprecation(urn: string): Deprecation | undefined {
    const entry = this.registry.entry(urn);
    return entry?.status === 'deprecated' ? { ...entry.deprecated } : undefined;
  }
}
