import { DirProvider, loadSchemaFile, RegistryError, type CompiledSchema, type Manifest, type ManifestEntry, type SchemaWarning } from '../internal.js';
import { CliError } from './errors.js';
import { parseByExtension } from './parse.js';

export interface RegistryOptions {
  registry?: string;
  allowOutsidePaths?: boolean;
}

/** `--registry`, else BQSCHEMA_REGISTRY, else ./registry.json. */
export function registryPath(options: RegistryOptions): string {
  return options.registry ?? (process.env.BQSCHEMA_REGISTRY || 'registry.json');
}

/** Turns a RegistryError into the one-line CLI error (exit 2). */
export function asCliError(err: unknown): never {
  if (err instanceof RegistryError || err instanceof CliError) throw err instanceof CliError ? err : new CliError(err.message, 2);
  throw err;
}

/**
 * The registry every command loads: a DirProvider whose files may be JSON, JSONC or YAML. Schema
 * warnings are collected per URN so commands can print them once per URN.
 */
export class CliRegistry {
  readonly provider: DirProvider;
  readonly path: string;
  private readonly pendingWarnings: SchemaWarning[] = [];

  constructor(options: RegistryOptions) {
    this.path = registryPath(options);
    try {
      this.provider = new DirProvider(this.path, {
        parse: parseByExtension,
        allowOutsidePaths: options.allowOutsidePaths,
        onWarning: (w) => this.pendingWarnings.push(w),
      });
    } catch (err) {
      asCliError(err);
    }
  }

  get manifest(): Manifest {
    return this.provider.manifest;
  }

  /** The compiled schema of a URN; a file that cannot be loaded is a one-line error. */
  schemaFor(urn: string): CompiledSchema | undefined {
    try {
      return this.provider.schemaFor(urn);
    } catch (err) {
      asCliError(err);
    }
  }

  /** Warnings raised since the last call (each URN's are raised once, when it is first loaded). */
  takeWarnings(): SchemaWarning[] {
    return this.pendingWarnings.splice(0);
  }

  /** An entry's parsed schema document, not compiled. */
  loadDocument(entry: ManifestEntry): unknown {
    return loadSchemaFile(this.manifest, entry, { parse: parseByExtension, allowOutside: this.provider.options.allowOutsidePaths });
  }
}
