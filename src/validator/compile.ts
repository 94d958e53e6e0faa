import { codePointLength } from './codepoints.js';
import { canonicalKey, jsonEqual } from './equality.js';
import { hasOwn, parseSchema, jsonType, SchemaError, type SchemaNode } from './keywords.js';
import { escapePointerToken, joinPointer } from './pointer.js';
import type { CompileOptions, CompiledSchema, SchemaWarning, Violation } from './types.js';
import { describeWarning, reportWarnings } from './warnings.js';

/*
 * The schema tree is compiled to JavaScript source once, then run many times. Security rule: every
 * value taken from the schema enters the source through JSON.stringify (property names, string and
 * number literals, pointers) or through the constants array `c` (enum/const objects, name sets).
 * Nothing else from the schema reaches the source text.
 */

const INLINE_DEPTH = 24;
const ENUM_INLINE_MAX = 8;
const NAME_INLINE_MAX = 8;
/** A single JSON string literal, as `literal` writes one (no unescaped quote inside). */
const STRING_LITERAL = /^"(?:[^"\\]|\\.)*"$/;

type Mode = 'valid' | 'all';


function isPrimitive(v: unknown): boolean {
  return v === null || (typeof v !== 'object' && typeof v !== 'function');
}

/**
 * The exact JS literal of a number: `Infinity` and `-Infinity` as themselves (JSON.stringify
 * would write `null`, and `null` would then pass), `-0` as `0` (they compare equal). Negative
 * values are parenthesised so that no neighbouring operator can fuse with the sign.
 */
export function numberLiteral(v: number): string {
  if (Number.isNaN(v)) throw new SchemaError('NaN has no literal'); // parseSchema drops NaN as malformed
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '(-Infinity)';
  const s = String(v + 0);
  return v < 0 ? `(${s})` : s;
}

/** A JS literal for a JSON primitive (numbers through numberLiteral). */
function literal(v: unknown): string {
  if (typeof v === 'number') return numberLiteral(v);
  return JSON.stringify(v);
}

function preview(values: unknown[]): string {
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

class Generator {
  readonly consts: unknown[] = [];
  readonly functions: string[] = [];
  private seq = 0;

  /** `keySets` is shared by the two functions of one compile: a 100k-value enum is hashed once. */
  constructor(private readonly mode: Mode, private readonly keySets: Map<unknown[], Set<string>>) {}

  private id(prefix: string): string {
    return prefix + String(this.seq++);
  }

  private constant(v: unknown): string {
    this.consts.push(v);
    return `c[${this.consts.length - 1}]`;
  }

  /** Code run on failure: `return false` in the fast path, a pushed violation otherwise. */
  private fail(path: string, schemaPath: string, keyword: string, message: string): string {
    if (this.mode === 'valid') return 'return false;';
    return `e.push({instancePath:${path},schemaPath:${literal(schemaPath)},keyword:${literal(keyword)},message:${message}});`;
  }

  private typeTest(name: string, d: string): string {
    switch (name) {
      case 'string':
        return `typeof ${d}==="string"`;
      // NaN and ±Infinity are not JSON numbers (docs/contract.md §13); both tests also reject non-numbers.
      case 'number':
        return `Number.isFinite(${d})`;
      case 'integer':
        return `Number.isInteger(${d})`;
      case 'boolean':
        return `typeof ${d}==="boolean"`;
      case 'null':
        return `${d}===null`;
      case 'array':
        return `Array.isArray(${d})`;
      case 'object':
        return `(typeof ${d}==="object"&&${d}!==null&&!Array.isArray(${d}))`;
      default:
        throw new Error(`unreachable type ${name}`);
    }
  }

  /**
   * Code that checks data variable `d` (whose instance path is the JS expression `path`) against
   * `node`. `via` names the keyword that led here, used when the node is the `false` schema.
   */
  node(node: SchemaNode, d: string, path: string, via: string, depth: number): string {
    if (node.always === true) return '';
    if (depth >= INLINE_DEPTH) return this.call(node, d, path, via);
    if (node.always === false) return this.falseSchema(node, d, path, via);
    const valid = this.mode === 'valid';
    const sp = node.pointer;
    let code = '';
    // The keyword blocks by the instance type they apply to: [type, guard test, body].
    const blocks: Array<[string, string, string]> = [];

    // Strings: code-point length, with UTF-16 length shortcuts (cp ≤ length ≤ 2·cp).
    let s = '';
    if (node.minLength !== undefined && node.minLength > 0) {
      const m = node.minLength;
      const msg = `${literal(`must be at least ${m} characters long, got `)}+L(${d})`;
      s += `if(${d}.length<${m}||(${d}.length<${2 * m}&&L(${d})<${m})){${this.fail(path, joinPointer(sp, 'minLength'), 'minLength', msg)}}`;
    }
    if (node.maxLength !== undefined) {
      const m = Math.max(node.maxLength, 0);
      const msg = `${literal(`must be at most ${m} characters long, got `)}+L(${d})`;
      s += `if(${d}.length>${m}&&(${d}.length>${2 * m}||L(${d})>${m})){${this.fail(path, joinPointer(sp, 'maxLength'), 'maxLength', msg)}}`;
    }
    blocks.push(['string', `typeof ${d}==="string"`, s]);

    let n = '';
    if (node.minimum !== undefined) {
      const msg = `${literal(`must be >= ${node.minimum}, got `)}+${d}`;
      n = `if(${d}<${literal(node.minimum)}){${this.fail(path, joinPointer(sp, 'minimum'), 'minimum', msg)}}`;
    }
    blocks.push(['number', `typeof ${d}==="number"`, n]);

    blocks.push(['object', this.typeTest('object', d), this.objectBody(node, d, path, depth)]);

    let a = '';
    if (node.items && node.items.always !== true) {
      const i = this.id('i');
      const v = this.id('v');
      const sub = this.node(node.items, v, `${path}+"/"+${i}`, 'items', depth + 1);
      a = `for(let ${i}=0;${i}<${d}.length;${i}++){const ${v}=${d}[${i}];${sub}}`;
    }
    blocks.push(['array', `Array.isArray(${d})`, a]);

    const guarded = (list: Array<[string, string, string]>): string =>
      list.filter(([, , body]) => body !== '').map(([, test, body]) => `if(${test}){${body}}`).join('');

    if (!node.types) {
      code += guarded(blocks);
    } else {
      const types = node.types.includes('number') ? node.types.filter((t) => t !== 'integer') : node.types;
      const test = types.map((t) => this.typeTest(t, d)).join('||');
      const msg = `${literal(`must be ${node.types.join(' or ')}, got `)}+t(${d})`;
      const typeFail = this.fail(path, joinPointer(sp, 'type'), 'type', msg);
      // With a single type, passing the type test fixes which block applies, so it runs unguarded.
      const single = types.length === 1 ? (types[0] === 'integer' ? 'number' : types[0]) : undefined;
      // `integer` and `number` are narrower than the number guard: a value that failed them may
      // still be a JS number (a fraction, ±Infinity) that the number keywords apply to.
      const exact = types.length === 1 && types[0] !== 'integer' && types[0] !== 'number';
      const allowed = (t: string): boolean => node.types!.includes(t) || (t === 'number' && node.types!.includes('integer'));
      if (this.mode === 'valid') {
        // A failed type has returned: only the listed types' blocks can apply.
        code += `if(!(${test})){${typeFail}}`;
        const live = blocks.filter(([t]) => allowed(t));
        code += single ? live.map(([, , body]) => body).join('') : guarded(live);
      } else if (single) {
        // Every keyword applies by the instance's own type (docs/contract.md §1), even when `type` fails.
        const own = blocks.find(([t]) => t === single)?.[2] ?? '';
        const others = guarded(blocks.filter(([t]) => t !== single || !exact));
        code += own === '' ? `if(!(${test})){${typeFail}${others}}` : `if(${test}){${own}}else{${typeFail}${others}}`;
      } else {
        code += `if(!(${test})){${typeFail}}` + guarded(blocks);
      }
    }

    if (node.enum) code += this.enumCheck(node.enum, d, path, joinPointer(sp, 'enum'));
    if (node.hasConst) {
      const msg = literal(`must be equal to ${preview([node.constValue])}`);
      const test = this.equalsExpr(d, node.constValue);
      code += `if(!(${test})){${this.fail(path, joinPointer(sp, 'const'), 'const', msg)}}`;
    }
    return code;
  }

  private objectBody(node: SchemaNode, d: string, path: string, depth: number): string {
    const sp = node.pointer;
    let code = '';
    const required = node.required ?? [];
    const properties = (node.properties ?? []).filter(([, sub]) => sub.always !== true);
    // A value read from an object whose prototype is Object.prototype, under a name that
    // Object.prototype lacks (checked at run time: it may be polluted later), is an own property;
    // that saves a hasOwnProperty call per name, the dominant cost on small objects.
    const plain = this.id('o');
    const own = (k: string): string => `(${plain}&&!(${k} in O)||h(${d},${k}))`;
    if (required.length + properties.length > 0) code += `const ${plain}=G(${d})===O;`;
    for (const name of required) {
      const k = literal(name);
      const msg = literal(`must have required property ${JSON.stringify(name)}`);
      code += `if(${d}[${k}]===undefined||!${own(k)}){${this.fail(path, joinPointer(sp, 'required'), 'required', msg)}}`;
    }
    // In the fast path a missing required property has returned: its presence is known.
    const present = new Set(this.mode === 'valid' ? required : []);
    for (const [name, sub] of properties) {
      const k = literal(name);
      const v = this.id('v');
      const subPath = this.childPath(path, name);
      const check = this.node(sub, v, subPath, 'properties', depth + 1);
      code += present.has(name)
        ? `{const ${v}=${d}[${k}];${check}}`
        : `{const ${v}=${d}[${k}];if(${v}!==undefined&&${own(k)}){${check}}}`;
    }
    const extra = node.additional;
    if (extra && extra.always !== true) {
      const key = this.id('k');
      const v = this.id('v');
      const names = (node.properties ?? []).map(([n]) => n);
      let declared = '';
      if (names.length > 0 && names.length <= NAME_INLINE_MAX) {
        declared = names.map((n) => `${key}===${literal(n)}`).join('||');
      } else if (names.length > 0) {
        declared = `${this.constant(new Set(names))}.has(${key})`;
      }
      const subPath = STRING_LITERAL.test(path) ? `${literal(JSON.parse(path) + '/')}+P(${key})` : `${path}+"/"+P(${key})`;
      let body: string;
      if (extra.always === false) {
        // A constant message: the instance path already names the property, and building a quoted
        // name per violation costs more than the rest of validate on small schemas.
        const msg = literal('is not allowed (additionalProperties is false)');
        body = this.fail(subPath, joinPointer(sp, 'additionalProperties'), 'additionalProperties', msg);
      } else {
        body = this.node(extra, v, subPath, 'additionalProperties', depth + 1);
      }
      code +=
        `for(const ${key} in ${d}){` +
        (declared ? `if(${declared})continue;` : '') +
        `const ${v}=${d}[${key}];if(${v}===undefined||!h(${d},${key}))continue;${body}}`;
    }
    return code;
  }

  private childPath(path: string, name: string): string {
    const token = '/' + escapePointerToken(name);
    // Fold constant paths at compile time; the instance path is only built when a check fails.
    // Under `items`/`additionalProperties` the path is an expression that also starts with `"`.
    if (STRING_LITERAL.test(path)) return literal((JSON.parse(path) as string) + token);
    return `${path}+${literal(token)}`;
  }

  private equalsExpr(d: string, value: unknown): string {
    if (isPrimitive(value)) return `${d}===${literal(value)}`;
    return `E(${d},${this.constant(value)})`;
  }

  private enumCheck(values: unknown[], d: string, path: string, schemaPath: string): string {
    const msg = literal(values.length === 0 ? 'no value is allowed (enum is empty)' : `must be one of ${preview(values)}`);
    const prims = values.filter(isPrimitive);
    const objs = values.filter((v) => !isPrimitive(v));
    const tests: string[] = [];
    if (prims.length > ENUM_INLINE_MAX) tests.push(`${this.constant(new Set(prims))}.has(${d})`);
    else for (const p of prims) tests.push(`${d}===${literal(p)}`);
    if (objs.length > ENUM_INLINE_MAX) {
      // A hash lookup, so a large enum of objects costs one key per value, not a scan (issue 10).
      let set = this.keySets.get(values);
      if (set === undefined) this.keySets.set(values, (set = new Set(objs.map(canonicalKey))));
      const keys = this.constant(set);
      tests.push(`(typeof ${d}==="object"&&${d}!==null&&${keys}.has(K(${d})))`);
    } else if (objs.length > 0) {
      const list = this.constant(objs);
      tests.push(`(typeof ${d}==="object"&&${d}!==null&&${list}.some((x)=>E(${d},x)))`);
    }
    const test = tests.length > 0 ? tests.join('||') : 'false';
    return `if(!(${test})){${this.fail(path, schemaPath, 'enum', msg)}}`;
  }

  private falseSchema(node: SchemaNode, _d: string, path: string, via: string): string {
    const message =
      via === 'properties' ? 'is not allowed (its schema is false)'
      : via === 'items' ? 'is not allowed (items is false)'
      : via === 'additionalProperties' ? 'is not allowed (additionalProperties is false)'
      : 'is not allowed (the schema is false)';
    return this.fail(path, node.pointer, via === '' ? 'false' : via, literal(message));
  }

  /** A node deep in the tree becomes a function of its own, so generated source stays shallow. */
  private call(node: SchemaNode, d: string, path: string, via: string): string {
    const fn = this.id('f');
    const body = this.node(node, 'd', 'p', via, 0);
    if (this.mode === 'valid') {
      this.functions.push(`function ${fn}(d){${body}return true;}`);
      return `if(!${fn}(${d}))return false;`;
    }
    this.functions.push(`function ${fn}(d,p,e){${body}}`);
    return `${fn}(${d},${path},e);`;
  }
}

type Helpers = {
  h: typeof hasOwn;
  G: typeof Object.getPrototypeOf;
  O: object;
  E: typeof jsonEqual;
  K: typeof canonicalKey;
  L: typeof codePointLength;
  P: typeof escapePointerToken;
  t: typeof jsonType;
};

const helpers: Helpers = {
  h: hasOwn, G: Object.getPrototypeOf, O: Object.prototype,
  E: jsonEqual, K: canonicalKey, L: codePointLength, P: escapePointerToken, t: jsonType,
};

function build<T>(root: SchemaNode, mode: Mode, keySets: Map<unknown[], Set<string>>): T {
  const gen = new Generator(mode, keySets);
  const body = gen.node(root, 'd', '""', '', 0);
  const main =
    mode === 'valid'
      ? `return function isValid(d){${body}return true;};`
      : `return function validate(d){const e=[];${body}return e;};`;
  const source = `"use strict";const {h,G,O,E,K,L,P,t}=H;${gen.functions.join('')}${main}`;
  // eslint-disable-next-line no-new-func -- source built only from JSON.stringify'd schema values (see top).
  return new Function('H', 'c', source)(helpers, gen.consts) as T;
}

/** Compiles a schema once; the result validates any number of values. */
export function compile(schema: unknown, options: CompileOptions = {}): CompiledSchema {
  const { root, warnings: found } = parseSchema(schema);
  if (options.strict) {
    const first = found.find((w) => w.kind === 'malformed');
    if (first !== undefined) throw new SchemaError(describeWarning(first).replace(/; it is not enforced$/, ''), first);
  }
  const warnings: SchemaWarning[] = options.urn === undefined ? found : found.map((w) => ({ ...w, urn: options.urn }));
  let isValid: (d: unknown) => boolean;
  let validate: (d: unknown) => Violation[];
  try {
    const keySets = new Map<unknown[], Set<string>>();
    isValid = build(root, 'valid', keySets);
    validate = build(root, 'all', keySets);
  } catch (err) {
    if (err instanceof RangeError) throw new SchemaError('the schema is nested too deeply to compile');
    throw err;
  }
  reportWarnings(warnings, options);
  return Object.freeze({ schema, urn: options.urn, warnings: Object.freeze(warnings), isValid, validate });
}
