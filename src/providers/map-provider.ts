import { compile, SchemaError, type CompiledSchema, type SchemaWarning } from '../validator/index.js';
import type { Provider } from './provider.js';

export interface ProviderOptions {
  /** Receives unsupported-keyword warnings; without it they go to process.emitWarning. */
  onWarning?: (warning: SchemaWarning, message: string) => void;
  /**
   * A supported keyword with the wrong shape (docs/contract.md §8), or an unknown keyword (§14, a
   * typo such as `requried`), is an error, not a warning: MapProvider throws a SchemaError naming
   * the URN, DirProvider and HttpProvider fail that URN's load.
   */
  strict?: boolean;
}

/** In-memory provider for tests and for schemas embedded in code. Compiles every schema eagerly. */
export class MapProvider implements Provider {
  private readonly schemas = new Map<string, CompiledSchema>();
  /** Every unsupported-keyword warning of every schema, each naming its URN. */
  readonly warnings: SchemaWarning[] = [];

  constructor(schemas: Record<string, unknown>, options: ProviderOptions = {}) {
    for (const urn of Object.keys(schemas)) {
      let compiled: CompiledSchema;
      try {
        compiled = compile(schemas[urn], { urn, onWarning: options.onWarning, strict: options.strict });
      } catch (err) {
        if (err instanceof SchemaError) throw new SchemaError(`schema for ${urn}: ${err.message}`);
        throw err;
      }
      this.schemas.set(urn, compiled);
      for (const w of compiled.warnings) this.warnings.push(w); // one by one: a call's arguments are bounded, a schema's warnings are not
    }
  }

  /** Builds a provider from raw JSON text per URN. A text that is not JSON throws, naming the URN. */
  static fromJson(raw: Record<string, string>, options: ProviderOptions = {}): MapProvider {
    // A null-prototype object: a `__proto__` URN is an ordinary own key, not a prototype change.
    const parsed: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const urn of Object.keys(raw)) {
      if (typeof raw[urn] !== 'string')
        throw new TypeError(`schema for ${urn} must be JSON text, got ${raw[urn] === null ? 'null' : typeof raw[urn]}`);
      try {
        parsed[urn] = JSON.parse(raw[urn]!);
      } catch (err) {
        throw new SyntaxError(`schema for ${urn} is not valid JSON: ${(err as Error).message}`);
      }
    }
    return new MapProvider(parsed, options);
  }

  schemaFor(urn: string): CompiledSchema | undefined {
    return this.schemas.get(urn);
  }

  /** The registered URNs. */
  urns(): string[] {
    return [...this.schemas.keys()];
  }

  has(urn: string): boolean {
    return this.schemas.has(urn);
  }
}
