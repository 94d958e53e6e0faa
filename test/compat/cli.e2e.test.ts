import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextUrn } from '../../src/compat/index.js';
import { compareSchemas, type Change } from '../../src/compat/index.js';
import { bq, expectExit, expectOneLineError, inFormats, removeTempTrees, ROOT, tempTree, type CliResult } from '../helpers/cli.js';

// `bqschema compat` end to end: two schema files (test/fixtures/compat), and the registry against a
// git ref in temporary repositories.

const FIX = 'test/fixtures/compat';
const V1 = `${FIX}/order-v1.json`;
const V2 = `${FIX}/order-v2.json`;
const V2_YAML = `${FIX}/order-v2.yaml`;
const EXTENDED = `${FIX}/order-v1-extended.json`;

interface Report {
  compatible: boolean;
  compatibility: string;
  mode: string;
  changes: Change[];
  remedy?: string;
}
interface UrnEntry {
  urn: string;
  status: string;
  breaking: boolean;
  changes: Change[];
  remedy?: string;
  deprecated?: boolean;
  rollout?: { order: string; sentence: string };
}
interface RegistryReport {
  compatible: boolean;
  compatibility: string;
  mode: string;
  against: { ref: string; commit: string; registry: string; found: boolean; foundBy?: string };
  summary: Record<string, number>;
  urns: UrnEntry[];
}

const json = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;
const lines = (r: CliResult): string[] => r.stdout.trimEnd().split('\n');

afterAll(removeTempTrees);

const v1ToV2 = inFormats(bq, ['compat', V1, V2], ['json', 'github', 'markdown']);
const v1ToExtended = inFormats(bq, ['compat', V1, EXTENDED], ['json']);

describe.concurrent('compat OLD NEW: verdicts and modes', () => {
  it('backward: removing a property, lowering maxLength, dropping an enum value and requiring a field break (exit 1)', async () => {
    const r = await v1ToV2('text');
    expectExit(r, 1);
    expect(lines(r)).toEqual([
      'breaking    /properties/coupon  property "coupon" removed  [property-removed]',
      // Removing a property from an open model breaks by policy: old data still validates, so the
      // witness shown is the other direction's (what a consumer on the old schema rejects).
      `            no payload shows it: policy (a break by the registry's rules, not by data); the other way (valid under new, rejected by old): {"order_id":1,"amount":0,"coupon":null}`,
      'breaking    /properties/note/maxLength  maxLength lowered from 200 to 100  [max-length-lowered]',
      // A long payload is cut to 80 characters with an ellipsis (JSON output has it whole).
      // Shown around the place that breaks: the note, its siblings elided.
      `            witness (valid under old, rejected by new): {…,"note":"${'a'.repeat(78)}…}`,
      'breaking    /properties/status/enum  enum value "shipped" removed  [enum-value-removed]',
      '            witness (valid under old, rejected by new): {"order_id":1,"amount":0,"status":"shipped"}',
      'breaking    /required  property "amount" is now required  [required-added]',
      '            witness (valid under old, rejected by new): {"order_id":1}',
      // Compatible by the policy only: old data may carry "amount" already, with a value the new schema rejects.
      'compatible  /properties/amount  property "amount" added (a policy choice: data may already carry "amount" with a value the new schema rejects)  [property-added]',
      '            affected by this policy choice (valid under old, rejected by new): {"order_id":1,"amount":null}',
      'compatible  /properties/order_id/minimum  minimum lowered from 1 to 0  [minimum-lowered]',
      '→ mint a new URN for the new schema (the URN with .v2 appended, or the next .vN) instead of changing the registered one',
      'rollout: Mint a new URN: no order is safe, since each schema rejects data valid under the other.',
      '',
      `FAILED: 4 breaking change(s) from ${V1} to ${V2}, 2 compatible (backward)`,
    ]);
  });

  it('backward: widening only is compatible (exit 0), with the changes listed and no remedy', async () => {
    const r = await v1ToExtended('text');
    expectExit(r, 0);
    expect(r.stdout).toMatch(
      /^compatible {2}\/properties\/gift {2}property "gift" added \(a policy choice: data may already carry "gift" with a value the new schema rejects\) {2}\[property-added\]$/m,
    );
    expect(r.stdout).toMatch(/^ {12}affected by this policy choice \(valid under old, rejected by new\): \{"order_id":1,"gift":null\}$/m);
    // The rollout does not promise more than that payload allows.
    expect(r.stdout).toMatch(
      /^rollout: Deploy consumers first: the new schema accepts what producers send today, while the old schema may reject what new producers send\. Except old data a policy choice lets through, which the new schema rejects all the same\.$/m,
    );
    expect(r.stdout).toMatch(/^compatible {2}\/properties\/note\/maxLength {2}maxLength raised from 200 to 500 {2}\[max-length-raised\]$/m);
    expect(r.stdout).not.toMatch(/mint a new URN/);
    expect(lines(r).at(-1)).toBe(`OK: no breaking change from ${V1} to ${EXTENDED}: 3 compatible change(s) (backward)`);
  });

  it('forward: the same widening breaks (new data must stay valid under the old schema)', async () => {
    const r = await bq(['compat', V1, EXTENDED, '--mode', 'forward']);
    expectExit(r, 1);
    expect(r.stdout).toMatch(/^breaking {4}\/properties\/gift {2}property "gift" added {2}\[property-added\]$/m);
    expect(r.stdout).toMatch(/^breaking {4}\/properties\/status\/enum {2}enum value "returned" added {2}\[enum-value-added\]$/m);
    expect(lines(r).at(-1)).toBe(`FAILED: 3 breaking change(s) from ${V1} to ${EXTENDED}, 0 compatible (forward)`);
  });

  it('forward: narrowing alone does not break, but lowering a minimum, adding a property and removing a constrained one from an open model do', async () => {
    const r = await bq(['compat', V1, V2, '-m', 'forward', '--format', 'json']);
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as Report;
    const breaking = doc.changes.filter((c) => c.breaking).map((c) => c.rule);
    expect(breaking).toEqual(['property-added', 'property-removed', 'minimum-lowered']);
    // "coupon" was a string: new producers may send anything under it, which old consumers reject.
    const removed = doc.changes.find((c) => c.rule === 'property-removed')!;
    expect(removed.witness).toEqual({ payload: { order_id: 1, amount: 0, coupon: null }, validUnder: 'new' });
    expect(doc.changes.find((c) => c.rule === 'required-added')?.breaking).toBe(false);
  });

  it('full: every change that breaks either way breaks', async () => {
    const r = await bq(['compat', V1, V2, '-m', 'full', '-f', 'json']);
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as Report;
    expect(doc.compatibility).toBe('full');
    // The deprecated first name of the field, the same value.
    expect(doc.mode).toBe('full');
    expect(doc.changes.map((c) => c.breaking)).toEqual(doc.changes.map(() => true));
    const widening = await bq(['compat', V1, EXTENDED, '-m', 'full']);
    expectExit(widening, 1);
  });

  it('an identical schema is compatible with no change (exit 0)', async () => {
    const r = await bq(['compat', V1, V1, '-m', 'full']);
    expectExit(r, 0);
    expect(r.stdout).toBe(`OK: no breaking change from ${V1} to ${V1}: 0 compatible change(s) (full)\n`);
  });
});

describe.concurrent('compat OLD NEW: formats', () => {
  it("json: { compatible, mode, changes, remedy } with the engine's changes, breaking ones first", async () => {
    const r = await v1ToV2('json');
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as Report;
    const engine = compareSchemas(json(V1), json(V2), { level: 'backward' });
    expect(doc.compatible).toBe(false);
    expect(doc.mode).toBe('backward');
    // JSON names the engine's `path` schemaPath, as validate names a violation's (docs/output.md).
    const asJson = ({ path, ...rest }: Change): object => ({ schemaPath: path, ...rest });
    expect(doc.changes).toEqual([...engine.changes.filter((c) => c.breaking), ...engine.changes.filter((c) => !c.breaking)].map(asJson));
    expect(doc.remedy).toMatch(/^mint a new URN for the new schema/);
    const ok = JSON.parse((await v1ToExtended('json')).stdout) as Report;
    expect(ok.compatible).toBe(true);
    expect(ok).not.toHaveProperty('remedy');
  });

  it('github: ::error per breaking change at the keyword in the NEW file, ::notice for the rest (JSON)', async () => {
    const r = await v1ToV2('github');
    expectExit(r, 1);
    // Positions counted by hand in order-v2.json: the removed "coupon" points at the "properties" object.
    const at = (rule: string): string | undefined => lines(r).find((l) => l.includes(`(${rule})::`));
    expect(at('property-removed')).toMatch(
      new RegExp(
        `^::error file=${V2},line=4,col=17,title=breaking change \\(property-removed\\)::/properties/coupon: property "coupon" removed\\. no payload shows it: policy .*; the other way \\(valid under new, rejected by old\\): \\{.*\\}\\. Remedy: mint a new URN`,
      ),
    );
    expect(at('required-added')).toContain(
      '::/required: property "amount" is now required. witness (valid under old, rejected by new): {"order_id":1}. Remedy:',
    );
    expect(lines(r)).toContain(
      `::notice file=${V2},title=rollout order::Mint a new URN: no order is safe, since each schema rejects data valid under the other.`,
    );
    expect(at('max-length-lowered')).toMatch(/^::error file=[^,]+,line=7,col=46,/);
    expect(at('enum-value-removed')).toMatch(/^::error file=[^,]+,line=6,col=43,/);
    expect(at('required-added')).toMatch(/^::error file=[^,]+,line=3,col=15,/);
    expect(at('property-added')).toMatch(
      /^::notice file=[^,]+,line=8,col=15,title=compatible change \(property-added\)::\/properties\/amount: property "amount" added \(a policy choice: data may already carry "amount" with a value the new schema rejects\)\. affected by this policy choice \(valid under old, rejected by new\): \{"order_id":1,"amount":null\}$/,
    );
    expect(at('minimum-lowered')).toMatch(/^::notice file=[^,]+,line=5,col=49,/);
    expect(lines(r).at(-1)).toBe(`FAILED: 4 breaking change(s) from ${V1} to ${V2}, 2 compatible (backward)`);
  });

  it('github: positions in a YAML new file', async () => {
    const r = await bq(['compat', V1, V2_YAML, '-f', 'github']);
    expectExit(r, 1);
    const at = (rule: string): string | undefined => lines(r).find((l) => l.includes(`(${rule})::`));
    expect(at('property-removed')).toMatch(/^::error file=[^,]+order-v2\.yaml,line=4,col=3,/);
    expect(at('max-length-lowered')).toMatch(/,line=10,col=16,/);
    expect(at('enum-value-removed')).toMatch(/,line=7,col=11,/);
    expect(at('required-added')).toMatch(/,line=2,col=11,/);
    expect(at('property-added')).toMatch(/^::notice [^:]+,line=12,col=5,/);
    expect(at('minimum-lowered')).toMatch(/,line=4,col=39,/);
  });

  it('markdown: a table, breaking rows first, then the remedy', async () => {
    const r = await v1ToV2('markdown');
    expectExit(r, 1);
    const out = lines(r);
    expect(out[0]).toBe(`### bqschema compat: 4 breaking change(s) from \`${V1}\` to \`${V2}\``);
    const header = out.indexOf('| status | path | change |');
    expect(out[header + 1]).toBe('| --- | --- | --- |');
    const rows = out.slice(header + 2, header + 8);
    expect(rows.map((row) => row.split(' | ')[0])).toEqual([
      '| **breaking**',
      '| **breaking**',
      '| **breaking**',
      '| **breaking**',
      '| compatible',
      '| compatible',
    ]);
    expect(rows[0]).toBe(
      '| **breaking** | `/properties/coupon` | property "coupon" removed (`property-removed`)<br>' +
        'no payload shows it: policy (a break by the registry\'s rules, not by data); the other way (valid under new, rejected by old): `{"order_id":1,"amount":0,"coupon":null}` |',
    );
    expect(rows[3]).toBe(
      '| **breaking** | `/required` | property "amount" is now required (`required-added`)<br>witness (valid under old, rejected by new): `{"order_id":1}` |',
    );
    expect(r.stdout).toMatch(/^\*\*Rollout:\*\* Mint a new URN: no order is safe/m);
    expect(r.stdout).toMatch(/^\*\*Remedy:\*\* mint a new URN for the new schema \(the URN with `\.v2` appended/m);
  });
});

/** A schema that cannot be compared fails the gate (exit 1) as a finding in the output, never `compatible`. */
async function expectProblem(args: string[], pattern: RegExp): Promise<void> {
  const r = await bq(args);
  expectExit(r, 1);
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(pattern);
  expect(r.stdout).toMatch(/^FAILED: 0 breaking change\(s\), 1 schema problem\(s\)/m);
}

describe.concurrent('compat OLD NEW: schemas that cannot be compared (exit 1) and usage errors (exit 2)', () => {
  it('a missing file', async () => {
    await expectProblem(['compat', `${FIX}/nope.json`, V2], /^error {7}schema file not found: test\/fixtures\/compat\/nope\.json$/m);
  });
  it('a malformed file, at file:line:col', async () => {
    await expectProblem(
      ['compat', V1, `${FIX}/malformed.json`],
      /^error {7}schema file is malformed: test\/fixtures\/compat\/malformed\.json:5:3: invalid JSON/m,
    );
  });
  it('a document that is not a schema', async () => {
    await expectProblem(['compat', `${FIX}/array.json`, V1], /array\.json: a schema must be an object or a boolean, got an array$/m);
  });
  it('OLD without NEW, nothing at all, files and --against together, an unknown mode', async () => {
    expectOneLineError(await bq(['compat', V1]), /needs the new schema file too/);
    expectOneLineError(await bq(['compat']), /needs two schema files \(OLD NEW\), or --against REF/);
    expectOneLineError(await bq(['compat', V1, V2, '--against', 'HEAD']), /either two schema files .* or --against REF/);
    expectExit(await bq(['compat', V1, V2, '--mode', 'sideways']), 2);
  });
});

describe('nextUrn', () => {
  it('appends .v2, or counts on from a trailing .vN, skipping names already registered', () => {
    expect(nextUrn('urn:babel:orders:created', new Set())).toBe('urn:babel:orders:created.v2');
    expect(nextUrn('urn:babel:orders:created.v2', new Set())).toBe('urn:babel:orders:created.v3');
    expect(nextUrn('urn:babel:orders:created.v9', new Set())).toBe('urn:babel:orders:created.v10');
    expect(nextUrn('urn:a', new Set(['urn:a.v2', 'urn:a.v3']))).toBe('urn:a.v4');
    expect(nextUrn('urn:a.version', new Set())).toBe('urn:a.version.v2');
    expect(nextUrn('urn:a.v99999999999999999999', new Set())).toBe('urn:a.v100000000000000000000');
  });
});

// ---- the registry against a git ref --------------------------------------------------------------

type Files = Record<string, string | null>;

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Writes files (null deletes one). */
function apply(dir: string, files: Files): void {
  for (const [name, contents] of Object.entries(files)) {
    const full = join(dir, name);
    if (contents === null) rmSync(full);
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, contents);
    }
  }
}

/**
 * A repository whose `main` holds `base`; `change` is committed on branch `feature` (checked out),
 * or, with `commit: false`, left in main's working tree.
 */
function repo(base: Files, change: Files, { commit = true } = {}): string {
  const dir = tempTree({});
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Compat Test');
  git(dir, 'config', 'user.email', 'compat@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  apply(dir, base);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  apply(dir, change);
  if (commit) {
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'change');
  }
  return dir;
}

const manifest = (entries: object[]): string =>
  `{\n  "schemas": [\n${entries.map((e) => `    ${JSON.stringify(e).replace(/^\{/, '{ ').replace(/\}$/, ' }').replace(/,"/g, ', "').replace(/":/g, '": ')}`).join(',\n')}\n  ]\n}\n`;

const ORDERS = 'urn:babel:orders:created.v2';
const USERS = 'urn:babel:users:registered';
const PAYMENTS = 'urn:babel:payments:captured';
const SHIPPING = 'urn:babel:shipping:dispatched';
const LEGACY = 'urn:babel:legacy:ping';
const STOCK = 'urn:babel:stock:moved';
const STATIC = 'urn:babel:static:thing';
const REFUNDS = 'urn:babel:refunds:issued';

const ENTRY = {
  orders: { urn: ORDERS, schema: 'schemas/orders-created.json', status: 'active' },
  users: { urn: USERS, schema: 'schemas/users-registered.yaml' },
  payments: { urn: PAYMENTS, schema: 'schemas/payments-captured.json' },
  static: { urn: STATIC, schema: 'schemas/static.jsonc' },
};

const BASE: Files = {
  'registry.json': manifest([
    ENTRY.orders,
    ENTRY.users,
    ENTRY.payments,
    { urn: SHIPPING, schema: 'schemas/shipping-dispatched.json' },
    { urn: LEGACY, schema: 'schemas/legacy-ping.json', status: 'deprecated' },
    { urn: STOCK, schema: 'schemas/stock-moved.json' },
    ENTRY.static,
  ]),
  'schemas/orders-created.json':
    '{\n  "type": "object",\n  "required": ["order_id"],\n  "properties": {\n    "order_id": { "type": "integer" },\n    "amount": { "type": "number" }\n  }\n}\n',
  'schemas/users-registered.yaml':
    'type: object\nrequired: [user_id]\nproperties:\n  user_id:\n    type: integer\n  email:\n    type: string\n',
  'schemas/payments-captured.json': '{\n  "type": "object",\n  "properties": {\n    "payment_id": { "type": "string" }\n  }\n}\n',
  'schemas/shipping-dispatched.json': '{ "type": "object" }\n',
  'schemas/legacy-ping.json': '{ "type": "object" }\n',
  'schemas/stock-moved.json':
    '{"type":"object","required":["sku"],"properties":{"sku":{"type":"string","maxLength":64},"qty":{"type":"integer"}}}\n',
  'schemas/static.jsonc': '{\n  // unchanged\n  "type": "object",\n}\n',
};

// Line 2 holds the "schemas" array (col 14); line 8 the added URN's value (col 14).
const CHANGE: Files = {
  'registry.json': manifest([
    ENTRY.orders,
    ENTRY.users,
    ENTRY.payments,
    { urn: STOCK, schema: 'schemas/stock/moved.yaml' },
    ENTRY.static,
    { urn: REFUNDS, schema: 'schemas/refunds-issued.json' },
  ]),
  // /required: line 3, col 15.
  'schemas/orders-created.json':
    '{\n  "type": "object",\n  "required": ["order_id", "amount"],\n  "properties": {\n    "order_id": { "type": "integer" },\n    "amount": { "type": "number" }\n  }\n}\n',
  // /properties/user_id/type: line 5, col 11.
  'schemas/users-registered.yaml':
    'type: object\nrequired: [user_id]\nproperties:\n  user_id:\n    type: string\n  email:\n    type: string\n',
  // /properties/currency: line 5, col 17.
  'schemas/payments-captured.json':
    '{\n  "type": "object",\n  "properties": {\n    "payment_id": { "type": "string" },\n    "currency": { "type": "string" }\n  }\n}\n',
  'schemas/shipping-dispatched.json': null,
  'schemas/legacy-ping.json': null,
  // The same document, moved, in another format and key order.
  'schemas/stock-moved.json': null,
  'schemas/stock/moved.yaml':
    'properties:\n  qty: { type: integer }\n  sku: { maxLength: 64, type: string }\nrequired: [sku]\ntype: object\n',
  'schemas/refunds-issued.json': '{ "type": "object", "required": ["refund_id"] }\n',
};

describe('compat --against: a registry with every kind of change', () => {
  let dir: string;
  const runs = new Map<string, Promise<CliResult>>();
  /** Each argument list runs once; the tests share the result. */
  const run = (...args: string[]): Promise<CliResult> => {
    const key = args.join('\u0000');
    if (!runs.has(key)) runs.set(key, bq(['compat', '--against', 'main', ...args], { cwd: dir }));
    return runs.get(key)!;
  };
  const report = async (...args: string[]): Promise<RegistryReport> => {
    const r = await run('--format', 'json', ...args);
    expectExit(r, 1);
    return JSON.parse(r.stdout) as RegistryReport;
  };
  const entry = async (urn: string, ...args: string[]): Promise<UrnEntry | undefined> =>
    (await report(...args)).urns.find((u) => u.urn === urn);

  beforeAll(() => {
    dir = repo(BASE, CHANGE);
  });

  it('json: one entry per URN of either side, with its status', async () => {
    const doc = await report();
    expect(doc.compatible).toBe(false);
    expect(doc.compatibility).toBe('backward');
    expect(doc.mode).toBe('backward');
    expect(doc.against).toEqual({
      ref: 'main',
      commit: git(dir, 'rev-parse', 'main'),
      registry: 'registry.json',
      found: true,
      foundBy: 'path',
    });
    expect(Object.fromEntries(doc.urns.map((u) => [u.urn, u.status]))).toEqual({
      [ORDERS]: 'breaking',
      [USERS]: 'breaking',
      [SHIPPING]: 'removed',
      [LEGACY]: 'removed',
      [PAYMENTS]: 'compatible',
      [REFUNDS]: 'added',
      [STOCK]: 'unchanged',
      [STATIC]: 'unchanged',
    });
    expect(doc.summary).toEqual({ urns: 8, breaking: 2, compatible: 1, added: 1, removed: 2, unchanged: 2, errors: 0 });
    // Breaking entries come first.
    expect(doc.urns.slice(0, 3).map((u) => u.breaking)).toEqual([true, true, true]);
    expect(doc.urns.slice(3).some((u) => u.breaking)).toBe(false);
  });

  it('breaking URNs carry their changes and a remedy naming the next URN: .v2 → .v3, none → .v2', async () => {
    const orders = await entry(ORDERS);
    // Each breaking change carries its subject and a witness: valid under the old schema, rejected by the new.
    expect(orders?.changes).toEqual([
      {
        rule: 'required-added',
        breaking: true,
        schemaPath: '/required',
        message: 'property "amount" is now required',
        subject: 'amount',
        witness: { payload: { order_id: 0 }, validUnder: 'old' },
      },
    ]);
    expect(orders?.rollout).toEqual({ order: 'producers-first', sentence: expect.stringMatching(/^Deploy producers first: /) });
    expect(orders?.remedy).toBe(`mint a new URN for the new schema, e.g. ${ORDERS.replace(/\.v2$/, '.v3')}, and leave ${ORDERS} as it is`);
    const users = await entry(USERS);
    expect(users?.changes.find((c) => c.breaking)).toMatchObject({ rule: 'type-narrowed', schemaPath: '/properties/user_id/type' });
    expect(users?.remedy).toContain(`e.g. ${USERS}.v2,`);
  });

  it('a removed URN breaks unless it was deprecated; only the breaking one has a remedy', async () => {
    expect(await entry(SHIPPING)).toEqual({
      urn: SHIPPING,
      status: 'removed',
      breaking: true,
      changes: [],
      remedy: `keep ${SHIPPING} registered with "status": "deprecated" until its consumers have moved off it, then remove it`,
    });
    expect(await entry(LEGACY)).toEqual({ urn: LEGACY, status: 'removed', breaking: false, changes: [], deprecated: true });
  });

  it('compatible and added URNs have no remedy; a moved schema with the same document is unchanged', async () => {
    const payments = await entry(PAYMENTS);
    expect(payments).toMatchObject({
      breaking: false,
      changes: [{ rule: 'property-added', breaking: false, schemaPath: '/properties/currency' }],
    });
    expect(payments).not.toHaveProperty('remedy');
    expect(await entry(REFUNDS)).toEqual({ urn: REFUNDS, status: 'added', breaking: false, changes: [] });
    expect(await entry(STOCK)).toEqual({ urn: STOCK, status: 'unchanged', breaking: false, changes: [] });
  });

  it('text: each changed URN with its changes and remedy, unchanged ones only counted (exit 1)', async () => {
    const r = await run();
    expectExit(r, 1);
    const commit = git(dir, 'rev-parse', 'main').slice(0, 12);
    expect(r.stdout).toContain(
      [
        `✗ ${ORDERS}  breaking  schemas/orders-created.json`,
        '    breaking    /required  property "amount" is now required  [required-added]',
        '                witness (valid under old, rejected by new): {"order_id":0}',
        `    → mint a new URN for the new schema, e.g. urn:babel:orders:created.v3, and leave ${ORDERS} as it is`,
        '    rollout: Deploy producers first: consumers on the old schema accept what new producers send, while the new schema may reject data already in flight.',
      ].join('\n'),
    );
    expect(r.stdout).toMatch(new RegExp(`^✗ ${SHIPPING} {2}removed\\n {4}→ keep ${SHIPPING} registered with "status": "deprecated"`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^- ${LEGACY} {2}removed \\(deprecated\\)$`, 'm'));
    expect(r.stdout).toMatch(
      new RegExp(`^✓ ${PAYMENTS} {2}compatible {2}schemas/payments-captured\\.json\\n {4}compatible {2}/properties/currency`, 'm'),
    );
    expect(r.stdout).toMatch(new RegExp(`^\\+ ${REFUNDS} {2}added {2}schemas/refunds-issued\\.json$`, 'm'));
    expect(r.stdout).not.toContain(STOCK);
    expect(lines(r).at(-1)).toBe(
      `FAILED: 3 URN(s) fail against main (${commit}): 2 breaking, 1 compatible, 1 added, 2 removed, 2 unchanged (backward)`,
    );
  });

  it('github: changes at their keyword in the new schema file (JSON and YAML), URN removals and additions at the manifest', async () => {
    const r = await run('--format', 'github');
    expectExit(r, 1);
    const out = lines(r);
    expect(out).toContain(
      `::error file=schemas/orders-created.json,line=3,col=15,title=breaking change (required-added)::${ORDERS}: /required: property "amount" is now required. ` +
        'witness (valid under old, rejected by new): {"order_id":0}. ' +
        `Remedy: mint a new URN for the new schema, e.g. urn:babel:orders:created.v3, and leave ${ORDERS} as it is`,
    );
    expect(out.find((l) => l.includes('(type-narrowed)'))).toMatch(/^::error file=schemas\/users-registered\.yaml,line=5,col=11,/);
    expect(out).toContain(
      `::notice file=schemas/payments-captured.json,line=5,col=17,title=compatible change (property-added)::${PAYMENTS}: /properties/currency: property "currency" added ` +
        '(a policy choice: data may already carry "currency" with a value the new schema rejects). affected by this policy choice (valid under old, rejected by new): ' +
        '{"currency":null}',
    );
    expect(out.find((l) => l.includes(`::${SHIPPING}: removed`))).toMatch(
      /^::error file=registry\.json,line=2,col=14,title=URN removed::.*\. Remedy: keep /,
    );
    expect(out).toContain(`::notice file=registry.json,line=2,col=14,title=URN removed::${LEGACY}: removed (it was deprecated)`);
    expect(out).toContain(`::notice file=registry.json,line=8,col=14,title=URN added::${REFUNDS}: added`);
    expect(out.some((l) => l.includes(STOCK) || l.includes(STATIC))).toBe(false);
    expect(out.at(-1)).toMatch(/^FAILED: 3 URN\(s\) fail against main /);
  });

  it('markdown: a URN | status | changes table, breaking rows first, with the remedy', async () => {
    const r = await run('--format', 'markdown');
    expectExit(r, 1);
    const out = lines(r);
    expect(out[0]).toBe('### bqschema compat: 3 URN(s) fail against `main`');
    const header = out.indexOf('| URN | status | changes |');
    expect(header).toBeGreaterThan(0);
    const rows = out.slice(header + 2).filter((l) => l.startsWith('| '));
    expect(rows.map((row) => row.split(' | ')[0]!.slice(2))).toEqual([
      `\`${ORDERS}\``,
      `\`${USERS}\``,
      `\`${SHIPPING}\``,
      `\`${PAYMENTS}\``,
      `\`${REFUNDS}\``,
      `\`${LEGACY}\``,
    ]);
    expect(rows[0]).toBe(
      `| \`${ORDERS}\` | **✗ breaking** | **breaking** \`/required\` property "amount" is now required (\`required-added\`)` +
        '<br>witness (valid under old, rejected by new): `{"order_id":0}`' +
        `<br>**Remedy:** mint a new URN for the new schema, e.g. \`urn:babel:orders:created.v3\`, and leave \`${ORDERS}\` as it is` +
        '<br>**Rollout:** Deploy producers first: consumers on the old schema accept what new producers send, while the new schema may reject data already in flight. |',
    );
    expect(rows[5]).toBe(`| \`${LEGACY}\` | - removed (deprecated) |  |`);
  });

  it('--mode forward: an added optional property breaks, a newly required one does not', async () => {
    expect(await entry(PAYMENTS, '--mode', 'forward')).toMatchObject({
      status: 'breaking',
      remedy: expect.stringContaining(`${PAYMENTS}.v2`),
    });
    expect(await entry(ORDERS, '--mode', 'forward')).toMatchObject({ status: 'compatible', breaking: false });
  });

  it('against the branch itself everything is unchanged (exit 0)', async () => {
    const r = await bq(['compat', '--against', 'feature'], { cwd: dir });
    expectExit(r, 0);
    expect(lines(r)).toEqual([
      expect.stringMatching(
        /^OK: no breaking change against feature \([0-9a-f]{12}\): 0 breaking, 0 compatible, 0 added, 0 removed, 6 unchanged \(backward\)$/,
      ),
    ]);
  });

  it('an unknown ref is exit 2 naming it', async () => {
    expectOneLineError(await bq(['compat', '--against', 'no-such-branch'], { cwd: dir }), /^bqschema: unknown git ref: no-such-branch /);
  });

  it('a shallow clone works once the ref is fetched, with the same report', async () => {
    const shallow = join(tempTree({}), 'clone');
    git(dirname(shallow), 'clone', '-q', '--depth', '1', '--branch', 'feature', `file://${dir}`, shallow);
    expect(git(shallow, 'rev-parse', '--is-shallow-repository')).toBe('true');
    expectOneLineError(await bq(['compat', '--against', 'origin/main'], { cwd: shallow }), /unknown git ref: origin\/main/);
    git(shallow, 'fetch', '-q', '--depth', '1', 'origin', 'main:refs/remotes/origin/main');
    const r = await bq(['compat', '--against', 'origin/main', '-f', 'json'], { cwd: shallow });
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as RegistryReport;
    expect(doc.urns).toEqual((await report()).urns);
  });
});

describe.concurrent('compat --against: other repositories', () => {
  it('working-tree changes against HEAD, compatible only: exit 0', async () => {
    const dir = repo(BASE, { 'schemas/payments-captured.json': CHANGE['schemas/payments-captured.json']! }, { commit: false });
    const r = await bq(['compat', '--registry', 'registry.json', '--against', 'HEAD'], { cwd: dir });
    expectExit(r, 0);
    expect(r.stdout).toMatch(new RegExp(`^✓ ${PAYMENTS} {2}compatible`, 'm'));
    expect(lines(r).at(-1)).toMatch(
      /^OK: no breaking change against HEAD \([0-9a-f]{12}\): 0 breaking, 1 compatible, 0 added, 0 removed, 6 unchanged \(backward\)$/,
    );
  });

  it('a registry absent at the ref: an error (exit 2), unless --allow-new-registry, which adds every URN and says so', async () => {
    const dir = repo(
      { 'README.md': '# no registry yet\n' },
      { 'registry.json': BASE['registry.json']!, ...Object.fromEntries(Object.entries(BASE).filter(([k]) => k.startsWith('schemas/'))) },
    );
    expectOneLineError(
      await bq(['compat', '--against', 'main'], { cwd: dir }),
      /^bqschema: no registry found at main \([0-9a-f]{12}\) for registry\.json: .*pass --allow-new-registry if this change creates the registry$/,
    );
    const r = await bq(['compat', '--against', 'main', '--allow-new-registry'], { cwd: dir });
    expectExit(r, 0);
    expect(lines(r)[0]).toMatch(
      /^no registry at main for registry\.json \(.*\): a new registry, every URN is added \(--allow-new-registry\)$/,
    );
    expect(r.stdout.match(/^\+ urn:\S+ {2}added/gm)).toHaveLength(7);
    const doc = JSON.parse(
      (await bq(['compat', '--against', 'main', '--allow-new-registry', '-f', 'json'], { cwd: dir })).stdout,
    ) as RegistryReport;
    expect(doc.against.found).toBe(false);
    expect(doc.urns.every((u) => u.status === 'added')).toBe(true);
  });

  it('a registry in a subdirectory: its path in the ref is relative to the top level, from any cwd', async () => {
    const dir = repo(
      { 'svc/reg/registry.yaml': 'schemas:\n  - urn: urn:x\n    schema: s/x.json\n', 'svc/reg/s/x.json': '{ "type": "object" }\n' },
      { 'svc/reg/s/x.json': '{ "type": "object", "required": ["id"] }\n' },
    );
    const r = await bq(['compat', '--registry', join(dir, 'svc/reg/registry.yaml'), '--against', 'main', '-f', 'json'], { cwd: ROOT });
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as RegistryReport;
    expect(doc.against.registry).toBe('svc/reg/registry.yaml');
    expect(doc.urns).toEqual([expect.objectContaining({ urn: 'urn:x', status: 'breaking', remedy: expect.stringContaining('urn:x.v2') })]);
  });

  it('a schema outside the registry directory at the ref is refused unless --allow-outside-paths', async () => {
    const dir = repo(
      { 'reg/registry.json': manifest([{ urn: 'urn:o', schema: '../shared/o.json' }]), 'shared/o.json': '{ "type": "object" }\n' },
      { 'reg/registry.json': manifest([{ urn: 'urn:o', schema: 'o.json' }]), 'reg/o.json': '{ "type": "object" }\n' },
    );
    const refused = await bq(['compat', '-r', 'reg/registry.json', '--against', 'main'], { cwd: dir });
    expectExit(refused, 1);
    expect(refused.stdout).toMatch(/^✗ urn:o {2}invalid/m);
    expect(refused.stdout).toMatch(
      /error {7}at main \(\w+\): schema file for urn:o at main is outside the registry directory: \.\.\/shared\/o\.json \(use --allow-outside-paths/,
    );
    const r = await bq(['compat', '-r', 'reg/registry.json', '--against', 'main', '--allow-outside-paths'], { cwd: dir });
    expectExit(r, 0);
    expect(lines(r).at(-1)).toMatch(/1 unchanged/);
  });

  it("a symlink at the ref is followed in the commit's tree, and one that leaves the registry directory is refused", async () => {
    const dir = repo(
      { 'reg/registry.json': manifest([{ urn: 'urn:l', schema: 'l.json' }]), 'shared/o.json': '{ "type": "object" }\n' },
      {},
      { commit: false },
    );
    // HEAD gets a symlink reg/l.json → ../shared/o.json; the working tree has a plain file instead.
    symlinkSync('../shared/o.json', join(dir, 'reg/l.json'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'link');
    rmSync(join(dir, 'reg/l.json'));
    writeFileSync(join(dir, 'reg/l.json'), '{ "type": "object", "required": ["id"] }\n');
    const refused = await bq(['compat', '-r', 'reg/registry.json', '--against', 'HEAD'], { cwd: dir });
    expectExit(refused, 1);
    expect(refused.stdout).toMatch(/schema file for urn:l at HEAD is outside the registry directory: l\.json /);
    const r = await bq(['compat', '-r', 'reg/registry.json', '--against', 'HEAD', '--allow-outside-paths', '-f', 'json'], { cwd: dir });
    expectExit(r, 1);
    // Read through the link: the old document is shared/o.json's.
    expect((JSON.parse(r.stdout) as RegistryReport).urns[0]).toMatchObject({
      urn: 'urn:l',
      status: 'breaking',
      changes: [expect.objectContaining({ rule: 'required-added' })],
    });
  });

  it('a malformed schema at the ref makes its URN invalid (exit 1), at ref:file:line:col', async () => {
    const dir = repo(
      { 'registry.json': manifest([{ urn: 'urn:m', schema: 'm.json' }]), 'm.json': '{\n  "type": "object",\n  "required": [\n}\n' },
      { 'm.json': '{ "type": "object" }\n' },
    );
    const r = await bq(['compat', '--against', 'main'], { cwd: dir });
    expectExit(r, 1);
    expect(r.stdout).toMatch(/^✗ urn:m {2}invalid/m);
    expect(r.stdout).toMatch(/schema file for urn:m is malformed: main:m\.json:4:1: invalid JSON/);
  });

  it('not a git repository: exit 2 naming the ref', async () => {
    const dir = tempTree({ 'registry.json': manifest([{ urn: 'urn:a', schema: 'a.json' }]), 'a.json': '{}' });
    const r = await bq(['compat', '--against', 'origin/main'], { cwd: dir, env: { GIT_CEILING_DIRECTORIES: dirname(dir) } });
    expectOneLineError(r, /^bqschema: cannot read the registry at origin\/main: .* is not in a git repository$/);
  });

  it('--against without a registry file, or with a ref that looks like an option: exit 2', async () => {
    const dir = repo(BASE, {}, { commit: false });
    expectOneLineError(
      await bq(['compat', '--against', 'main', '--registry', 'missing.json'], { cwd: dir }),
      /^bqschema: registry manifest not found: missing\.json \(from --registry\)$/,
    );
    expectOneLineError(await bq(['compat', '--against=--output=x'], { cwd: dir }), /not a git ref: "--output=x"/);
  });
});
