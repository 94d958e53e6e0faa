import { existsSync, readFileSync } from 'node:fs';
import { EXIT_GATE, EXIT_OK, UsageError } from './errors.js';
import { printDocument } from './output.js';
import { claimTarget, outputTarget, writeFileAtomic } from './write.js';

/*
 * The one way a command that makes a document (types, compile, catalog, export-asyncapi) hands it
 * over: on stdout, written to `-o` atomically, or, with `--check`, compared with `-o`'s file, with
 * the same words and exit codes in every command.
 */

/** Where a document goes: `-o <file>` (stdout without it), and whether `--check` compares instead. */
export interface DocumentTarget {
  output?: string;
  check?: boolean;
}

/** `--check` compares a file, so it needs `-o`: a usage error (exit 2) without it. */
export function requireCheckedFile(target: DocumentTarget): void {
  if (target.check && target.output === undefined) throw new UsageError('--check compares a file: give it with -o <file>');
}

/**
 * Before anything is read or built: `--check` has its file, and a file to write is claimed, so a
 * file this run reads (or another output names) is never the output.
 */
export function claimDocument(target: DocumentTarget): void {
  requireCheckedFile(target);
  if (target.output !== undefined && !target.check) claimTarget(target.output, '-o');
}

export interface DocumentSummary {
  /** What the document holds, for the lines that name it: `4 message types`, `AsyncAPI 3.0.0, JSON, 2 channels`. */
  holds: string;
  /** With `--check`: the command that writes the file, each word quoted for the shell. */
  rerun?: () => string;
}

/**
 * Prints the document (no `-o`), writes it (`Wrote <file>: <holds>`), or with `--check` compares:
 * `<file> is up to date (<holds>)`, exit 0; a missing or different file is one line on stderr
 * naming the command that writes it, exit 1.
 */
export async function emitDocument(text: string, target: DocumentTarget, summary: DocumentSummary): Promise<number> {
  requireCheckedFile(target);
  const { output } = target;
  if (output === undefined) return printDocument(text);
  if (target.check) {
    const stale = !existsSync(outputTarget(output))
      ? 'does not exist; generate it'
      : readCurrent(output).equals(Buffer.from(text, 'utf8'))
        ? undefined
        : 'is out of date; regenerate it';
    if (stale !== undefined) {
      const rerun = summary.rerun?.();
      process.stderr.write(`bqschema: ${output} ${stale}${rerun === undefined ? '' : ` with ${rerun}`}\n`);
      return EXIT_GATE;
    }
    process.stdout.write(`${output} is up to date (${summary.holds})\n`);
    return EXIT_OK;
  }
  writeFileAtomic(output, text);
  process.stdout.write(`Wrote ${output}: ${summary.holds}\n`);
  return EXIT_OK;
}

function readCurrent(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}
