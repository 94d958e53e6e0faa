import { dirname, join, relative } from 'node:path';
import { existsSync } from 'node:fs';
import {
  applyExceptions, ExceptionsError, parseExceptions,
  type Change, type CompatException, type ExceptionsOutcome,
} from '../../compat/index.js';
import { ParseFailure, parseJsonLine, parseText, parseTextUniqueKeys, readRegularFile } from '../../registry/index.js';
import type { CompiledSchema } from '../../validator/index.js';
import { GateError, UsageError } from '../errors.js';
import { DATA_ROOT } from '../output.js';

/*
 * The evidence compat weighs besides its rules: captured traffic (--corpus) validated against the
 * new schemas, and reviewed exceptions (--exceptions) that excuse named breaks until a date.
 */

// ---- corpus --------------------------------------------------------------------------------------

/** How many rejected corpus messages each URN lists. */
export const CORPUS_EXAMPLES = 3;

export interface CorpusRejection {
  file: string;
  line?: number;
  /** Pointer into the message (`/data/...`). */
  at: string;
  message: string;
}

export interface CorpusUrn {
  /** The URN (in two-file mode, --urn). */
  urn: string;
  checked: number;
  rejected: number;
  /** The first few rejections. */
  examples: CorpusRejection[];
}

export interface CorpusReport {
  /** Documents read. */
  documents: number;
  /** Messages of URNs that did not change (or of another URN than --urn): not checked. */
  ignored: number;
  /** Documents that do not parse or are not envelopes: they fail the gate, as in validate. */
  unreadable: number;
  errors: Array<{ file: string; line?: number; col?: number; message: string }>;
  urns: CorpusUrn[];
  /** True when a message was rejected or a document was unreadable. */
  failed: boolean;
}

/**
 * Reads every corpus document (files, directories, NDJSON; with validate's engine) and validates
 * each envelope's data against the schema `target(urn)` names; envelopes it names none for are counted, not checked.
 */
export async function checkCorpus(
  paths: string[], target: (urn: string) => { key: string; schema: CompiledSchema } | undefined, keys: readonly string[],
): Promise<CorpusReport> {
  // The message reader and the envelope rules load only when there is a corpus to read.
  const [{ DEFAULT_LIMITS, documents }, { EnvelopeError, readEnvelope }] = await Promise.all([import('../inputs.js'), import('../../guard/index.js')]);
  const report: CorpusReport = { documents: 0, ignored: 0, unreadable: 0, errors: [], urns: [], failed: false };
  const byKey = new Map<string, CorpusUrn>();
  for (const key of keys) {
    const u: CorpusUrn = { urn: key, checked: 0, rejected: 0, examples: [] };
    byKey.set(key, u);
    report.urns.push(u);
  }
  const unreadable = (file: string, message: string, line?: number, col?: number): void => {
    report.unreadable++;
    if (report.errors.length < CORPUS_EXAMPLES) report.errors.push({ file, ...(line === undefined ? {} : { line }), ...(col === undefined ? {} : { col }), message });
  };
  for await (const batch of documents(paths, { limits: DEFAULT_LIMITS })) {
    for (const doc of batch) {
      report.documents++;
      if (doc.kind === 'error') {
        unreadable(doc.file, doc.message, doc.line, doc.col);
        continue;
      }
      let value: unknown;
      try {
        value = doc.line === undefined ? parseText(doc.text, doc.file, 'json') : parseJsonLine(doc.text, doc.file, doc.line);
      } catch (err) {
        if (!(err instanceof ParseFailure)) throw err;
        unreadable(doc.file, err.problem, err.line, err.col);
        continue;
      }
      let urn: string;
      let data: unknown;
      try {
        ({ urn, data } = readEnvelope(value));
      } catch (err) {
        if (!(err instanceof EnvelopeError)) throw err;
        unreadable(doc.file, `not a message envelope: ${err.message}`, doc.line);
        continue;
      }
      const t = target(urn);
      if (t === undefined) {
        report.ignored++;
        continue;
      }
      const u = byKey.get(t.key)!;
      u.checked++;
      if (t.schema.isValid(data)) continue;
      u.rejected++;
      if (u.examples.length < CORPUS_EXAMPLES) {
        const v = t.schema.validate(data)[0];
        u.examples.push({
          file: doc.file, ...(doc.line === undefined ? {} : { line: doc.line }),
          at: `/data${v?.instancePath ?? ''}`, message: `${v?.instancePath || DATA_ROOT} ${v?.message ?? 'is invalid'}`,
        });
      }
    }
  }
  report.failed = report.unreadable > 0 || report.urns.some((u) => u.rejected > 0);
  return report;
}

export const corpusWhere = (r: { file: string; line?: number }): string => (r.line === undefined ? r.file : `${r.file}:${r.line}`);

/** One line per URN: `3 of 120 corpus message(s) rejected by the new schema`. */
export function corpusSentence(u: CorpusUrn): string {
  if (u.checked === 0) return 'no corpus message of this URN';
  if (u.rejected === 0) return `all ${u.checked} corpus message(s) valid under the new schema`;
  return `${u.rejected} of ${u.checked} corpus message(s) rejected by the new schema`;
}

// ---- exceptions ----------------------------------------------------------------------------------

/** The exceptions file compat reads from the registry directory when --exceptions is not given. */
export const DEFAULT_EXCEPTIONS = 'bqschema-exceptions.yaml';

export interface LoadedExceptions {
  /** As shown in messages. */
  file: string;
  entries: CompatException[];
}

const FIELD = /^(urn|rule|path|fingerprint|reason|owner|expires) (?:is missing|must)/;

/**
 * Reads and validates an exceptions file. A malformed one is one line naming file:line:col (exit 1):
 * parse errors come with their position; a bad entry is located at its field, or the entry.
 */
export function loadExceptions(path: string, shown: string): LoadedExceptions {
  const text = readRegularFile(path, shown, 'exceptions file');
  // A repeated key is an error: last-wins would put an entry in force that nobody sees (issue 22).
  const value = parseTextUniqueKeys(text, shown);
  try {
    return { file: shown, entries: parseExceptions(value, shown) };
  } catch (err) {
    if (!(err instanceof ExceptionsError)) throw err;
    throw new GateError(locateProblem(err.message, shown, text, value));
  }
}

function locateProblem(message: string, shown: string, text: string, value: unknown): string {
  const rest = message.startsWith(`${shown}: `) ? message.slice(shown.length + 2) : message;
  const listAt = Array.isArray(value) ? '' : '/exceptions';
  let pointer = rest.startsWith('"exceptions"') ? '/exceptions' : '';
  const entry = /^exception (\d+)(?: \([^)]*\))?: (.*)$/s.exec(rest);
  if (entry) {
    pointer = `${listAt}/${Number(entry[1]) - 1}`;
    const field = FIELD.exec(entry[2]!);
    if (field && !entry[2]!.includes('is missing')) pointer += `/${field[1]}`;
  }
  let at = '';
  try {
    // Loaded only here: a clean file never needs positions.
    const pos = positions(text, shown, pointer);
    if (pos !== undefined) at = `:${pos.line}:${pos.col}`;
  } catch {
    at = '';
  }
  return `${shown}${at}: ${rest}`;
}

let positionsModule: typeof import('../../registry/positions.js') | undefined;
function positions(text: string, shown: string, pointer: string): { line: number; col: number } | undefined {
  if (positionsModule === undefined) return undefined;
  return positionsModule.SourcePositions.forFile(text, shown).of(pointer);
}

/** Loads the positions module ahead of a possible error (the loader above is synchronous). */
export async function preparePositions(): Promise<void> {
  positionsModule ??= await import('../../registry/positions.js');
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

/** Today for exceptions: the real date, or BQSCHEMA_NOW=YYYY-MM-DD (for tests and for trying a date out). */
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

export interface ExceptionsState {
  file: string;
  outcome: ExceptionsOutcome;
  /** The exception that excuses each suppressed change. */
  excused: Map<Change, CompatException>;
}

export function weighExceptions(
  loaded: LoadedExceptions, findings: ReadonlyMap<string, readonly Change[]>, fingerprints: ReadonlyMap<string, string>,
): ExceptionsState {
  const outcome = applyExceptions(findings, loaded.entries, { now: clock(), fingerprints });
  const excused = new Map<Change, CompatException>();
  for (const s of outcome.suppressed) excused.set(s.change, s.exception);
  return { file: loaded.file, outcome, excused };
}

export const exceptedText = (e: CompatException): string => `excepted (${e.reason}, ${e.owner}, expires ${e.expires})`;
