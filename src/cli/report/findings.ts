/*
 * The one shape every gate (validate, check, compat, gdpr) hands to the CI renderers: the tool,
 * the rules it may cite, and its findings with a position where one is known.
 */

export type FindingLevel = 'error' | 'warning' | 'note';

export interface ReportRule {
  id: string;
  description: string;
}

export interface ReportFinding {
  ruleId: string;
  level: FindingLevel;
  message: string;
  /** The file the finding is about, as shown to the user (relative to the working directory, `/` or `\\` separated). */
  file?: string;
  /** 1-based; ignored unless a positive integer. */
  line?: number;
  /** 1-based; ignored unless a positive integer (and a line is given). */
  col?: number;
}

export interface ReportInput {
  tool: { name: string; version: string; informationUri?: string; rules?: readonly ReportRule[] };
  results: readonly ReportFinding[];
  /** Every file checked; those without a finding are passing test cases in JUnit. */
  artifacts?: readonly string[];
}

/** A positive integer, or undefined. */
export function position(n: number | undefined): number | undefined {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}
