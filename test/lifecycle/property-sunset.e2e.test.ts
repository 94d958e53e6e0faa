import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { junitCases, readGithub, readJunit, readSarif } from '../helpers/ci-formats.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';

// A deprecated property end to end, in a real git repository: `main` deprecates "coupon" with a
// sunset, the working tree removes it; compat --against breaks before the sunset (every format
// says how many days remain), passes from the sunset on, and never where data refutes the
// removal; check warns on a name the schema does not declare.

afterAll(removeTempTrees);

const URN = 'urn:t:orders:placed';
const DAYS = '"coupon" is deprecated until its sunset 2026-06-30 (29 days from now): remove it on that day or later';
const ALLOWED = '"coupon" is deprecated and past its sunset 2026-06-30: its removal is allowed';
const REFUTED = '"coupon" is deprecated and past its sunset 2026-06-30, but data refutes the removal, so the sunset does not excuse it';

function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

const MANIFEST = `${JSON.stringify(
  {
    schemas: [
      {
        urn: URN,
        schema: 'schemas/orders.json',
        deprecatedProperties: {
          coupon: { since: '2026-01-31', sunset: '2026-06-30', replacement: 'discounts', reason: 'discounts replace coupons' },
        },
      },
    ],
  },
  null,
  2,
)}\n`;

/** `main`: the manifest deprecating "coupon", the schema declaring it; the working tree: `now` as the schema. */
function repo(now: object): string {
  const dir = tempTree({
    'registry.json': MANIFEST,
    'schemas/orders.json': `${JSON.stringify({ type: 'object', properties: { id: { type: 'integer' }, coupon: { type: 'string' } } }, null, 2)}\n`,
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Lifecycle Test');
  git(dir, 'config', 'user.email', 'lifecycle@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  writeFileSync(join(dir, 'schemas/orders.json'), `${JSON.stringify(now, null, 2)}\n`);
  return dir;
}

const OPEN = { type: 'object', properties: { id: { type: 'integer' } } };
const compat = (dir: string, today: string, format = 'text') =>
  bq(['compat', '--against', 'main', '--format', format], { cwd: dir, env: { BQSCHEMA_NOW: today } });

describe('compat --against: removing a deprecated property before and after its sunset', () => {
  it('before the sunset every format fails the URN and says how many days remain', async () => {
    const dir = repo(OPEN);
    const text = await compat(dir, '2026-06-01');
    expectExit(text, 1);
    expect(text.stdout).toContain(`breaking    /properties/coupon  property "coupon" removed; ${DAYS}  [property-removed]`);
    expect(text.stdout).toContain(`    → keep coupon in ${URN}'s schema until its sunset 2026-06-30 (29 days from now), then remove it\n`);
    expect(text.stdout).toMatch(/^FAILED: 1 URN\(s\) fail against main/m);

    const json = JSON.parse((await compat(dir, '2026-06-01', 'json')).stdout) as {
      ok: boolean;
      urns: Array<{ changes: Array<{ rule: string; breaking: boolean; message: string }> }>;
    };
    expect(json.ok).toBe(false);
    expect(json.urns[0]!.changes).toContainEqual(
      expect.objectContaining({ rule: 'property-removed', breaking: true, message: `property "coupon" removed; ${DAYS}` }),
    );

    const gh = readGithub((await compat(dir, '2026-06-01', 'github')).stdout);
    expect(gh.annotations.filter((a) => a.level === 'error').map((a) => a.message)).toEqual([expect.stringContaining(DAYS)]);
    expect((await compat(dir, '2026-06-01', 'markdown')).stdout).toContain(
      `**breaking** \`/properties/coupon\` property "coupon" removed; ${DAYS} (\`property-removed\`)`,
    );
    const sarif = readSarif((await compat(dir, '2026-06-01', 'sarif')).stdout);
    expect(sarif.runs[0]!.results.filter((r) => r.ruleId === 'property-removed').map((r) => r.level)).toEqual(['error']);
    expect(sarif.runs[0]!.results.find((r) => r.ruleId === 'property-removed')!.message.text).toContain(DAYS);
    const junit = junitCases(readJunit((await compat(dir, '2026-06-01', 'junit')).stdout)).find((c) => c.name === URN);
    expect(junit?.failure?.message).toContain(DAYS);
  });

  it('on the sunset day and after it the removal passes in every format, and the rollout follows', async () => {
    const dir = repo(OPEN);
    const before = readFileSync(join(dir, 'schemas/orders.json'), 'utf8');
    for (const day of ['2026-06-30', '2027-03-01']) {
      const text = await compat(dir, day);
      expectExit(text, 0);
      expect(text.stdout).toContain(`✓ ${URN}  compatible`);
      expect(text.stdout).toContain(`compatible  /properties/coupon  property "coupon" removed; ${ALLOWED}  [property-removed]`);
      expect(text.stdout).toContain('rollout: Deploy consumers first');
    }
    const json = JSON.parse((await compat(dir, '2026-06-30', 'json')).stdout) as {
      ok: boolean;
      urns: Array<{ status: string; changes: Array<{ breaking: boolean; message: string }> }>;
    };
    expect(json.ok).toBe(true);
    expect(json.urns[0]).toMatchObject({
      status: 'compatible',
      changes: [{ breaking: false, message: `property "coupon" removed; ${ALLOWED}` }],
    });
    const gh = readGithub((await compat(dir, '2026-06-30', 'github')).stdout);
    expect(gh.annotations.filter((a) => a.level === 'error')).toEqual([]);
    expect(gh.summary).toMatch(/^OK: no breaking change against main/);
    const sarif = readSarif((await compat(dir, '2026-06-30', 'sarif')).stdout);
    expect(sarif.runs[0]!.results.filter((r) => r.level === 'error')).toEqual([]);
    const junit = junitCases(readJunit((await compat(dir, '2026-06-30', 'junit')).stdout)).find((c) => c.name === URN);
    expect(junit?.failure).toBeUndefined();
    // Nothing written: the schema and the history are as they were.
    expect(readFileSync(join(dir, 'schemas/orders.json'), 'utf8')).toBe(before);
    expect(git(dir, 'rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('never a false green: past the sunset, a closed model still fails with a witness; so does full with the typed old property', async () => {
    const closed = repo({ ...OPEN, additionalProperties: false });
    const r = await compat(closed, '2027-03-01');
    expectExit(r, 1);
    expect(r.stdout).toContain(
      `breaking    /properties/coupon  property "coupon" removed; ${REFUTED}  [property-removed]\n                witness (valid under old, rejected by new): {"coupon":""}`,
    );

    const full = await bq(['compat', '--against', 'main', '--compatibility', 'full'], {
      cwd: repo(OPEN),
      env: { BQSCHEMA_NOW: '2027-03-01' },
    });
    expectExit(full, 1);
    expect(full.stdout).toContain(REFUTED);
    expect(full.stdout).toMatch(/witness \(valid under new, rejected by old\): \{"coupon":/);
  });
});

describe('compat --transitive: the sunset excuses the removal against every earlier version too', () => {
  /** Two versions at `main` declaring "coupon" (an earlier one and the ref's), deprecated at the ref; the working tree removes it. */
  function history(): string {
    const dir = repo({ type: 'object', properties: { id: { type: 'integer' }, coupon: { type: 'string' }, note: { type: 'string' } } });
    git(dir, 'commit', '-q', '-am', 'orders: note');
    writeFileSync(
      join(dir, 'schemas/orders.json'),
      `${JSON.stringify({ type: 'object', properties: { id: { type: 'integer' }, note: { type: 'string' } } }, null, 2)}\n`,
    );
    return dir;
  }
  const transitive = (dir: string, today: string) =>
    bq(['compat', '--transitive', '--since', 'main~1', '--against', 'main', '--format', 'json'], {
      cwd: dir,
      env: { BQSCHEMA_NOW: today },
    });

  it('past the sunset neither the ref nor the earlier version fails the URN; before it the removal fails, once, with the days remaining', async () => {
    const dir = history();
    const late = await transitive(dir, '2026-07-01');
    expectExit(late, 0);
    const ok = JSON.parse(late.stdout) as {
      ok: boolean;
      transitive: { versions: number; breaking: number };
      urns: Array<{ status: string; changes: Array<{ breaking: boolean }> }>;
    };
    expect(ok.ok).toBe(true);
    // Not vacuous: the earlier version was compared.
    expect(ok.transitive).toMatchObject({ versions: 1, breaking: 0 });
    expect(ok.urns[0]!.changes.every((c) => !c.breaking)).toBe(true);

    const early = await transitive(dir, '2026-06-01');
    expectExit(early, 1);
    const failed = JSON.parse(early.stdout) as {
      urns: Array<{ changes: Array<{ rule: string; breaking: boolean; message: string; earlier?: unknown }> }>;
    };
    // The earlier version's break is the ref's, reported once.
    const removals = failed.urns[0]!.changes.filter((c) => c.rule === 'property-removed' && c.breaking);
    expect(removals).toEqual([expect.objectContaining({ message: `property "coupon" removed; ${DAYS}` })]);
  });
});

describe('check and the other commands read deprecatedProperties', () => {
  it('check warns on a name the schema does not declare, at its place in the manifest', async () => {
    const manifest = MANIFEST.replace('"coupon"', '"cupon"');
    const dir = tempTree({
      'registry.json': manifest,
      'schemas/orders.json': '{"type":"object","properties":{"coupon":{"type":"string"}}}\n',
    });
    const r = await bq(['check', '--format', 'json'], { cwd: dir });
    expectExit(r, 0);
    const out = JSON.parse(r.stdout) as { warnings: Array<{ rule: string; file: string; pointer: string; line: number; message: string }> };
    const lines = manifest.split('\n');
    expect(out.warnings).toEqual([
      expect.objectContaining({
        rule: 'manifest',
        file: 'registry.json',
        pointer: '/schemas/0/deprecatedProperties/cupon',
        line: lines.findIndex((l) => l.includes('"cupon"')) + 1,
        message:
          'entry 0: "deprecatedProperties" names "cupon", which schemas/orders.json does not declare at its root; it declares "coupon"; fix the name, or drop it once the property is gone',
      }),
    ]);
  });

  it('a sunset that is no day is a one-line error at its position, not a verdict, and nothing is written', async () => {
    const manifest = MANIFEST.replace('"2026-06-30"', '"2026-06-31"');
    const dir = repo(OPEN);
    writeFileSync(join(dir, 'registry.json'), manifest);
    const line = manifest.split('\n').findIndex((l) => l.includes('2026-06-31')) + 1;
    const r = await compat(dir, '2027-03-01');
    expectOneLineError(
      r,
      new RegExp(
        `^bqschema: registry\\.json:${line}:\\d+: entry 0: "deprecatedProperties\\.coupon\\.sunset" is "2026-06-31", not a real calendar day; write it as YYYY-MM-DD, e\\.g\\. "2026-06-30"$`,
      ),
      1,
    );
    expect(readFileSync(join(dir, 'registry.json'), 'utf8')).toBe(manifest);
  });
});
