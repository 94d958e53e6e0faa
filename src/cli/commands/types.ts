import { lstatSync, readFileSync } from 'node:fs';
import { SchemaError } from '../../index.js';
import { generateTypes, type TypesEntry } from '../../types/index.js';
import { CliError, EXIT_GATE, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { Out } from '../output.js';
import { asCliError, type CliRegistry } from '../registry.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { writeFileAtomic } from './export-asyncapi.js';

/** What `types` needs from a registry: its entries, in manifest order, and each one's parsed schema. */
export interface TypesSource {
  readonly entries: ReadonlyArray<{ urn: string; owner?: string; status?: string; description?: string }>;
  /** The parsed schema document of a URN; a file that cannot be read throws a one-line error. */
  document(urn: string): unknown;
}

export interface TypesOptions {
  source: TypesSource;
  /** `-o`: the file to write (or, with `check`, to compare). Default: stdout. */
  output?: string;
  /** `--check`: exit 1 when `output` is not what would be written. */
  check?: boolean;
}

/** A TypesSource over the CLI's registry (until every command loads through the registry layer). */
export function sourceFromRegistry(registry: CliRegistry): TypesSource {
  const entries = registry.manifest.entries;
  const byUrn = new Map(entries.map((e) => [e.urn, e]));
  return {
    entries,
    document(urn) {
      const entry = byUrn.get(urn);
      if (entry === undefined) throw new CliError(`${urn}: not in the registry`, EXIT_USAGE);
      try {
        return registry.loadDocument(entry);
      } catch (err) {
        asCliError(err);
      }
    },
  };
}

/** The generated module; a schema the validator cannot read is a one-line error naming its URN. */
export function renderTypes(source: TypesSource): string {
  const entries: TypesEntry[] = source.entries.map(({ urn, owner, status, description }) => {
    const entry: TypesEntry = { urn, schema: source.document(urn) };
    if (owner !== undefined) entry.owner = owner;
    if (status !== undefined) entry.status = status;
    if (description !== undefined) entry.description = description;
    return entry;
  });
  try {
    return generateTypes(entries);
  } catch (err) {
    if (err instanceof SchemaError) throw new CliError(`types: ${err.message}`, EXIT_USAGE);
    throw err;
  }
}

/**
 * `-o` must name a regular file or nothing yet: renaming over a symlink would replace the link,
 * and a directory, FIFO or device is not a file to regenerate.
 */
function existingRegularFile(target: string): boolean {
  let kind: string;
  try {
    const st = lstatSync(target);
    if (st.isFile()) return true;
    kind = st.isDirectory() ? 'a directory' : st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'ENOTDIR') throw new CliError(`${target}: a part of the path is not a directory`, EXIT_USAGE);
    throw new CliError(`${target}: ${(err as Error).message}`, EXIT_USAGE);
  }
  throw new CliError(`${target} is ${kind}; -o takes a regular file`, EXIT_USAGE);
}

export async function run(options: TypesOptions): Promise<number> {
  const { output } = options;
  if (options.check && output === undefined) throw new CliError('--check compares a file: give it with -o <file>', EXIT_USAGE);
  const text = renderTypes(options.source);
  const n = options.source.entries.length;

  if (output === undefined) {
    exitWhenStdoutCloses(() => EXIT_OK);
    const out = new Out();
    out.line(text.slice(0, -1));
    await out.flush();
    return EXIT_OK;
  }

  const exists = existingRegularFile(output);
  if (options.check) {
    if (!exists) {
      process.stderr.write(`bqschema: ${output} does not exist; generate it with bqschema types -o ${output}\n`);
      return EXIT_GATE;
    }
    let current: Buffer;
    try {
      current = readFileSync(output);
    } catch (err) {
      throw new CliError(`cannot read ${output}: ${(err as Error).message}`, EXIT_USAGE);
    }
    if (!current.equals(Buffer.from(text, 'utf8'))) {
      process.stderr.write(`bqschema: ${output} is out of date; regenerate it with bqschema types -o ${output}\n`);
      return EXIT_GATE;
    }
    process.stdout.write(`${output} is up to date (${n} message type${n === 1 ? '' : 's'})\n`);
    return EXIT_OK;
  }

  try {
    writeFileAtomic(output, text);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'its directory does not exist' : e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.message;
    throw new CliError(`cannot write ${output}: ${why}; nothing was written`, EXIT_USAGE);
  }
  process.stdout.write(`Wrote ${output}: ${n} message type${n === 1 ? '' : 's'}\n`);
  return EXIT_OK;
}
