import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, removeTempTrees, tempTree } from '../helpers/cli.js';
import { build, markedPaths, schemaArb, toJsonSchema } from '../helpers/gdpr-shapes.js';

// End to end: `gdpr --mask` prints no marked string on stdout or stderr, whatever
// the shape of the data. One CLI run masks an NDJSON stream of messages built like the property
// test in test/gdpr/mask-closed.test.ts (random schemas, secrets at marked paths under shape changes),
// so the CLI's source-preserving splice of the masked values is covered too.

afterAll(removeTempTrees);

describe('gdpr --mask: no marked string reaches the output', () => {
  it('random schemas and shapes, one NDJSON stream (fixed seed, 40 schemas)', async () => {
    const trees = fc.sample(schemaArb(4), { numRuns: 40, seed: 20261201 });
    const noises = fc.sample(fc.jsonValue({ maxDepth: 2 }), { numRuns: 40, seed: 7 });
    const files: Record<string, string> = {};
    const registry: Array<{ urn: string; schema: string }> = [];
    const lines: string[] = [];
    const secrets: string[] = [];
    trees.forEach((tree, t) => {
      const urn = `urn:test:shape${t}`;
      // An envelope's data is an object: the random schema sits under `payload`.
      files[`s${t}.json`] = JSON.stringify({ type: 'object', properties: { payload: toJsonSchema(tree) } }, null, 2);
      registry.push({ urn, schema: `s${t}.json` });
      markedPaths(tree).forEach((path, n) => {
        for (let variant = 0; variant < 6; variant++) {
          const secret = `SECRET-${t}-${n}-${variant}-x`;
          secrets.push(secret);
          const choices = [variant, t + n, variant * 7 + 3, n * 5 + variant, t, variant + 11];
          lines.push(JSON.stringify({ job: urn, data: { payload: build(path, secret, choices, noises[t]), note: 'visible' } }));
        }
      });
    });
    files['registry.json'] = JSON.stringify({ schemas: registry });
    files['messages.ndjson'] = lines.join('\n') + '\n';
    expect(secrets.length).toBeGreaterThan(100);
    const dir = tempTree(files);
    const r = await bq(['gdpr', '--registry', 'registry.json', '--mask', 'messages.ndjson'], { cwd: dir });
    expectExit(r, 0);
    const out = r.stdout.split('\n').filter((l) => l !== '');
    expect(out).toHaveLength(lines.length);
    expect(out.every((l) => l.endsWith(',"note":"visible"}}'))).toBe(true);
    const leaked = secrets.filter((s) => r.stdout.includes(s) || r.stderr.includes(s));
    expect(leaked).toEqual([]);
  }, 60_000);
});
