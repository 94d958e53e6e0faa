/*
 * The one findings model (issue 23). Every gate (validate, check, compat, gdpr) computes a Report
 * in its core; one renderer per format (text, json, github, markdown, sarif, junit) renders any
 * Report. A command never switches on the format itself.
 *
 * A *unit* is what a command judges (a message, a URN, a schema, a field) with its status; the
 * summary counts units. A *finding* is one thing said about a unit (or about the run), at a
 * location where one is known. These names follow the glossary in docs/ci-reports.md and the keys of
 * every command's `--format json` output.
 */

export type Level = 'error' | 'warning' | 'note';

/** How a unit fares, whatever the command calls it: JUnit's four outcomes. */
export type Outcome = 'pass' | 'fail' | 'skip' | 'error';

export interface Location {
  /** Relative to the working directory, `/`-separated (what a user would type). */
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based, counted in code points (SARIF runs say `unicodeCodePoints`). */
  column?: number;
  /** JSON Pointer (RFC 6901) into the document `file` holds, or into the message's `data`. */
  pointer?: string;
}

export interface Evidence {
  /** A value that shows the finding is real (compat: valid under the old schema, rejected by the new). */
  witness?: unknown;
  /** Where in the witness it bites (JSON Pointer); renderers show this part and elide the rest. */
  witnessPointer?: string;
  /** Corpus evidence: how many real messages the finding concerns, and some of them. */
  corpus?: { checked: number; affected: number; examples: Location[] };
}

export interface Finding {
  /** A rule id of the command's rule set (see Rule); stable, kebab-case. */
  rule: string;
  level: Level;
  /** One line, plain text; renderers escape it for their format. */
  message: string;
  /** The unit this finding belongs to (Unit.id); absent for a finding about the whole run. */
  unit?: string;
  urn?: string;
  location?: Location;
  evidence?: Evidence;
}

export interface Unit {
  /** Unique within the report (a file path, `file:line` for NDJSON, a URN, `urn#/pointer` for a field). */
  id: string;
  /** What the command judges: the word the summary counts. */
  kind: 'message' | 'urn' | 'schema' | 'field' | 'change';
  /** The command's own word for how it fared (valid, invalid, skipped, unreadable, compatible, breaking, …). */
  status: string;
  outcome: Outcome;
  urn?: string;
  location?: Location;
  /** Milliseconds spent judging it, where measured (JUnit `time`). */
  timeMs?: number;
}

export interface Rule {
  id: string;
  shortDescription: string;
  fullDescription: string;
  /** The remedy, in plain text and in markdown. */
  help: { text: string; markdown: string };
  /** The docs page that explains the rule. */
  helpUri: string;
  defaultLevel: Level;
}

export interface Report {
  command: 'validate' | 'check' | 'compat' | 'gdpr';
  ok: boolean;
  /** Counts of units, named after them and their statuses (e.g. messages, valid, invalid, skipped). */
  summary: Record<string, number>;
  units: Unit[];
  findings: Finding[];
  /** The rules the findings cite (at least those). */
  rules: Rule[];
}

/**
 * Renderers consume a report as a stream, so `validate` over millions of messages keeps memory
 * flat: begin, then each unit with its findings, then run-level findings and the summary at end.
 * A whole Report is rendered by replaying it (see renderReport).
 */
export interface ReportSink {
  begin(head: { command: Report['command']; rules: readonly Rule[] }): void;
  unit(unit: Unit, findings: readonly Finding[]): void;
  end(tail: { ok: boolean; summary: Record<string, number>; findings: readonly Finding[] }): void;
}
