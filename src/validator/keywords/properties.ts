import { childPath, code, dynamicPath, EMPTY, join, type Code, type Path } from '../codegen.js';
import { escapeKey, escapePointerToken, joinPointer } from '../pointer.js';
import { describe, hasOwn, HIDDEN_KEY, isSchemaObject, type SchemaNode } from '../schema-node.js';
import { NOT_ALLOWED } from './additionalProperties.js';
import type { Check, Gen, Keyword } from './keyword.js';
import { requiredMessage } from './required.js';

/*
 * `properties`, and the object walk it shares with `required` and `additionalProperties`: one
 * pass over an object knows which declared names are own and which names are undeclared, so the
 * three are checked together (the walk reads each name once, and finds undeclared ones in the loop
 * it needs anyway). Their messages live in their own files.
 */

/**
 * The most schema nodes (a required name counts as one) one generated function checks inline. V8
 * gives every block-scoped local of a function a register in its frame: 160,000 properties in one
 * function made a frame larger than the stack, and V8 compiles one huge function in time worse
 * than linear. An object whose checks weigh more is split into functions of this size.
 */
const FUNCTION_BUDGET = 512;
const NAME_INLINE_MAX = 8;

const NL = code`
`;

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

/** An undeclared property's instance path token: its name, or `***` where names are personal data (`hideKeys`). */
function keyToken(node: SchemaNode, key: Code): Code {
  return node.hideKeys ? code`${HIDDEN_KEY}` : code`P(${key})`;
}

/** In a for-in over `d`: skips a key whose value is undefined or that is not own (an inherited one). */
function undeclared(d: Code, key: Code, v: Code): Code {
  return code`const ${v}=${d}[${key}];if(${v}===undefined||!h(${d},${key}))continue;`;
}

/** additionalProperties: false, for one undeclared property at `p`. */
function notAllowed(g: Gen, sp: string, p: Path): Code {
  // A constant message: the instance path already names the property, and building a quoted
  // name per violation costs more than the rest of validate on small schemas.
  return g.fail(p, joinPointer(sp, 'additionalProperties'), 'additionalProperties', code`${NOT_ALLOWED}`);
}

function objectCode(g: Gen, node: SchemaNode, d: Code, path: Path, depth: number): Code {
  const extra = node.additional;
  const names = (node.properties ?? []).map(([n]) => n);
  // validate runs where isValid said no (the CLI and guard call it only then): its objects are
  // tuned for failing messages, whose shapes differ; isValid's for valid ones, whose shapes repeat.
  if (g.mode === 'all' && extra && extra.always !== true && names.length <= NAME_INLINE_MAX) {
    return scannedObjectCode(g, node, extra, names, d, path, depth);
  }
  const sp = node.pointer;
  const out: Code[] = [];
  const required = node.required ?? [];
  const properties = (node.properties ?? []).filter(([, sub]) => sub.always !== true);
  // In the fast path a missing required property has returned: its presence is known (in a later
  // chunk too: chunks run in order, and a failed one has returned).
  const present = new Set(g.mode === 'valid' ? required : []);
  let weight = required.length;
  for (const [, sub] of properties) weight += g.weight(sub);
  if (weight <= FUNCTION_BUDGET) {
    out.push(declaredChecks(g, sp, required, properties, present, d, path, depth));
  } else {
    for (const [names, props] of chunks(g, required, properties)) {
      out.push(g.inFunction(d, path, (cd, cp) => declaredChecks(g, sp, names, props, present, cd, cp, 0)));
    }
  }
  if (extra && extra.always !== true) {
    const key = g.id('k');
    const v = g.id('v');
    let declared = EMPTY;
    if (names.length > 0 && names.length <= NAME_INLINE_MAX) {
      declared = join(
        names.map((n) => code`${key}===${n}`),
        code`||`,
      );
    } else if (names.length > 0) {
      declared = code`${g.constant(new Set(names))}.has(${key})`;
    }
    const subPath = dynamicPath(path, keyToken(node, key));
    const body = extra.always === false ? notAllowed(g, sp, subPath) : g.node(extra, v, subPath, 'additionalProperties', depth + 1);
    const skip = declared.empty ? EMPTY : code`if(${declared})continue;`;
    out.push(code`for(const ${key} in ${d}){${skip}${undeclared(d, key, v)}${body}}`);
  }
  return join(out, NL);
}

/** The required and properties checks of an object `d` (or a chunk of them). */
function declaredChecks(
  g: Gen,
  sp: string,
  required: readonly string[],
  properties: ReadonlyArray<[string, SchemaNode]>,
  present: ReadonlySet<string>,
  d: Code,
  path: Path,
  depth: number,
): Code {
  const out: Code[] = [];
  const plain = g.id('o');
  const own = (name: string): Code => ownTest(d, plain, name);
  if (required.length + properties.length > 0) out.push(code`let ${plain}=0;`);
  for (const name of required) {
    const msg = code`${requiredMessage(name)}`;
    out.push(code`if(${d}[${name}]===undefined||!${own(name)}){${g.fail(path, joinPointer(sp, 'required'), 'required', msg)}}`);
  }
  for (const [name, sub] of properties) {
    const v = g.id('v');
    const check = g.node(sub, v, childPath(path, name), 'properties', depth + 1);
    out.push(
      present.has(name)
        ? code`{const ${v}=${d}[${name}];${check}}`
        : code`{const ${v}=${d}[${name}];if(${v}!==undefined&&${own(name)}){${check}}}`,
    );
  }
  return join(out, NL);
}

/** Consecutive runs of required names and properties, each weighing at most FUNCTION_BUDGET (or one property). */
function chunks(
  g: Gen,
  required: readonly string[],
  properties: ReadonlyArray<[string, SchemaNode]>,
): Array<[string[], Array<[string, SchemaNode]>]> {
  const out: Array<[string[], Array<[string, SchemaNode]>]> = [];
  for (let i = 0; i < required.length; i += FUNCTION_BUDGET) out.push([required.slice(i, i + FUNCTION_BUDGET), []]);
  let run: Array<[string, SchemaNode]> = [];
  let weight = 0;
  for (const p of properties) {
    const w = g.weight(p[1]);
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

/**
 * validate's object whose undeclared properties are constrained (a for-in loop is needed
 * anyway), with few declared names: a for-in pass first notes which declared names are own
 * (inside the loop that needs no call) and finds the undeclared ones; the checks then run in the
 * usual order, reading each value by name (a load the optimiser specialises to the object's
 * shape). A declared name the loop did not see as own (absent, non-enumerable or inherited) is
 * tested with hasOwnProperty when it has a value. objectCode's plain-object shortcut needs a
 * prototype test instead, a call that costs ~10% on the orders bench when messages differ in shape.
 */
function scannedObjectCode(g: Gen, node: SchemaNode, extra: SchemaNode, names: string[], d: Code, path: Path, depth: number): Code {
  const sp = node.pointer;
  const out: Code[] = [];
  const required = node.required ?? [];
  const properties = (node.properties ?? []).filter(([, sub]) => sub.always !== true);
  const declared = new Set(names);
  // A flag per declared name that is required or checked: 1 once the loop has seen it as own.
  const seen = new Map<string, Code>();
  for (const name of [...required, ...properties.map(([n]) => n)]) {
    if (declared.has(name) && !seen.has(name)) seen.set(name, g.id('o'));
  }
  // Required names that are not declared keep objectCode's own-property test.
  const plain = g.id('o');
  const own = (name: string): Code => {
    const flag = seen.get(name);
    return flag ? code`(${flag}===1||h(${d},${name}))` : ownTest(d, plain, name);
  };
  const flags = [...seen.values()].map((f) => code`${f}=0`);
  if (required.some((n) => !declared.has(n))) flags.push(code`${plain}=0`);

  const key = g.id('k');
  const v = g.id('v');
  const subPath = dynamicPath(path, keyToken(node, key));
  const fixed = extra.always === false;
  const extraBody = fixed ? notAllowed(g, sp, subPath) : g.node(extra, v, subPath, 'additionalProperties', depth + 1);

  const scan: Code[] = [];
  for (const [name, flag] of seen) scan.push(code`if(${key}===${name}){if(h(${d},${key}))${flag}=1;continue;}`);
  const unflagged = names.filter((n) => !seen.has(n));
  if (unflagged.length > 0)
    scan.push(
      code`if(${join(
        unflagged.map((n) => code`${key}===${n}`),
        code`||`,
      )})continue;`,
    );
  // Undeclared properties are counted here and reported after the declared ones (the usual
  // order), the first kept: most failing messages have one.
  const count = g.id('x');
  const first = g.id('x');
  flags.push(code`${count}=0`);
  if (fixed) flags.push(first);
  scan.push(undeclared(d, key, v), fixed ? code`if(${count}++===0)${first}=${key};` : code`${count}=1;`);
  if (flags.length > 0) out.push(code`let ${join(flags, code`,`)};`);
  out.push(code`for(const ${key} in ${d}){${join(scan)}}`);

  // A required name that is also checked is read once (a load that costs when shapes differ).
  const read = new Map<string, Code>();
  for (const name of required) {
    if (!properties.some(([n]) => n === name) || read.has(name)) continue;
    const pv = g.id('v');
    read.set(name, pv);
    out.push(code`const ${pv}=${d}[${name}];`);
  }
  for (const name of required) {
    const msg = code`${requiredMessage(name)}`;
    out.push(
      code`if(${read.get(name) ?? code`${d}[${name}]`}===undefined||!${own(name)}){${g.fail(path, joinPointer(sp, 'required'), 'required', msg)}}`,
    );
  }
  for (const [name, sub] of properties) {
    const pv = read.get(name) ?? g.id('v');
    const check = g.node(sub, pv, childPath(path, name), 'properties', depth + 1);
    const load = read.has(name) ? EMPTY : code`const ${pv}=${d}[${name}];`;
    out.push(code`{${load}if(${pv}!==undefined&&${own(name)}){${check}}}`);
  }
  const skip =
    names.length > 0
      ? code`if(${join(
          names.map((n) => code`${key}===${n}`),
          code`||`,
        )})continue;`
      : EMPTY;
  const again = code`for(const ${key} in ${d}){${skip}${undeclared(d, key, v)}${extraBody}}`;
  out.push(
    fixed
      ? code`if(${count}===1){${notAllowed(g, sp, dynamicPath(path, keyToken(node, first)))}}else if(${count}>1){${again}}`
      : code`if(${count}!==0){${again}}`,
  );
  return join(out, NL);
}

declare module '../schema-node.js' {
  interface SchemaNode {
    /** Each declared property's schema, in the schema's order. */
    properties?: Array<[name: string, node: SchemaNode]>;
  }
}

/** The object walk: required, properties and additionalProperties of one object. */
const objectCheck: Check<ReadonlySet<string>> = {
  block: 'object',
  // Every node: where none of the three is present, the walk is empty.
  applies: () => true,
  code: objectCode,
  prepare: (node) => new Set((node.properties ?? []).map(([name]) => name)),
  run(w, n, d, path, e, declared) {
    const sp = n.pointer;
    const o = d as Record<string, unknown>;
    for (const name of n.required ?? []) {
      if ((o[name] === undefined || !hasOwn(o, name)) && !w.fail(e, path, joinPointer(sp, 'required'), 'required', requiredMessage(name)))
        return false;
    }
    for (const [name, sub] of n.properties ?? []) {
      if (sub.always === true) continue;
      const v = o[name];
      if (v !== undefined && hasOwn(o, name) && !w.node(sub, v, e === null ? '' : `${path}/${escapePointerToken(name)}`, 'properties', e))
        return false;
    }
    const extra = n.additional;
    if (extra && extra.always !== true) {
      for (const key in o) {
        if (declared.has(key)) continue;
        const v = o[key];
        if (v === undefined || !hasOwn(o, key)) continue;
        // Paths are built only for validate: isValid stops at the first failure and names none.
        const at = e === null ? '' : `${path}/${n.hideKeys ? HIDDEN_KEY : escapeKey(key)}`;
        const ok =
          extra.always === false
            ? w.fail(e, at, joinPointer(sp, 'additionalProperties'), 'additionalProperties', NOT_ALLOWED)
            : w.node(extra, v, at, 'additionalProperties', e);
        if (!ok) return false;
      }
    }
    return true;
  },
};

export const properties: Keyword = {
  name: 'properties',
  parse(value, node, at) {
    if (!isSchemaObject(value)) {
      at.bad('properties', `must be an object mapping names to schemas, got ${describe(value)}`);
      return false;
    }
    node.properties = [];
    for (const name of Object.keys(value)) {
      const sub = value[name];
      if (typeof sub !== 'boolean' && !isSchemaObject(sub)) {
        at.bad('properties', `property ${JSON.stringify(name)} must be a schema (object or boolean), got ${describe(sub)}`);
        continue;
      }
      node.properties.push([name, at.sub(sub, joinPointer(at.pointer, 'properties', name))]);
    }
    return true;
  },
  falseSchema: 'is not allowed (its schema is false)',
  weight(node, sub) {
    let w = 0;
    for (const [, child] of node.properties ?? []) w += sub(child);
    return w;
  },
  check: objectCheck,
};
