import type { ConformanceRun } from '../../conformance/runner.js';

/*
 * conformance's formats: the run's summary on stdout (results.json is the suite's own format,
 * snake_case, written by the command). The JSON summary speaks the glossary of every command's
 * JSON (docs/ci-reports.md): camelCase, `summary` counting cases; schemas/output/conformance.json.
 */

export type ConformanceFormat = 'text' | 'json';

// Reasons can quote what the implementation wrote: no control character reaches the terminal.
export const clean = (s: string): string =>
  s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The summary: each failure, the pass count, the sections run and not run, where the results are. */
function text(run: ConformanceRun, resultsFile: string): string {
  const lines = run.failed.map((f) => `FAIL ${clean(f.section)} ${clean(f.id)}: ${clean(f.reason)}`);
  const { results } = run;
  lines.push(
    `conformance ${results.conformance_version}: ${clean(results.sdk)} ${clean(results.version)}: ${run.total - run.failed.length}/${run.total} cases pass`,
  );
  lines.push(`sections run: ${run.ran.join(', ')}`);
  for (const n of run.notRun) lines.push(`not run: ${clean(n.section)} (${clean(n.reason)})`);
  lines.push(`results: ${resultsFile}`);
  return lines.join('\n') + '\n';
}

function json(run: ConformanceRun, resultsFile: string): string {
  return (
    JSON.stringify({
      ok: run.failed.length === 0,
      summary: { cases: run.total, passed: run.total - run.failed.length, failed: run.failed.length },
      sdk: run.results.sdk,
      version: run.results.version,
      conformanceVersion: run.results.conformance_version,
      resultsFile,
      sectionsRun: run.ran,
      notRun: run.notRun,
      failures: run.failed,
    }) + '\n'
  );
}

export const CONFORMANCE_FORMATS: Record<ConformanceFormat, (run: ConformanceRun, resultsFile: string) => string> = { text, json };

export const isConformanceFormat = (f: unknown): f is ConformanceFormat => f === 'text' || f === 'json';
