import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRules, rulesMarkdown, schemaFingerprint, type Change } from '../../src/compat/index.js';
import { compile } from '../../src/validator/index.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree, type CliResult } from '../helpers/cli.js';
import { junitCases, junitCounts, readJunit, readSarif, sarifAt } from '../helpers/ci-formats.js';

// compat's evidence end to end: witnesses, --corpus, rollout order, reviewed exceptions, --policy,
// levels in any case, --list-rules, and the SARIF and JUnit formats.

const lines = (r: CliResult): string[] => r.stdout.replace(/\n$/, '').split('\n');

const REPORTS = ['text', 'markdown', 'github', 'sarif', 'junit'] as const;
type Format = 'json' | (typeof REPORTS)[number];

/**
 * One compat run in every format: JSON on stdout, the others written by --report, each file what
 * `--format <format>` prints for the same run with the same exit code (test/report/report-files.e2e.test.ts).
 * Tests that read different formats of one comparison share the run instead of starting one each.
 */
function everyFormat(
  run: (...args: string[]) => Promise<CliResult>,
  dir: string,
  name: string,
  args: string[],
): (f: Format) => Promise<CliResult> {
  let done: Promise<CliResult> | undefined;
  return async (f) => {
    done ??= run(...args, '-f', 'json', ...REPORTS.flatMap((r) => ['--report', `${r}=${name}.${r}`]));
    const r = await done;
    return f === 'json' ? r : { ...r, stdout: readFileSync(join(dir, `${name}.${f}`), 'utf8') };
  };
}

const OLD = {
  type: 'object',
  required: ['order_id'],
  properties: { order_id: { type: 'integer' }, amount: { type: 'number' }, currency: { enum: ['USD', 'EUR', 'TRY'] } },
};
const NEW = { ...OLD, required: ['order_id', 'amount'], properties: { ...OLD.properties, currency: { enum: ['USD', 'EUR'] } } };
const PAY_OLD = { type: 'object', properties: { id: { type: 'string' } } };
const PAY_NEW = { type: 'object', properties: { id: { type: 'string' }, currency: { type: 'string' } } };
const ORDERS = 'urn:babel:orders:created';
const PAYMENTS = 'urn:babel:payments:captured';
const STOCK = 'urn:babel:stock:moved';
const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';
const envelope = (urn: string, data: object, id: string): string =>
  JSON.stringify({ job: urn, data, meta: { id, schema_version: 1 }, attempts: 0 });

/** Every witness the report prints verifies with the validator: valid under the side it names, rejected by the other. */
function expectWitnessesVerify(changes: Change[], oldSchema: unknown, newSchema: unknown): number {
  const v = { old: compile(oldSchema), new: compile(newSchema) };
  let n = 0;
  for (const c of changes.filter((ch) => ch.breaking)) {
    for (const w of [c.witness, c.otherWitness]) {
      if (w === undefined || w === null) continue;
      const other = w.validUnder === 'old' ? 'new' : 'old';
      expect(v[w.validUnder].isValid(w.payload), `${c.rule}: ${JSON.stringify(w)}`).toBe(true);
      expect(v[other].isValid(w.payload), `${c.rule}: ${JSON.stringify(w)}`).toBe(false);
      n++;
    }
    if (c.witness === null) expect(['policy', 'not-found']).toContain(c.witnessReason);
  }
  return n;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
}

const MANIFEST = json({
  schemas: [
    { urn: ORDERS, schema: 'schemas/orders.json' },
    { urn: PAYMENTS, schema: 'schemas/payments.json' },
    { urn: STOCK, schema: 'schemas/stock.json' },
  ],
});

/** A registry committed on main, changed (orders: two breaks; payments: a property added) in the working tree. */
function registryRepo(extra: Record<string, string> = {}): string {
  const dir = tempTree({
    'registry.json': MANIFEST,
    'schemas/orders.json': json(OLD),
    'schemas/payments.json': json(PAY_OLD),
    'schemas/stock.json': json({ type: 'object' }),
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'T');
  git(dir, 'config', 'user.email', 't@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  writeFileSync(join(dir, 'schemas/orders.json'), json(NEW));
  writeFileSync(join(dir, 'schemas/payments.json'), json(PAY_NEW));
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  return dir;
}

afterAll(removeTempTrees);

describe.concurrent('two schema files: witnesses, rollout, corpus', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempTree({
      'old.json': json(OLD),
      'new.json': json(NEW),
      'open-old.json': json({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } }),
      'open-new.json': json({ type: 'object', properties: { a: { type: 'string' } } }),
      'pay-old.json': json(PAY_OLD),
      'pay-new.json': json(PAY_NEW),
      'wide-old.json': json({ type: 'object', properties: { n: { type: 'integer' } } }),
      'wide-new.json': json({ type: 'object', properties: { n: { type: 'number' } } }),
      'corpus/a.ndjson':
        [
          envelope(ORDERS, { order_id: 1, amount: 2, currency: 'EUR' }, 'm1'),
          envelope(ORDERS, { order_id: 2, currency: 'USD' }, 'm2'),
          envelope(PAYMENTS, { id: 'p' }, 'm3'),
          envelope(ORDERS, { order_id: 3, amount: 1, currency: 'TRY' }, 'm4'),
          envelope(ORDERS, { order_id: 4 }, 'm5'),
          envelope(ORDERS, { order_id: 5 }, 'm6'),
        ].join('\n') + '\n',
      'corpus/b.json': envelope(ORDERS, { order_id: 6, amount: 3, currency: 'USD' }, 'm7'),
      'wide-corpus.ndjson': envelope('urn:x', { n: 'seven' }, 'w1') + '\n' + envelope('urn:x', { n: 1.5 }, 'w2') + '\n',
    });
  });
  const run = (...args: string[]): Promise<CliResult> => bq(['compat', ...args], { cwd: dir });
  // old → new of the orders URN with the corpus, and the widening without one, each run once.
  let orders: (f: Format) => Promise<CliResult>;
  let wide: (f: Format) => Promise<CliResult>;
  beforeAll(() => {
    orders = everyFormat(run, dir, 'orders', ['old.json', 'new.json', '--urn', ORDERS, '--corpus', 'corpus']);
    wide = everyFormat(run, dir, 'wide', ['wide-old.json', 'wide-new.json']);
  });

  it('json: every breaking change carries a witness that verifies with the validator (full payload)', async () => {
    const r = await run('old.json', 'new.json', '-f', 'json');
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as { changes: Change[]; rollout: { order: string }; policy: string };
    expect(doc.changes.filter((c) => c.breaking).map((c) => c.rule)).toEqual(['enum-value-removed', 'required-added']);
    expect(doc.changes.every((c) => !c.breaking || c.witness?.validUnder === 'old')).toBe(true);
    expect(expectWitnessesVerify(doc.changes, OLD, NEW)).toBe(2);
    expect(doc.rollout.order).toBe('producers-first');
    expect(doc.policy).toBe('bqschema');
  });

  it("a break by policy has witness null, reason policy, and the other direction's witness (verified)", async () => {
    const r = await run('open-old.json', 'open-new.json', '-f', 'json');
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as { changes: Change[] };
    const removed = doc.changes.find((c) => c.rule === 'property-removed')!;
    expect(removed.witness).toBeNull();
    expect(removed.witnessReason).toBe('policy');
    expect(removed.otherWitness?.validUnder).toBe('new');
    expect(
      expectWitnessesVerify(
        doc.changes,
        { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } },
        { type: 'object', properties: { a: { type: 'string' } } },
      ),
    ).toBe(1);
    const text = await run('open-old.json', 'open-new.json');
    expect(text.stdout).toMatch(/^ {12}no payload shows it: policy .*; the other way \(valid under new, rejected by old\): \{"b":.*\}$/m);
  });

  it("--corpus with --urn: the new schema's rejections of that URN's messages, first 3 with file:line (text)", async () => {
    const r = await orders('text');
    expectExit(r, 1);
    expect(r.stdout).toContain(
      [
        'corpus: 4 of 6 corpus message(s) rejected by the new schema',
        '    corpus/a.ndjson:2  (root) must have required property "amount"',
        '    corpus/a.ndjson:4  /currency must be one of "USD", "EUR"',
        '    corpus/a.ndjson:5  (root) must have required property "amount"',
      ].join('\n'),
    );
    expect(lines(r).at(-1)).toMatch(/; corpus: 6 message\(s\) checked, 4 rejected$/);
    // The remedy names the next URN when the URN is known.
    expect(r.stdout).toContain(`e.g. ${ORDERS}.v2, and leave ${ORDERS} as it is`);
  });

  it('--corpus without --urn is a usage error (exit 2) that says to add --urn <urn>', async () => {
    // A corpus holds many URNs' messages: judging them all against one schema was a false red.
    expectOneLineError(
      await run('old.json', 'new.json', '--corpus', 'corpus'),
      /^bqschema: --corpus with two schema files needs --urn <urn>: /,
      2,
    );
    expectOneLineError(await run('old.json', 'new.json', '-f', 'json', '--corpus', 'corpus'), /needs --urn <urn>/, 2);
  });

  it("--corpus with --urn checks only that URN's messages of a corpus that holds two URNs (json counts)", async () => {
    type Doc = {
      corpus: {
        documents: number;
        ignored: number;
        urns: Array<{ urn: string; checked: number; rejected: number; examples: Array<{ file: string; line?: number; at: string }> }>;
      };
    };
    const ordersJson = await orders('json');
    expectExit(ordersJson, 1);
    const doc = JSON.parse(ordersJson.stdout) as Doc;
    expect(doc.corpus.documents).toBe(7);
    expect(doc.corpus.ignored).toBe(1); // the payments message
    expect(doc.corpus.urns).toHaveLength(1);
    expect(doc.corpus.urns[0]).toMatchObject({ urn: ORDERS, checked: 6, rejected: 4 });
    expect(doc.corpus.urns[0]!.examples.map((e) => `${e.file}:${e.line} ${e.at}`)).toEqual([
      'corpus/a.ndjson:2 /data',
      'corpus/a.ndjson:4 /data/currency',
      'corpus/a.ndjson:5 /data',
    ]);
    // The other URN of the same corpus, with its own schemas: its one message passes, the orders ones are not judged.
    const payments = await run('pay-old.json', 'pay-new.json', '--urn', PAYMENTS, '--corpus', 'corpus');
    expectExit(payments, 0);
    expect(payments.stdout).toContain('corpus: all 1 corpus message(s) valid under the new schema');
    expect(lines(payments).at(-1)).toMatch(/; corpus: 1 message\(s\) checked, 0 rejected$/);
  });

  it('corpus rejections fail the gate even when the rules say compatible', async () => {
    const plain = await wide('text');
    expectExit(plain, 0);
    expect(plain.stdout).toContain('rollout: Deploy consumers first');
    const r = await run('wide-old.json', 'wide-new.json', '--urn', 'urn:x', '--corpus', 'wide-corpus.ndjson');
    expectExit(r, 1);
    expect(r.stdout).toContain('corpus: 1 of 2 corpus message(s) rejected by the new schema\n    wide-corpus.ndjson:1  /n must be number');
    expect(lines(r).at(-1)).toMatch(/^FAILED: 0 breaking change\(s\) /);
  });

  it('markdown and github show witness, rollout and corpus', async () => {
    const md = await orders('markdown');
    expectExit(md, 1);
    expect(md.stdout).toMatch(
      /^\| \*\*breaking\*\* \| `\/required` \| property "amount" is now required \(`required-added`\)<br>witness \(valid under old, rejected by new\): `\{.*\}` \|$/m,
    );
    expect(md.stdout).toMatch(/^\*\*Rollout:\*\* Deploy producers first: /m);
    expect(md.stdout).toMatch(
      /^\*\*Corpus:\*\* 4 of 6 corpus message\(s\) rejected by the new schema<br>`corpus\/a\.ndjson:2` \(root\) must have required property "amount"<br>/m,
    );
    const gh = await orders('github');
    expectExit(gh, 1);
    expect(lines(gh)).toContain(
      '::notice file=new.json,title=rollout order::Deploy producers first: consumers on the old schema accept what new producers send, while the new schema may reject data already in flight.',
    );
    expect(lines(gh)).toContain(
      `::error file=corpus/a.ndjson,line=4,title=rejected by the new schema::${ORDERS}: /currency must be one of "USD", "EUR" (4 of 6 corpus message(s) rejected by the new schema)`,
    );
  });

  it('sarif: valid SARIF 2.1.0; changes at their keyword in the new file, corpus rejections at file:line', async () => {
    const r = await orders('sarif');
    expectExit(r, 1);
    const log = readSarif(r.stdout);
    const results = log.runs[0]!.results;
    const required = results.find((x) => x.ruleId === 'required-added')!;
    expect(required.level).toBe('error');
    // new.json (2-space JSON): "required" is on line 3, its value at column 15.
    expect(sarifAt(required)).toBe('new.json:3:15');
    expect(required.message.text).toMatch(/witness \(valid under old, rejected by new\): \{/);
    // The evidence whole, in the property bag: the witness payload (which the message previews) and the URN's corpus counts.
    const bag = (x: unknown) =>
      (x as { properties: { pointer?: string; witness?: { payload: Record<string, unknown>; validUnder: string }; corpus?: unknown } })
        .properties;
    expect(bag(required)).toMatchObject({ pointer: '/required', witness: { validUnder: 'old' }, corpus: { checked: 6, rejected: 4 } });
    expect(JSON.stringify(bag(required).witness!.payload)).toBe(
      /witness \(valid under old, rejected by new\): (\{.*\})/.exec(required.message.text)![1],
    );
    expect(results.filter((x) => x.ruleId === 'corpus-rejected').map(sarifAt)).toEqual([
      'corpus/a.ndjson:2',
      'corpus/a.ndjson:4',
      'corpus/a.ndjson:5',
    ]);
    for (const x of results.filter((y) => y.ruleId === 'corpus-rejected'))
      expect(bag(x)).toEqual({ urn: ORDERS, corpus: { checked: 6, rejected: 4 } });
    expect(log.runs[0]!.tool.driver.rules.map((x) => x.id)).toEqual(expect.arrayContaining(listRules().map((x) => x.id)));
  });

  it('junit: a test case per change (what the summary counts), failing when it breaks, and one for the corpus', async () => {
    const r = await orders('junit');
    expectExit(r, 1);
    const doc = readJunit(r.stdout);
    const cases = junitCases(doc);
    const json = JSON.parse((await orders('json')).stdout) as {
      summary: { changes: number; breaking: number; errors: number };
    };
    // The summary's units, plus the corpus's own test case (failing: it rejected messages).
    expect(junitCounts(doc)).toEqual({
      tests: json.summary.changes + json.summary.errors + 1,
      failures: json.summary.breaking + 1,
      errors: json.summary.errors,
      skipped: 0,
    });
    expect(
      cases
        .filter((c) => c.failure)
        .map((c) => c.failure!.type)
        .sort(),
    ).toEqual(['corpus-rejected', 'enum-value-removed', 'required-added']);
    // The corpus case carries every rejection it lists.
    expect(cases.find((c) => c.name === 'corpus')!.failure!['#text']!.match(/corpus\/a\.ndjson:\d+/g)).toEqual([
      'corpus/a.ndjson:2',
      'corpus/a.ndjson:4',
      'corpus/a.ndjson:5',
    ]);
    // The location is in the text (the JUnit schema allows none on a test case); the name says what changed.
    const required = cases.find((c) => c.failure?.type === 'required-added')!;
    expect(required).toMatchObject({ name: 'required-added at /required ("amount")', classname: 'bqschema.compat' });
    expect(required.failure!['#text']).toMatch(/^new\.json:3:15: \/required: property "amount" is now required\. witness /);
    const ok = await wide('junit');
    expectExit(ok, 0);
    const okDoc = readJunit(ok.stdout);
    const okJson = JSON.parse((await wide('json')).stdout) as { summary: { changes: number } };
    expect(junitCounts(okDoc)).toEqual({ tests: okJson.summary.changes, failures: 0, errors: 0, skipped: 0 });
  });

  it('--corpus before the schema files takes them as corpus paths: the usage error says so', async () => {
    expectOneLineError(await run('--corpus', 'corpus', 'old.json', 'new.json'), /give the schema files before --corpus$/);
  });

  it('--exceptions with two files needs --urn (exit 2)', async () => {
    expectOneLineError(await run('old.json', 'new.json', '--exceptions', 'x.yaml'), /--exceptions with two schema files needs --urn/);
  });
});

describe.concurrent('levels in any case, none, policies, --list-rules', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempTree({ 'old.json': json(PAY_OLD), 'new.json': json(PAY_NEW), 'o.json': json(OLD), 'n.json': json(NEW) });
  });
  const run = (...args: string[]): Promise<CliResult> => bq(['compat', ...args], { cwd: dir });

  it('--mode in any case: BACKWARD, Forward, full', async () => {
    for (const [mode, code, shown] of [
      ['BACKWARD', 0, 'backward'],
      ['Forward', 1, 'forward'],
      ['FULL', 1, 'full'],
    ] as const) {
      const r = await run('old.json', 'new.json', '--mode', mode, '-f', 'json');
      expectExit(r, code);
      expect(JSON.parse(r.stdout).mode).toBe(shown);
    }
  });

  it('--mode none: every change listed, none breaks, and the output says so (exit 0)', async () => {
    const r = await run('o.json', 'n.json', '--mode', 'NONE');
    expectExit(r, 0);
    expect(r.stdout).not.toMatch(/^breaking/m);
    expect(r.stdout).toMatch(/^compatible {2}\/required {2}property "amount" is now required/m);
    expect(r.stdout).toContain('level none: no change breaks, nothing is gated on the rules');
    // The rollout still tells the truth about the two directions.
    expect(r.stdout).toContain('rollout: Deploy producers first');
  });

  it('an unknown level or policy is a one-line usage error naming the choices', async () => {
    expectOneLineError(
      await run('old.json', 'new.json', '--mode', 'sideways'),
      /unknown compatibility level "sideways" \(expected backward, forward, full, none, in any case\)/,
    );
    expectOneLineError(await run('old.json', 'new.json', '--mode', 'BACKWARD_TRANSITIVE'), /transitive levels are not supported/);
    expectOneLineError(
      await run('old.json', 'new.json', '--policy', 'avro'),
      /unknown compat policy "avro" \(expected bqschema, confluent/,
    );
  });

  it('--policy confluent: adding a property to an open content model breaks; bqschema calls it compatible', async () => {
    const ours = await run('old.json', 'new.json', '-f', 'json');
    expectExit(ours, 0);
    const theirs = await run('old.json', 'new.json', '--policy', 'Confluent', '-f', 'json');
    expectExit(theirs, 1);
    const doc = JSON.parse(theirs.stdout) as { policy: string; changes: Change[] };
    expect(doc.policy).toBe('confluent');
    expect(doc.changes.find((c) => c.rule === 'property-added')?.breaking).toBe(true);
    const text = await run('old.json', 'new.json', '--policy', 'confluent');
    expect(lines(text).at(-1)).toMatch(/\(backward, policy confluent\)$/);
  });

  it('--list-rules: json is listRules(), markdown is the docs table, text names each rule with its Confluent type', async () => {
    const j = await run('--list-rules', '--format', 'json');
    expectExit(j, 0);
    expect(JSON.parse(j.stdout)).toEqual({ rules: JSON.parse(JSON.stringify(listRules())) });
    const m = await run('--list-rules', '-f', 'markdown');
    expect(m.stdout).toBe(rulesMarkdown());
    const t = await run('--list-rules');
    expectExit(t, 0);
    for (const rule of listRules()) {
      expect(t.stdout).toContain(`${rule.id}\n    ${rule.description}\n`);
      expect(t.stdout).toContain(`confluent: ${rule.confluent ?? '—'}`);
    }
    expectOneLineError(await run('--list-rules', '-f', 'sarif'), /--list-rules prints text, json or markdown/);
  });
});

describe.concurrent('the registry against a git ref: corpus, rollout, exceptions', () => {
  const fingerprint = schemaFingerprint(OLD);
  const exception = (over: Record<string, string> = {}): string => {
    const e = {
      urn: ORDERS,
      rule: 'required-added',
      path: '/required/amount',
      fingerprint,
      reason: 'every producer has always sent amount',
      owner: 'team-orders',
      expires: '2030-01-31',
      ...over,
    };
    return Object.entries(e)
      .map(([k, v], i) => `${i === 0 ? '  - ' : '    '}${k}: ${JSON.stringify(v)}`)
      .join('\n');
  };
  const exceptions = (...entries: string[]): string => `exceptions:\n${entries.join('\n')}\n`;
  const both = exceptions(
    exception(),
    exception({ rule: 'enum-value-removed', path: '/properties/currency/enum/TRY', reason: 'TRY was never sold' }),
  );

  it("json: rollout per changed URN; corpus per URN; unchanged URNs' messages ignored; unreadable lines fail", async () => {
    const dir = registryRepo({
      'corpus.ndjson':
        [
          envelope(ORDERS, { order_id: 1, amount: 1, currency: 'USD' }, 'a'),
          envelope(ORDERS, { order_id: 2, currency: 'USD' }, 'b'),
          envelope(PAYMENTS, { id: 'p', currency: 'EUR' }, 'c'),
          envelope(STOCK, { anything: true }, 'd'),
        ].join('\n') + '\n',
      'bad.ndjson': '{"job":\n',
    });
    const r = await bq(['compat', '--against', 'main', '-f', 'json', '--corpus', 'corpus.ndjson'], { cwd: dir });
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout);
    const orders = doc.urns.find((u: { urn: string }) => u.urn === ORDERS);
    const payments = doc.urns.find((u: { urn: string }) => u.urn === PAYMENTS);
    expect(orders.rollout.order).toBe('producers-first');
    expect(payments.rollout.order).toBe('consumers-first');
    expect(orders.corpus).toEqual({
      checked: 2,
      rejected: 1,
      examples: [{ file: 'corpus.ndjson', line: 2, at: '/data', message: '(root) must have required property "amount"' }],
    });
    expect(payments.corpus).toMatchObject({ checked: 1, rejected: 0 });
    expect(doc.corpus).toMatchObject({ documents: 4, ignored: 1, unreadable: 0 });
    expect(expectWitnessesVerify(orders.changes, OLD, NEW)).toBe(2);

    const bad = await bq(['compat', '--against', 'main', '--corpus', 'bad.ndjson'], { cwd: dir });
    expectExit(bad, 1);
    expect(bad.stdout).toMatch(/^corpus error {2}bad\.ndjson:1: /m);
  });

  it('text, markdown, sarif, junit: rollout and corpus for each changed URN', async () => {
    const dir = registryRepo({ 'c.ndjson': envelope(ORDERS, { order_id: 2, currency: 'USD' }, 'b') + '\n' });
    const run = (...args: string[]): Promise<CliResult> => bq(['compat', ...args], { cwd: dir });
    // One run with the corpus and one without, each in every format.
    const withCorpus = everyFormat(run, dir, 'corpus', ['--against', 'main', '--corpus', 'c.ndjson']);
    const without = everyFormat(run, dir, 'plain', ['--against', 'main']);
    const t = await withCorpus('text');
    expectExit(t, 1);
    expect(t.stdout).toContain('    rollout: Deploy consumers first: the new schema accepts what producers send today');
    expect(t.stdout).toContain(
      '    corpus: 1 of 1 corpus message(s) rejected by the new schema\n        c.ndjson:1  (root) must have required property "amount"',
    );
    expect(t.stdout).toContain('    corpus: no corpus message of this URN');
    const m = await withCorpus('markdown');
    expect(m.stdout).toMatch(
      new RegExp(
        `^\\| \`${ORDERS}\` \\| \\*\\*✗ breaking\\*\\* \\| .*<br>\\*\\*Rollout:\\*\\* Deploy producers first: .*<br>\\*\\*Corpus:\\*\\* 1 of 1 `,
        'm',
      ),
    );
    const s = await withCorpus('sarif');
    expectExit(s, 1);
    const results = readSarif(s.stdout).runs[0]!.results;
    const required = results.find((x) => x.ruleId === 'required-added')!;
    expect(sarifAt(required)).toBe('schemas/orders.json:3:15');
    // The rollout order is a finding of its own (a note), as its annotation is.
    const rollout = results.filter((x) => x.ruleId === 'rollout-order' && x.message.text.startsWith(`${ORDERS}: `));
    expect(rollout.map((x) => [x.level, sarifAt(x), x.message.text])).toEqual([
      ['note', 'schemas/orders.json:1', expect.stringMatching(new RegExp(`^${ORDERS}: Deploy producers first: `))],
    ]);
    expect(results.find((x) => x.ruleId === 'property-added')).toMatchObject({ level: 'note' });
    expect(results.filter((x) => x.ruleId === 'corpus-rejected').map(sarifAt)).toEqual(['c.ndjson:1']);
    const j = await without('junit');
    expectExit(j, 1);
    const jdoc = readJunit(j.stdout);
    const cases = junitCases(jdoc);
    // A test case per URN, what the summary counts; the failing one holds each of its findings, located.
    const summary = (
      JSON.parse((await without('json')).stdout) as {
        summary: { urns: number; breaking: number; errors: number };
      }
    ).summary;
    expect(junitCounts(jdoc)).toEqual({ tests: summary.urns, failures: summary.breaking, errors: summary.errors, skipped: 0 });
    expect(cases.filter((c) => c.failure).map((c) => c.name)).toEqual([ORDERS]);
    // The two changes at their keywords, then the rollout order (about the file: no line).
    expect(
      cases
        .find((c) => c.failure)!
        .failure!['#text']!.split('\n')
        .map((l) => l.split(':').slice(0, 2).join(':')),
    ).toEqual(['schemas/orders.json:15', 'schemas/orders.json:3', 'schemas/orders.json: urn']);
    // With --corpus the corpus has its own test case (passing here: nothing is unreadable, and the rejection is the orders URN's).
    const jc = readJunit((await withCorpus('junit')).stdout);
    expect(junitCounts(jc)).toEqual({ tests: summary.urns + 1, failures: summary.breaking, errors: summary.errors, skipped: 0 });
    expect(junitCases(jc).find((c) => c.name === ORDERS)!.failure!['#text']).toContain('c.ndjson:1: ');
  });

  it('an exception suppresses exactly its finding: the second break still fails', async () => {
    const dir = registryRepo({ 'bqschema-exceptions.yaml': exceptions(exception()) });
    const r = await bq(['compat', '--against', 'main'], { cwd: dir, env: { BQSCHEMA_NOW: '2030-01-31' } });
    expectExit(r, 1);
    expect(r.stdout).toContain(
      [
        '    excepted    /required  property "amount" is now required  [required-added]',
        '                excepted (every producer has always sent amount, team-orders, expires 2030-01-31)',
      ].join('\n'),
    );
    expect(r.stdout).toMatch(/^ {4}breaking {4}\/properties\/currency\/enum {2}enum value "TRY" removed/m);
    const j = await bq(['compat', '--against', 'main', '-f', 'json'], { cwd: dir, env: { BQSCHEMA_NOW: '2030-01-31' } });
    const orders = JSON.parse(j.stdout).urns.find((u: { urn: string }) => u.urn === ORDERS);
    expect(orders.breaking).toBe(true);
    expect(orders.changes.find((c: Change) => c.rule === 'required-added').excepted).toEqual({
      reason: 'every producer has always sent amount',
      owner: 'team-orders',
      expires: '2030-01-31',
      source: 'bqschema-exceptions.yaml: exception 1 ("urn:babel:orders:created")',
    });
  });

  it('exceptions for both breaks: the gate passes and the URN shows as excepted', async () => {
    const dir = registryRepo({ 'bqschema-exceptions.yaml': both });
    const r = await bq(['compat', '--against', 'main'], { cwd: dir, env: { BQSCHEMA_NOW: '2026-12-01' } });
    expectExit(r, 0);
    expect(r.stdout).toMatch(new RegExp(`^! ${ORDERS} {2}breaking, excepted {2}schemas/orders\\.json$`, 'm'));
    expect(lines(r).at(-1)).toMatch(
      /^OK: no breaking change against main .*, 1 excepted \(backward\); exceptions: 2 excepted, 0 expired, 0 stale, 0 unused$/,
    );
    const s = await bq(['compat', '--against', 'main', '-f', 'sarif'], { cwd: dir, env: { BQSCHEMA_NOW: '2026-12-01' } });
    const notes = readSarif(s.stdout).runs[0]!.results.filter((x) => x.ruleId === 'required-added');
    expect(notes).toEqual([
      expect.objectContaining({
        level: 'note',
        message: { text: expect.stringContaining('excepted (every producer has always sent amount, team-orders, expires 2030-01-31)') },
      }),
    ]);
  });

  it('an expired exception fails the gate with a clear message (clock from BQSCHEMA_NOW)', async () => {
    const dir = registryRepo({ 'bqschema-exceptions.yaml': both });
    const r = await bq(['compat', '--against', 'main'], { cwd: dir, env: { BQSCHEMA_NOW: '2030-02-01' } });
    expectExit(r, 1);
    expect(r.stdout).toContain(
      'expired exception  bqschema-exceptions.yaml: exception 1 ("urn:babel:orders:created"): expired on 2030-01-31 (owner team-orders): required-added at /required/amount breaks again until it is reviewed and renewed, or fixed',
    );
    expect(r.stdout).toMatch(/^ {4}breaking {4}\/required /m);
    const gh = await bq(['compat', '--against', 'main', '-f', 'github'], { cwd: dir, env: { BQSCHEMA_NOW: '2030-02-01' } });
    expect(lines(gh).filter((l) => l.startsWith('::error file=bqschema-exceptions.yaml,title=expired compat exception::'))).toHaveLength(2);
    expectOneLineError(
      await bq(['compat', '--against', 'main'], { cwd: dir, env: { BQSCHEMA_NOW: '2030-02-30' } }),
      /BQSCHEMA_NOW must be a date YYYY-MM-DD, got "2030-02-30"/,
    );
  });

  it('a stale exception (the old schema changed since the review) is reported and excuses nothing', async () => {
    const dir = registryRepo({ 'reviewed.yaml': exceptions(exception({ fingerprint: schemaFingerprint(NEW) })) });
    const r = await bq(['compat', '--against', 'main', '--exceptions', 'reviewed.yaml', '-f', 'json'], { cwd: dir });
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout);
    expect(doc.exceptions.stale).toEqual([
      `reviewed.yaml: exception 1 ("${ORDERS}"): the old schema of ${ORDERS} changed since the review (fingerprint ${fingerprint}): review required-added at /required/amount again`,
    ]);
    expect(doc.exceptions.excepted).toBe(0);
  });

  it('a malformed exceptions file is one line naming file:line:col (exit 1)', async () => {
    const dir = registryRepo({
      'bqschema-exceptions.yaml': exceptions(exception(), exception({ expires: 'soon' })),
      'broken.yaml': 'exceptions:\n  - urn: [\n',
    });
    const r = await bq(['compat', '--against', 'main'], { cwd: dir });
    expectOneLineError(
      r,
      /^bqschema: bqschema-exceptions\.yaml:15:14: exception 2 \("urn:babel:orders:created"\): expires must be a date YYYY-MM-DD, got "soon"$/,
      1,
    );
    const y = await bq(['compat', '--against', 'main', '--exceptions', 'broken.yaml'], { cwd: dir });
    expectOneLineError(y, /^bqschema: broken\.yaml:\d+:\d+: /, 1);
  });
});
