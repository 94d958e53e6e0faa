import { RegistryError, type Registry, type SchemaDocument } from '../registry/index.js';
import { assignIds } from '../registry/ids.js';
import {
  compile,
  describe,
  hasOwn,
  isSchemaObject,
  joinPointer,
  lintSchema,
  pointerLabel,
  SchemaError,
  unknownMessage,
  warningMessage,
  type SchemaWarning,
} from '../validator/index.js';
import { GDPR_MARKER, hasMarker, isMarked, markerIssues, Reach } from '../validator/sensitive.js';
import type { ServiceIssue, ServiceRule } from './service-rules.js';

/*
 * The registry's self-check (`bqschema check`): from an open registry, every issue of its manifest
 * and of each entry (the schema file reads and compiles, its root accepts an object, its examples
 * pass its own schema, every keyword is one the validator knows and enforces), each named by the
 * rule its SARIF result and JSON cite. No output: src/cli/report/check.ts renders the result.
 */

/** The rule an issue breaks: its SARIF ruleId and JSON `rule`. */
type CheckRule =
  | 'manifest'
  | 'schema'
  | 'malformed-keyword'
  | 'example-fails-schema'
  | 'unsupported-keyword'
  | 'unknown-keyword'
  | 'unreachable-marker'
  | ServiceRule;

export interface CheckIssue {
  rule: CheckRule;
  urn?: string;
  /** The file the issue is in, as shown: the manifest, or the URN's schema file. */
  file: string;
  /** JSON Pointer inside that file. */
  pointer: string;
  keyword?: string;
  message: string;
  /** For an unknown keyword: the supported keyword it is nearest to; for an unknown service, the declared one. */
  suggestion?: string;
  line?: number;
  col?: number;
  /** Where the value ends in `file` (SARIF's region); not in the JSON output, which places an issue at its start. */
  endLine?: number;
  endCol?: number;
  /** An unsupported keyword the manifest's `unenforced` acknowledges: reviewed, still not enforced. */
  acknowledged?: true;
}

/** One manifest entry checked: its schema file as shown, and its issues. */
export interface EntryCheck {
  urn: string;
  file: string;
  errors: CheckIssue[];
  warnings: CheckIssue[];
  /** Unsupported keywords the manifest acknowledges: not warned about, kept for the JSON output and the count of what is not enforced. */
  acknowledged: CheckIssue[];
}

export interface CheckOptions {
  /** Unsupported keywords are errors, not warnings: `pattern` or `format` cannot pass for enforced. */
  failOnUnsupported?: boolean;
  /** Unknown keywords used on purpose (docs/contract.md §14): warnings, not errors. */
  allowKeywords?: readonly string[];
  /**
   * What src/check/service-rules.ts says of the manifest's services, producers and consumers (the CLI
   * loads it only for a manifest that names services: `namesServices`).
   */
  serviceIssues?: { errors: readonly ServiceIssue[]; warnings: readonly ServiceIssue[] };
}

/** Whether the manifest declares services or names a URN's producers or consumers: then check has service rules to apply. */
export const namesServices = (registry: Registry): boolean =>
  registry.services.length > 0 || registry.entries.some((e) => e.producers !== undefined || e.consumers !== undefined);

export interface RegistryCheck {
  /** The manifest's own issues (errors): malformed entries, duplicate URNs, clashing schema ids. */
  manifestErrors: CheckIssue[];
  /** The manifest's warnings: its services and the URNs' producers and consumers (src/check/service-rules.ts). */
  manifestWarnings?: CheckIssue[];
  entries: EntryCheck[];
}

const noop = (): void => {};

/**
 * Every `examples` entry of a (sub-)schema must pass that (sub-)schema. Iterative: schemas may be
 * deep. An example where the data is personal (a marked node above it, or beside it in a branch)
 * is judged as it is and worded as marked, so that its message never quotes it.
 */
function checkExamples(root: unknown, report: (pointer: string, message: string) => void): void {
  const described = hasMarker(root) ? new Reach(root).describedAt() : undefined;
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length > 0) {
    const [schema, pointer] = stack.pop()!;
    if (!isSchemaObject(schema)) continue;
    const examples = schema.examples;
    if (Array.isArray(examples)) {
      // A marker never changes a verdict, only the wording.
      const hidden = described?.get(schema)?.hidden === true && !isMarked(schema);
      const compiled = compile(hidden ? { ...schema, [GDPR_MARKER]: true } : schema, { onWarning: noop });
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
    if (isSchemaObject(schema.additionalProperties))
      stack.push([schema.additionalProperties, joinPointer(pointer, 'additionalProperties')]);
  }
}

function checkEntry(registry: Registry, urn: string, options: CheckOptions = {}): EntryCheck {
  let shown: string;
  try {
    shown = registry.file(urn).shown; // as every other path is shown: from the working directory
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    shown = registry.entry(urn)!.schema; // refused before it is located: the manifest's own words
  }
  const report: EntryCheck = { urn, file: shown, errors: [], warnings: [], acknowledged: [] };
  let doc: SchemaDocument;
  try {
    doc = registry.document(urn);
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    // A missing file is fixed at its manifest entry, in every format (Registry.problemSite).
    const { file, pointer, ...position } = registry.problemSite(urn, err);
    report.errors.push({ rule: 'schema', urn, file, pointer, message: err.message, ...position });
    return report;
  }
  shown = doc.file.shown;
  report.file = shown;
  const at = (pointer: string): { line: number; col: number; endLine?: number; endCol?: number } => registry.schemaSpan(doc, pointer);
  const error = (rule: CheckRule, pointer: string, message: string, keyword?: string): void => {
    report.errors.push({ rule, urn, file: shown, pointer, keyword, message, ...at(pointer) });
  };
  const schema = doc.value;
  // Lint names the schema object and the keyword; the issue is at the keyword's value.
  let lint: ReturnType<typeof lintSchema>;
  try {
    lint = lintSchema(schema);
  } catch (err) {
    // Nested past the stack, say: an error of this URN and file; the run goes on.
    if (!(err instanceof SchemaError)) throw err;
    error('schema', '', err.message);
    return report;
  }
  for (const issue of lint) {
    error(
      'malformed-keyword',
      issue.keyword ? joinPointer(issue.pointer, issue.keyword) : issue.pointer,
      `malformed keyword "${issue.keyword}": ${issue.message}; it would not be enforced`,
      issue.keyword,
    );
  }
  // Personal data must stay masked: a marker masking reads as sensitive but that is malformed, or
  // that masking cannot reach, is an error (src/validator/sensitive.ts).
  for (const m of markerIssues(schema)) {
    if (m.kind === 'malformed') {
      error(
        'malformed-keyword',
        m.pointer,
        `malformed keyword "${GDPR_MARKER}": must be true, false or a category string, got ${describe(m.value)}; masking treats the field as personal data`,
        GDPR_MARKER,
      );
    } else {
      error(
        'unreachable-marker',
        m.pointer,
        `"${GDPR_MARKER}" ${m.reason}: masking cannot reach it, so the data it marks would be shown in clear; put the marker on the schema of the value itself (a property, items or additionalProperties), or use the definition through a local "$ref"`,
        GDPR_MARKER,
      );
    }
  }
  let warnings: readonly SchemaWarning[];
  try {
    warnings = compile(schema, { urn, onWarning: noop }).warnings;
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    error('schema', '', err.message);
    return report;
  }
  const allowed = new Set(options.allowKeywords ?? []);
  for (const w of warnings) {
    if ((w as { kind?: string }).kind === 'malformed') continue; // reported above, as an error
    if (w.kind === 'unknown') {
      // A typo would otherwise pass as a keyword nobody enforces (docs/contract.md §14).
      const pointer = joinPointer(w.pointer, w.keyword);
      const allow = allowed.has(w.keyword);
      const fix = allow
        ? 'Allowed by --allow-keyword.'
        : `Fix the name, or allow it with --allow-keyword ${w.keyword} (or name it x-${w.keyword}).`;
      const issue: CheckIssue = {
        rule: 'unknown-keyword',
        urn,
        file: shown,
        pointer,
        keyword: w.keyword,
        message: `${unknownMessage(w)}${w.suggestion === undefined ? '.' : ''} ${fix}`,
        ...(w.suggestion === undefined ? {} : { suggestion: w.suggestion }),
        ...at(pointer),
      };
      (allow && !options.failOnUnsupported ? report.warnings : report.errors).push(issue);
      continue;
    }
    const issue: CheckIssue = {
      rule: 'unsupported-keyword',
      urn,
      file: shown,
      pointer: w.pointer,
      keyword: w.keyword,
      message: warningMessage({ ...w, urn: undefined }),
      ...at(joinPointer(w.pointer, w.keyword)),
    };
    // Reviewed in the manifest: not a warning, nor an error under --fail-on-unsupported (which fails on the unreviewed).
    if (registry.acknowledges(urn, w.keyword)) report.acknowledged.push({ ...issue, acknowledged: true });
    else (options.failOnUnsupported ? report.errors : report.warnings).push(issue);
  }
  if (schema === false) error('schema', '', 'the schema is false: no message can ever be valid');
  if (isSchemaObject(schema)) {
    const type = schema.type;
    const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
    if (names && names.length > 0 && names.every((n) => typeof n === 'string') && !names.includes('object')) {
      error('schema', '/type', `the root type ${JSON.stringify(type)} excludes "object", but a message's data is always an object`, 'type');
    }
  }
  checkExamples(schema, (pointer, message) => error('example-fails-schema', pointer, message, 'examples'));
  deprecatedNames(registry, urn, schema, report);
  return report;
}

/**
 * A `deprecatedProperties` name the schema's root does not declare: most likely a typo, and a
 * deprecation nobody can act on (a warning, at the name in the manifest).
 */
function deprecatedNames(registry: Registry, urn: string, schema: unknown, report: EntryCheck): void {
  const entry = registry.entry(urn);
  if (entry?.deprecatedProperties === undefined) return;
  const props = isSchemaObject(schema) && isSchemaObject(schema.properties) ? schema.properties : {};
  const declared = Object.keys(props);
  for (const name of entry.deprecatedProperties.keys()) {
    if (hasOwn(props, name)) continue;
    const pointer = joinPointer(`/schemas/${entry.index}/deprecatedProperties`, name);
    const near =
      declared.length === 0
        ? ''
        : `; it declares ${declared
            .slice(0, 5)
            .map((n) => JSON.stringify(n))
            .join(', ')}${declared.length > 5 ? ', …' : ''}`;
    report.warnings.push({
      rule: 'manifest',
      urn,
      file: registry.manifest.shown,
      pointer,
      message: `entry ${entry.index}: "deprecatedProperties" names ${JSON.stringify(name)}, which ${report.file} does not declare at its root${near}; fix the name, or drop it once the property is gone`,
      ...registry.manifestPosition(pointer),
    });
  }
}

/** The manifest's issues and every entry's, for a registry opened leniently (its issues kept, not thrown). */
export function checkRegistry(registry: Registry, options: CheckOptions = {}): RegistryCheck {
  const file = registry.manifest.shown;
  const manifestErrors: CheckIssue[] = registry.issues.map((p) => ({
    rule: 'manifest',
    urn: p.urn,
    file,
    pointer: p.pointer,
    message: p.message,
    line: p.line,
    col: p.col,
  }));
  // Schema ids as serve gives them: an explicit id, else one derived from the URN; two URNs must never share one.
  for (const p of assignIds(registry.entries.map((e) => ({ urn: e.urn, id: e.id }))).issues) {
    const entry = registry.entry(p.urn)!;
    const pointer = `/schemas/${entry.index}/${entry.id === undefined ? 'urn' : 'id'}`;
    manifestErrors.push({ rule: 'manifest', urn: p.urn, file, pointer, message: p.message, ...registry.manifestPosition(pointer) });
  }
  const services = options.serviceIssues ?? { errors: [], warnings: [] };
  manifestErrors.push(...services.errors);
  return {
    manifestErrors,
    manifestWarnings: [...services.warnings],
    entries: registry.entries.map((entry) => checkEntry(registry, entry.urn, options)),
  };
}

/** A manifest that cannot be read at all: check's one finding, the run's (no URN owns it); `shown`: its file as shown. */
export function unreadableManifest(err: RegistryError & { file: string }, shown: string = err.file): RegistryCheck {
  return { manifestErrors: [{ rule: 'manifest', file: shown, pointer: '', message: err.message, ...err.position }], entries: [] };
}

/**
 * Keywords whose value is a schema (or schemas) that the validator does not descend into: a schema
 * under one of them is not checked at all, a whole subtree of constraints (`$ref`'s target, every
 * branch of `allOf`), not one constraint.
 */
const SUBTREE_KEYWORDS: ReadonlySet<string> = new Set([
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependencies',
  'dependentSchemas',
  'propertyNames',
  'contains',
  'prefixItems',
  'items',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
]);

/** What the registry does not enforce, counted: check's last line before its summary. */
export interface Unenforced {
  /** Unsupported keywords, every occurrence (acknowledged or not). */
  total: number;
  /** Those the manifest acknowledges. */
  acknowledged: number;
  /** Occurrences by keyword, in order of their first. */
  byKeyword: ReadonlyMap<string, number>;
  /** The subtrees not checked at all, where they are. */
  subtrees: ReadonlyArray<{ urn: string; pointer: string; keyword: string }>;
}

/** What check concludes: its issues (the manifest's first), their counts, the verdict and its line. */
export interface CheckVerdict {
  ok: boolean;
  summary: { urns: number; failed: number; errors: number; warnings: number; acknowledged: number };
  errors: readonly CheckIssue[];
  warnings: readonly CheckIssue[];
  /** Unsupported keywords the manifest acknowledges (not in `warnings`). */
  acknowledged: readonly CheckIssue[];
  unenforced: Unenforced;
  /** Issues of the manifest itself (in errors too). */
  manifestErrors: readonly CheckIssue[];
  entries: readonly EntryCheck[];
  /** The manifest as shown. */
  manifest: string;
  /** The counts, as the summary line gives them after `OK:` or `FAILED:`. */
  counts: string;
}

export function verdictOf({ manifestErrors, manifestWarnings = [], entries }: RegistryCheck, manifest: string): CheckVerdict {
  const errors = [...manifestErrors, ...entries.flatMap((r) => r.errors)];
  const warnings = [...manifestWarnings, ...entries.flatMap((r) => r.warnings)];
  const acknowledged = entries.flatMap((r) => r.acknowledged ?? []);
  // failed: the URN entries with an error, their own or their manifest entry's.
  const failing = new Set([
    ...manifestErrors.flatMap((e) => (e.urn === undefined ? [] : [e.urn])),
    ...entries.filter((r) => r.errors.length > 0).map((r) => r.urn),
  ]);
  const summary = {
    urns: entries.length,
    failed: entries.filter((r) => failing.has(r.urn)).length,
    errors: errors.length,
    warnings: warnings.length,
    acknowledged: acknowledged.length,
  };
  const counts = `${summary.urns} URN(s), ${summary.errors} error(s), ${summary.warnings} warning(s)${summary.acknowledged === 0 ? '' : `, ${summary.acknowledged} acknowledged`}`;
  // Every unsupported keyword, whatever its level or review, in the registry's order.
  const unsupported = entries.flatMap((r) =>
    [...r.errors, ...r.warnings, ...(r.acknowledged ?? [])].filter((i) => i.rule === 'unsupported-keyword'),
  );
  const byKeyword = new Map<string, number>();
  for (const i of unsupported) byKeyword.set(i.keyword ?? '', (byKeyword.get(i.keyword ?? '') ?? 0) + 1);
  const subtrees = unsupported
    .filter((i) => SUBTREE_KEYWORDS.has(i.keyword ?? ''))
    .map((i) => ({ urn: i.urn ?? '', pointer: i.pointer, keyword: i.keyword! }));
  const unenforced: Unenforced = { total: unsupported.length, acknowledged: acknowledged.length, byKeyword, subtrees };
  return { ok: errors.length === 0, summary, errors, warnings, acknowledged, unenforced, manifestErrors, entries, manifest, counts };
}
