import { checkRegistry, namesServices, unreadableManifest, verdictOf, type CheckIssue, type RegistryCheck } from '../../check/index.js';
import { display, RegistryError } from '../../registry/index.js';
import { EXIT_GATE, EXIT_OK } from '../errors.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { CHECK_FORMATS } from '../report/check.js';
import { setCategory, type GateFormat } from '../report/emit.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { checkReportTargets, renderEverywhere, type ReportTarget } from '../reports.js';

export interface CheckOptions extends RegistryCliOptions {
  format: GateFormat;
  /** Unsupported keywords are errors, not warnings: `pattern` or `format` cannot pass for enforced. */
  failOnUnsupported?: boolean;
  /** Unknown keywords used on purpose (docs/contract.md §14): warnings, not errors. */
  allowKeyword?: string[];
  /** --report <format>=<file>, repeatable. */
  report?: ReportTarget[];
  /** --category: the SARIF run's analysis category (automationDetails.id). */
  category?: string;
}

export type { CheckIssue };

/*
 * check: opens the registry leniently, checks it with src/check (the manifest and every entry), and
 * renders its verdict with ../report/check.ts.
 */

export async function run(options: CheckOptions): Promise<number> {
  setCategory(options.category);
  let result: RegistryCheck;
  let manifestShown: string;
  try {
    const registry = openRegistry(options, { lenient: true });
    manifestShown = registry.manifest.shown;
    // The service rules load only for a manifest that names services (most run check without any).
    const serviceIssues = namesServices(registry) ? (await import('../../check/service-rules.js')).serviceIssues(registry) : undefined;
    result = checkRegistry(registry, {
      failOnUnsupported: options.failOnUnsupported,
      allowKeywords: options.allowKeyword,
      ...(serviceIssues ? { serviceIssues } : {}),
    });
  } catch (err) {
    // A manifest that does not parse is check's finding, reported in the chosen format.
    if (!(err instanceof RegistryError) || err.kind !== 'manifest') throw err;
    // Shown as every other path is (from the working directory), so annotations land on the file.
    manifestShown = display(err.file);
    result = unreadableManifest(err, manifestShown);
  }
  // The reports' files are checked once the registry (an input, never a target) is known.
  checkReportTargets(options.report);
  const verdict = verdictOf(result, manifestShown);
  exitWhenStdoutCloses(() => (verdict.ok ? EXIT_OK : EXIT_GATE));
  await renderEverywhere(options.format, options.report, (format, out, c) => CHECK_FORMATS[format](verdict, out, c));
  return verdict.ok ? EXIT_OK : EXIT_GATE;
}
