import { Code, EMPTY, ROOT_PATH, code, ident, join, pathCode, sourceUrl, type KeySets, type Mode, type Path } from './codegen.js';
import { helpers } from './helpers.js';
import { CHECKS, KEYWORD_BY_NAME, KEYWORDS, TYPE_BLOCKS, type Gen } from './keywords/index.js';
import { typeMessage, typeTestCode } from './keywords/type.js';
import { parseSchema, SchemaError } from './keywords.js';
import { joinPointer } from './pointer.js';
import { NUMBER_KINDS, preview, type SchemaNode } from './schema-node.js';
import type { CompileOptions, CompiledSchema, SchemaWarning, Violation } from './types.js';
import { malformedMessage, reportWarnings, unknownMessage } from './warnings.js';
import { codeGeneration, interpret } from './interpret.js';

/*
 * The schema tree is compiled to JavaScript source once, then run many times. Security rule: the
 * source is a `Code`, built only with the `code` tag (codegen.ts), which writes every schema value
 * as a literal; objects (enum/const values, name sets) go through the constants array `c`.
 */

const INLINE_DEPTH = 24;
/** The keywords whose constraints weigh in a generated function. */
const WEIGHED = KEYWORDS.filter((k) => k.weight !== undefined);
const NL = code`
`;

export type { Mode };
export { preview };

/** A keyword block by the instance type it applies to: [type, guard test, body]. */
type Block = [type: string, test: Code, body: Code];

/**
 * The generated function that says what a failing number is, for a message that must not quote it
 * (personal data, `hideNumber`): the same words as schema-node.ts's `numberKind`. Written once into
 * the code that uses it (a standalone module too: it needs nothing of the runtime).
 */
const NUMBER_KIND_FUNCTION = code`function N(d){return Number.isInteger(d)?(d<0?${NUMBER_KINDS[0]}:${NUMBER_KINDS[1]}):d<0?${NUMBER_KINDS[2]}:${NUMBER_KINDS[3]};}`;

/** What data reaching a `false` schema is told, by the keyword that led there (`''`: the root). */
function falseMessage(via: string): string {
  return KEYWORD_BY_NAME.get(via)?.falseSchema ?? 'is not allowed (the schema is false)';
}

/** The guard test of a type block (string, number, object, array). */
function guardCode(type: string, d: Code): Code {
  return type === 'number' ? code`typeof ${d}==="number"` : typeTestCode(type, d);
}

class Generator implements Gen {
  readonly functions: Code[] = [];
  /** Whether a message says a number's kind (NUMBER_KIND_FUNCTION is then written). */
  numberKind = false;
  private seq = 0;
  private readonly weights = new Map<SchemaNode, number>();

  /** `keySets` is shared by the two functions of one compile: a 100k-value enum is hashed once. */
  private readonly constIndex = new Map<unknown, number>();

  constructor(
    readonly mode: Mode,
    readonly keySets: KeySets,
    private readonly consts: unknown[],
  ) {
    consts.forEach((v, i) => this.constIndex.set(v, i));
  }

  id(prefix: 'f' | 'i' | 'k' | 'l' | 'o' | 'v' | 'x'): Code {
    return ident(prefix, this.seq++);
  }

  constant(v: unknown): Code {
    let i = this.constIndex.get(v);
    if (i === undefined) {
      i = this.consts.push(v) - 1;
      this.constIndex.set(v, i);
    }
    return code`c[${i}]`;
  }

  sayNumberKind(): void {
    this.numberKind = true;
  }

  /**
   * Code run on failure: `return false` in the fast path, a pushed violation otherwise; the
   * violation that reaches the caller's limit (`M`) ends the walk, thrown to `validate`.
   */
  fail(path: Path, schemaPath: string, keyword: string, message: Code): Code {
    if (this.mode === 'valid') return code`return false;`;
    // `e` is made on the first violation, as `new Array()`: room for four without growing (`[]`
    // grows to sixteen on its first push). Valid data allocates no array until the end.
    return code`if((e??=new Array()).push({instancePath:${pathCode(path)},schemaPath:${schemaPath},keyword:${keyword},message:${message}})>=M)throw e;`;
  }

  /**
   * Code that checks data variable `d` (whose instance path is `path`) against `node`. `via`
   * names the keyword that led here, used when the node is the `false` schema.
   */
  node(node: SchemaNode, d: Code, path: Path, via: string, depth: number): Code {
    if (node.always === true) return EMPTY;
    if (depth >= INLINE_DEPTH) return this.call(node, d, path, via);
    if (node.always === false) return this.fail(path, node.pointer, via === '' ? 'false' : via, code`${falseMessage(via)}`);
    const sp = node.pointer;
    const out: Code[] = [];
    // Each instance type's checks, in the table's order: the code a keyword contributes runs
    // inline here (no call per keyword).
    // (Plain loops: this recursion goes as deep as the schema, and a callback per level would
    // take stack that MAX_DEPTH's schemas need.)
    const blocks: Block[] = [];
    for (const type of TYPE_BLOCKS) {
      const body: Code[] = [];
      for (const c of CHECKS[type]) if (c.applies(node)) body.push(c.code(this, node, d, path, depth));
      blocks.push([type, guardCode(type, d), join(body)]);
    }

    const guarded = (list: Block[]): Code =>
      join(
        list.filter(([, , body]) => !body.empty).map(([, test, body]) => code`if(${test}){${body}}`),
        NL,
      );
    const bodies = (list: Block[]): Code => join(list.map(([, , body]) => body));

    if (!node.types) {
      out.push(guarded(blocks));
    } else {
      const types = node.types.includes('number') ? node.types.filter((t) => t !== 'integer') : node.types;
      const test = join(
        types.map((t) => typeTestCode(t, d)),
        code`||`,
      );
      const msg = code`${typeMessage(node.types)}+t(${d})`;
      const typeFail = this.fail(path, joinPointer(sp, 'type'), 'type', msg);
      // With a single type, passing the type test fixes which block applies, so it runs unguarded.
      const single = types.length === 1 ? (types[0] === 'integer' ? 'number' : types[0]) : undefined;
      // `integer` and `number` are narrower than the number guard: a value that failed them may
      // still be a JS number (a fraction, ±Infinity) that the number keywords apply to.
      const exact = types.length === 1 && types[0] !== 'integer' && types[0] !== 'number';
      const allowed = (t: string): boolean => node.types!.includes(t) || (t === 'number' && node.types!.includes('integer'));
      if (this.mode === 'valid') {
        // A failed type has returned: only the listed types' blocks can apply.
        out.push(code`if(!(${test})){${typeFail}}`);
        const live = blocks.filter(([t]) => allowed(t));
        out.push(single ? bodies(live) : guarded(live));
      } else if (single) {
        // Every keyword applies by the instance's own type (docs/contract.md §1), even when `type` fails.
        const own = blocks.find(([t]) => t === single)?.[2] ?? EMPTY;
        const others = guarded(blocks.filter(([t]) => t !== single || !exact));
        out.push(own.empty ? code`if(!(${test})){${typeFail}${others}}` : code`if(${test}){${own}}else{${typeFail}${others}}`);
      } else {
        out.push(code`if(!(${test})){${typeFail}}`, guarded(blocks));
      }
    }

    // Checks of any value (enum, const), after the type's.
    for (const c of CHECKS.value) if (c.applies(node)) out.push(c.code(this, node, d, path, depth));
    return join(
      out.filter((c) => !c.empty),
      NL,
    );
  }

  /** How many nodes (and required names) `node`'s checks hold: what a function inlining them takes. */
  weight(node: SchemaNode): number {
    if (node.always !== undefined) return 1;
    let w = this.weights.get(node);
    if (w !== undefined) return w;
    w = 1;
    for (const k of WEIGHED) w += k.weight!(node, (n) => this.weight(n));
    this.weights.set(node, w);
    return w;
  }

  /** A node deep in the tree becomes a function of its own, so generated source stays shallow. */
  private call(node: SchemaNode, d: Code, path: Path, via: string): Code {
    return this.inFunction(d, path, (fd, fp) => this.node(node, fd, fp, via, 0));
  }

  /** Code that runs `body` (checks of `d` at `path`) in a function of its own. */
  inFunction(d: Code, path: Path, body: (d: Code, path: Path) => Code): Code {
    const fn = this.id('f');
    const inner = body(code`d`, { expr: code`p` });
    if (this.mode === 'valid') {
      this.functions.push(code`function ${fn}(d){${inner}
return true;}`);
      return code`if(!${fn}(${d}))return false;`;
    }
    this.functions.push(code`function ${fn}(d,p,e,M){${inner}}`);
    return code`${fn}(${d},${pathCode(path)},e,M);`;
  }
}

/**
 * The body of a function of `(H, c)` (the helpers, the constants) that returns the validator:
 * `isValid` for mode 'valid', `validate` for 'all'. compile() runs it with `new Function`;
 * `bqschema compile` writes it into a module (src/compile/module.ts). `consts` may be
 * shared by both modes of one schema; a constant is added to it once.
 */
export function generate(root: SchemaNode, mode: Mode, keySets: KeySets, consts: unknown[] = []): Code {
  const gen = new Generator(mode, keySets, consts);
  const body = gen.node(root, code`d`, ROOT_PATH, '', 0);
  const main =
    mode === 'valid'
      ? code`return function isValid(d){
${body}
return true;};`
      : // A function of its own (deep nodes) pushes to the caller's array: then it exists from the start.
        // `m`, the most violations wanted (any other value: all), is `M`, a local passed to every
        // function here; the violation that reaches it is thrown as the array itself, which ends the
        // walk. Undefined is tested first because `undefined>=1` is a generic comparison (no number
        // feedback): a quarter of validate's time on a small valid message when no limit is given;
        // and a local because a variable of the enclosing scope, written per call, costs as much.
        code`return function validate(d,m){let e=${gen.functions.length > 0 ? code`[]` : code`null`};const M=m===undefined?Infinity:m>=1?m:Infinity;
try{
${body}
}catch(x){if(x!==e||e===null)throw x}
return e??[];};`;
  const functions = gen.numberKind ? [...gen.functions, NUMBER_KIND_FUNCTION] : gen.functions;
  return code`"use strict";const {h,G,O,E,K,Z,L,P,t}=H;
${join(functions, NL)}
${main}`;
}

function build<T>(root: SchemaNode, mode: Mode, keySets: KeySets, urn: string | undefined): T {
  try {
    const consts: unknown[] = [];
    const source = generate(root, mode, keySets, consts).source + sourceUrl(urn, mode === 'valid' ? '' : '/validate');
    // eslint-disable-next-line no-new-func -- source is a Code: schema values enter only as literals (see top).
    return new Function('H', 'c', source)(helpers, consts) as T;
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compile');
    throw err;
  }
}

/**
 * Compiles a schema once; the result validates any number of values. `isValid` is compiled here;
 * `validate` (all errors) when first used, since many callers never need it.
 */
export function compile(schema: unknown, options: CompileOptions = {}): CompiledSchema {
  const { root, warnings: found } = parseSchema(schema);
  if (options.strict) {
    const first = found.find((w) => w.kind === 'malformed' || w.kind === 'unknown');
    if (first !== undefined) throw new SchemaError(first.kind === 'malformed' ? malformedMessage(first) : unknownMessage(first), first);
  }
  const urn = options.urn;
  const warnings: SchemaWarning[] = urn === undefined ? found : found.map((w) => ({ ...w, urn }));
  const keySets = new Map<unknown[], Set<string>>();
  if (!codeGeneration()) {
    // No `new Function` here (a CSP, a Worker runtime): the same checks, walked at run time.
    const walked = interpret(root, preview, keySets);
    reportWarnings(warnings, options);
    return Object.freeze({ schema, urn, warnings: Object.freeze(warnings), isValid: walked.isValid, validate: walked.validate });
  }
  const isValid = build<(d: unknown) => boolean>(root, 'valid', keySets, urn);
  reportWarnings(warnings, options);
  let all: ((d: unknown, limit?: number) => Violation[]) | undefined;
  // `validate` is built on its first call, then takes the stub's place and the object is frozen.
  // A call through the stub (a reference taken before the first call) costs one indirection;
  // a getter instead would cost every `compiled.validate(…)` (both measured on the orders bench).
  const compiled = {
    schema,
    urn,
    warnings: Object.freeze(warnings),
    isValid,
    validate(d: unknown, limit?: number): Violation[] {
      if (all === undefined) {
        all = build<(d: unknown, limit?: number) => Violation[]>(root, 'all', keySets, urn);
        compiled.validate = all;
        Object.freeze(compiled);
      }
      return all(d, limit);
    },
  };
  return Object.seal(compiled);
}
