// Hostile inputs for `types`: -o targets, reads before refusing, self-referencing YAML, deep schemas.
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

describeOutputTargets('types', (manifest) => ['types', '-r', manifest]);

describe('types: hostile registries', { timeout: 60_000 }, () => {
  guardRepo();

  it('refuses /dev/zero, an outside FIFO and ../../etc/shadow before opening them', async () => {
    const { dir, outsideFifo } = hostileRegistry();
    const r = await run(['types'], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
    expectRun(r, 1, /^bqschema: schema file for urn:hostile:zero is outside the registry directory: \/dev\/zero/);
    expect(refusedOpens(r, outsideFifo)).toEqual([]);
    expect(r.opened.some((p) => p.endsWith('registry.json'))).toBe(true);
  });

  it('self-referencing YAML in a schema and in a manifest: one line naming the file and position', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:cyc', schema: 'cyc.yaml' }] }),
      'cyc.yaml': CYCLIC_SCHEMA_YAML,
      'm/registry.yaml': 'schemas: &s\n  - urn: urn:test:x\n    schema: *s\n',
    });
    const schema = await run(['types'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(
      schema,
      1,
      /^bqschema: schema file for urn:test:cyc is malformed: cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/,
    );
    const manifest = await run(['types', '-r', 'm/registry.yaml'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(manifest, 1, /^bqschema: m\/registry\.yaml:3:13: invalid YAML: the alias \*s refers to a node that contains it/);
  });

  it('--check against a FIFO or /dev/zero refuses at once instead of reading it', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:a', schema: 'a.json' }] }),
      'a.json': '{"type":"object"}',
    });
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [`${dir}/t.ts`]);
    for (const target of ['t.ts', '/dev/zero']) {
      const r = await run(['types', '--check', '-o', target], { cwd: dir, timeoutMs: 10_000 });
      expectRun(r, 2, /^bqschema: cannot write .+: it is not a regular file \(a device, FIFO or socket\); nothing was written$/);
    }
  });

  it('a 2,000-level schema is one line naming its URN, and nothing is written', async () => {
    let s: unknown = { type: 'string' };
    for (let i = 0; i < 2000; i++) s = { type: 'object', properties: { a: s } };
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:deep', schema: 'deep.json' }] }),
      'deep.json': JSON.stringify(s),
    });
    const r = await run(['types', '-o', 'out.ts'], { cwd: dir });
    expectRun(
      r,
      1,
      /^bqschema: schema for urn:test:deep \(deep\.json\): the schema is nested deeper than 512 levels \(objects and arrays\), the most bqschema reads; flatten it$/,
    );
    expect(r.stdout).toBe('');
  });
});
