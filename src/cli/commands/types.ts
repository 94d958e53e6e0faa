import type { Deprecation, Registry } from '../../registry/index.js';
import { GENERATORS } from '../../types/generators.js';
import type { TypesEntry } from '../../types/index.js';
import { DEFAULT_LANG, type Lang } from '../../types/languages.js';
import { SchemaError } from '../../validator/index.js';
import { claimDocument, emitDocument, requireCheckedFile } from '../document.js';
import { GateError } from '../errors.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { rerunCommand } from '../shell.js';

/** What `types` needs from a registry: its entries, in manifest order, and each one's parsed schema. */
export interface TypesSource {
  readonly entries: ReadonlyArray<{ urn: string; owner?: string; status?: string; description?: string; deprecated?: Deprecation }>;
  /** The parsed schema document of a URN; a file that cannot be read throws a one-line error. */
  document(urn: string): unknown;
}

export interface TypesOptions {
  source: TypesSource;
  /** `-o`: the file to write (or, with `check`, to compare). Default: stdout. */
  output?: string;
  /** `--check`: exit 1 when `output` is not what would be written. */
  check?: boolean;
  /** `--lang`: a row of LANGUAGES (src/types/languages.ts); ts by default. */
  lang?: Lang;
  /** The command that writes `output`, for `--check`'s hint; default: `bqschema types [--lang <lang>] -o <output>`. */
  rerun?: string;
}

/** A TypesSource over a registry: its entries and each one's parsed schema (a RegistryError when unreadable). */
export function sourceFromRegistry(registry: Registry): TypesSource {
  // The registry is strict: a malformed keyword is refused, not typed as if it were enforced.
  return { entries: registry.entries, document: (urn) => (registry.compiled(urn), registry.document(urn).value) };
}

/** The generated module; a schema the validator cannot read is a one-line error naming its URN. */
export function renderTypes(source: TypesSource, lang: Lang = DEFAULT_LANG): string {
  const entries: TypesEntry[] = source.entries.map(({ urn, owner, status, description, deprecated }) => {
    const entry: TypesEntry = { urn, schema: source.document(urn) };
    if (owner !== undefined) entry.owner = owner;
    if (status !== undefined) entry.status = status;
    if (deprecated !== undefined) entry.deprecated = deprecated;
    if (description !== undefined) entry.description = description;
    return entry;
  });
  try {
    return GENERATORS[lang](entries);
  } catch (err) {
    if (err instanceof SchemaError) throw new GateError(`types: ${err.message}`);
    throw err;
  }
}

export async function run(options: TypesOptions): Promise<number> {
  requireCheckedFile(options);
  const text = renderTypes(options.source, options.lang);
  const n = options.source.entries.length;
  return emitDocument(text, options, {
    holds: `${n} message type${n === 1 ? '' : 's'}`,
    rerun: () => options.rerun ?? rerunCommand('types', { lang: options.lang, output: options.output! }, DEFAULT_LANG),
  });
}

export interface TypesCommandOptions extends RegistryCliOptions {
  output?: string;
  check?: boolean;
  lang?: Lang;
}

/** `bqschema types`: the registry's message types as a TypeScript module. */
export function runTypes(options: TypesCommandOptions): Promise<number> {
  const registry = openRegistry(options);
  // Checked before the types are generated: a file this run reads is never the output.
  claimDocument(options);
  const rerun = options.output === undefined ? undefined : rerunCommand('types', { ...options, output: options.output }, DEFAULT_LANG);
  return run({ source: sourceFromRegistry(registry), output: options.output, check: options.check, lang: options.lang, rerun });
}
