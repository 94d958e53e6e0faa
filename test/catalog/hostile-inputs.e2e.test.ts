// Hostile inputs for `catalog`: -o targets, reads before refusing, self-referencing YAML, hostile messages.
import { afterAll, describe, expect, it } from 'vitest';
import {
  CYCLIC_SCHEMA_YAML,
  describeOutputTargets,
  expectRun,
  hostileRegistry,
  refusedOpens,
  removeTrees,
  guardRepo,
  run,
  tree,
} from '../helpers/hostile.js';

afterAll(removeTrees);

describeOutputTargets('catalog', (manifest) => ['catalog', '--no-history', '-r', manifest]);

describe('catalog: hostile registries', { timeout: 60_000 }, () => {
  guardRepo();

  it('refuses /dev/zero, an outside FIFO and ../../etc/shadow before opening them', async () => {
    const { dir, outsideFifo } = hostileRegistry();
    const r = await run(['catalog', '--no-history'], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
    expectRun(r, 1, /^bqschema: schema file for urn:hostile:zero is outside the registry directory: \/dev\/zero/);
    expect(refusedOpens(r, outsideFifo)).toEqual([]);
    expect(r.opened.some((p) => p.endsWith('registry.json'))).toBe(true);
  });

  it('self-referencing YAML: one line naming the file and position', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:cyc', schema: 'cyc.yaml' }] }),
      'cyc.yaml': CYCLIC_SCHEMA_YAML,
    });
    const r = await run(['catalog', '--no-history'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(
      r,
      1,
      /^bqschema: schema file for urn:test:cyc is malformed: cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/,
    );
  });

  it('--messages: /dev/zero and a FIFO among the example messages do not hang or grow the run', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:a', schema: 'a.json' }] }),
      'a.json': '{"type":"object"}',
      'msgs/ok.json': '{"job":"urn:test:a","data":{}}',
    });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [`${dir}/msgs/pipe.json`]);
    const r = await run(['catalog', '--no-history', '--messages', 'msgs', '/dev/zero', '-o', 'c.html'], {
      cwd: dir,
      timeoutMs: 20_000,
      nodeFlags: ['--max-old-space-size=256'],
    });
    // Stopped at the whole-file limit (16 MiB), the FIFO not waited on; memory stays under 256 MB of heap.
    expectRun(r, 2, /^bqschema: \/dev\/zero: the file is larger than 16777216 bytes/);
  });
});
