import { docsPage } from '../report/docs.js';
import type { Outcome, ReportFinding, ReportRule, ReportUnit } from '../report/model.js';
import { quote } from '../report/text.js';
import { pointerLabel } from '../validator/index.js';

/*
 * validate's verdicts as a Report's pieces (src/report renders them in every format): the rules it
 * cites, a unit per message (what its summary counts) and a finding per thing said about one;
 * its text words them in view-text.ts. Pure: the CLI judges each message
 * (src/validate/judge.ts), places a violation in its file, and streams or keeps what this returns.
 */

export type MessageStatus = 'valid' | 'invalid' | 'skipped' | 'error';

/** A violation of a message's data, as validate reports it. */
export interface MessageViolation {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message: string;
  /** Pointer into the source document (the data's path under /data for an envelope). */
  at: string;
}

/** One message's verdict: what the findings are made of. */
export interface MessageVerdict {
  file: string;
  /** The NDJSON line, for a message read from a stream. */
  line: number | undefined;
  urn: string | undefined;
  status: MessageStatus;
  violations: readonly MessageViolation[] | undefined;
  /** Identity warnings of the envelope. */
  warnings: readonly string[] | undefined;
  /** Why the message could not be judged (status `error`). */
  error: string | undefined;
  /** Where the error is in the file, when known. */
  errorLine: number | undefined;
  col: number | undefined;
  /**
   * Where an error about the URN's schema is fixed (Registry.problemSite): its manifest entry for
   * a missing file, else the schema file. Absent for an input that is not a message.
   */
  errorLocation?: { file: string; line?: number; col?: number; pointer: string };
  /** For an unregistered URN: the closest registered one (a likely typo). */
  suggestion: string | undefined;
  /** The data has more violations than the MAX_VIOLATIONS listed. */
  moreViolations?: boolean;
  /** Status `error` because no schema is registered for the URN (validate --strict): its finding is `no-schema`. */
  unregistered?: boolean;
  /** The registry deprecates the message's URN: what `deprecationText` says of it (a warning, never a verdict). */
  deprecation?: string;
}

/** What validate says of a message whose URN the registry deprecates: since when, its sunset, what replaces it and why. */
export function deprecationText(
  urn: string,
  d: { since?: string; sunset?: string; replacement?: string; reason?: string } | undefined,
): string {
  const dates = [d?.since === undefined ? '' : `since ${d.since}`, d?.sunset === undefined ? '' : `sunset ${d.sunset}`]
    .filter((x) => x !== '')
    .join(', ');
  const move =
    d?.replacement === undefined
      ? 'move its producers and consumers to the URN that replaces it'
      : `move its producers and consumers to ${d.replacement}`;
  return `${urn} is deprecated${dates === '' ? '' : ` (${dates})`}${d?.reason === undefined ? '' : `: ${d.reason}`}; ${move}`;
}

/**
 * The most violations listed for one message: a message's data can break its schema millions of
 * times (`[{}, {}, …]` against items with a required key), and listing them would cost far more
 * memory than the message. The rest are said to exist (`moreViolations`), not listed.
 */
export const MAX_VIOLATIONS = 1000;

/** What every format says of a message whose violations were not all listed. */
export const MORE_VIOLATIONS = `more violations not listed: validate lists the first ${MAX_VIOLATIONS} of a message`;

const VALIDATE_PAGE = docsPage('cli/validate.md');

/** The rules validate's findings cite. */
export const VALIDATE_RULES: readonly ReportRule[] = [
  {
    id: 'invalid-data',
    description: "A message's data fails the schema registered for its URN, or its envelope cannot be read.",
    fullDescription:
      "The message's data (or its envelope: job, data, meta) breaks a constraint of the schema registered for its URN; a producer sending it would be rejected by every BabelQueue SDK that validates.",
    help: 'Fix the message (the finding names the value and the constraint), or, if the schema is what is wrong, change the schema in a new URN (bqschema compat tells which changes are safe).',
    helpUri: VALIDATE_PAGE,
  },
  {
    id: 'unreadable-input',
    description: 'An input cannot be read or parsed, or the schema of its URN cannot be used.',
    fullDescription:
      'The file, or an NDJSON line, is not JSON (or YAML for a .yaml/.yml file) that bqschema can read, or the schema registered for its URN cannot be loaded: nothing about the message was checked.',
    help: 'Fix the syntax at the position given; for a stream of one message per line, pass --ndjson; for a schema problem, run bqschema check.',
    helpUri: VALIDATE_PAGE,
  },
  {
    id: 'no-schema',
    description: 'No schema is registered for the URN (an error under --strict).',
    fullDescription:
      'The message names a URN that has no schema in the registry, so its data was not validated (validation is opt-in per URN); a close registered URN is suggested when there is one.',
    help: 'Correct the URN if it is a typo (the finding suggests the nearest registered one), or register a schema for it; pass --strict to make this an error.',
    helpUri: VALIDATE_PAGE,
  },
  {
    id: 'envelope-identity',
    description: "The envelope's identity is ambiguous: both job and urn are set, or job is not a string.",
    fullDescription:
      'The message was judged by the URN the envelope rules pick (job wins over the urn alias; a job that is not a string is ignored), which may not be the one its producer meant; the SDKs apply the same rule.',
    help: 'Send the URN in job only, as a string; drop the urn alias.',
    helpUri: VALIDATE_PAGE,
  },
  {
    id: 'deprecated-urn',
    description: "The registry deprecates the message's URN (a warning: the verdict is unchanged).",
    fullDescription:
      'The manifest marks the URN deprecated ("status": "deprecated", or "deprecated" with its since, sunset, replacement and reason): it may be removed on its sunset, and its producers and consumers should move to its replacement.',
    help: 'Move the producer to the replacement URN before the sunset; --no-deprecation-warnings hides these warnings.',
    helpUri: VALIDATE_PAGE,
  },
];

/** Where in the data a violation is, as every format shows it (`(root)` for the data itself). */
export const problemLabel = (p: MessageViolation): string => pointerLabel(p.instancePath);

/** `; did you mean "urn:a:b"?`, saying what differs when it would not show (whitespace, case). */
export function hint(r: MessageVerdict): string {
  const s = r.suggestion;
  if (s === undefined || r.urn === undefined) return '';
  const u = r.urn;
  let what = '';
  if (u.trim() === s) {
    const lead = u.trimStart() !== u;
    const trail = u.trimEnd() !== u;
    what = ` (without the ${lead && trail ? 'surrounding' : lead ? 'leading' : 'trailing'} whitespace)`;
  } else if (u.toLowerCase() === s.toLowerCase()) {
    what = ' (URNs are case-sensitive)';
  }
  return `; did you mean ${quote(s)}${what}?`;
}

/** A message's unit: its file, or `file:line` for a line of NDJSON. */
export const unitOf = (r: MessageVerdict): string => (r.line === undefined ? r.file : `${r.file}:${r.line}`);

/**
 * How a message fares as a JUnit test case: by its status, which the summary counts, so the
 * document's counts are the summary's under every flag (under --strict a URN with no schema is an
 * error, not a skip).
 */
export function outcomeOf(r: MessageVerdict): Outcome {
  return r.status === 'valid' ? 'pass' : r.status === 'invalid' ? 'fail' : r.status === 'error' ? 'error' : 'skip';
}

/** The message of an unregistered URN's finding (skipped, or an error under --strict). */
const noSchema = (r: MessageVerdict): string => `no schema registered for ${quote(r.urn ?? '')}${hint(r)}`;

/** Why a message with no schema is an error under --strict: what its JSON result's `error` says. */
export const noSchemaMessage = (r: MessageVerdict): string =>
  `${noSchema(r)}; --strict makes a URN with no schema an error: register one, or correct the URN`;

/** Where a violation is in its file, when the caller can tell (it reads the file's positions). */
export type Place = (p: MessageViolation) => { line?: number; col?: number; endLine?: number; endCol?: number } | undefined;

/**
 * A message's findings: what its annotations, SARIF results and JUnit test case say, each placed at
 * its file, line and column, with the JSON pointer of the violated value in the file.
 */
/** What a finding of validate is about: its message, and the violation where it is one. */
export interface MessageSubject {
  verdict: MessageVerdict;
  problem?: MessageViolation;
}

export function messageFindings(r: MessageVerdict, strict: boolean, place: Place | undefined): ReportFinding<MessageSubject>[] {
  const unit = unitOf(r);
  const found: ReportFinding<MessageSubject>[] = [];
  const urn = r.urn === undefined ? {} : { urn: r.urn };
  const subject: MessageSubject = { verdict: r };
  if (r.status === 'error' && r.unregistered === true) {
    found.push({
      rule: 'no-schema',
      level: 'error',
      title: 'no schema',
      message: noSchema(r),
      ...urn,
      location: { file: r.file, line: r.line },
      unit,
      subject,
    });
  } else if (r.status === 'error') {
    // A schema problem is located where it is fixed, as check places it; an unreadable input at itself.
    const at = r.errorLocation;
    const location =
      at === undefined
        ? { file: r.file, line: r.errorLine ?? r.line, col: r.col }
        : { file: at.file, line: at.line, col: at.col, ...(at.pointer === '' ? {} : { pointer: at.pointer }) };
    found.push({
      rule: 'unreadable-input',
      level: 'error',
      title: 'cannot validate',
      message: r.error ?? 'error',
      ...urn,
      location,
      unit,
      subject,
    });
  } else if (r.status === 'skipped') {
    const level = r.suggestion !== undefined ? 'warning' : 'note';
    found.push({
      rule: 'no-schema',
      level,
      title: 'no schema',
      message: noSchema(r),
      ...urn,
      location: { file: r.file, line: r.line },
      unit,
      subject,
    });
  } else if (r.status === 'invalid') {
    for (const v of r.violations ?? []) {
      const pos = place?.(v);
      // Where the value ends too, for SARIF's region (the other formats place a finding at its start).
      const end = pos?.endLine === undefined ? {} : { endLine: pos.endLine, endCol: pos.endCol };
      const location = { file: r.file, line: pos?.line ?? r.line, col: pos?.col, pointer: v.at, ...end };
      found.push({
        rule: 'invalid-data',
        level: 'error',
        title: 'invalid data',
        message: `${r.urn ?? 'message'}: ${problemLabel(v)} ${v.message}`,
        ...urn,
        location,
        unit,
        subject: { verdict: r, problem: v },
      });
    }
    if (r.moreViolations === true) {
      found.push({
        rule: 'invalid-data',
        level: 'note',
        title: 'more violations',
        message: `${r.urn ?? 'message'}: ${MORE_VIOLATIONS}`,
        ...urn,
        location: { file: r.file, line: r.line },
        unit,
        subject,
      });
    }
  }
  if (r.deprecation !== undefined) {
    found.push({
      rule: 'deprecated-urn',
      level: 'warning',
      title: 'deprecated URN',
      message: r.deprecation,
      ...urn,
      location: { file: r.file, line: r.line },
      unit,
      subject,
    });
  }
  // What the envelope's identity leaves in doubt, whatever the verdict: after the verdict's findings.
  for (const w of r.warnings ?? []) {
    found.push({
      rule: 'envelope-identity',
      level: 'warning',
      title: 'envelope',
      message: w,
      ...urn,
      location: { file: r.file, line: r.line },
      unit,
      subject,
    });
  }
  return found;
}

/** A message as a unit: its file (`file:line` for a line of NDJSON) and outcome. */
export function messageUnit(r: MessageVerdict): ReportUnit<MessageVerdict> {
  return { id: unitOf(r), file: r.file, ...(r.line === undefined ? {} : { line: r.line }), outcome: outcomeOf(r), subject: r };
}

/** A message's entry in the JSON output's results: its verdict, its violations placed in its file. */
export function messageData(r: MessageVerdict, place: Place | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = { file: r.file };
  if (r.line !== undefined) body.line = r.line;
  if (r.urn !== undefined) body.urn = r.urn;
  body.status = r.status;
  body.violations = (r.violations ?? []).map((v) => {
    const pos = place?.(v);
    return {
      instancePath: v.instancePath,
      schemaPath: v.schemaPath,
      keyword: v.keyword,
      message: v.message,
      ...(pos ? { line: pos.line, col: pos.col } : {}),
    };
  });
  if (r.moreViolations === true) body.moreViolations = true;
  body.warnings = r.warnings ?? [];
  if (r.deprecation !== undefined) body.deprecation = r.deprecation;
  if (r.suggestion !== undefined) body.suggestion = r.suggestion;
  if (r.status === 'error') {
    body.error = r.error;
    if (r.errorLine !== undefined) body.line = r.errorLine;
    if (r.col !== undefined) body.col = r.col;
    if (r.errorLocation !== undefined) body.errorLocation = r.errorLocation;
  }
  return body;
}

/** How many messages fared each way, as validate counts them while it runs. */
export interface MessageCounts {
  valid: number;
  invalid: number;
  skipped: number;
  error: number;
  /** Skipped messages whose URN is close to a registered one. */
  suggested: number;
}

/**
 * The run's summary: the counts of the JSON document and the Report (`messages`, then each status)
 * and the words after `OK:` or `FAILED:` in every summary line.
 */
export function runSummary(
  n: MessageCounts,
  strict = false,
): { summary: { messages: number; valid: number; invalid: number; skipped: number; errors: number }; counted: string } {
  const total = n.valid + n.invalid + n.skipped + n.error;
  const close = n.suggested === 0 ? '' : ` (${n.suggested} close to a registered URN)`;
  // Unregistered URNs are skipped, or errors under --strict: the ones close to a registered URN are among them.
  const parts = [
    `${n.valid} valid`,
    `${n.invalid} invalid`,
    `${n.skipped} skipped${strict ? '' : close}`,
    `${n.error} error${n.error === 1 ? '' : 's'}${strict ? close : ''}`,
  ];
  return {
    summary: { messages: total, valid: n.valid, invalid: n.invalid, skipped: n.skipped, errors: n.error },
    counted: `${total} message${total === 1 ? '' : 's'}: ${parts.join(', ')}`,
  };
}
