import { codePointLength } from './codepoints.js';
import { canonicalKey, jsonEqual, refuseCycle } from './equality.js';
import { hasOwn, jsonType, type SchemaNode } from './keywords.js';
import { escapeKey, escapePointerToken, joinPointer } from './pointer.js';
import type { Violation } from './types.js';

/*
 * The validator without code generation: where `new Function` is refused (a Content-Security-
 * Policy without 'unsafe-eval', Cloudflare Workers, node --disallow-code-generation-from-strings),
 * compile() walks the same schema tree at run time. The verdicts, the violations (their order,
 * paths and messages) and the warnings are the generated code's; test/validator-interpret.test.ts
 * runs both over every contract case, the JSON-Schema-Test-Suite groups and a generated corpus.
 * Each rule below mirrors a part of compile.ts's Generator; keep them together.
 */

const ENUM_INLINE_MAX = 8;

/**
 * How a violation names a number it must not quote (personal data: docs/contract.md §9): a
 * negative integer, an integer, a negative number, a number. compile.ts writes the same choice.
 */
export const NUMBER_KINDS = ['a negative integer', 'an integer', 'a negative number', 'a number'] as const;

export function numberKind(d: number): string {
  return Number.isInteger(d) ? (d < 0 ? NUMBER_KINDS[0] : NUMBER_KINDS[1]) : d < 0 ? NUMBER_KINDS[2] : NUMBER_KINDS[3];
}

/** The instance path token of a property whose name is personal data (docs/contract.md §9). */
export const HIDDEN_KEY = '***';

function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

function isObject(d: unknown): d is Record<string, unknown> {
  return typeof d === 'object' && d !== null && !Array.isArray(d);
}

function typeTest(name: string, d: unknown): boolean {
  switch (name) {
    case 'string': return typeof d === 'string';
    case 'number': return Number.isFinite(d);
    case 'integer': return Number.isInteger(d);
    case 'boolean': return typeof d === 'boolean';
    case 'null': return d === null;
    case 'array': return Array.isArray(d);
    case 'object': return isObject(d);
    default: throw new Error(`unreachable type ${name}`);
  }
}

/** The same preview of values as compile.ts's messages. */
export type Preview = (values: unknown[]) => string;

type Block = 'string' | 'number' | 'object' | 'array';
const BLOCKS: readonly Block[] = ['string', 'number', 'object', 'array'];
const guard: Record<Block, (d: unknown) => boolean> = {
  string: (d) => typeof d === 'string', number: (d) => typeof d === 'number', object: isObject, array: Array.isArray,
};

/** What a node's checks need that does not depend on the data: worked out once per node. */
interface Plan {
  types?: string[];
  ok?: (d: unknown) => boolean;
  single?: Block;
  exact: boolean;
  allowed: ReadonlySet<string>;
  prims?: ReadonlySet<unknown>;
  objs?: unknown[];
  declared: ReadonlySet<string>;
}

class Interpreter {
  // Enum hash sets, by the enum's array: built on first use, shared by isValid and validate.
  private readonly keySets: Map<unknown[], Set<string>>;
  private readonly plans = new Map<SchemaNode, Plan>();

  private plan(n: SchemaNode): Plan {
    let p = this.plans.get(n);
    if (p !== undefined) return p;
    const types = n.types === undefined ? undefined : n.types.includes('number') ? n.types.filter((t) => t !== 'integer') : n.types;
    const single = types !== undefined && types.length === 1 ? (types[0] === 'integer' ? 'number' : types[0]) : undefined;
    const allowed = new Set(n.types ?? []);
    if (allowed.has('integer')) allowed.add('number');
    p = {
      ...(types === undefined ? {} : { types, ok: (d: unknown) => types.some((t) => typeTest(t, d)) }),
      ...(single !== undefined && (BLOCKS as readonly string[]).includes(single) ? { single: single as Block } : {}),
      exact: types !== undefined && types.length === 1 && types[0] !== 'integer' && types[0] !== 'number',
      allowed,
      ...(n.enum === undefined ? {} : { prims: new Set(n.enum.filter(isPrimitive)), objs: n.enum.filter((v) => !isPrimitive(v)) }),
      declared: new Set((n.properties ?? []).map(([name]) => name)),
    };
    this.plans.set(n, p);
    return p;
  }

  constructor(private readonly preview: Preview, keySets: Map<unknown[], Set<string>>) {
    this.keySets = keySets;
  }

  /** The most violations `validate` collects: the one that reaches it ends the walk as isValid's first failure does. */
  limit = Infinity;

  /** false when invalid and `e` is null (isValid stops at the first failure), or when `e` reaches the limit; else pushes to `e`. */
  private fail(e: Violation[] | null, instancePath: string, schemaPath: string, keyword: string, message: string): boolean {
    // Past the limit nothing more is pushed: a branch that goes on after a failure (every keyword
    // applies whatever `type` says) stops at its next check.
    if (e === null || e.length >= this.limit) return false;
    return e.push({ instancePath, schemaPath, keyword, message }) < this.limit;
  }

  node(n: SchemaNode, d: unknown, path: string, via: string, e: Violation[] | null): boolean {
    if (n.always === true) return true;
    if (n.always === false) {
      const message =
        via === 'properties' ? 'is not allowed (its schema is false)'
        : via === 'items' ? 'is not allowed (items is false)'
        : via === 'additionalProperties' ? 'is not allowed (additionalProperties is false)'
        : 'is not allowed (the schema is false)';
      return this.fail(e, path, n.pointer, via === '' ? 'false' : via, message);
    }
    const sp = n.pointer;
    const p = this.plan(n);
    const run = (b: Block): boolean => this.block(b, n, p, d, path, e);
    if (p.types === undefined) {
      for (const b of BLOCKS) if (guard[b](d) && !run(b)) return false;
    } else {
      const ok = p.ok!(d);
      const typeFail = (): boolean => this.fail(e, path, joinPointer(sp, 'type'), 'type', `must be ${n.types!.join(' or ')}, got ${jsonType(d)}`);
      if (e === null) {
        if (!ok) return false;
        for (const b of BLOCKS) if (p.allowed.has(b) && guard[b](d) && !run(b)) return false;
      } else if (p.single !== undefined) {
        // Every keyword applies by the instance's own type (docs/contract.md §1), even when `type` fails.
        if (ok) run(p.single);
        else {
          typeFail();
          for (const b of BLOCKS) if ((b !== p.single || !p.exact) && guard[b](d)) run(b);
        }
      } else {
        if (!ok) typeFail();
        for (const b of BLOCKS) if (guard[b](d)) run(b);
      }
    }
    if (n.enum && !this.inEnum(n.enum, p, d) && !this.fail(e, path, joinPointer(sp, 'enum'), 'enum',
      n.enum.length === 0 ? 'no value is allowed (enum is empty)' : `must be one of ${this.preview(n.enum)}`)) return false;
    if (n.hasConst) {
      const c = n.constValue;
      // A cyclic value is refused, not judged (issue 22), once it has failed.
      const equal = isPrimitive(c) ? d === c : jsonEqual(d, c) || refuseCycle(d);
      if (!equal && !this.fail(e, path, joinPointer(sp, 'const'), 'const', `must be equal to ${this.preview([c])}`)) return false;
    }
    return true;
  }

  private inEnum(values: unknown[], p: Plan, d: unknown): boolean {
    if (p.prims!.has(d)) return true;
    const objs = p.objs!;
    if (objs.length === 0) return false;
    if (objs.length > ENUM_INLINE_MAX) {
      let set = this.keySets.get(values);
      if (set === undefined) this.keySets.set(values, (set = new Set(objs.map(canonicalKey))));
      return typeof d === 'object' && d !== null && set.has(canonicalKey(d));
    }
    if (typeof d === 'object' && d !== null && objs.some((x) => jsonEqual(d, x))) return true;
    return refuseCycle(d);
  }

  private block(b: Block, n: SchemaNode, p: Plan, d: unknown, path: string, e: Violation[] | null): boolean {
    const sp = n.pointer;
    if (b === 'string') {
      const s = d as string;
      if (n.minLength !== undefined && n.minLength > 0) {
        const lo = n.minLength;
        if ((s.length < lo || (s.length < 2 * lo && codePointLength(s) < lo))
          && !this.fail(e, path, joinPointer(sp, 'minLength'), 'minLength', `must be at least ${lo} characters long, got ${codePointLength(s)}`)) return false;
      }
      if (n.maxLength !== undefined) {
        const m = Math.max(n.maxLength, 0);
        if (s.length > m && (s.length > 2 * m || codePointLength(s) > m)
          && !this.fail(e, path, joinPointer(sp, 'maxLength'), 'maxLength', `must be at most ${m} characters long, got ${codePointLength(s)}`)) return false;
      }
      return true;
    }
    if (b === 'number') {
      if (n.minimum !== undefined && (d as number) < n.minimum
        && !this.fail(e, path, joinPointer(sp, 'minimum'), 'minimum', `must be >= ${n.minimum}, got ${n.hideNumber ? numberKind(d as number) : d as number}`)) return false;
      return true;
    }
    if (b === 'array') {
      const items = n.items;
      if (!items || items.always === true) return true;
      const a = d as unknown[];
      for (let i = 0; i < a.length; i++) if (!this.node(items, a[i], e === null ? '' : `${path}/${i}`, 'items', e)) return false;
      return true;
    }
    const o = d as Record<string, unknown>;
    for (const name of n.required ?? []) {
      if ((o[name] === undefined || !hasOwn(o, name))
        && !this.fail(e, path, joinPointer(sp, 'required'), 'required', `must have required property ${JSON.stringify(name)}`)) return false;
    }
    for (const [name, sub] of n.properties ?? []) {
      if (sub.always === true) continue;
      const v = o[name];
      if (v !== undefined && hasOwn(o, name) && !this.node(sub, v, e === null ? '' : `${path}/${escapePointerToken(name)}`, 'properties', e)) return false;
    }
    const extra = n.additional;
    if (extra && extra.always !== true) {
      for (const key in o) {
        if (p.declared.has(key)) continue;
        const v = o[key];
        if (v === undefined || !hasOwn(o, key)) continue;
        // Paths are built only for validate: isValid stops at the first failure and names none.
        const at = e === null ? '' : `${path}/${n.hideKeys ? HIDDEN_KEY : escapeKey(key)}`;
        const ok = extra.always === false
          ? this.fail(e, at, joinPointer(sp, 'additionalProperties'), 'additionalProperties', 'is not allowed (additionalProperties is false)')
          : this.node(extra, v, at, 'additionalProperties', e);
        if (!ok) return false;
      }
    }
    return true;
  }
}

/** isValid and validate by walking `root` at run time, for where code generation is refused. */
export function interpret(root: SchemaNode, preview: Preview, keySets: Map<unknown[], Set<string>>): { isValid(d: unknown): boolean; validate(d: unknown, limit?: number): Violation[] } {
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
