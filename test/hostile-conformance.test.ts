// Issue 10 for `conformance --out`: it refuses every target that is not a regular file or a new
// path (a symlink included: documented in docs/conformance-protocol.md), and leaves it as it was.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectRun, IS_ROOT, listing, removeTrees, guardRepo, ROOT, run, tree } from './helpers/hostile.js';

afterAll(removeTrees);

const ADAPTER = `node ${JSON.stringify(join(ROOT, 'examples', 'conformance-adapter.mjs'))}`;

describe('conformance --out: only a regular file or a new path', { timeout: 120_000 }, () => {
  guardRepo();
  const conformance = (dir: string, out: string) => run(['conformance', '--impl', ADAPTER, '--out', out], { cwd: dir, timeoutMs: 60_000 });
  const refused = (out: string): RegExp => new RegExp(`^bqschema: --out ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not a regular file: refusing to replace it$`);

  it.runIf(IS_ROOT)('/dev/null is refused and stays a character device', async () => {
    const dir = tree();
    const r = await conformance(dir, '/dev/null');
    expectRun(r, 2, refused('/dev/null'));
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('a FIFO, a socket, a directory, a symlink to a file and a symlink to /dev/stdout are refused and stay as they were', async () => {
    const dir = tree({ 'real.json': 'old' });
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    mkdirSync(join(dir, 'd'));
    symlinkSync('real.json', join(dir, 'link.json'));
    symlinkSync('/dev/stdout', join(dir, 'so'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    try {
      for (const name of ['fifo', 'sock', 'd', 'link.json', 'so']) {
        const r = await conformance(dir, name);
        expectRun(r, 2, refused(join(dir, name)));
      }
      expect(lstatSync(join(dir, 'sock')).isSocket()).toBe(true); // closing the server removes it
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(lstatSync(join(dir, 'fifo')).isFIFO()).toBe(true);
    expect(lstatSync(join(dir, 'd')).isDirectory()).toBe(true);
    expect(readlinkSync(join(dir, 'link.json'))).toBe('real.json');
    expect(readFileSync(join(dir, 'real.json'), 'utf8')).toBe('old');
    expect(readlinkSync(join(dir, 'so'))).toBe('/dev/stdout');
    expect(listing(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a regular file is replaced whole (the control case)', async () => {
    const dir = tree();
    writeFileSync(join(dir, 'results.json'), 'old');
    const r = await conformance(dir, 'results.json');
    expectRun(r, 0);
    expect(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'))).toHaveProperty('conformance_version');
    expect(listing(dir)).toEqual(['results.json']);
  });
});
