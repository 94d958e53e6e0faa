import { SchemaError } from './errors.js';
import { assertJson, containsNaN } from './json-value.js';
import { DEEP_SCHEMA_MESSAGE } from './limits.js';
import { KEYWORD_BY_NAME, KEYWORDS } from './keywords/index.js';
import { NAN_MESSAGE, type ParseScope } from './keywords/keyword.js';
import { describe, isSchemaObject, type SchemaNode } from './schema-node.js';
import { GDPR_MARKER, markSensitive } from './sensitive.js';
import { nearestKeyword } from './suggest.js';
import type { LintIssue, SchemaWarning } from './types.js';

/** The ten keywords the contract enforces: the table's (keywords/index.ts). */
export const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set(KEYWORDS.map((k) => k.name));

/** Annotations never warn (nor does any keyword starting with `x-`). */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  '$schema',
  '$id',
  'title',
  'description',
  'examples',
  'default',
  '$comment',
]);

/**
 * Every keyword JSON Schema draft-07, 2019-09 or 2020-12 defines (core, applicator, validation,
 * meta-data, format, content vocabularies). A keyword outside these, the annotations and `x-…` is
 * unknown (docs/contract.md §14): most often a typo.
 */
export const DRAFT_KEYWORDS: ReadonlySet<string> = new Set([
  ...SUPPORTED_KEYWORDS,
  ...ANNOTATION_KEYWORDS,
  // draft-07
  '$ref',
  'definitions',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'pattern',
  'additionalItems',
  'maxItems',
  'minItems',
  'uniqueItems',
  'contains',
  'maxProperties',
  'minProperties',
  'patternProperties',
  'dependencies',
  'propertyNames',
  'format',
  'contentMediaType',
  'contentEncoding',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'readOnly',
  'writeOnly',
  // 2019-09
  '$anchor',
  '$defs',
  '$recursiveRef',
  '$recursiveAnchor',
  '$vocabulary',
  'dependentSchemas',
  'dependentRequired',
  'unevaluatedItems',
  'unevaluatedProperties',
  'maxContains',
  'minContains',
  'deprecated',
  'contentSchema',
  // 2020-12
  '$dynamicRef',
  '$dynamicAnchor',
  'prefixItems',
]);

export interface ParseResult {
  root: SchemaNode;
  warnings: SchemaWarning[];
  lint: LintIssue[];
}

/**
 * Walks a schema once: builds its node tree and collects its warnings, unsupported, unknown and
 * malformed (schema order); `lint` is the malformed ones in LintIssue form.
 */
export function parseSchema(schema: unknown): ParseResult {
  if (typeof schema !== 'boolean' && !isSchemaObject(schema)) {
    throw new SchemaError(`a schema must be an object or a boolean, got ${describe(schema)}`);
  }
  const warnings: SchemaWarning[] = [];
  try {
    const { nan, deep } = assertJson(schema);
    // Counted before anything recursive reads the schema: the same refusal in every thread.
    if (deep) throw new SchemaError(DEEP_SCHEMA_MESSAGE);
    const ctx: ParseContext = { warnings, nan, marks: 0 };
    const root = parseNode(schema, '', ctx);
    // Only a schema with a marker, or a keyword that could hold one out of the walk, is read for them.
    if (ctx.marks === MARKER_MET) markSensitive(root, schema, true);
    else if (ctx.marks === MAYBE_MARKED) markSensitive(root, schema);
    const lint: LintIssue[] = [];
    for (const w of warnings) if (w.kind === 'malformed') lint.push({ pointer: w.pointer, keyword: w.keyword, message: w.message! });
    return { root, warnings, lint };
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compile');
    throw err;
  }
}

interface ParseContext {
  readonly warnings: SchemaWarning[];
  /** Whether the schema has a NaN anywhere (most have none, and are then not searched for one). */
  readonly nan: boolean;
  /** Whether a GDPR marker (MARKER_MET), or an unsupported keyword that may hold one (MAYBE_MARKED), was met. */
  marks: number;
}

const MAYBE_MARKED = 1;
const MARKER_MET = 2;

/** What a keyword's parse is given: the schema object's pointer, and where its findings go. */
class Scope implements ParseScope {
  constructor(
    readonly pointer: string,
    private readonly ctx: ParseContext,
  ) {}

  get nan(): boolean {
    return this.ctx.nan;
  }

  // Malformed: no effect on the verdict, but reported (docs/contract.md §8).
  bad(keyword: string, message: string): void {
    this.ctx.warnings.push({ kind: 'malformed', pointer: this.pointer, keyword, message });
  }

  unsupported(keyword: string): void {
    this.ctx.warnings.push({ kind: 'unsupported', pointer: this.pointer, keyword });
    this.ctx.marks ||= MAYBE_MARKED;
  }

  sub(schema: unknown, pointer: string): SchemaNode {
    return parseNode(schema, pointer, this.ctx);
  }
}

function parseNode(schema: unknown, pointer: string, ctx: ParseContext): SchemaNode {
  // Null-prototype nodes: a polluted Object.prototype (say `minimum`) must not read as a constraint.
  const node: SchemaNode = Object.assign(Object.create(null) as SchemaNode, { pointer });
  if (schema === true || schema === false) return Object.assign(node, { always: schema });
  const s = schema as Record<string, unknown>;
  const at = new Scope(pointer, ctx);
  let effective = false;
  for (const key of Object.keys(s)) {
    const value = s[key];
    const keyword = KEYWORD_BY_NAME.get(key);
    if (keyword !== undefined) {
      if (keyword.parse(value, node, at)) effective = true;
    } else {
      if (ANNOTATION_KEYWORDS.has(key) || key.startsWith('x-')) {
        // silent: annotations and extensions
        if (key === GDPR_MARKER && value !== false) ctx.marks = MARKER_MET;
      } else if (DRAFT_KEYWORDS.has(key)) {
        at.unsupported(key);
      } else {
        // Unknown (docs/contract.md §14): no verdict changes; the nearest keyword is named. Every
        // draft keyword is a candidate, supported ones first on a tie: `minItem` was meant as
        // `minItems` (unsupported, so it will warn as such), not the supported `minimum`.
        const suggestion = nearestKeyword(key, DRAFT_KEYWORDS);
        ctx.warnings.push({ kind: 'unknown', pointer, keyword: key, ...(suggestion === undefined ? {} : { suggestion }) });
      }
      if (ctx.nan && containsNaN(value)) at.bad(key, NAN_MESSAGE);
    }
  }
  if (!effective) node.always = true;
  return node;
}

export { SchemaError };
export { describe, hasOwn, isSchemaObject, lengthBound, minimumBound, type SchemaNode } from './schema-node.js';
