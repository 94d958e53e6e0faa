import { statSync } from 'node:fs';
import { audit, piiMatcher, type PiiMatcher, type UnmarkedField } from '../../gdpr/index.js';
import { ParseFailure, parseJsonLine, parseText, type Registry } from '../../registry/index.js';
import { EXIT_GATE, EXIT_OK, GateError, UsageError } from '../errors.js';
import type { Doc } from '../inputs.js';
import { clean, Out } from '../output.js';
import { openRegistry, requireUrn, type RegistryCliOptions } from '../registry.js';
import { isCiFormat, setCategory, type GateFormat } from '../report/emit.js';
import { INVENTORY_FORMATS, REQUIRE_FORMATS } from '../report/gdpr.js';
import { inventoryOf, requireVerdict, type LoadedSchema, type OwnerlessService } from '../../gdpr/report.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { checkReportTargets, renderEverywhere, type ReportTarget } from '../reports.js';

export interface GdprOptions extends RegistryCliOptions {
  require?: boolean;
  pattern?: string;
  mask?: string;
  urn?: string;
  ndjson?: boolean;
  format: GateFormat;
  /** --report <format>=<file>, repeatable (inventory and --require). */
  report?: ReportTarget[];
  /** --category: the SARIF run's analysis category (automationDetails.id). */
  category?: string;
  /** The inventory by service: which services handle which personal fields. */
  byService?: boolean;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Options that only make sense together: a silently ignored option would hide a mistake. */
function checkCombination(o: GdprOptions): void {
  const usage = (message: string): never => {
    throw new UsageError(message);
  };
  if (o.byService) {
    if (o.mask !== undefined || o.require)
      usage('--by-service lists the inventory by service: it does not combine with --mask or --require');
    if (!['text', 'json', 'markdown'].includes(o.format)) usage(`--by-service prints text, json or markdown, not ${o.format}`);
    if (o.report !== undefined) usage('--report does not apply to --by-service');
  }
  if (o.mask !== undefined) {
    if (o.require) usage('--mask and --require cannot be combined');
    if (o.pattern !== undefined) usage('--pattern applies to --require, not to --mask');
    // The output is the masked message itself: a report format would be silently ignored.
    if (o.format !== 'text')
      usage(
        `--format ${o.format} does not apply to --mask, which prints the masked message: --mask supports only --format text (the default); in the GitHub Action, set format: ''`,
      );
    if (o.ndjson && o.mask !== '-') usage('--ndjson applies to stdin (--mask -); .ndjson and .jsonl files are read line by line anyway');
    if (o.report !== undefined) usage('--report does not apply to --mask, which prints the masked message');
    return;
  }
  if (isCiFormat(o.format) && !o.require) usage(`--format ${o.format} reports the --require gate: add --require`);
  for (const r of o.report ?? [])
    if (isCiFormat(r.format) && !o.require) usage(`--report ${r.format} reports the --require gate: add --require`);
  if (o.urn !== undefined) usage('--urn applies to --mask');
  if (o.ndjson) usage('--ndjson applies to --mask -');
  if (o.pattern !== undefined && !o.require) usage('--pattern applies to --require');
}

/** The PII-name test of --require: name tokens by default (docs/cli/gdpr.md lists the words), else --pattern. */
function matcher(source: string | undefined): PiiMatcher {
  try {
    return piiMatcher(source);
  } catch (err) {
    throw new UsageError(`--pattern: ${(err as Error).message}`);
  }
}

/** Every registered schema, by URN; a schema file that cannot be loaded is a RegistryError (one line, exit 1). */
function loadAll(registry: Registry): LoadedSchema[] {
  return [...registry.entries]
    .sort((a, b) => byCodeUnits(a.urn, b.urn))
    .map((entry) => {
      const doc = registry.document(entry.urn);
      return { urn: entry.urn, file: doc.file.shown, text: doc.text, schema: doc.value };
    });
}

async function inventory(schemas: LoadedSchema[], format: GateFormat, reports: readonly ReportTarget[] | undefined): Promise<number> {
  const result = inventoryOf(schemas);
  await renderEverywhere(format, reports, (format, out, c) => INVENTORY_FORMATS[format](result, out, c));
  return EXIT_OK;
}

async function requireMarked(
  schemas: LoadedSchema[],
  findings: UnmarkedField[],
  ownerless: OwnerlessService[],
  format: GateFormat,
  reports: readonly ReportTarget[] | undefined,
): Promise<number> {
  const verdict = requireVerdict(schemas, findings, ownerless);
  await renderEverywhere(format, reports, (format, out, c) => REQUIRE_FORMATS[format](verdict, out, c));
  return verdict.ok ? EXIT_OK : EXIT_GATE;
}

const warn = (where: string, warnings: string[]): void => {
  for (const w of warnings) process.stderr.write(`bqschema: warning: ${clean(where)}: ${clean(w)}\n`);
};

/**
 * Prints each message masked, never the unmasked input. A single document that cannot be masked
 * fails the run at once; an NDJSON line that cannot be masked is reported on stderr and left out,
 * the run goes on and exits 1. Lines read from stdin are written as soon as they are masked.
 */
async function maskInput(input: string, registry: Registry, options: GdprOptions, run: RunState): Promise<number> {
  if (input !== '-') {
    let directory = false;
    try {
      directory = statSync(input).isDirectory();
    } catch {
      // a missing file is reported by documents()
    }
    if (directory) throw new UsageError(`--mask takes a file or - for stdin: ${clean(input)} is a directory`);
  }
  // The message reader, the envelope rules and the masker load only for --mask.
  const [{ documents }, { Masker }] = await Promise.all([import('../inputs.js'), import('../../gdpr/masker.js')]);
  const masker = new Masker(registry, options.urn);
  const out = new Out();
  const live = input === '-';
  let seen = 0;
  for await (const batch of documents([input], { ndjson: options.ndjson }))
    for (const doc of batch as Doc[]) {
      seen++;
      if (doc.kind === 'error') {
        // Escaped here, whole: main keeps one line, and a file name may hold a newline.
        if (doc.line === undefined) throw new GateError(clean(`${doc.file}: ${doc.message}`));
        process.stderr.write(`bqschema: ${clean(`${doc.file}:${doc.line}: ${doc.message}`)}\n`);
        run.failed = true;
        continue;
      }
      if (doc.line === undefined) {
        let value: unknown;
        try {
          value = parseText(doc.text, doc.file, 'json');
        } catch (err) {
          // A message that does not parse: exit 1 like any bad input, escaped whole.
          if (err instanceof ParseFailure) throw new GateError(clean(err.message));
          throw err;
        }
        const result = masker.mask(value, doc.text, true);
        warn(doc.file, result.warnings);
        if ('error' in result) throw new GateError(clean(`${doc.file}: ${result.error}`));
        out.line(result.text);
        await out.flush();
        return EXIT_OK;
      }
      const where = `${doc.file}:${doc.line}`;
      let value: unknown;
      try {
        value = parseJsonLine(doc.text, doc.file, doc.line);
      } catch (err) {
        if (!(err instanceof ParseFailure)) throw err;
        process.stderr.write(`bqschema: ${clean(err.message)}\n`);
        run.failed = true;
        continue;
      }
      const result = masker.mask(value, doc.text, false);
      warn(where, result.warnings);
      if ('error' in result) {
        process.stderr.write(`bqschema: ${clean(`${where}: ${result.error}`)}\n`);
        run.failed = true;
        continue;
      }
      out.line(result.text);
      if (live) await out.flush();
      else await out.maybeFlush();
    }
  await out.flush();
  if (seen === 0) throw new UsageError(input === '-' ? 'no input on stdin' : `${input}: no message in it`);
  return run.failed ? EXIT_GATE : EXIT_OK;
}

/** What the exit code would be if stdout closed now. */
interface RunState {
  failed: boolean;
}

export async function run(options: GdprOptions): Promise<number> {
  checkCombination(options);
  setCategory(options.category);
  const re = matcher(options.pattern);
  const registry = openRegistry(options);
  // The reports' files are checked once the registry (an input, never a target) is known.
  checkReportTargets(options.report);
  if (options.urn !== undefined) requireUrn(registry, options.urn);
  const state: RunState = { failed: false };
  exitWhenStdoutCloses(() => (state.failed ? EXIT_GATE : EXIT_OK));
  if (options.mask !== undefined) return maskInput(options.mask, registry, options, state);
  const schemas = loadAll(registry);
  if (options.byService) return (await import('./services.js')).byService(registry, schemas, options.format);
  if (!options.require) return inventory(schemas, options.format, options.report);
  const findings = audit(schemas, re);
  // Once the manifest declares services, each one handling personal data needs a team and a contact.
  const ownerless = registry.services.length === 0 ? [] : (await import('./services.js')).ownerless(registry, schemas);
  state.failed = findings.length > 0 || ownerless.length > 0;
  return requireMarked(schemas, findings, ownerless, options.format, options.report);
}
