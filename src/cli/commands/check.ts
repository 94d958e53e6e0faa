import { RegistryError, type Registry, type SchemaDocument } from '../../registry/index.js';
import { assignIds } from '../../serve/snapshot.js';
import { compile, isSchemaObject, joinPointer, lintSchema, pointerLabel, SchemaError, unknownMessage, warningMessage, type SchemaWarning } from '../../validator/index.js';
import { EXIT_GATE, EXIT_OK } from '../errors.js';
import { clean, githubCommand, makeChalk, Out, type Format } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import type { ReportFinding, ReportRule, ReportUnit } from '../report/findings.js';
import { docsPage, isCiFormat, renderCi, tool, type CiFormat } from '../report/emit.js';
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

export interface CheckIssue {
  urn?: string;
  /** The file the issue is in, as shown: the manifest, or the URN's schema file. */
  file: string;
  /** JSON Pointer inside that file. */
  pointer: string;
  keyword?: string;
  message: string;
  /** For an unknown keyword: the supported keyword it is nearest to. */
  suggestion?: string;
  line?: number;
  col?: number;
}

interface UrnReport {
  urn: string;
  file: string;
  errors: CheckIssue[];
  warnings: CheckIssue[];
}

const noop = (): void => {};

/** Issues about a keyword the validator does not enforce (warnings, or errors with --fail-on-unsupported). */
const unsupported = new WeakSet<CheckIssue>();
/** Issues about a keyword no JSON Schema draft defines (errors, or warnings with --allow-keyword). */
const unknown = new WeakSet<CheckIssue>();

const CHECK_PAGE = docsPage('cli/check.md');
const CHECK_RULES: ReportRule[] = [
  { id: 'manifest', description: 'The registry manifest is malformed, or two entries clash.', help: 'Fix the manifest entry at the line given: every entry needs a unique URN, a schema path and an owner (registry.schema.json describes the format).', helpUri: CHECK_PAGE },
  { id: 'schema', description: 'A schema file cannot be read or compiled, or its root cannot accept a message.', help: "Fix the schema file (or the manifest entry's \"schema\" path when the file is missing or outside the registry directory); a message's data is always an object, so the root must accept one.", helpUri: CHECK_PAGE },
  { id: 'malformed-keyword', description: 'A keyword has a value of the wrong shape: it would not be enforced.', help: 'Give the keyword a value of the shape the contract requires (docs/contract.md §8): a constraint that cannot be enforced must not pass review.', helpUri: docsPage('contract.md') },
  { id: 'example-fails-schema', description: 'An `examples` entry fails its own (sub-)schema.', help: 'Fix the example, or the schema if the example shows what producers really send.', helpUri: CHECK_PAGE },
  { id: 'unsupported-keyword', description: 'A keyword the validator does not enforce (pattern, format, …).', help: 'Remove the keyword or accept that it is documentation only; --fail-on-unsupported makes it an error.', helpUri: docsPage('contract.md') },
  { id: 'unknown-keyword', description: 'A keyword no JSON Schema draft defines, most often a typo (requried): it would not be enforced.', help: 'Fix the name (the finding suggests the nearest keyword), or, for a keyword used on purpose, name it x-… or pass --allow-keyword <name>.', helpUri: docsPage('contract.md') },
];

function checkRule(i: CheckIssue, manifest: string): string {
  if (unknown.has(i)) return 'unknown-keyword';
  if (unsupported.has(i)) return 'unsupported-keyword';
  if (i.keyword === 'examples') return 'example-fails-schema';
  if (i.message.startsWith('malformed keyword')) return 'malformed-keyword';
  return i.urn === undefined || i.file === manifest ? 'manifest' : 'schema';
}

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
  await renderEverywhere(options.format, options.report, async (format, out, c) => {
    if (format === 'json') {
      out.line(JSON.stringify({ ok, summary, errors, warnings }, null, 2));
    } else if (isCiFormat(format)) {
      const finding = (level: 'error' | 'warning') => (i: CheckIssue): ReportFinding => ({
        ruleId: checkRule(i, manifestShown), level, file: i.file, line: i.line, col: i.col,
        message: `${i.urn ? i.urn + ': ' : ''}${i.pointer ? i.pointer + ': ' : ''}${i.message}`,
      });
      // One unit per URN entry (what the summary counts): it fails when it has an error, its own or
      // its manifest entry's. A manifest problem without a URN belongs to the whole run.
      const unitOf = new Map<string, string>();
      const units: ReportUnit[] = reports.map((r, i) => {
        const id = unitOf.has(r.urn) ? `${r.urn} (entry ${i + 1})` : r.urn;
        if (!unitOf.has(r.urn)) unitOf.set(r.urn, id);
        const failed = r.errors.length > 0 || manifestErrors.some((e) => e.urn === r.urn);
        // A missing schema file's unit sits in the manifest's suite, where its error is.
        return { id, file: r.errors[0]?.file ?? r.file, outcome: failed ? 'fail' : 'pass' };
      });
      const owner = new Map<CheckIssue, string>();
      reports.forEach((r, i) => {
        for (const issue of [...r.errors, ...r.warnings]) owner.set(issue, units[i]!.id);
      });
      const unitOfIssue = (i: CheckIssue): string | undefined => owner.get(i) ?? (i.urn === undefined ? undefined : unitOf.get(i.urn));
      const results = [
        ...errors.map((i) => ({ ...finding('error')(i), unit: unitOfIssue(i) })),
        ...warnings.map((i) => ({ ...finding('warning')(i), unit: unitOfIssue(i) })),
      ];
      const artifacts = [manifestShown, ...reports.map((r) => r.file)];
      out.line((await renderCi(format, { tool: tool(CHECK_RULES), command: 'check', results, artifacts, units })).replace(/\n$/, ''));
    } else if (format === 'github') {
      for (const [level, list] of [['error', errors], ['warning', warnings]] as const) {
        for (const i of list) {
          const title = level === 'error' ? 'registry error' : 'not enforced';
          out.line(githubCommand(level, { file: i.file, line: i.line, col: i.col, title }, `${i.urn ? i.urn + ': ' : ''}${i.message}`));
        }
      }
      out.line(`${ok ? 'OK' : 'FAILED'}: ${verdictLine}`);
    } else {
      for (const i of manifestErrors) out.line(`${c.red('✗ error')}  ${clean(i.file)}${i.pointer ? ' ' + clean(i.pointer) : ''}: ${clean(i.message)}`);
      for (const r of reports) {
        const mark = r.errors.length > 0 ? c.red('✗') : c.green('✓');
        out.line(`${mark} ${c.bold(clean(r.urn))}  ${c.dim(clean(r.file))}`);
        for (const e of r.errors) {
          // An issue in another file (the manifest entry of a missing schema file) says which, and where.
          const other = e.file === r.file ? '' : `${clean(e.file)}${e.line === undefined ? '' : `:${e.line}`} `;
          out.line(`    ${c.red('error')}  ${other}${clean(pointerLabel(e.pointer))}  ${clean(e.message)}`);
        }
        for (const w of r.warnings) {
          const what = unknown.has(w) ? clean(w.message) : `unsupported keyword "${clean(w.keyword ?? '')}" is not enforced`;
          out.line(`    ${c.yellow('warning')}  ${clean(pointerLabel(w.pointer))}  ${what}`);
        }
      }
      const verdict = ok ? c.green('OK') : c.red('FAILED');
      out.line(`\n${verdict}: ${verdictLine}`);
    }
  });
  return ok ? EXIT_OK : EXIT_GATE;
}
