import {
  Code, EMPTY, ROOT_PATH, childPath, code, dynamicPath, ident, join, pathCode, sourceUrl, type Path,
} from './codegen.js';
import { canonicalKey } from './equality.js';
import { helpers } from './helpers.js';
import { parseSchema, SchemaError, type SchemaNode } from './keywords.js';
import { joinPointer } from './pointer.js';
import type { CompileOptions, CompiledSchema, SchemaWarning, Violation } from './types.js';
import { malformedMessage, reportWarnings, unknownMessage } from './warnings.js';
import { codeGeneration, HIDDEN_KEY, interpret, NUMBER_KINDS } from './interpret.js';

/*
 * The schema tree is compiled to JavaScript source once, then run many times. Security rule: the
 * source is a `Code`, built only with the `code` tag (codegen.ts), which writes every schema value
 * as a literal; objects (enum/const values, name sets) go through the constants array `c`.
 */

const INLINE_DEPTH = 24;
/**
 * The most schema nodes (a required name counts as one) one generated function checks inline. V8
 * gives every block-scoped local of a function a register in its frame: 160,000 properties in one
 * function made a frame larger than the stack (issue 22), and V8 compiles one huge function in
 * time worse than linear. An object whose checks weigh more is split into functions of this size.
 */
const FUNCTION_BUDGET = 512;
const ENUM_INLINE_MAX = 8;
const NAME_INLINE_MAX = 8;
const NL = code`
`;

export type Mode = 'valid' | 'all';
/** A keyword block by the instance type it applies to: [type, guard test, body]. */
type Block = [type: string, test: Code, body: Code];

function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

export function preview(values: unknown[]): string {
  const parts: string[] = [];
  let len = 0;
  for (const v of values) {
    let s: string;
    try {
      s = typeof v === 'number' ? String(v + 0) : JSON.stringify(v) ?? String(v);
    } catch {
      s = '…';
    }
    if (s.length > 60) s = s.slice(0, 57) + '…';
    len += s.length;
    if (len > 200) {
      parts.push('…');
      break;
    }
    parts.push(s);
  }
  return parts.join(', ');
}

/**
 * Whether `d` has `name` as an own property, given `d[name]` is defined. A value read from an
 * object whose prototype is Object.prototype, under a name that Object.prototype lacks (checked at
 * run time: it may be polluted later), is an own property; that saves a hasOwnProperty call per
 * name, the dominant cost on small objects. The prototype test is made lazily, after a property of
 * `d` has been read: the optimiser then knows `d`'s map and folds getPrototypeOf to a constant
 * when shapes repeat (measured: ~1.5x on the orders bench). `plain` is 0 until tested, then 1
 * (plain) or 2 (not).
 */
function ownTest(d: Code, plain: Code, name: string): Code {
  return code`(!(${name} in O)&&(${plain}||(${plain}=G(${d})===O?1:2))===1||h(${d},${name}))`;
}

/**
 * The generated function that says what a failing number is, for a message that must not quote it
 * (personal data, `hideNumber`): the same words as interpret.ts's `numberKind`. Written once into
 * the code that uses it (a standalone module too: it needs nothing of the runtime).
 */
const NUMBER_KIND_FUNCTION = code`function N(d){return Number.isInteger(d)?(d<0?${NUMBER_KINDS[0]}:${NUMBER_KINDS[1]}):d<0?${NUMBER_KINDS[2]}:${NUMBER_KINDS[3]};}`;

/** An undeclared property's instance path token: its name, or `***` where names are personal data (`hideKeys`). */
function keyToken(node: SchemaNode, key: Code): Code {
  return node.hideKeys ? code`${HIDDEN_KEY}` : code`P(${key})`;
}

/** In a for-in over `d`: skips a key whose value is undefined or that is not own (an inherited one). */
function undeclared(d: Code, key: Code, v: Code): Code {
  return code`const ${v}=${d}[${key}];if(${v}===undefined||!h(${d},${key}))continue;`;
}

class Generator {
  readonly functions: Code[] = [];
  /** Whether a message says a number's kind (NUMBER_KIND_FUNCTION is then written). */
  numberKind = false;
  private seq = 0;
  private readonly weights = new Map<SchemaNode, number>();

  /** `keySets` is shared by the two functions of one compile: a 100k-value enum is hashed once. */
  private readonly constIndex = new Map<unknown, number>();

  constructor(private readonly mode: Mode, private readonly keySets: Map<unknown[], Set<string>>, private readonly consts: unknown[]) {
    consts.forEach((v, i) => this.constIndex.set(v, i));
  }

  private id(prefix: 'f' | 'i' | 'k' | 'l' | 'o' | 'v' | 'x'): Code {
    return ident(prefix, this.seq++);
  }

  private constant(v: unknown): Code {
    let i = this.constIndex.get(v);
    if (i === undefined) {
      i = this.consts.push(v) - 1;
      this.constIndex.set(v, i);
    }
    return code`c[${i}]`;
  }

  /**
   * Code run on failure: `return false` in the fast path, a pushed violation otherwise; the
   * violation that reaches the caller's limit (`M`) ends the walk, thrown to `validate`.
   */
  private fail(path: Path, schemaPath: string, keyword: string, message: Code): Code {
    if (this.mode === 'valid') return code`return false;`;
    // `e` is made on the first violation, as `new Array()`: room for four without growing (`[]`
    // grows to sixteen on its first push). Valid data allocates no array until the end.
    return code`if((e??=new Array()).push({instancePath:${pathCode(path)},schemaPath:${schemaPath},keyword:${keyword},message:${message}})>=M)throw e;`;
  }

  private typeTest(name: string, d: Code): Code {
    switch (name) {
      case 'string':
        return code`typeof ${d}==="string"`;
      // NaN and ±Infinity are not JSON numbers (docs/contract.md §13); both tests also reject non-numbers.
      case 'number':
        return code`Number.isFinite(${d})`;
      case 'integer':
        return code`Number.isInteger(${d})`;
      case 'boolean':
        return code`typeof ${d}==="boolean"`;
      case 'null':
        return code`${d}===null`;
      case 'array':
        return code`Array.isArray(${d})`;
      case 'object':
        return code`(typeof ${d}==="object"&&${d}!==null&&!Array.isArray(${d}))`;
      default:
        throw new Error(`unreachable type ${name}`);
    }
  }

  /**
   * Code that checks data variable `d` (whose instance path is `path`) against `node`. `via`
   * names the keyword that led here, used when the node is the `false` schema.
   */
  node(node: SchemaNode, d: Code, path: Path, via: string, depth: number): Code {
    if (node.always === true) return EMPTY;
    if (depth >= INLINE_DEPTH) return this.call(node, d, path, via);
    if (node.always === false) return this.falseSchema(node, path, via);
    const sp = node.pointer;
    const out: Code[] = [];
    const blocks: Block[] = [];

    // Strings: code-point length, with UTF-16 length shortcuts (cp ≤ length ≤ 2·cp).
    const s: Code[] = [];
    // A string whose UTF-16 length lies in both bounds' uncertain ranges, [min, 2·min) and
    // (max, 2·max], would have its code points counted by both checks (and again by a message):
    // there it is counted once. In the fast path that range gets a branch of its own; validate
    // keeps the count in a variable, which also serves its messages. (Measured: a variable in the
    // fast path costs ~2% on the bench's short strings; the branch does not.)
    const lo = node.minLength !== undefined && node.minLength > 0 ? node.minLength : undefined;
    const hi = node.maxLength;
    const both = lo !== undefined && hi !== undefined ? [Math.max(lo, hi + 1), Math.min(2 * lo, 2 * hi + 1)] as const : undefined;
    const overlap = both && both[0] < both[1] ? both : undefined;
    let cps = code`L(${d})`;
    if (overlap && this.mode === 'all') {
      const l = this.id('l');
      s.push(code`let ${l}=-1;`);
      cps = code`(${l}<0?(${l}=L(${d})):${l})`;
    }
    if (lo !== undefined) {
      const msg = code`${`must be at least ${lo} characters long, got `}+${cps}`;
      s.push(code`if(${d}.length<${lo}||(${d}.length<${2 * lo}&&${cps}<${lo})){${this.fail(path, joinPointer(sp, 'minLength'), 'minLength', msg)}}`);
    }
    if (hi !== undefined) {
      const m = Math.max(hi, 0);
      const msg = code`${`must be at most ${m} characters long, got `}+${cps}`;
      s.push(code`if(${d}.length>${m}&&(${d}.length>${2 * m}||${cps}>${m})){${this.fail(path, joinPointer(sp, 'maxLength'), 'maxLength', msg)}}`);
    }
    if (overlap && this.mode === 'valid') {
      const l = this.id('l');
      const checks = join(s);
      s.length = 0;
      s.push(code`if(${d}.length>=${overlap[0]}&&${d}.length<${overlap[1]}){const ${l}=L(${d});if(${l}<${lo!}||${l}>${hi!}){${this.fail(path, '', '', EMPTY)}}}else{${checks}}`);
    }
    blocks.push(['string', code`typeof ${d}==="string"`, join(s)]);

    let n = EMPTY;
    if (node.minimum !== undefined) {
      if (node.hideNumber && this.mode === 'all') this.numberKind = true;
      const msg = node.hideNumber ? code`${`must be >= ${node.minimum}, got `}+N(${d})` : code`${`must be >= ${node.minimum}, got `}+${d}`;
      n = code`if(${d}<${node.minimum}){${this.fail(path, joinPointer(sp, 'minimum'), 'minimum', msg)}}`;
    }
    blocks.push(['number', code`typeof ${d}==="number"`, n]);

    blocks.push(['object', this.typeTest('object', d), this.objectBody(node, d, path, depth)]);

    let a = EMPTY;
    if (node.items && node.items.always !== true) {
      const i = this.id('i');
      const v = this.id('v');
      const sub = this.node(node.items, v, dynamicPath(path, i), 'items', depth + 1);
      a = code`for(let ${i}=0;${i}<${d}.length;${i}++){const ${v}=${d}[${i}];${sub}}`;
    }
    blocks.push(['array', code`Array.isArray(${d})`, a]);

    const guarded = (list: Block[]): Code =>
      join(list.filter(([, , body]) => !body.empty).map(([, test, body]) => code`if(${test}){${body}}`), NL);
    const bodies = (list: Block[]): Code => join(list.map(([, , body]) => body));

    if (!node.types) {
      out.push(guarded(blocks));
    } else {
      const types = node.types.includes('number') ? node.types.filter((t) => t !== 'integer') : node.types;
      const test = join(types.map((t) => this.typeTest(t, d)), code`||`);
      const msg = code`${`must be ${node.types.join(' or ')}, got `}+t(${d})`;
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

    if (node.enum) out.push(this.enumCheck(node.enum, d, path, joinPointer(sp, 'enum')));
    if (node.hasConst) {
      const msg = code`${`must be equal to ${preview([node.constValue])}`}`;
      let test = this.equalsExpr(d, node.constValue);
      // A cyclic value is refused, not judged (issue 22): checked once the value has failed.
      if (!isPrimitive(node.constValue)) test = code`${test}||Z(${d})`;
      out.push(code`if(!(${test})){${this.fail(path, joinPointer(sp, 'const'), 'const', msg)}}`);
    }
    return join(out.filter((c) => !c.empty), NL);
  }

  private objectBody(node: SchemaNode, d: Code, path: Path, depth: number): Code {
    const extra = node.additional;
    const names = (node.properties ?? []).map(([n]) => n);
    // validate runs where isValid said no (the CLI and guard call it only then): its objects are
    // tuned for failing messages, whose shapes differ; isValid's for valid ones, whose shapes repeat.
    if (this.mode === 'all' && extra && extra.always !== true && names.length <= NAME_INLINE_MAX) {
      return this.scannedObjectBody(node, extra, names, d, path, depth);
    }
    const sp = node.pointer;
    const out: Code[] = [];
    const required = node.required ?? [];
    const properties = (node.properties ?? []).filter(([, sub]) => sub.always !== true);
    // In the fast path a missing required property has returned: its presence is known (in a later
    // chunk too: chunks run in order, and a failed one has returned).
    const present = new Set(this.mode === 'valid' ? required : []);
    let weight = required.length;
    for (const [, sub] of properties) weight += this.weight(sub);
    if (weight <= FUNCTION_BUDGET) {
      out.push(this.declaredChecks(sp, required, properties, present, d, path, depth));
    } else {
      for (const [names, props] of this.chunks(required, properties)) {
        out.push(this.inFunction(d, path, (cd, cp) => this.declaredChecks(sp, names, props, present, cd, cp, 0)));
      }
    }
    if (extra && extra.always !== true) {
      const key = this.id('k');
      const v = this.id('v');
      let declared = EMPTY;
      if (names.length > 0 && names.length <= NAME_INLINE_MAX) {
        declared = join(names.map((n) => code`${key}===${n}`), code`||`);
      } else if (names.length > 0) {
        declared = code`${this.constant(new Set(names))}.has(${key})`;
      }
      const subPath = dynamicPath(path, keyToken(node, key));
      const body = extra.always === false ? this.notAllowed(sp, subPath) : this.node(extra, v, subPath, 'additionalProperties', depth + 1);
      const skip = declared.empty ? EMPTY : code`if(${declared})continue;`;
      out.push(code`for(const ${key} in ${d}){${skip}${undeclared(d, key, v)}${body}}`);
    }
    return join(out, NL);
  }

  /** The required and properties checks of an object `d` (or a chunk of them). */
  private declaredChecks(
    sp: string, required: readonly string[], properties: ReadonlyArray<[string, SchemaNode]>, present: ReadonlySet<string>,
    d: Code, path: Path, depth: number,
  ): Code {
    const out: Code[] = [];
    const plain = this.id('o');
    const own = (name: string): Code => ownTest(d, plain, name);
    if (required.length + properties.length > 0) out.push(code`let ${plain}=0;`);
    for (const name of required) {
      const msg = code`${`must have required property ${JSON.stringify(name)}`}`;
      out.push(code`if(${d}[${name}]===undefined||!${own(name)}){${this.fail(path, joinPointer(sp, 'required'), 'required', msg)}}`);
    }
    for (const [name, sub] of properties) {
      const v = this.id('v');
      const check = this.node(sub, v, childPath(path, name), 'properties', depth + 1);
      out.push(present.has(name)
        ? code`{const ${v}=${d}[${name}];${check}}`
        : code`{const ${v}=${d}[${name}];if(${v}!==undefined&&${own(name)}){${check}}}`);
    }
    return join(out, NL);
  }

  /** Consecutive runs of required names and properties, each weighing at most FUNCTION_BUDGET (or one property). */
  private chunks(required: readonly string[], properties: ReadonlyArray<[string, SchemaNode]>): Array<[string[], Array<[string, SchemaNode]>]> {
    const out: Array<[string[], Array<[string, SchemaNode]>]> = [];
    for (let i = 0; i < required.length; i += FUNCTION_BUDGET) out.push([required.slice(i, i + FUNCTION_BUDGET), []]);
    let run: Array<[string, SchemaNode]> = [];
    let weight = 0;
    for (const p of properties) {
      const w = this.weight(p[1]);
      if (run.length > 0 && weight + w > FUNCTION_BUDGET) {
        out.push([[], run]);
        run = [];
        weight = 0;
      }
      run.push(p);
      weight += w;
    }
    if (run.length > 0) out.push([[], run]);
    return out;
  }

  /** How many nodes (and required names) `node`'s checks hold: what a function inlining them takes. */
  private weight(node: SchemaNode): number {
    if (node.always !== undefined) return 1;
    let w = this.weights.get(node);
    if (w !== undefined) return w;
    w = 1 + (node.required?.length ?? 0);
    for (const [, sub] of node.properties ?? []) w += this.weight(sub);
    if (node.additional) w += this.weight(node.additional);
    if (node.items) w += this.weight(node.items);
    this.weights.set(node, w);
    return w;
  }

  /** additionalProperties: false, for one undeclared property at `p`. */
  private notAllowed(sp: string, p: Path): Code {
    // A constant message: the instance path already names the property, and building a quoted
    // name per violation costs more than the rest of validate on small schemas.
    return this.fail(p, joinPointer(sp, 'additionalProperties'), 'additionalProperties', code`${'is not allowed (additionalProperties is false)'}`);
  }

  /**
   * validate's object whose undeclared properties are constrained (a for-in loop is needed
   * anyway), with few declared names: a for-in pass first notes which declared names are own
   * (inside the loop that needs no call) and finds the undeclared ones; the checks then run in the
   * usual order, reading each value by name (a load the optimiser specialises to the object's
   * shape). A declared name the loop did not see as own (absent, non-enumerable or inherited) is
   * tested with hasOwnProperty when it has a value. objectBody's plain-object shortcut needs a
   * prototype test instead, a call that costs ~10% on the orders bench when messages differ in shape.
   */
  private scannedObjectBody(node: SchemaNode, extra: SchemaNode, names: string[], d: Code, path: Path, depth: number): Code {
    const sp = node.pointer;
    const out: Code[] = [];
    const required = node.required ?? [];
    const properties = (node.properties ?? []).filter(([, sub]) => sub.always !== true);
    const declared = new Set(names);
    // A flag per declared name that is required or checked: 1 once the loop has seen it as own.
    const seen = new Map<string, Code>();
    for (const name of [...required, ...properties.map(([n]) => n)]) {
      if (declared.has(name) && !seen.has(name)) seen.set(name, this.id('o'));
    }
    // Required names that are not declared keep objectBody's own-property test.
    const plain = this.id('o');
    const own = (name: string): Code => {
      const flag = seen.get(name);
      return flag ? code`(${flag}===1||h(${d},${name}))` : ownTest(d, plain, name);
    };
    const flags = [...seen.values()].map((f) => code`${f}=0`);
    if (required.some((n) => !declared.has(n))) flags.push(code`${plain}=0`);

    const key = this.id('k');
    const v = this.id('v');
    const subPath = dynamicPath(path, keyToken(node, key));
    const fixed = extra.always === false;
    const extraBody = fixed ? this.notAllowed(sp, subPath) : this.node(extra, v, subPath, 'additionalProperties', depth + 1);

    const scan: Code[] = [];
    for (const [name, flag] of seen) scan.push(code`if(${key}===${name}){if(h(${d},${key}))${flag}=1;continue;}`);
    const unflagged = names.filter((n) => !seen.has(n));
    if (unflagged.length > 0) scan.push(code`if(${join(unflagged.map((n) => code`${key}===${n}`), code`||`)})continue;`);
    // Undeclared properties are counted here and reported after the declared ones (the usual
    // order), the first kept: most failing messages have one.
    const count = this.id('x');
    const first = this.id('x');
    flags.push(code`${count}=0`);
    if (fixed) flags.push(first);
    scan.push(undeclared(d, key, v), fixed ? code`if(${count}++===0)${first}=${key};` : code`${count}=1;`);
    if (flags.length > 0) out.push(code`let ${join(flags, code`,`)};`);
    out.push(code`for(const ${key} in ${d}){${join(scan)}}`);

    // A required name that is also checked is read once (a load that costs when shapes differ).
    const read = new Map<string, Code>();
    for (const name of required) {
      if (!properties.some(([n]) => n === name) || read.has(name)) continue;
      const pv = this.id('v');
      read.set(name, pv);
      out.push(code`const ${pv}=${d}[${name}];`);
    }
    for (const name of required) {
      const msg = code`${`must have required property ${JSON.stringify(name)}`}`;
      out.push(code`if(${read.get(name) ?? code`${d}[${name}]`}===undefined||!${own(name)}){${this.fail(path, joinPointer(sp, 'required'), 'required', msg)}}`);
    }
    for (const [name, sub] of properties) {
      const pv = read.get(name) ?? this.id('v');
      const check = this.node(sub, pv, childPath(path, name), 'properties', depth + 1);
      const load = read.has(name) ? EMPTY : code`const ${pv}=${d}[${name}];`;
      out.push(code`{${load}if(${pv}!==undefined&&${own(name)}){${check}}}`);
    }
    const skip = names.length > 0 ? code`if(${join(names.map((n) => code`${key}===${n}`), code`||`)})continue;` : EMPTY;
    const again = code`for(const ${key} in ${d}){${skip}${undeclared(d, key, v)}${extraBody}}`;
    out.push(fixed
      ? code`if(${count}===1){${this.notAllowed(sp, dynamicPath(path, keyToken(node, first)))}}else if(${count}>1){${again}}`
      : code`if(${count}!==0){${again}}`);
    return join(out, NL);
  }

  private equalsExpr(d: Code, value: unknown): Code {
    if (isPrimitive(value)) return code`${d}===${value}`;
    return code`E(${d},${this.constant(value)})`;
  }

  private enumCheck(values: unknown[], d: Code, path: Path, schemaPath: string): Code {
    const msg = code`${values.length === 0 ? 'no value is allowed (enum is empty)' : `must be one of ${preview(values)}`}`;
    const prims = values.filter(isPrimitive);
    const objs = values.filter((v) => !isPrimitive(v));
    const tests: Code[] = [];
    if (prims.length > ENUM_INLINE_MAX) tests.push(code`${this.constant(new Set(prims))}.has(${d})`);
    else for (const p of prims) tests.push(code`${d}===${p}`);
    if (objs.length > ENUM_INLINE_MAX) {
      // A hash lookup, so a large enum of objects costs one key per value, not a scan (issue 10).
      let set = this.keySets.get(values);
      if (set === undefined) this.keySets.set(values, (set = new Set(objs.map(canonicalKey))));
      tests.push(code`(typeof ${d}==="object"&&${d}!==null&&${this.constant(set)}.has(K(${d})))`);
    } else if (objs.length > 0) {
      tests.push(code`(typeof ${d}==="object"&&${d}!==null&&${this.constant(objs)}.some((x)=>E(${d},x)))`);
    }
    // A cyclic value is refused, not judged (issue 22): with few objects, checked once the value has failed.
    if (objs.length > 0 && objs.length <= ENUM_INLINE_MAX) tests.push(code`Z(${d})`);
    const test = tests.length > 0 ? join(tests, code`||`) : code`false`;
    return code`if(!(${test})){${this.fail(path, schemaPath, 'enum', msg)}}`;
  }

  private falseSchema(node: SchemaNode, path: Path, via: string): Code {
    const message =
      via === 'properties' ? 'is not allowed (its schema is false)'
      : via === 'items' ? 'is not allowed (items is false)'
      : via === 'additionalProperties' ? 'is not allowed (additionalProperties is false)'
      : 'is not allowed (the schema is false)';
    return this.fail(path, node.pointer, via === '' ? 'false' : via, code`${message}`);
  }

  /** A node deep in the tree becomes a function of its own, so generated source stays shallow. */
  private call(node: SchemaNode, d: Code, path: Path, via: string): Code {
    return this.inFunction(d, path, (fd, fp) => this.node(node, fd, fp, via, 0));
  }

  /** Code that runs `body` (checks of `d` at `path`) in a function of its own. */
  private inFunction(d: Code, path: Path, body: (d: Code, path: Path) => Code): Code {
    const fn = this.id('f');
    const inner = body(code`d`, { expr: code`p` });
    if (this.mode === 'valid') {
      this.functions.push(code`function ${fn}(d){${inner}
return true;}`);
      return code`if(!${fn}(${d}))return false;`;
    }
    this.functions.push(code`function ${fn}(d,p,e){${inner}}`);
    return code`${fn}(${d},${pathCode(path)},e);`;
  }
}

/**
 * The body of a function of `(H, c)` (the helpers, the constants) that returns the validator:
 * `isValid` for mode 'valid', `validate` for 'all'. compile() runs it with `new Function`;
 * `bqschema compile` writes it into a module (src/compile/module.ts). `consts` may be
 * shared by both modes of one schema; a constant is added to it once.
 */
export function generate(root: SchemaNode, mode: Mode, keySets: Map<unknown[], Set<string>>, consts: unknown[] = []): Code {
  const gen = new Generator(mode, keySets, consts);
  const body = gen.node(root, code`d`, ROOT_PATH, '', 0);
  const main = mode === 'valid'
    ? code`return function isValid(d){
${body}
return true;};`
    // A function of its own (deep nodes) pushes to the caller's array: then it exists from the start.
    // `m`, the most violations wanted (any other value: all), is `M` for every function here; the
    // violation that reaches it is thrown as the array itself, which ends the walk.
    : code`return function validate(d,m){let e=${gen.functions.length > 0 ? code`[]` : code`null`};M=m>=1?m:Infinity;
try{
${body}
}catch(x){if(x!==e||e===null)throw x}
return e??[];};`;
  const functions = gen.numberKind ? [...gen.functions, NUMBER_KIND_FUNCTION] : gen.functions;
  return code`"use strict";const {h,G,O,E,K,Z,L,P,t}=H;${mode === 'valid' ? code`` : code`let M=Infinity;`}
${join(functions, NL)}
${main}`;
}

function build<T>(root: SchemaNode, mode: Mode, keySets: Map<unknown[], Set<string>>, urn: string | undefined): T {
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
    schema, urn, warnings: Object.freeze(warnings), isValid,
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
