import { InvalidArgumentError } from 'commander';

/*
 * Parsing `--report <format>=<file>` (repeatable). Kept apart from src/cli/reports.ts so that
 * building the program loads nothing but commander (startup).
 */

export interface ReportTarget {
  format: string;
  file: string;
}

/** commander's parser for one `--report` value, collecting them; a bad one is a usage error. */
export function parseReport(formats: readonly string[]) {
  return (value: string, previous: ReportTarget[] | undefined): ReportTarget[] => {
    const eq = value.indexOf('=');
    const format = eq === -1 ? '' : value.slice(0, eq);
    const file = eq === -1 ? '' : value.slice(eq + 1);
    if (eq === -1 || file === '') throw new InvalidArgumentError(`It takes <format>=<file>, e.g. --report sarif=bq.sarif`);
    if (!formats.includes(format))
      throw new InvalidArgumentError(`${JSON.stringify(format)} is not a format of this command: use one of ${formats.join(', ')}`);
    // Two reports naming one file, however spelt, are refused by the command (./protect.ts).
    return [...(previous ?? []), { format, file }];
  };
}
