import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { display } from '../registry/index.js';
import { UsageError } from './errors.js';
import { coloursFor, Out, type Colours } from './output.js';
import type { ReportTarget } from './report-option.js';
import { claimOutput } from './protect.js';
import { outputTarget, writeFileAtomic } from './write.js';

/*
 * `--report <format>=<file>` (repeatable) on validate, check, compat and gdpr: the same run rendered
 * in more formats, each written atomically to a file, while --format keeps driving stdout. One run
 * gives github annotations in the log and bq.sarif and bq.xml on disk. A command renders through
 * one function of (format, out, colours); this calls it once per destination.
 */

export type { ReportTarget };

/**
 * Checks every report's file before anything is written: a bad target, a file this run reads, or
 * two reports (or a report and another output) that name one file fail the run, nothing written.
 * Called once the command has opened its registry and named its inputs (./protect.ts).
 */
export function checkReportTargets(reports: readonly ReportTarget[] | undefined): void {
  for (const r of reports ?? []) {
    const dir = dirname(outputTarget(r.file));
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // missing: said below
    }
    if (!isDir)
      throw new UsageError(
        `cannot write --report ${r.format}=${r.file}: the directory ${display(dir)} does not exist; nothing was written`,
      );
    claimOutput(r.file, `--report ${r.format}=${r.file}`);
  }
}

/** Reports get no colour, whatever stdout is. */
const PLAIN = coloursFor(false);

/**
 * Renders to each report file (atomically), then to stdout. Files first: a reader of stdout that
 * goes away (`| head`) ends the process, and must not cost the reports.
 */
export async function renderEverywhere<F extends string>(
  format: F,
  reports: readonly ReportTarget[] | undefined,
  render: (format: F, out: Out, colours: Colours) => void | Promise<void>,
): Promise<void> {
  for (const r of reports ?? []) {
    const out = new Out(null);
    await render(r.format as F, out, PLAIN);
    writeFileAtomic(r.file, out.take());
  }
  const out = new Out();
  await render(format, out, coloursFor());
  await out.flush();
}
