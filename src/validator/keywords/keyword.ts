import type { Code, KeySets, Mode, Path } from '../codegen.js';

export type { KeySets };
import type { SchemaNode } from '../schema-node.js';
import type { Violation } from '../types.js';

/*
 * What one supported keyword is, in one place: how its value is read into a SchemaNode (and when
 * it is malformed), its violation messages (plain and, where personal data would show, redacted),
 * the code it contributes to a generated validator and the check the
 * interpreter runs. compile.ts, interpret.ts, parseSchema and the catalog iterate the table in
 * keywords/index.ts; adding a keyword is a file of this shape and a row there (docs/ARCHITECTURE.md).
 */

/** What a keyword's `parse` is given for the schema object it sits in. */
export interface ParseScope {
  /** The schema object's pointer. */
  readonly pointer: string;
  /** Whether the schema holds a NaN anywhere (most hold none and are not searched for one). */
  readonly nan: boolean;
  /** The value has the wrong shape: reported (docs/contract.md §8), no effect on any verdict. */
  bad(keyword: string, message: string): void;
  /** The value is outside the subset (e.g. the tuple form of `items`): warned, never enforced. */
  unsupported(keyword: string): void;
  /** A sub-schema at `pointer`, parsed. */
  sub(schema: unknown, pointer: string): SchemaNode;
}

/** What a malformed keyword is told when its value holds a NaN. */
export const NAN_MESSAGE = 'contains NaN, which is not a JSON number';

/**
 * The instance type a check applies to (every keyword applies by the instance's own type:
 * docs/contract.md §1), or `value` for one that applies to any value, after them (enum, const).
 */
export type Block = 'string' | 'number' | 'object' | 'array' | 'value';

/**
 * What a check's generated code is built with (compile.ts's Generator). The code is a `Code`
 * (codegen.ts): schema values enter it only as literals or through `constant`.
 */
export interface Gen {
  /** `valid`: isValid (returns false at the first failure); `all`: validate (collects violations). */
  readonly mode: Mode;
  readonly keySets: KeySets;
  /** A fresh identifier. */
  id(prefix: 'f' | 'i' | 'k' | 'l' | 'o' | 'v' | 'x'): Code;
  /** An object value (a Set, an enum's objects) by its place in the constants array `c`. */
  constant(v: unknown): Code;
  /** Code run on failure: `return false` in isValid, a pushed violation in validate. */
  fail(path: Path, schemaPath: string, keyword: string, message: Code): Code;
  /** The checks of a sub-schema `node` on the data in `d` (at instance `path`), reached through keyword `via`. */
  node(node: SchemaNode, d: Code, path: Path, via: string, depth: number): Code;
  /** `body`, the checks of `d` at `path`, in a function of its own. */
  inFunction(d: Code, path: Path, body: (d: Code, path: Path) => Code): Code;
  /** How many nodes (and required names) `node`'s checks hold: what a function inlining them takes. */
  weight(node: SchemaNode): number;
  /** A message names a number's kind, not the number: the generated `N(d)` is written. */
  sayNumberKind(): void;
}

/** The same preview of values in every message. */
export type Preview = (values: unknown[]) => string;

/** What a check's interpreted form runs with (interpret.ts's Interpreter). */
export interface Walk {
  readonly preview: Preview;
  readonly keySets: KeySets;
  /** false when the walk must stop (isValid's first failure, or validate's limit reached); else the violation is kept. */
  fail(e: Violation[] | null, instancePath: string, schemaPath: string, keyword: string, message: string): boolean;
  /** A sub-schema's checks; false when the walk must stop. */
  node(n: SchemaNode, d: unknown, path: string, via: string, e: Violation[] | null): boolean;
}

/** A keyword's check: its generated code and its interpreted form, which say the same. */
export interface Check<P = unknown> {
  readonly block: Block;
  /** Whether `node` holds a constraint of this check. */
  applies(node: SchemaNode): boolean;
  /** The generated code (inline: it runs in the compiled function, no call per keyword); `d` holds the data. */
  code(g: Gen, node: SchemaNode, d: Code, path: Path, depth: number): Code;
  /** What the interpreter works out once per node (an enum's sets). */
  prepare?(node: SchemaNode): P;
  /**
   * The interpreted check of `d` (of the block's type); false when the walk must stop. `path` is
   * `''` in isValid (`e` null), which names no path.
   */
  run(w: Walk, node: SchemaNode, d: unknown, path: string, e: Violation[] | null, prepared: P): boolean;
}

export interface Keyword {
  readonly name: string;
  /**
   * Reads the keyword's value into `node`; true when it takes effect there. A value of the wrong
   * shape is `at.bad(…)` and sets nothing.
   */
  parse(value: unknown, node: SchemaNode, at: ParseScope): boolean;
  /** A keyword holding sub-schemas: what data its `false` schema rejects is told. */
  readonly falseSchema?: string;
  /** How many nodes its constraints weigh in a generated function, given the weight of a sub-schema. */
  weight?(node: SchemaNode, sub: (n: SchemaNode) => number): number;
  /**
   * Its check. Two keywords may share one (the length bounds count code points once): listed
   * under both, it runs once.
   */
  readonly check?: Check<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each check's own prepared type
}
