import { kindNames, typeKinds } from './kinds.js';

/** In which comparison a rule's change is breaking (`full` breaks whenever either does). */
export type Breaks = 'backward' | 'forward' | 'both' | 'never';

/** Every rule id; the `rule` of a Change. */
export type RuleId =
  | 'schema-became-false'
  | 'schema-no-longer-false'
  | 'type-narrowed'
  | 'type-widened'
  | 'required-added'
  | 'required-removed'
  | 'property-removed'
  | 'property-added'
  | 'property-resurrected'
  | 'additional-properties-closed'
  | 'additional-properties-opened'
  | 'enum-added'
  | 'enum-removed'
  | 'enum-value-removed'
  | 'enum-value-added'
  | 'const-added'
  | 'const-removed'
  | 'const-changed'
  | 'min-length-raised'
  | 'min-length-lowered'
  | 'max-length-lowered'
  | 'max-length-raised'
  | 'minimum-raised'
  | 'minimum-lowered'
  | 'unsupported-keyword-changed';

/** The named rule sets compat applies (see `compareSchemas`). */
export type CompatPolicy = 'bqschema' | 'confluent';

export interface CompatRule {
  /** Stable kebab-case id, the `rule` of a Change. */
  readonly id: RuleId;
  /** In which comparison the change breaks under the default `bqschema` policy. */
  readonly breaks: Breaks;
  /** The same under `--policy confluent` (a rule marked there as conditional says when in `note`). */
  readonly confluentBreaks: Breaks;
  readonly description: string;
  /** The nearest Confluent JSON Schema `Difference.Type` (schema-registry's json-schema-provider), or null. */
  readonly confluent: string | null;
  /** Where bqschema's verdict or the confluent policy deliberately differs from Confluent's checker; '' when it does not. */
  readonly note: string;
}

/** Builds a change message from the old and new values of what changed, and its subject (a name, a value). */
type Message = (oldValue: unknown, newValue: unknown, subject: unknown) => string;

interface RuleDef extends Omit<CompatRule, 'confluentBreaks' | 'note' | 'confluent'> {
  readonly message: Message;
  readonly confluent: string | null;
  /** Defaults to `breaks`. */
  readonly confluentBreaks?: Breaks;
  readonly note?: string;
}

/** A short rendering of a schema value for messages; `undefined` is a keyword that is absent. */
function show(v: unknown): string {
  if (v === undefined) return 'absent';
  let s: string | undefined;
  try {
    s = JSON.stringify(v);
  } catch {
    s = undefined;
  }
  s ??= String(v);
  return s.length > 60 ? s.slice(0, 57) + '…' : s;
}

function showTypes(types: unknown): string {
  if (types === undefined) return 'any type';
  return Array.isArray(types) && types.length === 1 ? show(types[0]) : show(types);
}
const lostKinds = (from: unknown, to: unknown): string =>
  kindNames(typeKinds(from as string[] | undefined) & ~typeKinds(to as string[] | undefined));

function bound(keyword: string, verb: string): Message {
  return (o, n) => {
    if (o === undefined) return `${keyword} ${show(n)} added`;
    if (n === undefined) return `${keyword} ${show(o)} removed`;
    return `${keyword} ${verb} from ${show(o)} to ${show(n)}`;
  };
}

const DEFS: readonly RuleDef[] = [
  {
    id: 'schema-became-false',
    breaks: 'backward',
    confluent: 'TYPE_CHANGED',
    note: 'Confluent reports a schema replaced by `false` as a changed type.',
    description: 'A schema (the root, a property, items) became `false`: it rejects every value.',
    message: (o) => `schema changed from ${show(o)} to false: it rejects every value`,
  },
  {
    id: 'schema-no-longer-false',
    breaks: 'forward',
    confluent: null,
    note: 'Confluent reports nothing when a `false` schema is replaced: every change from `false` is compatible there.',
    description: 'A `false` schema now accepts values.',
    message: (_o, n) => `schema changed from false to ${show(n)}: it accepts values`,
  },
  {
    id: 'type-narrowed',
    breaks: 'backward',
    confluent: 'TYPE_NARROWED',
    note: 'Confluent says TYPE_CHANGED when the types are disjoint and SUM_TYPE_NARROWED for a union; bqschema judges by the values a type admits.',
    description: '`type` lost a type (`number` → `integer` included) or was added where there was none.',
    message: (o, n) => `type narrowed from ${showTypes(o)} to ${showTypes(n)}: no longer accepts ${lostKinds(o, n)}`,
  },
  {
    id: 'type-widened',
    breaks: 'forward',
    confluent: 'TYPE_EXTENDED',
    note: 'SUM_TYPE_EXTENDED for a union in Confluent.',
    description: '`type` gained a type (`integer` → `number` included) or was removed.',
    message: (o, n) => `type widened from ${showTypes(o)} to ${showTypes(n)}: now accepts ${lostKinds(n, o)}`,
  },
  {
    id: 'required-added',
    breaks: 'backward',
    confluent: 'REQUIRED_ATTRIBUTE_ADDED',
    note: 'Confluent calls a newly required property that declares a `default` compatible (REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED); so does `--policy confluent`, as a named policy choice (`policyChoice`, `affected`). The `bqschema` policy breaks: `default` is an annotation the validator never applies, so old data without the property is rejected.',
    description: 'A property (new or existing) became required.',
    message: (_o, _n, name) => `property ${show(name)} is now required`,
  },
  {
    id: 'required-removed',
    breaks: 'forward',
    confluent: 'REQUIRED_ATTRIBUTE_REMOVED',
    note: '`--policy confluent`, forward: compatible when the old property declares a `default` (REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED, roles swapped), as a named policy choice.',
    description: 'A property is no longer required.',
    message: (_o, _n, name) => `property ${show(name)} is no longer required`,
  },
  {
    id: 'property-removed',
    breaks: 'both',
    confluent: 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL',
    confluentBreaks: 'both',
    note: "`bqschema` policy: breaking even from an open model, where old data still validates (a declared field is a contract), except under `compat --against` for a top-level property the manifest at the ref lists in `deprecatedProperties`, on or after its sunset, where no payload refutes the removal (docs/evolution.md); forward, from an open model, by data when the removed schema rejects a value, as Confluent does. Confluent (and `--policy confluent`): backward, compatible from an open model (PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL), compared against `additionalProperties` when that is a schema (PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL), breaking from a closed one; in `forward` it breaks when the new model is open and the property's schema is not empty.",
    description:
      'A declared property was removed or renamed: consumers lose a declared field (registry policy, open schemas too; forward, when its schema constrained it).',
    message: (_o, _n, name) => `property ${show(name)} removed`,
  },
  {
    id: 'property-added',
    breaks: 'forward',
    confluent: 'PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL',
    confluentBreaks: 'both',
    note: "`bqschema` policy: adding an optional property is compatible, on an open model too, as a named policy choice (`policyChoice`, `affected`: old data may carry the name). Confluent (and `--policy confluent`): breaking on an open model unless the new property's schema is empty (PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL), compared against `additionalProperties` when that is a schema, compatible on a closed one (OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL); newer Confluent releases split the open-model case into OPTIONAL_/REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL.",
    description:
      'An optional property was added (registry policy, open schemas too); where `additionalProperties` was a schema, ' +
      'the new property is compared against it.',
    message: (_o, _n, name) => `property ${show(name)} added`,
  },
  {
    id: 'property-resurrected',
    breaks: 'backward',
    confluent: null,
    note: "Confluent has no tombstones: its checker compares with the previous version(s) only by content. bqschema finds the name in the registry's git history (`compat --transitive`, `--since`) or in the manifest's `retired` list of the URN.",
    description:
      'A property name an earlier version declared, and a later one removed (or the manifest lists as `retired`), is declared again ' +
      'with a schema data written under that version does not satisfy: that data still exists.',
    message: (_o, _n, name) =>
      `property ${show(name)} declared again after it was removed, with a schema data written under an earlier version does not satisfy`,
  },
  {
    id: 'additional-properties-closed',
    breaks: 'backward',
    confluent: 'ADDITIONAL_PROPERTIES_REMOVED',
    description: '`additionalProperties` became `false` (it was absent, `true` or a schema).',
    message: (o) => `additionalProperties changed from ${show(o)} to false: undeclared properties are rejected`,
  },
  {
    id: 'additional-properties-opened',
    breaks: 'forward',
    confluent: 'ADDITIONAL_PROPERTIES_ADDED',
    description: '`additionalProperties` was `false` and now accepts undeclared properties.',
    message: (_o, n) => `additionalProperties changed from false to ${show(n)}: undeclared properties are accepted`,
  },
  {
    id: 'enum-added',
    breaks: 'backward',
    confluent: 'PRODUCT_TYPE_EXTENDED',
    note: 'Confluent models `type` + `enum` as a combined (allOf) schema; the nearest type is a product type gaining a member.',
    description: '`enum` was added where there was none.',
    message: (_o, n) => `enum ${show(n)} added`,
  },
  {
    id: 'enum-removed',
    breaks: 'forward',
    confluent: 'PRODUCT_TYPE_NARROWED',
    description: '`enum` was removed.',
    message: (o) => `enum ${show(o)} removed`,
  },
  {
    id: 'enum-value-removed',
    breaks: 'backward',
    confluent: 'ENUM_ARRAY_NARROWED',
    note: 'Confluent says ENUM_ARRAY_CHANGED when values are both added and removed; bqschema reports each value.',
    description: 'A value was removed from `enum` (numeric equality: `1` and `1.0` are one value).',
    message: (_o, _n, value) => `enum value ${show(value)} removed`,
  },
  {
    id: 'enum-value-added',
    breaks: 'forward',
    confluent: 'ENUM_ARRAY_EXTENDED',
    description: 'A value was added to `enum`.',
    message: (_o, _n, value) => `enum value ${show(value)} added`,
  },
  {
    id: 'const-added',
    breaks: 'backward',
    confluent: 'PRODUCT_TYPE_EXTENDED',
    note: 'As for `enum-added`: a `const` joins the combined schema.',
    description: '`const` was added.',
    message: (_o, n) => `const ${show(n)} added`,
  },
  {
    id: 'const-removed',
    breaks: 'forward',
    confluent: 'PRODUCT_TYPE_NARROWED',
    description: '`const` was removed.',
    message: (o) => `const ${show(o)} removed`,
  },
  {
    id: 'const-changed',
    breaks: 'both',
    confluent: 'ENUM_ARRAY_CHANGED',
    note: "Confluent's ConstSchemaDiff reports a changed const as ENUM_ARRAY_CHANGED.",
    description: '`const` changed to a different value.',
    message: (o, n) => `const changed from ${show(o)} to ${show(n)}`,
  },
  {
    id: 'min-length-raised',
    breaks: 'backward',
    confluent: 'MIN_LENGTH_INCREASED',
    note: 'MIN_LENGTH_ADDED when there was none.',
    description: '`minLength` was raised or added (bounds truncated toward zero, as validated).',
    message: bound('minLength', 'raised'),
  },
  {
    id: 'min-length-lowered',
    breaks: 'forward',
    confluent: 'MIN_LENGTH_DECREASED',
    note: 'MIN_LENGTH_REMOVED when removed.',
    description: '`minLength` was lowered or removed.',
    message: bound('minLength', 'lowered'),
  },
  {
    id: 'max-length-lowered',
    breaks: 'backward',
    confluent: 'MAX_LENGTH_DECREASED',
    note: 'MAX_LENGTH_ADDED when there was none.',
    description: '`maxLength` was lowered or added (bounds truncated toward zero, as validated).',
    message: bound('maxLength', 'lowered'),
  },
  {
    id: 'max-length-raised',
    breaks: 'forward',
    confluent: 'MAX_LENGTH_INCREASED',
    note: 'MAX_LENGTH_REMOVED when removed.',
    description: '`maxLength` was raised or removed.',
    message: bound('maxLength', 'raised'),
  },
  {
    id: 'minimum-raised',
    breaks: 'backward',
    confluent: 'MINIMUM_INCREASED',
    note: 'MINIMUM_ADDED when there was none.',
    description: '`minimum` was raised or added.',
    message: bound('minimum', 'raised'),
  },
  {
    id: 'minimum-lowered',
    breaks: 'forward',
    confluent: 'MINIMUM_DECREASED',
    note: 'MINIMUM_REMOVED when removed.',
    description: '`minimum` was lowered or removed.',
    message: bound('minimum', 'lowered'),
  },
  {
    id: 'unsupported-keyword-changed',
    breaks: 'never',
    confluent: null,
    note: 'Confluent checks `pattern`, `maximum`, `multipleOf` and more (PATTERN_CHANGED, MAXIMUM_DECREASED, …); bqschema enforces only the ten keywords, so a change to another is a notice under either policy.',
    description: 'A keyword outside the ten (`pattern`, `format`, `maximum`, …) changed: a notice, not checked.',
    message: (o, n, keyword) => {
      const k = `unsupported keyword ${show(keyword)}`;
      if (o === undefined) return `${k} added (${show(n)}): not checked`;
      if (n === undefined) return `${k} removed (was ${show(o)}): not checked`;
      return `${k} changed from ${show(o)} to ${show(n)}: not checked`;
    },
  },
];

/** Every rule compat applies, in report order; verdicts are given for `backward`. */
export const RULES: readonly CompatRule[] = Object.freeze(
  DEFS.map(({ id, breaks, description, confluent, confluentBreaks, note }) =>
    Object.freeze({ id, breaks, confluentBreaks: confluentBreaks ?? breaks, description, confluent, note: note ?? '' }),
  ),
);

const BY_ID = new Map(DEFS.map((d) => [d.id, d]));
const ORDER = new Map(DEFS.map((d, i) => [d.id, i]));

/** A rule's position in RULES, the order changes at one path are listed in. */
export function ruleOrder(id: RuleId): number {
  return ORDER.get(id) ?? DEFS.length;
}

export function ruleMessage(id: RuleId, oldValue: unknown, newValue: unknown, subject: unknown): string {
  const def = BY_ID.get(id);
  if (def === undefined) throw new Error(`unknown compat rule ${id}`);
  return def.message(oldValue, newValue, subject);
}

/**
 * A rule seen from the two roles of a comparison: `narrow` is the edit (old → new) that can reject a
 * value the old schema accepted, `widen` its reverse. A forward comparison swaps the schemas, so the
 * same finding names the other edit.
 */
export interface RulePair {
  readonly narrow: RuleId;
  readonly widen: RuleId;
}

const pair = (narrow: RuleId, widen: RuleId): RulePair => ({ narrow, widen });

export const PAIRS = {
  falseSchema: pair('schema-became-false', 'schema-no-longer-false'),
  type: pair('type-narrowed', 'type-widened'),
  required: pair('required-added', 'required-removed'),
  property: pair('property-removed', 'property-added'),
  additional: pair('additional-properties-closed', 'additional-properties-opened'),
  enum: pair('enum-added', 'enum-removed'),
  enumValue: pair('enum-value-removed', 'enum-value-added'),
  const: pair('const-added', 'const-removed'),
  constChanged: pair('const-changed', 'const-changed'),
  minLength: pair('min-length-raised', 'min-length-lowered'),
  maxLength: pair('max-length-lowered', 'max-length-raised'),
  minimum: pair('minimum-raised', 'minimum-lowered'),
  unsupported: pair('unsupported-keyword-changed', 'unsupported-keyword-changed'),
} as const;

/** Every rule, as plain JSON-able data, in report order (what `compat --list-rules` prints). */
export function listRules(): readonly CompatRule[] {
  return RULES;
}

/** Whether a string names a rule (for files that name rules, such as exceptions). */
export function isRuleId(id: string): id is RuleId {
  return BY_ID.has(id as RuleId);
}

const VERDICT: Record<Breaks, string> = {
  backward: 'backward',
  forward: 'forward',
  both: 'backward and forward',
  never: 'never (a notice)',
};

/** A table cell: one line, `|` escaped (the descriptions' own markdown is kept). */
const cell = (s: string): string => s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

/** The rule table of the docs, generated from RULES so the two cannot drift. */
export function rulesMarkdown(): string {
  const lines = [
    '| rule | what it means | breaks (bqschema) | breaks (confluent) | nearest Confluent type | where bqschema differs |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of RULES) {
    const confluent = r.confluent === null ? '—' : `\`${r.confluent}\``;
    lines.push(
      `| \`${r.id}\` | ${cell(r.description)} | ${VERDICT[r.breaks]} | ${VERDICT[r.confluentBreaks]} | ${confluent} | ${cell(r.note)} |`,
    );
  }
  return lines.join('\n') + '\n';
}
