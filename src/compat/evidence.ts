import { readEnvelope, EnvelopeError } from '../guard/envelope.js';
import { ParseFailure, parseJsonLine, parseText } from '../registry/index.js';
import { pointerLabel, type CompiledSchema } from '../validator/index.js';
import { applyExceptions, ExceptionsError, parseExceptions, type CompatException, type ExceptionsOutcome } from './exceptions.js';
import type { Change } from './compare.js';

/*
 * The evidence compat weighs besides its rules, as pure functions over what the caller has read:
 * captured traffic (a corpus) validated against the new schemas, and reviewed exceptions that
 * excuse named breaks until a date. Reading files, the clock and exit codes stay with the caller.
 */

// ---- corpus --------------------------------------------------------------------------------------

/** How many rejected corpus messages each URN lists. */
const CORPUS_EXAMPLES = 3;

/** A corpus document as read: its text, or why it could not be read. */
export type CorpusDocument =
  | { kind: 'doc'; file: string; line?: number; text: string }
  | { kind: 'error'; file: string; message: string; line?: number; col?: number };

interface CorpusRejection {
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

/** What a corpus message is checked against: the report entry it counts under and the new schema. */
export type CorpusTarget = (urn: string) => { key: string; schema: CompiledSchema } | undefined;

/**
 * Validates each corpus envelope's data against the schema `target(urn)` names; envelopes it names
 * none for are counted, not checked. `keys` are the report's entries, in order.
 */
export async function judgeCorpus(
  batches: AsyncIterable<readonly CorpusDocument[]>,
  target: CorpusTarget,
  keys: readonly string[],
): Promise<CorpusReport> {
  const report: CorpusReport = { documents: 0, ignored: 0, unreadable: 0, errors: [], urns: [], failed: false };
  const byKey = new Map<string, CorpusUrn>();
  for (const key of keys) {
    const u: CorpusUrn = { urn: key, checked: 0, rejected: 0, examples: [] };
    byKey.set(key, u);
    report.urns.push(u);
  }
  const unreadable = (file: string, message: string, line?: number, col?: number): void => {
    report.unreadable++;
    if (report.errors.length < CORPUS_EXAMPLES)
      report.errors.push({ file, ...(line === undefined ? {} : { line }), ...(col === undefined ? {} : { col }), message });
  };
  for await (const batch of batches) {
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
        const v = t.schema.validate(data, 1)[0]; // the first only: the walk stops there
        u.examples.push({
          file: doc.file,
          ...(doc.line === undefined ? {} : { line: doc.line }),
          at: `/data${v?.instancePath ?? ''}`,
          message: `${pointerLabel(v?.instancePath ?? '')} ${v?.message ?? 'is invalid'}`,
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

/** Where in the file a position is (1-based), for a JSON Pointer into it. */
export type PositionOf = (pointer: string) => { line: number; col: number } | undefined;

const FIELD = /^(urn|rule|path|fingerprint|reason|owner|expires) (?:is missing|must)/;

/**
 * Checks a parsed exceptions file. A malformed one throws ExceptionsError with one line naming
 * file:line:col where `positionOf` can place it: at the bad field, or the entry.
 */
export function readExceptions(value: unknown, shown: string, positionOf: PositionOf | undefined): LoadedExceptions {
  try {
    return { file: shown, entries: parseExceptions(value, shown) };
  } catch (err) {
    if (!(err instanceof ExceptionsError)) throw err;
    throw new ExceptionsError(locateProblem(err.message, shown, value, positionOf));
  }
}

function locateProblem(message: string, shown: string, value: unknown, positionOf: PositionOf | undefined): string {
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
    const pos = positionOf?.(pointer);
    if (pos !== undefined) at = `:${pos.line}:${pos.col}`;
  } catch {
    at = '';
  }
  return `${shown}${at}: ${rest}`;
}

export interface ExceptionsState {
  file: string;
  outcome: ExceptionsOutcome;
  /** The exception that excuses each suppressed change. */
  excused: Map<Change, CompatException>;
}

/** Applies the exceptions in force on `now` to the findings of each URN. */
export function weighExceptions(
  loaded: LoadedExceptions,
  findings: ReadonlyMap<string, readonly Change[]>,
  fingerprints: ReadonlyMap<string, string>,
  now: Date,
): ExceptionsState {
  const outcome = applyExceptions(findings, loaded.entries, { now, fingerprints });
  const excused = new Map<Change, CompatException>();
  for (const s of outcome.suppressed) excused.set(s.change, s.exception);
  return { file: loaded.file, outcome, excused };
}

export const exceptedText = (e: CompatException): string => `excepted (${e.reason}, ${e.owner}, expires ${e.expires})`;
