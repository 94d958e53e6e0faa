import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, expectOneLineError, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';
import { readGithub, readJunit, junitCases, readSarif } from '../helpers/ci-formats.js';
import { git, manifest, objectSchema, Repo } from '../helpers/git-repo.js';

/*
 * compat --transitive and --since against real repositories. The history each builds is the
 * tombstone story: version 1 declares "a" as a string, version 2 removes it (a break someone
 * accepted), version 3 adds "a" back as an integer: compatible with version 2 (an optional property
 * added), breaking data written under version 1, which is still in queues and archives. Only the
 * history knows; the window decides whether version 1 is in it.
 */

afterAll(removeTempTrees);

const require = createRequire(import.meta.url);
const Ajv = require('ajv').default as new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const compatOutput = new Ajv({ allErrors: true, strict: true, strictTuples: false }).compile(
  JSON.parse(readFileSync(join(ROOT, 'schemas', 'output', 'compat.json'), 'utf8')),
);

const URN = 'urn:bq:orders:created';
const V1 = objectSchema({ id: { type: 'string' }, a: { type: 'string' } });
const V2 = objectSchema({ id: { type: 'string' } });
const V3 = objectSchema({ id: { type: 'string' }, a: { type: 'integer' } });

/** v1 (tagged v1), v2 (tagged v2), and v3 in the working tree, uncommitted unless `commit3`. */
function history(commit3 = false): { r: Repo; c1: string; c2: string } {
  const r = new Repo();
  const c1 = r.commit({ 'registry.json': manifest({ [URN]: 'orders.json' }), 'orders.json': V1 }, 'orders v1');
  r.git('tag', 'v1');
  const c2 = r.commit({ 'orders.json': V2 }, 'orders v2: a removed');
  r.git('tag', 'v2');
  if (commit3) r.commit({ 'orders.json': V3 }, 'orders v3: a is back');
  else r.commit({}, 'unrelated');
  if (!commit3) r.commit({}, 'unrelated 2');
  return { r, c1, c2 };
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      if (name === '.git') continue;
      const full = join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else out[full] = `${st.size}:${st.mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}

const BREAK =
  /breaking {4}\/properties\/a {2}property "a" declared again after it was removed, with a schema data written under an earlier version does not satisfy \(type-narrowed at \/properties\/a\/type: type narrowed from "string" to "integer": no longer accepts strings\): breaks version 1 \([0-9a-f]{12}, 2026-01-01\) {2}\[property-resurrected\]\n {16}witness \(valid under old, rejected by new\): \{"a":""\}/;

describe('compat --transitive', () => {
  it('against the base alone a resurrected property passes; the whole history finds the version it breaks, with its witness', async () => {
    const { r, c1 } = history();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(r.dir, 'orders.json'), V3);
    const direct = await bq(['compat', '--against', 'HEAD'], { cwd: r.dir });
    expectExit(direct, 0);
    const before = snapshot(r.dir);
    const all = await bq(['compat', '--transitive'], { cwd: r.dir });
    expectExit(all, 1);
    expect(all.stdout).toMatch(BREAK);
    expect(all.stdout).toContain(c1.slice(0, 12));
    expect(all.stdout).toMatch(
      /FAILED: 1 URN\(s\) fail against HEAD \([0-9a-f]{12}\): 1 breaking, 0 compatible, 0 added, 0 removed, 0 unchanged \(backward\); transitive over the whole history: 1 earlier version\(s\) of 1 URN\(s\) in 4 commit\(s\), 1 URN\(s\) break one\n$/,
    );
    expect(snapshot(r.dir)).toEqual(before);
  });

  it('--since sets the window: a release after the break passes, one before it fails', async () => {
    const { r } = history(true);
    expectExit(await bq(['compat', '--against', 'HEAD~1'], { cwd: r.dir }), 0);
    const after = await bq(['compat', '--against', 'HEAD~1', '--since', 'v2'], { cwd: r.dir });
    expectExit(after, 0);
    expect(after.stdout).toMatch(
      /; transitive since v2 \([0-9a-f]{12}\): 0 earlier version\(s\) of 0 URN\(s\) in 2 commit\(s\), 0 URN\(s\) break one\n$/,
    );
    const before = await bq(['compat', '--against', 'HEAD~1', '--since', 'v1'], { cwd: r.dir });
    expectExit(before, 1);
    expect(before.stdout).toMatch(BREAK);
    // --against alone: the window is the base to the tip (here only the base's version).
    expectExit(await bq(['compat', '--against', 'HEAD~1', '--transitive'], { cwd: r.dir }), 0);
  });

  it("with --against, every version from the base to the tip: a pull request's own intermediate commit counts", async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ [URN]: 'orders.json' }), 'orders.json': V2 }, 'base');
    r.git('checkout', '-q', '-b', 'pr');
    r.commit({ 'orders.json': V1 }, 'pr: a as a string');
    r.commit({ 'orders.json': V3 }, 'pr: a as an integer');
    expectExit(await bq(['compat', '--against', 'main'], { cwd: r.dir }), 0);
    const t = await bq(['compat', '--against', 'main', '--transitive'], { cwd: r.dir });
    expectExit(t, 1);
    expect(t.stdout).toMatch(/breaks version 2 \([0-9a-f]{12}, 2026-01-02\)/);
  });

  it("checks in the run's mode: forward finds what backward does not", async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ [URN]: 'orders.json' }), 'orders.json': objectSchema({ n: { type: 'integer' } }) });
    r.commit({ 'orders.json': objectSchema({ n: { type: 'number' } }) }); // widened: a forward break, accepted
    r.commit({ 'orders.json': objectSchema({ n: { type: ['number', 'string'] } }) });
    expectExit(await bq(['compat', '--transitive', '--mode', 'backward'], { cwd: r.dir }), 0);
    const f = await bq(['compat', '--transitive', '--since', 'HEAD~1', '--mode', 'forward'], { cwd: r.dir });
    expectExit(f, 1);
    expect(f.stdout).toMatch(/breaks version 1 \([0-9a-f]{12}, 2026-01-02\)/);
    expect(f.stdout).not.toMatch(/2026-01-01/); // before the window
  });

  it('a URN removed and registered again is checked against what it was before', async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ [URN]: 'orders.json', 'urn:bq:other': 'other.json' }), 'orders.json': V1, 'other.json': V2 });
    r.commit({ 'registry.json': manifest({ 'urn:bq:other': 'other.json' }), 'orders.json': null });
    r.commit({ 'registry.json': manifest({ [URN]: 'orders-v3.json', 'urn:bq:other': 'other.json' }), 'orders-v3.json': V3 });
    const t = await bq(['compat', '--transitive', '--format', 'json'], { cwd: r.dir });
    expectExit(t, 1);
    const doc = JSON.parse(t.stdout) as {
      transitive: Record<string, unknown>;
      urns: Array<{ urn: string; status: string; changes: Array<{ rule: string; earlier?: { version: number } }> }>;
    };
    expect(compatOutput(doc), JSON.stringify(compatOutput.errors)).toBe(true);
    expect(doc.transitive).toEqual({ commits: 3, urns: 1, versions: 1, breaking: 1, skipped: 0 });
    const row = doc.urns.find((u) => u.urn === URN)!;
    expect(row.status).toBe('breaking');
    expect(row.changes.map((c) => [c.rule, c.earlier?.version])).toEqual([['type-narrowed', 1]]);
  });

  it('every format carries the version broken: github, markdown, sarif, junit', async () => {
    const { r } = history(true);
    const gh = await bq(['compat', '--transitive', '--format', 'github'], { cwd: r.dir });
    expectExit(gh, 1);
    const said = readGithub(gh.stdout);
    expect(
      said.annotations.some((a) => a.level === 'error' && /breaks version 1 \([0-9a-f]{12}, 2026-01-01\).*\{"a":""\}/.test(a.message)),
    ).toBe(true);
    expect(said.summary).toMatch(/transitive over the whole history: 2 earlier version\(s\)/);
    const md = await bq(['compat', '--transitive', '--format', 'markdown'], { cwd: r.dir });
    expect(md.stdout).toMatch(/breaks version 1 \([0-9a-f]{12}, 2026-01-01\)/);
    expect(md.stdout).toMatch(/transitive over the whole history/);
    const sarif = readSarif((await bq(['compat', '--transitive', '--format', 'sarif'], { cwd: r.dir })).stdout);
    const results = (sarif.runs[0] as { results: Array<{ ruleId: string; message: { text: string } }> }).results;
    expect(results.some((x) => x.ruleId === 'property-resurrected' && /breaks version 1/.test(x.message.text))).toBe(true);
    const junit = readJunit((await bq(['compat', '--transitive', '--format', 'junit'], { cwd: r.dir })).stdout);
    const failed = junitCases(junit).filter((c) => c.failure !== undefined);
    expect(failed.map((c) => c.name)).toEqual([URN]);
    expect(JSON.stringify(failed[0]!.failure)).toMatch(/breaks version 1/);
  });

  it('refuses what it cannot read in one line: a shallow clone, no repository, two files, an unknown --since', async () => {
    const { r } = history(true);
    const clone = tempTree({});
    git(clone, 'clone', '-q', '--depth', '1', `file://${r.dir}`, 'c');
    const cloned = join(clone, 'c');
    const before = snapshot(clone);
    expectOneLineError(
      await bq(['compat', '--transitive'], { cwd: cloned }),
      /^bqschema: history needs the full clone: this is a shallow clone, cut at [0-9a-f]{12} \(1 commit\(s\) back\) where the registry still exists; run git fetch --unshallow \(in GitHub Actions: actions\/checkout with fetch-depth: 0\)$/,
    );
    expect(snapshot(clone)).toEqual(before);
    // The window it holds is read: the base is the clone's only commit.
    expectExit(await bq(['compat', '--against', 'HEAD', '--transitive'], { cwd: cloned }), 0);
    const plain = tempTree({ 'registry.json': manifest({ [URN]: 'orders.json' }), 'orders.json': V1 });
    expectOneLineError(
      await bq(['compat', '--transitive'], { cwd: plain }),
      /^bqschema: cannot read the registry at HEAD: .* is not in a git repository$/,
    );
    expectOneLineError(
      await bq(['compat', '--transitive', 'a.json', 'b.json'], { cwd: r.dir }),
      /^bqschema: --transitive reads the registry's git history: give it without schema files/,
    );
    expectOneLineError(
      await bq(['compat', '--since', 'no-such-tag'], { cwd: r.dir }),
      /^bqschema: --since: unknown git ref: no-such-tag \(not a commit in this repository/,
    );
    expect(readFileSync(join(r.dir, 'orders.json'), 'utf8')).toBe(V3);
  });
});
