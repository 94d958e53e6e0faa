import { afterAll, describe, expect, it } from 'vitest';
import { GitError } from '../../src/registry/errors.js';
import { readHistory, type History } from '../../src/registry/versions.js';
import { bq, expectExit, removeTempTrees, tempTree } from '../helpers/cli.js';
import { git, manifest, objectSchema, Repo } from '../helpers/git-repo.js';
import { chmodSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';

/*
 * The registry's history read from real repositories: each distinct schema of each URN once, in
 * order, with the commit that first had it, followed through renamed schema files and manifests;
 * merges walked by first parent; a shallow clone, no repository, a window that is not in the
 * history: one GitError each, never a partial history.
 */

afterAll(removeTempTrees);

const S = (type: string): string => objectSchema({ id: { type } });
const summary = (h: History, urn: string): Array<[number, unknown, string | undefined]> =>
  (h.versions.get(urn) ?? []).map((v) => [v.version, (v.value as { properties: { id: unknown } }).properties.id, v.commit]);

describe('readHistory', () => {
  it('keeps each distinct schema once, oldest first, with the commit that first had it; reformatting is no new version', async () => {
    const r = new Repo();
    const c1 = r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    const c2 = r.commit({ 'a.json': S('integer') });
    r.commit({ 'a.json': JSON.stringify({ properties: { id: { type: 'integer' } }, type: 'object' }) }); // same value, other text
    const c4 = r.commit({ 'a.json': S('number') });
    const h = await readHistory({ manifestPath: join(r.dir, 'registry.json') });
    expect(h.commits).toBe(4);
    expect(summary(h, 'urn:a')).toEqual([
      [1, { type: 'string' }, c1],
      [2, { type: 'integer' }, c2],
      [3, { type: 'number' }, c4],
    ]);
    expect(h.versions.get('urn:a')![0]!.date).toBe('2026-01-01T00:00:00+00:00');
  });

  it('follows a URN through a moved schema file and a renamed, reformatted manifest', async () => {
    const r = new Repo();
    const c1 = r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    r.git('mv', 'a.json', 'a-moved.json');
    r.commit({ 'registry.json': manifest({ 'urn:a': 'a-moved.json' }) });
    const c3 = r.commit({ 'a-moved.json': S('integer') });
    // The manifest moves into a subdirectory and changes format: git sees no rename.
    const c4 = r.commit({
      'registry.json': null,
      'a-moved.json': null,
      'reg/registry.yaml': 'schemas:\n  - urn: urn:a\n    schema: schemas/a.json\n  - urn: urn:b\n    schema: schemas/b.json\n',
      'reg/schemas/a.json': S('boolean'),
      'reg/schemas/b.json': S('string'),
    });
    const h = await readHistory({ manifestPath: join(r.dir, 'reg', 'registry.yaml') });
    expect(summary(h, 'urn:a')).toEqual([
      [1, { type: 'string' }, c1],
      [2, { type: 'integer' }, c3],
      [3, { type: 'boolean' }, c4],
    ]);
    expect(summary(h, 'urn:b')).toEqual([[1, { type: 'string' }, c4]]);
  });

  it("a commit that leaves the registry's directory as it was is read from its tree id alone, and still dates the versions", async () => {
    const r = new Repo();
    const c1 = r.commit({ 'reg/registry.json': manifest({ 'urn:a': 'a.json' }), 'reg/a.json': S('string') });
    r.commit({ 'other.txt': 'x' });
    r.commit({ 'other.txt': 'y' });
    const c4 = r.commit({ 'reg/a.json': S('integer') });
    const h = await readHistory({ manifestPath: join(r.dir, 'reg', 'registry.json') });
    expect(h.commits).toBe(4);
    expect(summary(h, 'urn:a')).toEqual([
      [1, { type: 'string' }, c1],
      [2, { type: 'integer' }, c4],
    ]);
  });

  it("a schema reached through a symbolic link out of the registry's directory is no version (as in the working tree)", async () => {
    const r = new Repo();
    r.commit({ 'outside.json': S('null'), 'reg/registry.json': manifest({ 'urn:a': 'a.json' }), 'reg/a.json': S('string') });
    rmSync(join(r.dir, 'reg', 'a.json'));
    symlinkSync('../outside.json', join(r.dir, 'reg', 'a.json'));
    r.commit({});
    const h = await readHistory({ manifestPath: join(r.dir, 'reg', 'registry.json') });
    expect(summary(h, 'urn:a').map((v) => v[1])).toEqual([{ type: 'string' }]);
    const allowed = await readHistory({ manifestPath: join(r.dir, 'reg', 'registry.json'), allowOutsidePaths: true });
    expect(summary(allowed, 'urn:a').map((v) => v[1])).toEqual([{ type: 'string' }, { type: 'null' }]);
  });

  it('keeps the versions of a URN removed and added again, and of one the working tree no longer has', async () => {
    const r = new Repo();
    const c1 = r.commit({
      'registry.json': manifest({ 'urn:a': 'a.json', 'urn:gone': 'g.json' }),
      'a.json': S('string'),
      'g.json': S('null'),
    });
    r.commit({ 'registry.json': manifest({ 'urn:gone': 'g.json' }), 'a.json': null });
    const c3 = r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('integer'), 'g.json': null });
    const h = await readHistory({ manifestPath: join(r.dir, 'registry.json') });
    expect(summary(h, 'urn:a')).toEqual([
      [1, { type: 'string' }, c1],
      [2, { type: 'integer' }, c3],
    ]);
    expect(summary(h, 'urn:gone')).toEqual([[1, { type: 'null' }, c1]]);
  });

  it('a schema back to an earlier one is that version again (a Confluent registry answers the same)', async () => {
    const r = new Repo();
    const c1 = r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    const c2 = r.commit({ 'a.json': S('integer') });
    r.commit({ 'a.json': S('string') });
    const h = await readHistory({ manifestPath: join(r.dir, 'registry.json') });
    expect(summary(h, 'urn:a')).toEqual([
      [1, { type: 'string' }, c1],
      [2, { type: 'integer' }, c2],
    ]);
  });

  it("walks a merge by its first parent: a side branch's intermediate schema is no version unless every parent is asked for", async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    r.git('checkout', '-q', '-b', 'side');
    r.commit({ 'a.json': S('null') }); // intermediate: only on the side branch
    r.commit({ 'a.json': S('integer') });
    r.git('checkout', '-q', 'main');
    r.commit({ 'other.txt': 'x' });
    r.git('-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'merge', '-q', '--no-ff', '-m', 'merge side', 'side');
    const first = await readHistory({ manifestPath: join(r.dir, 'registry.json') });
    expect(summary(first, 'urn:a').map((v) => v[1])).toEqual([{ type: 'string' }, { type: 'integer' }]);
    const all = await readHistory({ manifestPath: join(r.dir, 'registry.json'), allParents: true });
    expect(summary(all, 'urn:a').map((v) => v[1])).toEqual([{ type: 'string' }, { type: 'null' }, { type: 'integer' }]);
  });

  it("starts at --since (inclusive) and puts the working tree's schema last", async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    const c2 = r.commit({ 'a.json': S('integer') });
    r.git('tag', 'v1');
    const c3 = r.commit({ 'a.json': S('number') });
    const h = await readHistory({
      manifestPath: join(r.dir, 'registry.json'),
      since: 'v1',
      working: [{ urn: 'urn:a', value: JSON.parse(S('boolean')), path: 'a.json' }],
    });
    expect(h.since?.commit).toBe(c2);
    expect(h.commits).toBe(2);
    expect(summary(h, 'urn:a')).toEqual([
      [1, { type: 'integer' }, c2],
      [2, { type: 'number' }, c3],
      [3, { type: 'boolean' }, undefined],
    ]);
  });

  it('refuses a shallow clone whose cut the history needs, and reads one whose window it holds', async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    r.commit({ 'a.json': S('integer') });
    r.commit({ 'a.json': S('number') });
    const clone = tempTree({});
    git(clone, 'clone', '-q', '--depth', '2', `file://${r.dir}`, 'c');
    const manifestPath = join(clone, 'c', 'registry.json');
    const err = await readHistory({ manifestPath }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    expect((err as Error).message).toMatch(
      /^history needs the full clone: this is a shallow clone, cut at [0-9a-f]{12} \(2 commit\(s\) back\) where the registry still exists; run git fetch --unshallow/,
    );
    const h = await readHistory({ manifestPath, since: 'HEAD~1' });
    expect(summary(h, 'urn:a').map((v) => v[1])).toEqual([{ type: 'integer' }, { type: 'number' }]);
  });

  it('outside a repository, with an unknown or unrelated --since: one GitError each', async () => {
    const plain = tempTree({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    await expect(readHistory({ manifestPath: join(plain, 'registry.json') })).rejects.toThrow(
      /^cannot read the registry's history: .* is not in a git repository$/,
    );
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json' }), 'a.json': S('string') });
    await expect(readHistory({ manifestPath: join(r.dir, 'registry.json'), since: 'nope' })).rejects.toThrow(
      /^--since: unknown git ref: nope/,
    );
    r.git('checkout', '-q', '--orphan', 'other');
    r.commit({ 'x.txt': 'x' });
    r.git('checkout', '-q', 'main');
    await expect(readHistory({ manifestPath: join(r.dir, 'registry.json'), since: 'other' })).rejects.toThrow(
      /^--since other \([0-9a-f]{12}\) is not an ancestor of HEAD/,
    );
  });
});

describe('the cost of a history', () => {
  it('one git cat-file process for every commit and blob, and a fixed number of other git runs, however many commits', async () => {
    const r = new Repo();
    r.commit({ 'registry.json': manifest({ 'urn:a': 'a.json', 'urn:b': 'b.json' }), 'a.json': S('string'), 'b.json': S('string') });
    const props: Record<string, unknown> = { id: { type: 'string' } };
    for (let i = 0; i < 30; i++) {
      props[`f${i}`] = { type: 'string' }; // optional properties added: compatible
      r.commit({ [i % 2 ? 'a.json' : 'b.json']: objectSchema(props) });
    }
    // A git on PATH that logs each run's first arguments, then runs the real one.
    const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    const bin = tempTree({});
    const log = join(bin, 'calls.log');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$1 $2" >> '${log}'\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const run = await bq(['compat', '--transitive'], { cwd: r.dir, env: { PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` } });
    expectExit(run, 0);
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    // The registry at HEAD and the history: a cat-file each, whatever the 31 commits and 33 blobs.
    expect(calls.filter((c) => c.startsWith('cat-file')).length).toBe(2);
    expect(calls.length).toBeLessThan(15);
    expect(run.stdout).toMatch(/in 31 commit\(s\)/);
  });
});
