import { existsSync, readFileSync } from 'node:fs';
import type { Deprecation, Registry } from '../../registry/index.js';
import { generateCsharp, generateGo, generateJava, generatePhp, generatePython, generateTypes, type TypesEntry } from '../../types/index.js';
import { SchemaError } from '../../validator/index.js';
import { EXIT_GATE, EXIT_OK, GateError, UsageError } from '../errors.js';
import { printDocument } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { rerunCommand } from '../shell.js';
import { claimTarget, outputTarget, writeFileAtomic } from '../write.js';

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
  /** `--lang`: ts (default), go, python, java, csharp or php. */
  lang?: 'ts' | 'go' | 'python' | 'java' | 'csharp' | 'php';
  /** The command that writes `output`, for `--check`'s hint; default: `bqschema types [--lang <lang>] -o <output>`. */
  rerun?: string;
}

/** A TypesSource over a registry: its entries and each one's parsed schema (a RegistryError when unreadable). */
export function sourceFromRegistry(registry: Registry): TypesSource {
  // The registry is strict: a malformed keyword is refused, not typed as if it were enforced.
  return { entries: registry.entries, document: (urn) => (registry.compiled(urn), registry.document(urn).value) };
}

/** The generated module; a schema the validator cannot read is a one-line error naming its URN. */
export function renderTypes(source: TypesSource, lang: 'ts' | 'go' | 'python' | 'java' | 'csharp' | 'php' = 'ts'): string {
  const entries: TypesEntry[] = source.entries.map(({ urn, owner, status, description, deprecated }) => {
    const entry: TypesEntry = { urn, schema: source.document(urn) };
    if (owner !== undefined) entry.owner = owner;
    if (status !== undefined) entry.status = status;
    if (description !== undefined) entry.description = description;
    if (deprecated !== undefined) entry.deprecated = deprecated;
    return entry;
  });
  try {
    return lang === 'go' ? generateGo(entries) : lang === 'python' ? generatePython(entries) : lang === 'java' ? generateJava(entries) : lang === 'php' ? generatePhp(entries) : lang === 'csharp' ? generateCsharp(entries) : generateTypes(entries);
  } catch (err) {
    if (err instanceof SchemaError) throw new GateError(`types: ${err.message}`);
    throw err;
  }
}

export async function run(options: TypesOptions): Promise<number> {
  const { output } = options;
  if (options.check && output === undefined) throw new UsageError('--check compares a file: give it with -o <file>');
  const text = renderTypes(options.source, options.lang);
  const n = options.source.entries.length;

  if (output === undefined) return printDocument(text);

  const exists = existsSync(outputTarget(output));
  if (options.check) {
    const rerun = options.rerun ?? rerunCommand('types', { lang: options.lang, output }, 'ts');
    if (!exists) {
      process.stderr.write(`bqschema: ${output} does not exist; generate it with ${rerun}\n`);
      return EXIT_GATE;
    }
    let current: Buffer;
    try {
      current = readFileSync(output);
    } catch (err) {
      throw new UsageError(`cannot read ${output}: ${(err as Error).message}`);
    }
    if (!current.equals(Buffer.from(text, 'utf8'))) {
      process.stderr.write(`bqschema: ${output} is out of date; regenerate it with ${rerun}\n`);
      return EXIT_GATE;
    }
    process.stdout.write(`${output} is up to date (${n} message type${n === 1 ? '' : 's'})\n`);
    return EXIT_OK;
  }

  writeFileAtomic(output, text);
  process.stdout.write(`Wrote ${output}: ${n} message type${n === 1 ? '' : 's'}\n`);
  return EXIT_OK;
}

export interface TypesCommandOptions extends RegistryCliOptions {
  output?: string;
  check?: boolean;
  lang?: 'ts' | 'go' | 'python' | 'java' | 'csharp' | 'php';
}

/** `bqschema types`: the registry's message types as a TypeScript module. */
export function runTypes(options: TypesCommandOptions): Promise<number> {
  const registry = openRegistry(options);
  // Checked before the types are generated: a file this run reads is never the output.
  if (options.output !== undefined && !options.check) claimTarget(options.output, '-o');
  const rerun = options.output === undefined ? undefined : rerunCommand('types', { ...options, output: options.output }, 'ts');
  return run({ source: sourceFromRegistry(registry), output: options.output, check: options.check, lang: options.lang, rerun });
}
