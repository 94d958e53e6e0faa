/*
 * Random schemas that mark personal data in every way a schema can (every marker shape, at every
 * keyword that holds a schema), and random data that carries a recognisable sentinel wherever the
 * schema marks it: a string `PIIS<n>Z`, a number `-88000<n>` or `77000<n>.5`, a property name
 * `PIIK<n>Z`. No output may contain a sentinel (test/gdpr/pii-never-leaks.e2e.test.ts).
 *
 * Data is built from the schema, sometimes off it (values that fail `minimum`, `minLength`,
 * `type`, `additionalProperties: false`), so that validators have something to say about marked
 * places; the generator follows one schema of a value's set (the node, a branch of anyOf/oneOf/
 * allOf/if/then/else/not, a `$ref`'s target), as real data matches one of them.
 */

/** A small deterministic PRNG (mulberry32): cases are reproduced from their seed. */
function rngOf(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const chance = (rng: Rng, p: number): boolean => rng() < p;

/** Every shape a marker can take that masking must read as "sensitive" (all but false). */
const MARKERS: readonly unknown[] = [true, 'email', 'phone', 1, 0, {}, [], '', 'yes', null, 'true', ['email'], { category: 'x' }];

/** Property names: ordinary ones, and ones YAML or JavaScript read their own way. */
const NAMES = ['a', 'b', 'email', 'n', 'null', '1', '0x1F', 'true', '1.50', '__proto__', 'a/b', '~t', 'constructor'];

interface Model {
  marker?: unknown;
  type?: string | string[];
  minimum?: number;
  minLength?: number;
  maxLength?: number;
  required?: string[];
  props?: Array<[string, Model]>;
  additional?: Model | boolean;
  items?: Model | Model[];
  additionalItems?: Model;
  prefixItems?: Model[];
  patternProps?: Array<[string, Model]>;
  /** Schemas that apply to the same value. */
  same?: Array<{ keyword: 'anyOf' | 'oneOf' | 'allOf' | 'not' | 'if' | 'then' | 'else'; list: Model[] }>;
  /** A `$ref` to the root's definition of this index. */
  ref?: number;
  /** A schema for property names: a marker there cannot be reached (check says so). */
  propertyNames?: Model;
}

interface Root {
  model: Model;
  defs: Model[];
  /** `definitions` or `$defs`. */
  defsKeyword: 'definitions' | '$defs';
}

const isMarkedModel = (m: Model): boolean => m.marker !== undefined && m.marker !== false;

function modelOf(rng: Rng, depth: number, defs: number): Model {
  const m: Model = {};
  if (chance(rng, 0.25)) m.marker = pick(rng, MARKERS);
  else if (chance(rng, 0.05)) m.marker = false;
  const leaf = depth <= 0 || chance(rng, 0.3);
  if (leaf) {
    const kind = pick(rng, ['string', 'number', 'integer', 'any', ['string', 'null']]);
    if (kind !== 'any') m.type = kind as string | string[];
    if (kind === 'number' || kind === 'integer' || kind === 'any') m.minimum = pick(rng, [0, 10, 1.5, -3]);
    if (kind === 'string' || kind === 'any' || Array.isArray(kind)) {
      if (chance(rng, 0.6)) m.minLength = pick(rng, [3, 40]);
      if (chance(rng, 0.4)) m.maxLength = pick(rng, [2, 5]);
    }
  } else if (chance(rng, 0.65)) {
    if (chance(rng, 0.7)) m.type = 'object';
    const names = NAMES.filter(() => chance(rng, 0.25)).slice(0, 4);
    m.props = names.map((n) => [n, modelOf(rng, depth - 1, defs)]);
    if (names.length > 0 && chance(rng, 0.4)) m.required = [pick(rng, names)];
    const r = rng();
    if (r < 0.3) m.additional = modelOf(rng, depth - 1, defs);
    else if (r < 0.45) m.additional = false;
    if (chance(rng, 0.2)) m.patternProps = [[pick(rng, ['^p', '.*', '^[0-9]+$']), modelOf(rng, depth - 1, defs)]];
    if (chance(rng, 0.1)) m.propertyNames = { marker: pick(rng, MARKERS), maxLength: 20 };
  } else {
    if (chance(rng, 0.7)) m.type = 'array';
    const r = rng();
    if (r < 0.6) m.items = modelOf(rng, depth - 1, defs);
    else if (r < 0.8) {
      m.items = [modelOf(rng, depth - 1, defs), modelOf(rng, depth - 1, defs)];
      if (chance(rng, 0.5)) m.additionalItems = modelOf(rng, depth - 1, defs);
    } else m.prefixItems = [modelOf(rng, depth - 1, defs)];
  }
  if (depth > 0 && chance(rng, 0.25)) {
    const keyword = pick(rng, ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else'] as const);
    const n = keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf' ? 1 + Math.floor(rng() * 2) : 1;
    m.same = [{ keyword, list: Array.from({ length: n }, () => modelOf(rng, depth - 1, defs)) }];
  }
  if (defs > 0 && chance(rng, 0.15)) m.ref = Math.floor(rng() * defs);
  return m;
}

/** A random root: it describes an object (a message's data is one), with definitions to refer to. */
function rootOf(rng: Rng): Root {
  const ndefs = Math.floor(rng() * 3);
  const defs: Model[] = [];
  for (let i = 0; i < ndefs; i++) defs.push(modelOf(rng, 2, i)); // a definition refers only to earlier ones
  const model = modelOf(rng, 3, ndefs);
  model.type = 'object';
  model.props ??= [];
  if (model.props.length === 0) model.props.push(['email', modelOf(rng, 1, ndefs)]);
  delete model.items;
  delete model.prefixItems;
  delete model.additionalItems;
  return { model, defs, defsKeyword: chance(rng, 0.5) ? 'definitions' : '$defs' };
}

/** The JSON Schema a model stands for. Keys are defined (not assigned): `__proto__` stays a key. */
function schemaOf(root: Root): Record<string, unknown> {
  const out = toSchema(root.model, root);
  if (root.defs.length > 0) define(out, root.defsKeyword, Object.fromEntries(root.defs.map((d, i) => [`d${i}`, toSchema(d, root)])));
  return out;
}

function define(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function entries(list: Array<[string, unknown]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of list) define(o, k, v);
  return o;
}

function toSchema(m: Model, root: Root): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  if (m.marker !== undefined) s['x-gdpr-sensitive'] = m.marker;
  if (m.type !== undefined) s.type = m.type;
  if (m.minimum !== undefined) s.minimum = m.minimum;
  if (m.minLength !== undefined) s.minLength = m.minLength;
  if (m.maxLength !== undefined) s.maxLength = m.maxLength;
  if (m.required !== undefined) s.required = m.required;
  if (m.props !== undefined) s.properties = entries(m.props.map(([k, v]) => [k, toSchema(v, root)]));
  if (m.additional !== undefined) s.additionalProperties = typeof m.additional === 'boolean' ? m.additional : toSchema(m.additional, root);
  if (m.patternProps !== undefined) s.patternProperties = entries(m.patternProps.map(([k, v]) => [k, toSchema(v, root)]));
  if (m.propertyNames !== undefined) s.propertyNames = toSchema(m.propertyNames, root);
  if (m.items !== undefined) s.items = Array.isArray(m.items) ? m.items.map((x) => toSchema(x, root)) : toSchema(m.items, root);
  if (m.additionalItems !== undefined) s.additionalItems = toSchema(m.additionalItems, root);
  if (m.prefixItems !== undefined) s.prefixItems = m.prefixItems.map((x) => toSchema(x, root));
  for (const { keyword, list } of m.same ?? [])
    s[keyword] =
      keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf' ? list.map((x) => toSchema(x, root)) : toSchema(list[0]!, root);
  if (m.ref !== undefined) s.$ref = `#/${root.defsKeyword}/d${m.ref}`;
  return s;
}

/** The sentinels one case's data carries, and the makers that hand out new ones. */
class Sentinels {
  readonly all: string[] = [];
  private n = 0;
  constructor(private readonly prefix: number) {}

  private next(): number {
    return this.prefix * 1000 + this.n++;
  }
  string(): string {
    const s = `PIIS${this.next()}Z`;
    this.all.push(s);
    return s;
  }
  key(): string {
    const s = `PIIK${this.next()}Z`;
    this.all.push(s);
    return s;
  }
  number(rng: Rng): number {
    const id = this.next();
    // Integers and fractions, negative (below every minimum) and positive; each spelled uniquely.
    const v = pick(rng, [-88000000 - id, 77000000 + id + 0.5, -(66000000 + id) - 0.25]);
    this.all.push(String(v));
    return v;
  }
}

/** Data for `m`: secrets wherever `m` (or the schema it follows) marks, or below a mark (`secret`). */
/** Whether a value `m` describes is marked: `m`, a schema applying to the same value, or its `$ref`'s target is. */
function markedAt(m: Model, root: Root): boolean {
  return (
    isMarkedModel(m) || (m.same ?? []).some((g) => g.list.some(isMarkedModel)) || (m.ref !== undefined && isMarkedModel(root.defs[m.ref]!))
  );
}

function dataOf(m: Model, root: Root, rng: Rng, sx: Sentinels, secret = false, depth = 0): unknown {
  const markedHere = secret || markedAt(m, root);
  if (depth > 6) return markedHere ? sx.string() : 'ok';
  if (markedHere && chance(rng, 0.35)) {
    // A marked value as a whole, of any shape.
    const r = rng();
    if (r < 0.35) return sx.string();
    if (r < 0.6) return sx.number(rng);
    if (r < 0.8) return { [sx.key()]: sx.string(), n: sx.number(rng) };
    return [sx.string(), sx.number(rng)];
  }
  // Follow the node, or one schema of its set.
  const sources: Model[] = [
    m,
    ...(m.same ?? []).flatMap((g) => (g.keyword === 'not' ? [] : g.list)),
    ...(m.ref !== undefined ? [root.defs[m.ref]!] : []),
  ];
  const src = pick(rng, sources);
  const follows = (child: Model): unknown => dataOf(child, root, rng, sx, markedHere, depth + 1);
  if (src.props !== undefined || src.additional !== undefined || src.patternProps !== undefined) {
    const o: Record<string, unknown> = {};
    for (const [k, child] of src.props ?? []) if (chance(rng, 0.8)) define(o, k, follows(child));
    if (src.additional !== undefined && chance(rng, 0.6)) {
      const key = markedHere ? sx.key() : pick(rng, ['x', 'extra', 'p1']);
      define(o, key, typeof src.additional === 'boolean' ? (markedHere ? sx.string() : 'v') : follows(src.additional));
    }
    for (const [, child] of src.patternProps ?? []) if (chance(rng, 0.6)) define(o, markedHere ? sx.key() : 'p2', follows(child));
    return o;
  }
  if (src.items !== undefined || src.prefixItems !== undefined) {
    const list = Array.isArray(src.items) ? src.items : (src.prefixItems ?? []);
    const out: unknown[] = list.map(follows);
    const rest = Array.isArray(src.items) ? src.additionalItems : src.items;
    if (rest !== undefined && !Array.isArray(rest)) for (let i = Math.floor(rng() * 3); i > 0; i--) out.push(follows(rest));
    return out;
  }
  // A leaf: often off its bounds, so that validators speak of it.
  const wantsNumber =
    src.type === 'number' || src.type === 'integer' || (src.type === undefined && src.minimum !== undefined && chance(rng, 0.6));
  if (markedHere) return wantsNumber || chance(rng, 0.2) ? sx.number(rng) : sx.string();
  if (wantsNumber) return pick(rng, [-5, 3, 12, 2.5]);
  return pick(rng, ['ok', 'longer text', '', 'ab']);
}

/** One case: a schema (as a model and as JSON Schema), data that carries its sentinels, and them. */
export interface PiiCase {
  root: Root;
  schema: Record<string, unknown>;
  data: Array<Record<string, unknown>>;
  sentinels: string[];
}

export function piiCase(seed: number, id: number): PiiCase {
  const rng = rngOf(seed);
  const root = rootOf(rng);
  const sx = new Sentinels(id + 1);
  const data: Array<Record<string, unknown>> = [];
  const rootMarked = markedAt(root.model, root);
  for (let i = 0; i < 3; i++) {
    const d = dataOf(root.model, root, rng, sx);
    // A message's data is an object: under a marked root, anything else is wrapped in one (all of
    // it is personal there); else it is left out (its secrets, made for the root, sit nowhere).
    if (typeof d === 'object' && d !== null && !Array.isArray(d)) data.push(d as Record<string, unknown>);
    else if (rootMarked) data.push({ [sx.key()]: d });
  }
  return { root, schema: schemaOf(root), data, sentinels: sx.all };
}

/**
 * A schema as YAML flow text whose simple keys are written plain (`null: …`, `1: …`, `0x1F: …`,
 * `true: …`): YAML reads them as null, numbers and booleans unless their source text is kept.
 * Values are JSON, which YAML's flow style reads as it is.
 */
export function yamlFlow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(yamlFlow).join(', ')}]`;
  if (typeof v === 'object' && v !== null) {
    const parts = Object.keys(v).map(
      (k) => `${/^[A-Za-z0-9_.~-]+$/.test(k) && k !== '-' ? k : JSON.stringify(k)}: ${yamlFlow((v as Record<string, unknown>)[k])}`,
    );
    return `{${parts.join(', ')}}`;
  }
  return JSON.stringify(v);
}

/** Schema and datum pairs of `n` cases (seeds from `seed`), for the validators' differential tests. */
export function markedPairs(n: number, seed: number): Array<{ what: string; schema: unknown; data: unknown; text: string }> {
  const rng = rngOf(seed);
  const out: Array<{ what: string; schema: unknown; data: unknown; text: string }> = [];
  for (let i = 0; i < n; i++) {
    const c = piiCase(Math.floor(rng() * 2 ** 31), i);
    for (const d of c.data)
      out.push({ what: `marked #${i}: ${JSON.stringify({ schema: c.schema, d })}`, schema: c.schema, data: d, text: JSON.stringify(d) });
  }
  return out;
}
