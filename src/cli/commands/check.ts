import { RegistryError, type Registry, type SchemaDocument } from '../../registry/index.js';
import { assignIds } from '../../serve/snapshot.js';
import { compile, isSchemaObject, joinPointer, lintSchema, pointerLabel, SchemaError, unknownMessage, warningMessage, type SchemaWarning } from '../../validator/index.js';
import { EXIT_GATE, EXIT_OK } from '../errors.js';
import type { Format } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { CHECK_FORMATS, unknown, unsupported, type CheckIssue, type CheckView, type UrnReport } from '../report/check.js';
import type { CiFormat } from '../report/emit.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { checkReportTargets, renderEverywhere, type ReportTarget } from '../reports.js';

export interface CheckOptions extends RegistryCliOptions {
  format: Format | CiFormat;
  /** Unsupported keywords are errors, not warnings: `pattern` or `format` cannot pass for enforced. */
  failOnUnsupported?: boolean;
  /** Unknown keywords used on purpose (docs/contract.md §14): warnings, not errors. */
  allowKeyword?: string[];
  /** --report <format>=<file>, repeatable. */
  report?: ReportTarget[];
}

export type { CheckIssue };

/*
 * check: opens the registry leniently, checks the manifest and every entry (the schema compiles, its
 * root accepts an object, its examples pass, no unknown keyword), and renders a CheckView with
 * ../report/check.ts.
 */

const noop = (): void => {};


/** Every `examples` entry of a (sub-)schema must pass that (sub-)schema. Iterative: schemas may be deep. */
function checkExamples(root: unknown, report: (pointer: string, message: string) => void): void {
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length > 0) {
    const [schema, pointer] = stack.pop()!;
    if (!isSchemaObject(schema)) continue;
    const examples = schema.examples;
    if (Array.isArray(examples)) {
      const compiled = compile(schema, { onWarning: noop });
      examples.forEach((example, i) => {
        const violations = compiled.validate(example);
        if (violations.length > 0) {
          const v = violations[0]!;
          const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
          report(joinPointer(pointer, 'examples', i), `example ${i} fails its schema: ${pointerLabel(v.instancePath)} ${v.message}${more}`);
        }
      });
    }
    const props = schema.properties;
    if (isSchemaObject(props)) for (const name of Object.keys(props)) stack.push([props[name], joinPointer(pointer, 'properties', name)]);
    if (isSchemaObject(schema.items)) stack.push([schema.items, joinPointer(pointer, 'items')]);
    if (isSchemaObject(schema.additionalProperties)) stack.push([schema.additionalProperties, joinPointer(pointer, 'additionalProperties')]);
  }
}

function checkEntry(registry: Registry, urn: string, options: CheckOptions): UrnReport {
  let shown: string;
  try {
    shown = registry.file(urn).shown; // as every other path is shown: from the working directory
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    shown = registry.entry(urn)!.schema; // refused before it is located: the manifest's own words
  }
  const report: UrnReport = { urn, file: shown, errors: [], warnings: [] };
  let doc: SchemaDocument;
  try {
    doc = registry.document(urn);
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    if (err.kind === 'missing' || err.kind === 'outside') {
      // No file to point into (or one that must not be read): the place to fix is the manifest
      // entry's "schema" path, in every format (a location in a file that does not exist helps nobody).
      const pointer = `/schemas/${registry.entry(urn)!.index}/schema`;
      report.errors.push({ urn, file: registry.manifest.shown, pointer, message: err.message, ...registry.manifestPosition(pointer) });
    } else report.errors.push({ urn, file: shown, pointer: '', message: err.message, ...err.position });
    return report;
  }
  shown = doc.file.shown;
  report.file = shown;
  const at = (pointer: string): { line: number; col: number } => registry.schemaPosition(doc, pointer);
  const error = (pointer: string, message: string, keyword?: string): void => {
    report.errors.push({ urn, file: shown, pointer, keyword, message, ...at(pointer) });
  };
  const schema = doc.value;
  // Lint names the schema object and the keyword; the issue is at the keyword's value.
  let lint: ReturnType<typeof lintSchema>;
  try {
    lint = lintSchema(schema);
  } catch (err) {
    // Nested past the stack, say: an error of this URN and file; the run goes on.
    if (!(err instanceof SchemaError)) throw err;
    error('', err.message);
    return report;
  }
  for (const issue of lint) {
    error(issue.keyword ? joinPointer(issue.pointer, issue.keyword) : issue.pointer, `malformed keyword "${issue.keyword}": ${issue.message}; it would not be enforced`, issue.keyword);
  }
  let warnings: readonly SchemaWarning[] = [];
  try {
    warnings = compile(schema, { urn, onWarning: noop }).warnings;
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    error('', err.message);
    return report;
  }
  const allowed = new Set(options.allowKeyword ?? []);
  for (const w of warnings) {
    if ((w as { kind?: string }).kind === 'malformed') continue; // reported above, as an error
    if (w.kind === 'unknown') {
      // A typo would otherwise pass as a keyword nobody enforces (docs/contract.md §14).
      const pointer = joinPointer(w.pointer, w.keyword);
      const allow = allowed.has(w.keyword);
      const fix = allow ? 'Allowed by --allow-keyword.' : `Fix the name, or allow it with --allow-keyword ${w.keyword} (or name it x-${w.keyword}).`;
      const issue: CheckIssue = {
        urn, file: shown, pointer, keyword: w.keyword, message: `${unknownMessage(w)}${w.suggestion === undefined ? '.' : ''} ${fix}`,
        ...(w.suggestion === undefined ? {} : { suggestion: w.suggestion }), ...at(pointer),
      };
      unknown.add(issue);
      (allow && !options.failOnUnsupported ? report.warnings : report.errors).push(issue);
      continue;
    }
    const issue: CheckIssue = { urn, file: shown, pointer: w.pointer, keyword: w.keyword, message: warningMessage({ ...w, urn: undefined }), ...at(joinPointer(w.pointer, w.keyword)) };
    unsupported.add(issue);
    (options.failOnUnsupported ? report.errors : report.warnings).push(issue);
  }
  if (schema === false) error('', 'the schema is false: no message can ever be valid');
  if (isSchemaObject(schema)) {
    const type = schema.type;
    const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
    if (names && names.length > 0 && names.every((n) => typeof n === 'string') && !names.includes('object')) {
      error('/type', `the root type ${JSON.stringify(type)} excludes "object", but a message's data is always an object`, 'type');
    }
  }
  checkExamples(schema, (pointer, message) => error(pointer, message, 'examples'));
  return report;
}

export async function run(options: CheckOptions): Promise<number> {
  checkReportTargets(options.report);
  let registry: Registry;
  const manifestErrors: CheckIssue[] = [];
  let reports: UrnReport[] = [];
  let manifestShown: string;
  try {
    registry = openRegistry(options, { lenient: true });
    manifestShown = registry.manifest.shown;
    for (const p of registry.problems) manifestErrors.push({ urn: p.urn, file: manifestShown, pointer: p.pointer, message: p.message, line: p.line, col: p.col });
    // Schema ids as serve gives them: an explicit id, else one derived from the URN; two URNs must never share one.
    for (const p of assignIds(registry.entries.map((e) => ({ urn: e.urn, id: e.id }))).problems) {
      const entry = registry.entry(p.urn)!;
      const pointer = `/schemas/${entry.index}/${entry.id === undefined ? 'urn' : 'id'}`;
      manifestErrors.push({ urn: p.urn, file: manifestShown, pointer, message: p.message, ...registry.manifestPosition(pointer) });
    }
    reports = registry.entries.map((entry) => checkEntry(registry, entry.urn, options));
  } catch (err) {
    // A manifest that does not parse is check's finding, reported in the chosen format.
    if (!(err instanceof RegistryError) || err.kind !== 'manifest') throw err;
    manifestShown = err.file;
    manifestErrors.push({ file: err.file, pointer: '', message: err.message, ...err.position });
  }

  const errors = [...manifestErrors, ...reports.flatMap((r) => r.errors)];
  const warnings = reports.flatMap((r) => r.warnings);
  // failed: the URNs with an error (JUnit's failures); errors and warnings count issues.
  const failedUrns = new Set([...manifestErrors.flatMap((e) => (e.urn === undefined ? [] : [e.urn])), ...reports.filter((r) => r.errors.length > 0).map((r) => r.urn)]);
  const summary = { urns: reports.length, failed: reports.filter((r) => failedUrns.has(r.urn)).length, errors: errors.length, warnings: warnings.length };
  const ok = errors.length === 0;
  exitWhenStdoutCloses(() => (ok ? EXIT_OK : EXIT_GATE));
  const verdictLine = `${summary.urns} URN(s), ${summary.errors} error(s), ${summary.warnings} warning(s)`;
  const view: CheckView = { ok, summary, errors, warnings, manifestErrors, reports, manifestShown, verdictLine };
  await renderEverywhere(options.format, options.report, (format, out, c) => CHECK_FORMATS[format](view, out, c));
  return ok ? EXIT_OK : EXIT_GATE;
}
