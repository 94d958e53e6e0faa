import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import {
  compile, isSchemaObject, joinPointer, lintSchema, loadSchemaFile, readManifest, readRegistryText, RegistryError, warningMessage,
  type Manifest, type SchemaWarning,
} from '../../internal.js';
import { CliError, EXIT_GATE, EXIT_OK } from '../errors.js';
import { githubCommand, makeChalk, Out, type Format } from '../output.js';
import { parseByExtension, ParseFailure } from '../parse.js';
import { SourcePositions } from '../positions.js';
import { registryPath, type RegistryOptions } from '../registry.js';
import { exitWhenStdoutCloses } from '../stdout.js';

export interface CheckOptions extends RegistryOptions {
  format: Format;
}

export interface CheckIssue {
  urn?: string;
  /** The file the issue is in: the manifest, or the URN's schema file. */
  file: string;
  /** JSON Pointer inside that file. */
  pointer: string;
  keyword?: string;
  message: string;
  /** Where a malformed file stops parsing (the pointer is then meaningless). */
  line?: number;
  col?: number;
}

interface UrnReport {
  urn: string;
  file: string;
  errors: CheckIssue[];
  warnings: CheckIssue[];
  text?: string;
}

const noop = (): void => {};

/** Every `examples` entry of a (sub-)schema must pass that (sub-)schema. */
function checkExamples(schema: unknown, pointer: string, report: (pointer: string, message: string) => void): void {
  if (!isSchemaObject(schema)) return;
  const examples = schema.examples;
  if (Array.isArray(examples)) {
    const compiled = compile(schema, { onWarning: noop });
    examples.forEach((example, i) => {
      const violations = compiled.validate(example);
      if (violations.length > 0) {
        const v = violations[0]!;
        const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
        report(joinPointer(pointer, 'examples', i), `example ${i} fails its schema: ${v.instancePath || '(root)'} ${v.message}${more}`);
      }
    });
  }
  const props = schema.properties;
  if (isSchemaObject(props)) for (const name of Object.keys(props)) checkExamples(props[name], joinPointer(pointer, 'properties', name), report);
  if (isSchemaObject(schema.items)) checkExamples(schema.items, joinPointer(pointer, 'items'), report);
  if (isSchemaObject(schema.additionalProperties)) checkExamples(schema.additionalProperties, joinPointer(pointer, 'additionalProperties'), report);
}

function checkEntry(manifest: Manifest, entry: Manifest['entries'][number], options: CheckOptions): UrnReport {
  const file = resolve(manifest.dir, entry.schema);
  const report: UrnReport = { urn: entry.urn, file, errors: [], warnings: [] };
  const error = (pointer: string, message: string, keyword?: string, at?: { line: number; col: number }): void => {
    report.errors.push({ urn: entry.urn, file, pointer, keyword, message, ...at });
  };
  let schema: unknown;
  try {
    report.text = readFileSafe(file);
    schema = loadSchemaFile(manifest, entry, { parse: parseByExtension, allowOutside: options.allowOutsidePaths });
  } catch (err) {
    if (err instanceof RegistryError && err.kind === 'outside') throw new CliError(err.message, 2);
    if (err instanceof RegistryError) {
      error('', err.message, undefined, err.kind === 'malformed' ? parsePosition(report.text, file) : undefined);
      return report;
    }
    throw err;
  }
  if (typeof schema !== 'boolean' && !isSchemaObject(schema)) {
    error('', `the schema must be an object or a boolean, got ${Array.isArray(schema) ? 'an array' : schema === null ? 'null' : typeof schema}`);
    return report;
  }
  // Lint names the schema object and the keyword; the issue is at the keyword's value.
  for (const issue of lintSchema(schema)) {
    error(issue.keyword ? joinPointer(issue.pointer, issue.keyword) : issue.pointer, `${issue.keyword}: ${issue.message}`, issue.keyword);
  }
  let warnings: readonly SchemaWarning[] = [];
  try {
    warnings = compile(schema, { urn: entry.urn, onWarning: noop }).warnings;
  } catch (err) {
    error('', (err as Error).message);
    return report;
  }
  // The URN has a field of its own (and prefixes github lines), so the message does not repeat it.
  for (const w of warnings) report.warnings.push({ urn: entry.urn, file, pointer: w.pointer, keyword: w.keyword, message: warningMessage({ ...w, urn: undefined }) });
  if (schema === false) error('', 'the schema is false: no message can ever be valid');
  if (isSchemaObject(schema)) {
    const type = schema.type;
    const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
    if (names && names.length > 0 && names.every((n) => typeof n === 'string') && !names.includes('object')) {
      error('/type', `the root type ${JSON.stringify(type)} excludes "object", but a message's data is always an object`, 'type');
    }
  }
  checkExamples(schema, '', (pointer, message) => error(pointer, message, 'examples'));
  return report;
}

/** The line and column where a malformed file stops parsing. */
function parsePosition(text: string | undefined, file: string): { line: number; col: number } | undefined {
  if (text === undefined) return undefined;
  try {
    parseByExtension(text, file);
  } catch (err) {
    if (err instanceof ParseFailure) return { line: err.line, col: err.col };
  }
  return undefined;
}

function readFileSafe(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function display(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}

export async function run(options: CheckOptions): Promise<number> {
  const path = resolve(registryPath(options));
  const text = readRegistryText(path, 'registry manifest');
  let value: unknown;
  try {
    value = parseByExtension(text, path);
  } catch (err) {
    if (err instanceof ParseFailure) throw new CliError(err.message);
    throw err;
  }
  const { entries, problems } = readManifest(value);
  const manifest: Manifest = { file: path, dir: dirname(path), entries };
  const manifestErrors: CheckIssue[] = problems.map((p) => ({ urn: p.urn, file: path, pointer: p.pointer, message: p.message }));
  const reports = entries.map((entry) => checkEntry(manifest, entry, options));

  const errors = [...manifestErrors, ...reports.flatMap((r) => r.errors)];
  const warnings = reports.flatMap((r) => r.warnings);
  const summary = { urns: entries.length, errors: errors.length, warnings: warnings.length };
  const ok = errors.length === 0;
  const out = new Out();
  exitWhenStdoutCloses(() => (ok ? EXIT_OK : EXIT_GATE));
  const c = makeChalk();
  const plain = (i: CheckIssue): Record<string, unknown> => ({ ...i, file: display(i.file) });

  if (options.format === 'json') {
    out.line(JSON.stringify({ ok, summary, errors: errors.map(plain), warnings: warnings.map(plain) }, null, 2));
  } else if (options.format === 'github') {
    const texts = new Map<string, string | undefined>([[path, text], ...reports.map((r) => [r.file, r.text] as [string, string | undefined])]);
    for (const [level, list] of [['error', errors], ['warning', warnings]] as const) {
      for (const i of list) {
        const source = texts.get(i.file);
        const pos = i.line !== undefined ? { line: i.line, col: i.col } : source === undefined ? undefined : SourcePositions.forFile(source, i.file).of(i.pointer);
        out.line(githubCommand(level, { file: display(i.file), line: pos?.line, col: pos?.col }, `${i.urn ? i.urn + ': ' : ''}${i.message}`));
      }
    }
    out.line(`${ok ? 'OK' : 'FAILED'}: ${summary.urns} URN(s), ${summary.errors} error(s), ${summary.warnings} warning(s)`);
  } else {
    for (const i of manifestErrors) out.line(`${c.red('✗ error')}  ${display(path)}${i.pointer ? ' ' + i.pointer : ''}: ${i.message}`);
    for (const r of reports) {
      const mark = r.errors.length > 0 ? c.red('✗') : c.green('✓');
      out.line(`${mark} ${c.bold(r.urn)}  ${c.dim(display(r.file))}`);
      for (const e of r.errors) out.line(`    ${c.red('error')}  ${e.pointer || '(root)'}  ${e.message}`);
      for (const w of r.warnings) out.line(`    ${c.yellow('warning')}  ${w.pointer || '(root)'}  unsupported keyword "${w.keyword}" is not enforced`);
    }
    const verdict = ok ? c.green('OK') : c.red('FAILED');
    out.line(`\n${verdict}: ${summary.urns} URN(s), ${summary.errors} error(s), ${summary.warnings} warning(s)`);
  }
  await out.flush();
  return ok ? EXIT_OK : EXIT_GATE;
}
