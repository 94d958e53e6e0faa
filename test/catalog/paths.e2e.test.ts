import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, removeTempTrees, tempTree } from '../helpers/cli.js';

/*
 * Every path the catalog shows is relative to the registry's directory, whatever
 * path was passed: an absolute --registry put the build machine's paths (/home/…) into the page.
 */

afterAll(removeTempTrees);

const schema = JSON.stringify({ type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] });

describe('catalog paths', () => {
  const root = tempTree({
    'repo/reg/registry.json': JSON.stringify({
      schemas: [
        { urn: 'urn:test:a', schema: 'schemas/a.json', owner: 'team' },
        { urn: 'urn:test:b', schema: './schemas/deep/b.json', owner: 'team' },
      ],
    }),
    'repo/reg/schemas/a.json': schema,
    'repo/reg/schemas/deep/b.json': schema,
    'elsewhere/.keep': '',
  });

  const cases: Array<[string, string, string]> = [
    ['an absolute --registry from another directory', join(root, 'elsewhere'), join(root, 'repo/reg/registry.json')],
    ['a relative --registry from a parent directory', join(root, 'repo'), 'reg/registry.json'],
    ['the registry found in the working directory', join(root, 'repo/reg'), 'registry.json'],
  ];

  for (const [name, cwd, registry] of cases) {
    it(`shows schema files as the manifest names them, for ${name}`, async () => {
      const out = join(root, 'elsewhere', `catalog-${cases.findIndex((c) => c[0] === name)}.html`);
      const r = await bq(['catalog', '--registry', registry, '--no-history', '-o', out], { cwd });
      expectExit(r, 0);
      const page = readFileSync(out, 'utf8');
      expect(page).not.toContain(root); // no absolute path of the build machine
      expect(page).not.toContain('reg/schemas'); // nor one relative to where the command ran
      expect(page).toContain('<code>schemas/a.json</code>');
      expect(page).toContain('<code>schemas/deep/b.json</code>');
    });
  }
});
