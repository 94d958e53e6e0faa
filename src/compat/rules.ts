import { kindNames, typeKinds } from './kinds.js';

/** In which comparison a rule's change is breaking (`full` breaks whenever either does). */
export type Breaks = 'backward' | 'forward' | 'both' | 'never';

export interface CompatRule {
  /** Stable kebab-case id, the `rule` of a Change. */
  readonly id: string;
  readonly breaks: Breaks;
  readonly description: string;
}

/** Builds a change message from the old and new values of what changed, and its subject (a name, a value). */
type Message = (oldValue: unknown, newValue: unknown, subject: unknown) => string;

interface RuleDef extends CompatRule {
  readonly message: Message;
}

/** A short rendering of a schema value for messages; `undefined` is a keyword that is absent. */
export function show(v: unknown): string {
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
    id: 'schema-became-false', breaks: 'backward',
    description: 'A schema (the root, a property, items) became `false`: it rejects every value.',
    message: (o) => `schema changed from ${show(o)} to false: it rejects every value`,
  },
  {
    id: 'schema-no-longer-false', breaks: 'forward',
    description: 'A `false` schema now accepts values.',
    message: (_o, n) => `schema changed from false to ${show(n)}: it accepts values`,
  },
  {
    id: 'type-narrowed', breaks: 'backward',
    description: '`type` lost a type (`number` → `integer` included) or was added where there was none.',
    message: (o, n) => `type narrowed from ${showTypes(o)} to ${showTypes(n)}: no longer accepts ${lostKinds(o, n)}`,
  },
  {
    id: 'type-widened', breaks: 'forward',
    description: '`type` gained a type (`integer` → `number` included) or was removed.',
    message: (o, n) => `type widened from ${showTypes(o)} to ${showTypes(n)}: now accepts ${lostKinds(n, o)}`,
  },
  {
    id: 'required-added', breaks: 'backward',
    description: 'A property (new or existing) became required.',
    message: (_o, _n, name) => `property ${show(name)} is now required`,
  },
  {
    id: 'required-removed', breaks: 'forward',
    description: 'A property is no longer required.',
    message: (_o, _n, name) => `property ${show(name)} is no longer required`,
  },
  {
    id: 'property-removed', breaks: 'backward',
    description: 'A declared property was removed or renamed: consumers lose a declared field (registry policy, open schemas too).',
    message: (_o, _n, name) => `property ${show(name)} removed`,
  },
  {
    id: 'property-added', breaks: 'forward',
    description:
      'An optional property was added (registry policy, open schemas too); where `additionalProperties` was a schema, ' +
      'the new property is compared against it.',
    message: (_o, _n, name) => `property ${show(name)} added`,
  },
  {
    id: 'additional-properties-closed', breaks: 'backward',
    description: '`additionalProperties` became `false` (it was absent, `true` or a schema).',
    message: (o) => `additionalProperties changed from ${show(o)} to false: undeclared properties are rejected`,
  },
  {
    id: 'additional-properties-opened', breaks: 'forward',
    description: '`additionalProperties` was `false` and now accepts undeclared properties.',
    message: (_o, n) => `additionalProperties changed from false to ${show(n)}: undeclared properties are accepted`,
  },
  {
    id: 'enum-added', breaks: 'backward',
    description: '`enum` was added where there was none.',
    message: (_o, n) => `enum ${show(n)} added`,
  },
  {
    id: 'enum-removed', breaks: 'forward',
    description: '`enum` was removed.',
    message: (o) => `enum ${show(o)} removed`,
  },
  {
    id: 'enum-value-removed', breaks: 'backward',
    description: 'A value was removed from `enum` (numeric equality: `1` and `1.0` are one value).',
    message: (_o, _n, value) => `enum value ${show(value)} removed`,
  },
  {
    id: 'enum-value-added', breaks: 'forward',
    description: 'A value was added to `enum`.',
    message: (_o, _n, value) => `enum value ${show(value)} added`,
  },
  {
    id: 'const-added', breaks: 'backward',
    description: '`const` was added.',
    message: (_o, n) => `const ${show(n)} added`,
  },
  {
    id: 'const-removed', breaks: 'forward',
    description: '`const` was removed.',
    message: (o) => `const ${show(o)} removed`,
  },
  {
    id: 'const-changed', breaks: 'both',
    description: '`const` changed to a different value.',
    message: (o, n) => `const changed from ${show(o)} to ${show(n)}`,
  },
  {
    id: 'min-length-raised', breaks: 'backward',
    description: '`minLength` was raised or added (bounds truncated toward zero, as validated).',
    message: bound('minLength', 'raised'),
  },
  {
    id: 'min-length-lowered', breaks: 'forward',
    description: '`minLength` was lowered or removed.',
    message: bound('minLength', 'lowered'),
  },
  {
    id: 'max-length-lowered', breaks: 'backward',
    description: '`maxLength` was lowered or added (bounds truncated toward zero, as validated).',
    message: bound('maxLength', 'lowered'),
  },
  {
    id: 'max-length-raised', breaks: 'forward',
    description: '`maxLength` was raised or removed.',
    message: bound('maxLength', 'raised'),
  },
  {
    id: 'minimum-raised', breaks: 'backward',
    description: '`minimum` was raised or added.',
    message: bound('minimum', 'raised'),
  },
  {
    id: 'minimum-lowered', breaks: 'forward',
    description: '`minimum` was lowered or removed.',
    message: bound('minimum', 'lowered'),
  },
  {
    id: 'unsupported-keyword-changed', breaks: 'never',
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
  DEFS.map(({ id, breaks, description }) => Object.freeze({ id, breaks, description })),
);

const BY_ID = new Map(DEFS.map((d) => [d.id, d]));
const ORDER = new Map(DEFS.map((d, i) => [d.id, i]));

/** A rule's position in RULES, the order changes at one path are listed in. */
export function ruleOrder(id: string): number {
  return ORDER.get(id) ?? DEFS.length;
}

export function ruleMessage(id: string, oldValue: unknown, newValue: unknown, subject: unknown): string {
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
  readonly narrow: string;
  readonly widen: string;
}

const pair = (narrow: string, widen: string): RulePair => ({ narrow, widen });

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
