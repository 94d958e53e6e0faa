import { dirname, join, relative } from 'node:path';
import { existsSync } from 'node:fs';
import {
  DEFAULT_EXCEPTIONS,
  ExceptionsError,
  readExceptions,
  type CorpusDocument,
  type LoadedExceptions,
  type PositionOf,
} from '../../compat/index.js';
import { parseTextUniqueKeys, readRegularFile } from '../../registry/index.js';
import { GateError, UsageError } from '../errors.js';
import { registryLimits } from '../registry.js';

/*
 * What compat reads besides the schemas: the corpus files, the exceptions file and today's date.
 * Weighing them is src/compat (gate.ts, evidence.ts); this module only finds, reads and reports failure.
 */

/** The corpus's documents (files, directories, NDJSON; with validate's reader), read as they are judged; none without a corpus. */
export function corpusDocuments(paths: readonly string[] | undefined): AsyncIterable<readonly CorpusDocument[]> | undefined {
  if (paths === undefined || paths.length === 0) return undefined;
  return (async function* () {
    // The message reader loads only when there is a corpus to read.
    const { DEFAULT_LIMITS, documents } = await import('../inputs.js');
    yield* documents([...paths], { limits: DEFAULT_LIMITS });
  })();
}

/**
 * Reads and checks an exceptions file. A malformed one is one line naming file:line:col (exit 1):
 * parse errors come with their position; a bad entry is located at its field, or the entry.
 */
export async function loadExceptions(path: string, shown: string): Promise<LoadedExceptions> {
  const text = readRegularFile(path, shown, 'exceptions file');
  // A repeated key is an error: last-wins would put an entry in force that nobody sees.
  const value = parseTextUniqueKeys(text, shown, undefined, registryLimits());
  try {
    return readExceptions(value, shown, undefined);
  } catch (err) {
    if (!(err instanceof ExceptionsError)) throw err;
  }
  // A bad file is read again with positions, loaded only now: a clean file never needs them.
  const { SourcePositions } = await import('../../registry/positions.js');
  const positions = SourcePositions.forFile(text, shown);
  const positionOf: PositionOf = (pointer) => positions.of(pointer);
  try {
    return readExceptions(value, shown, positionOf);
  } catch (err) {
    if (!(err instanceof ExceptionsError)) throw err;
    throw new GateError(err.message);
  }
}

/** The exceptions file to read: --exceptions, else the default one in the registry directory when present. */
export function exceptionsPath(option: string | undefined, manifestPath: string | undefined): { path: string; shown: string } | undefined {
  if (option !== undefined) return { path: option, shown: option };
  if (manifestPath === undefined) return undefined;
  const path = join(dirname(manifestPath), DEFAULT_EXCEPTIONS);
  if (!existsSync(path)) return undefined;
  const rel = relative(process.cwd(), path);
  return { path, shown: rel === '' || rel.startsWith('..') ? path : rel };
}

/** Today for exceptions and sunsets: the real date, or BQSCHEMA_NOW=YYYY-MM-DD (for tests and for trying a date out). */
export function clock(): Date {
  const env = process.env['BQSCHEMA_NOW'];
  if (env === undefined || env === '') return new Date();
  const m = /^\d{4}-\d{2}-\d{2}$/.exec(env);
  const d = m ? new Date(`${env}T00:00:00Z`) : undefined;
  if (d === undefined || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== env) {
    throw new UsageError(`BQSCHEMA_NOW must be a date YYYY-MM-DD, got ${JSON.stringify(env.slice(0, 40))}`);
  }
  return d;
}
