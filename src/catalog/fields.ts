import { additionalPath, itemsPath, propertyPath, sensitiveCategory, sensitivePaths } from '../validator/sensitive-paths.js';
import { hasOwn, isSchemaObject, parseSchema, SchemaError, type LintIssue, type SchemaNode } from '../validator/index.js';
import { html, join, type SafeHtml } from './html.js';
import { expandedSize, formatValue } from './values.js';

/** Deeper levels are summarised, not drawn: a page of 500 nested lists helps nobody. */
const MAX_DEPTH = 24;
/** Fields drawn per URN; the rest is in the schema source. */
const MAX_FIELDS = 1500;
/** Sub-schemas the validator's parser would visit, shared ones counted at each place: beyond this, nothing is drawn. */
const MAX_SCHEMA_NODES = 200_000;

/** The sub-schemas parseSchema descends into (the tuple form of items is not one). */
function subSchemas(node: object): unknown[] {
  if (!isSchemaObject(node)) return [];
  const out: unknown[] = [];
  const props = hasOwn(node, 'properties') ? node.properties : undefined;
  if (isSchemaObject(props)) for (const k of Object.keys(props)) out.push(props[k]);
  for (const k of ['items', 'additionalProperties']) if (hasOwn(node, k) && isSchemaObject(node[k])) out.push(node[k]);
  return out;
}

interface PiiField {
  /** The field in the gdpr path syntax (`addresses[].city`), `""` for the payload itself. */
  path: string;
  /** The marker's category, `""` for `x-gdpr-sensitive: true`. */
  category: string;
}

export interface FieldsView {
  tree: SafeHtml;
  /** Every marked field, drawn or not, as `bqschema gdpr` lists them (sorted by path). */
  pii: PiiField[];
  /** Every property name drawn, for the search index. */
  names: string[];
  /** Keywords the validator does not enforce, with where they are. */
  unsupported: Array<{ pointer: string; keyword: string }>;
  malformed: LintIssue[];
}

interface Visit {
  node: SchemaNode;
  raw: unknown;
  label: SafeHtml;
  required: boolean;
  depth: number;
  path: string;
}

type Item = Visit | SafeHtml;

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The constraints that take effect, in words, from the validator's own reading of the node. */
function rules(node: SchemaNode, raw: Record<string, unknown> | undefined): string[] {
  const out: string[] = [];
  if (node.hasConst) out.push(`always ${formatValue(node.constValue)}`);
  if (node.enum !== undefined) {
    out.push(node.enum.length === 0 ? 'no value is allowed (empty enum)' : `one of ${node.enum.map((v) => formatValue(v)).join(', ')}`);
  }
  const { minLength: lo, maxLength: hi } = node;
  if (lo !== undefined && hi !== undefined) {
    out.push(
      lo === hi
        ? `exactly ${plural(lo, 'character')}`
        : lo > hi
          ? `no string fits (at least ${lo}, at most ${hi} characters)`
          : `${lo} to ${plural(hi, 'character')}`,
    );
  } else if (lo !== undefined) out.push(`at least ${plural(lo, 'character')}`);
  else if (hi !== undefined) out.push(`at most ${plural(hi, 'character')}`);
  if (node.minimum !== undefined) out.push(`≥ ${formatValue(node.minimum)}`);
  if (raw !== undefined) {
    // A numeric bound that is not finite is ignored by every SDK: say so rather than drop it silently.
    for (const k of ['minLength', 'maxLength', 'minimum'] as const) {
      const v = hasOwn(raw, k) ? raw[k] : undefined;
      if (typeof v === 'number' && node[k] === undefined) out.push(`${k} ${formatValue(v)} is ignored (not a finite number)`);
    }
  }
  if (node.required !== undefined) {
    const declared = new Set((node.properties ?? []).map(([name]) => name));
    const extra = node.required.filter((n) => !declared.has(n));
    if (extra.length > 0) out.push(`also requires ${extra.map((n) => JSON.stringify(n)).join(', ')}`);
  }
  if (node.additional?.always === false) out.push('no other properties');
  return out;
}

/** `undefined` when the rules say it all (an enum or const without `type`). */
function typeText(node: SchemaNode): string | undefined {
  if (node.always === false) return 'nothing is valid';
  if (node.types !== undefined) return node.types.join(' or ');
  if (node.always === true) return 'any value';
  return node.enum !== undefined || node.hasConst ? undefined : 'any type';
}

/** Title, description, default and examples of a node; the root's examples have a section of their own. */
function annotations(raw: Record<string, unknown> | undefined, isRoot: boolean): SafeHtml {
  if (raw === undefined) return html``;
  const str = (k: string): string | undefined => (hasOwn(raw, k) && typeof raw[k] === 'string' ? (raw[k] as string) : undefined);
  const title = str('title');
  const description = str('description');
  const parts: SafeHtml[] = [];
  if (title !== undefined) parts.push(html`<strong>${title}</strong>`);
  if (description !== undefined) parts.push(html`<span>${description}</span>`);
  if (hasOwn(raw, 'default')) parts.push(html`<span class="dim">default ${formatValue(raw.default)}</span>`);
  const ex = !isRoot && hasOwn(raw, 'examples') ? raw.examples : undefined;
  if (Array.isArray(ex) && ex.length > 0)
    parts.push(
      html`<span class="dim">e.g. ${ex
        .slice(0, 3)
        .map((v) => formatValue(v))
        .join(', ')}</span>`,
    );
  return parts.length === 0 ? html`` : html`<p class="fdesc">${join(parts, ' ')}</p>`;
}

/**
 * The fields of a schema as a nested list. The schema is read once by the validator's parser
 * (parseSchema), so types, bounds and malformed keywords mean here what they mean at validation
 * time; the raw schema only adds annotations (description, examples, x-gdpr-sensitive). An explicit
 * stack, not recursion, with a depth and a size cap. Throws the validator's SchemaError for a
 * schema it cannot read (not an object or boolean, nested too deeply, circular).
 */
export function fieldsView(schema: unknown): FieldsView {
  // Checked first: a schema that contains itself (a YAML alias) or that shared parts blow up would
  // otherwise cost the parser a stack overflow or exponential time.
  const size = expandedSize(schema, subSchemas, MAX_SCHEMA_NODES);
  if (size === 'circular') throw new SchemaError('the schema contains itself (circular)');
  if (size > MAX_SCHEMA_NODES)
    throw new SchemaError(`the schema has more than ${MAX_SCHEMA_NODES} sub-schemas once its shared parts are expanded`);
  const parsed = parseSchema(schema);
  const { root, lint } = parsed;
  // Malformed keywords come back in `lint` (and as warnings of kind 'malformed'): listed once, as malformed.
  const warnings = parsed.warnings.filter((w) => w.kind !== 'malformed');
  const unsupportedAt = new Map<string, string[]>();
  for (const w of warnings) unsupportedAt.set(w.pointer, [...(unsupportedAt.get(w.pointer) ?? []), w.keyword]);
  const malformedAt = new Map<string, LintIssue[]>();
  for (const l of lint) malformedAt.set(l.pointer, [...(malformedAt.get(l.pointer) ?? []), l]);

  const out: SafeHtml[] = [];
  const names: string[] = [];
  let drawn = 0;
  let cut = 0;
  const stack: Item[] = [{ node: root, raw: schema, label: html`<span class="name root">data</span>`, required: true, depth: 0, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (!('node' in item)) {
      out.push(item);
      continue;
    }
    if (drawn >= MAX_FIELDS) {
      cut++;
      continue;
    }
    drawn++;
    const { node, depth, path } = item;
    const raw = isSchemaObject(item.raw) ? item.raw : undefined;
    const category = sensitiveCategory(raw);
    const type = typeText(node);
    const badges: SafeHtml[] = type === undefined ? [] : [html`<span class="type">${type}</span>`];
    if (item.required && depth > 0) badges.push(html`<span class="badge req">required</span>`);
    if (category !== undefined)
      badges.push(html`<span class="badge pii" title="x-gdpr-sensitive">PII${category === '' ? '' : ` · ${category}`}</span>`);
    // The 2019-09 annotation: documentation, validated as before (so not listed as "not enforced").
    if (raw !== undefined && hasOwn(raw, 'deprecated') && raw.deprecated === true)
      badges.push(html`<span class="badge st-deprecated" title="deprecated: true">deprecated</span>`);
    const words = rules(node, raw);
    const notes: SafeHtml[] = [];
    for (const keyword of unsupportedAt.get(node.pointer) ?? []) {
      if (keyword === 'deprecated') continue;
      const value = raw !== undefined && hasOwn(raw, keyword) ? raw[keyword] : undefined;
      const shown = keyword === 'items' ? 'items (tuple form)' : `${keyword}: ${formatValue(value)}`;
      notes.push(html`<li class="warn"><code>${shown}</code> <span class="badge noenf">not enforced</span></li>`);
    }
    for (const issue of malformedAt.get(node.pointer) ?? []) {
      notes.push(
        html`<li class="bad"><code>${issue.keyword}</code> <span class="badge malformed">malformed</span> ${issue.message}; it has no effect</li>`,
      );
    }
    out.push(
      html`<li class="field"><div class="row">${item.label} ${join(badges, ' ')}</div>`,
      annotations(raw, depth === 0),
      words.length > 0 ? html`<p class="rules">${words.join(' · ')}</p>` : html``,
      notes.length > 0 ? html`<ul class="notes">${notes}</ul>` : html``,
    );
    const children: Visit[] = [];
    const required = new Set(node.required ?? []);
    const sub = (key: string): unknown => (raw !== undefined && hasOwn(raw, key) ? raw[key] : undefined);
    const props = sub('properties');
    for (const [name, child] of node.properties ?? []) {
      names.push(name);
      const rawChild = isSchemaObject(props) && hasOwn(props, name) ? props[name] : undefined;
      children.push({
        node: child,
        raw: rawChild,
        label: html`<code class="name">${name}</code>`,
        required: required.has(name),
        depth: depth + 1,
        path: propertyPath(path, name),
      });
    }
    if (node.items !== undefined) {
      children.push({
        node: node.items,
        raw: sub('items'),
        label: html`<span class="name meta">each item</span>`,
        required: false,
        depth: depth + 1,
        path: itemsPath(path),
      });
    }
    // `additionalProperties: false` is said in words above; a schema or `true` is drawn as a field.
    if (node.additional !== undefined && node.additional.always !== false) {
      children.push({
        node: node.additional,
        raw: sub('additionalProperties'),
        label: html`<span class="name meta">any other property</span>`,
        required: false,
        depth: depth + 1,
        path: additionalPath(path),
      });
    }
    if (children.length === 0) {
      out.push(html`</li>`);
      continue;
    }
    if (depth + 1 > MAX_DEPTH) {
      out.push(
        html`<ul class="tree"><li class="more">${plural(children.length, 'field')} nested deeper than ${MAX_DEPTH} levels: see the schema source</li></ul></li>`,
      );
      continue;
    }
    stack.push(html`</ul></li>`);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    out.push(html`<ul class="tree">`);
  }
  if (cut > 0) out.push(html`<li class="more">${plural(cut, 'more field')} not drawn: see the schema source</li>`);
  return {
    tree: join([html`<ul class="tree rootlist">`, ...out, html`</ul>`]),
    pii: sensitivePaths(schema),
    names,
    unsupported: warnings.map((w) => ({ pointer: w.pointer, keyword: w.keyword })),
    malformed: lint,
  };
}
