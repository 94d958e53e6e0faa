import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';

/*
 * compat's compatibility level is --compatibility, as in serve and Confluent; -m/--mode, its first
 * name, is a deprecated alias that still works (docs/cli/compat.md).
 */

afterAll(removeTempTrees);

// A newly required property: breaks backward, not forward.
const files = (): string =>
  tempTree({
    'old.json': JSON.stringify({ type: 'object', properties: { id: { type: 'integer' } } }),
    'new.json': JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }),
  });

describe.concurrent('compat --compatibility, and --mode its deprecated alias', () => {
  it('--compatibility sets the level; backward by default', async () => {
    const dir = files();
    const byDefault = await bq(['compat', 'old.json', 'new.json', '--format', 'json'], { cwd: dir });
    const backward = await bq(['compat', '--compatibility', 'backward', 'old.json', 'new.json', '--format', 'json'], { cwd: dir });
    const forward = await bq(['compat', '--compatibility', 'FORWARD', 'old.json', 'new.json', '--format', 'json'], { cwd: dir });
    expectExit(byDefault, 1);
    expectExit(backward, 1);
    expectExit(forward, 0);
    expect(backward.stdout).toBe(byDefault.stdout);
  });

  for (const level of ['backward', 'forward', 'full', 'none']) {
    it(`--mode ${level} says and exits what --compatibility ${level} does`, async () => {
      const dir = files();
      const alias = await bq(['compat', '--mode', level, 'old.json', 'new.json'], { cwd: dir });
      const named = await bq(['compat', '--compatibility', level, 'old.json', 'new.json'], { cwd: dir });
      const short = await bq(['compat', '-m', level, 'old.json', 'new.json'], { cwd: dir });
      expect([alias.code, alias.stdout, alias.stderr]).toEqual([named.code, named.stdout, named.stderr]);
      expect([short.code, short.stdout, short.stderr]).toEqual([named.code, named.stdout, named.stderr]);
      expect(named.code).toBe(level === 'backward' || level === 'full' ? 1 : 0);
    });
  }

  it('both at once is a usage error naming the two, in one line', async () => {
    const r = await bq(['compat', '--mode', 'forward', '--compatibility', 'backward', 'old.json', 'new.json'], { cwd: files() });
    expectOneLineError(r, /^bqschema: option '-m, --mode <level>' cannot be used with option '--compatibility <level>'$/, 2);
  });

  it('an unknown level is refused the same under either name', async () => {
    const dir = files();
    const a = await bq(['compat', '--mode', 'sideways', 'old.json', 'new.json'], { cwd: dir });
    const b = await bq(['compat', '--compatibility', 'sideways', 'old.json', 'new.json'], { cwd: dir });
    expect(a.code).toBe(2);
    expect([a.code, a.stderr]).toEqual([b.code, b.stderr]);
  });

  it('help names --compatibility, and --mode as deprecated', async () => {
    const r = await bq(['compat', '--help']);
    expect(r.stdout).toMatch(/--compatibility <level>\s+compatibility level: backward, forward, full or\s+none/);
    expect(r.stdout).toMatch(/-m, --mode <level>\s+deprecated: the same as --compatibility/);
  });
});
