import { CHECKS, KEYWORD_BY_NAME, TYPE_BLOCKS, type Check, type KeySets, type Preview, type Walk } from './keywords/index.js';
import { typeMessage, typeTest } from './keywords/type.js';
import { joinPointer } from './pointer.js';
import { isSchemaObject, jsonType, preview as defaultPreview, type SchemaNode } from './schema-node.js';
import type { Violation } from './types.js';

/*
 * The validator without code generation: where `new Function` is refused (a Content-Security-
 * Policy without 'unsafe-eval', Cloudflare Workers, node --disallow-code-generation-from-strings),
 * compile() walks the same schema tree at run time. The verdicts, the violations (their order,
 * paths and messages) and the warnings are the generated code's: each keyword's file
 * (keywords/*.ts) holds both its generated code and its interpreted check, and this walk is the
 * generated code's frame (compile.ts's Generator.node); test/validator/interpret.e2e.test.ts runs both
 * over every contract case, the JSON-Schema-Test-Suite groups and a generated corpus.
 */

type TypeBlock = (typeof TYPE_BLOCKS)[number];
const guard: Record<TypeBlock, (d: unknown) => boolean> = {
  string: (d) => typeof d === 'string',
  number: (d) => typeof d === 'number',
  object: isSchemaObject,
  array: Array.isArray,
};

/** The checks that apply at a node, each with what it worked out for it once (`prepared[i]` is `checks[i]`'s). */
interface Active {
  readonly checks: readonly Check[];
  readonly prepared: readonly unknown[];
}

/** What a node's checks need that does not depend on the data: worked out once per node. */
interface Plan {
  types?: string[];
  ok?: (d: unknown) => boolean;
  single?: TypeBlock;
  exact: boolean;
  allowed: ReadonlySet<string>;
  /** The checks of each type block and of any value, those that apply here. */
  checks: Readonly<Record<TypeBlock | 'value', Active>>;
}

function active(all: readonly Check[], n: SchemaNode): Active {
  const checks = all.filter((c) => c.applies(n));
  return { checks, prepared: checks.map((c) => c.prepare?.(n)) };
}

/** Where plans are kept: a Map for one compiled schema, a WeakMap where one interpreter serves every tree. */
interface Plans {
  get(n: SchemaNode): Plan | undefined;
  set(n: SchemaNode, p: Plan): unknown;
}

class Interpreter implements Walk {
  constructor(
    readonly preview: Preview,
    readonly keySets: KeySets,
    private readonly plans: Plans = new Map(),
  ) {}

  private plan(n: SchemaNode): Plan {
    let p = this.plans.get(n);
    if (p !== undefined) return p;
    const types = n.types === undefined ? undefined : n.types.includes('number') ? n.types.filter((t) => t !== 'integer') : n.types;
    const single = types !== undefined && types.length === 1 ? (types[0] === 'integer' ? 'number' : types[0]) : undefined;
    const allowed = new Set(n.types ?? []);
    if (allowed.has('integer')) allowed.add('number');
    p = {
      ...(types === undefined ? {} : { types, ok: (d: unknown) => types.some((t) => typeTest(t, d)) }),
      ...(single !== undefined && (TYPE_BLOCKS as readonly string[]).includes(single) ? { single: single as TypeBlock } : {}),
      exact: types !== undefined && types.length === 1 && types[0] !== 'integer' && types[0] !== 'number',
      allowed,
      checks: {
        string: active(CHECKS.string, n),
        number: active(CHECKS.number, n),
        object: active(CHECKS.object, n),
        array: active(CHECKS.array, n),
        value: active(CHECKS.value, n),
      },
    };
    this.plans.set(n, p);
    return p;
  }

  /** The most violations `validate` collects: the one that reaches it ends the walk as isValid's first failure does. */
  limit = Infinity;

  /** false when invalid and `e` is null (isValid stops at the first failure), or when `e` reaches the limit; else pushes to `e`. */
  fail(e: Violation[] | null, instancePath: string, schemaPath: string, keyword: string, message: string): boolean {
    // Past the limit nothing more is pushed: a branch that goes on after a failure (every keyword
    // applies whatever `type` says) stops at its next check.
    if (e === null || e.length >= this.limit) return false;
    return e.push({ instancePath, schemaPath, keyword, message }) < this.limit;
  }

  node(n: SchemaNode, d: unknown, path: string, via: string, e: Violation[] | null): boolean {
    if (n.always === true) return true;
    if (n.always === false) {
      const message = KEYWORD_BY_NAME.get(via)?.falseSchema ?? 'is not allowed (the schema is false)';
      return this.fail(e, path, n.pointer, via === '' ? 'false' : via, message);
    }
    const p = this.plan(n);
    const run = (b: TypeBlock): boolean => this.run(p.checks[b], n, d, path, e);
    if (p.types === undefined) {
      for (const b of TYPE_BLOCKS) if (guard[b](d) && !run(b)) return false;
    } else {
      const ok = p.ok!(d);
      const typeFail = (): boolean => this.fail(e, path, joinPointer(n.pointer, 'type'), 'type', `${typeMessage(n.types!)}${jsonType(d)}`);
      if (e === null) {
        if (!ok) return false;
        for (const b of TYPE_BLOCKS) if (p.allowed.has(b) && guard[b](d) && !run(b)) return false;
      } else if (p.single !== undefined) {
        // Every keyword applies by the instance's own type (docs/contract.md §1), even when `type` fails.
        if (ok) run(p.single);
        else {
          typeFail();
          for (const b of TYPE_BLOCKS) if ((b !== p.single || !p.exact) && guard[b](d)) run(b);
        }
      } else {
        if (!ok) typeFail();
        for (const b of TYPE_BLOCKS) if (guard[b](d)) run(b);
      }
    }
    return this.run(p.checks.value, n, d, path, e);
  }

  private run(active: Active, n: SchemaNode, d: unknown, path: string, e: Violation[] | null): boolean {
    const { checks, prepared } = active;
    for (let i = 0; i < checks.length; i++) if (!checks[i]!.run(this, n, d, path, e, prepared[i])) return false;
    return true;
  }
}

/** isValid and validate by walking `root` at run time, for where code generation is refused. */
export function interpret(
  root: SchemaNode,
  preview: Preview,
  keySets: KeySets,
): { isValid(d: unknown): boolean; validate(d: unknown, limit?: number): Violation[] } {
  const it = new Interpreter(preview, keySets);
  return {
    isValid: (d) => it.node(root, d, '', '', null),
    validate: (d, limit) => {
      const e: Violation[] = [];
      it.limit = typeof limit === 'number' && limit >= 1 ? limit : Infinity;
      it.node(root, d, '', '', e);
      return e;
    },
  };
}

// One interpreter for accepts(): its plans and enum sets are held weakly, by node and by enum.
let shared: Interpreter | undefined;

/**
 * Whether `d` is valid under the parsed `node`, any node of any tree: the interpreter's isValid,
 * for callers that judge many values against parts of a schema (compat's witness search), where
 * compiling each part would cost more than the walk.
 */
export function accepts(node: SchemaNode, d: unknown): boolean {
  shared ??= new Interpreter(defaultPreview, new WeakMap<unknown[], Set<string>>(), new WeakMap<SchemaNode, Plan>());
  return shared.node(node, d, '', '', null);
}

let available: boolean | undefined;

/** Whether this runtime lets code be generated from strings (`new Function`). Asked once. */
export function codeGeneration(): boolean {
  if (available === undefined) {
    try {
      // eslint-disable-next-line no-new-func -- the probe: a constant source.
      available = new Function('return true')() === true;
    } catch {
      available = false; // EvalError under a CSP or --disallow-code-generation-from-strings
    }
  }
  return available;
}
