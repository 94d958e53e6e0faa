import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';

// Registry discovery (docs/registry.md): --registry, else $BQSCHEMA_REGISTRY, else the first of
// registry.json, .jsonc, .yaml, .yml in the working directory or a parent, stopping at the
// directory that holds .git.

afterAll(removeTempTrees);

const YAML_REGISTRY = 'schemas:\n  - urn: urn:d:yaml\n    schema: schemas/a.yaml\n';
const SCHEMA = 'type: object\nrequired: [id]\n';
const message = (urn: string): string => JSON.stringify({ job: urn, data: {} });

/** The URNs `check` lists (one `✓ urn  file` line each): which registry was read. */
async function checkedUrns(cwd: string, env: Record<string, string | undefined> = {}): Promise<string[]> {
  const r = await bq(['check'], { cwd, env });
  expectExit(r, 0);
  return [...r.stdout.matchAll(/^✓ (\S+) /gm)].map((m) => m[1]!);
}

describe.concurrent('registry discovery', () => {
  it('finds registry.yaml in the working directory', async () => {
    const dir = tempTree({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'registry.yaml': YAML_REGISTRY,
      'schemas/a.yaml': SCHEMA,
      'm.json': message('urn:d:yaml'),
    });
    expect(await checkedUrns(dir)).toEqual(['urn:d:yaml']);
    const r = await bq(['validate', 'm.json'], { cwd: dir });
    expectExit(r, 1); // the YAML registry's schema was applied: `id` is required
    expect(r.stdout).toContain('must have required property "id"');
  });

  it('prefers registry.json to registry.yaml in the same directory (the documented order)', async () => {
    const dir = tempTree({
      '.git/HEAD': 'x',
      'registry.yaml': YAML_REGISTRY,
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:d:json', schema: 'schemas/a.yaml' }] }),
      'schemas/a.yaml': SCHEMA,
    });
    expect(await checkedUrns(dir)).toEqual(['urn:d:json']);
  });

  it('finds the registry from a subdirectory, and resolves its schema paths from the manifest', async () => {
    const dir = tempTree({
      '.git/HEAD': 'x',
      'registry.yml': YAML_REGISTRY,
      'schemas/a.yaml': SCHEMA,
      'services/orders/m.json': message('urn:d:yaml'),
    });
    const sub = join(dir, 'services', 'orders');
    expect(await checkedUrns(sub)).toEqual(['urn:d:yaml']);
    const r = await bq(['validate', 'm.json'], { cwd: sub });
    expectExit(r, 1);
    expect(r.stdout).toContain('must have required property "id"');
  });

  it('stops at the directory holding .git: a registry above the repository is not used', async () => {
    const dir = tempTree({
      'registry.yaml': YAML_REGISTRY,
      'schemas/a.yaml': SCHEMA,
      'repo/.git/HEAD': 'x',
      'repo/src/m.json': message('urn:d:yaml'),
    });
    const r = await bq(['check'], { cwd: join(dir, 'repo', 'src') });
    expectOneLineError(r, /^bqschema: no registry found: /);
    // Both directories searched are named: where it started and where it stopped.
    expect(r.stderr).toContain(`in ${join(dir, 'repo', 'src')} and its parents up to ${join(dir, 'repo')};`);
    expect(r.stderr).not.toContain(`${dir};`);
  });

  it('a .git file (a worktree or submodule) also marks the repository root', async () => {
    const dir = tempTree({ 'registry.json': '{"schemas":[]}', 'wt/.git': 'gitdir: /elsewhere\n' });
    mkdirSync(join(dir, 'wt', 'deep'));
    expectOneLineError(await bq(['check'], { cwd: join(dir, 'wt', 'deep') }), /no registry found: .* up to .*wt;/);
  });

  it('the not-found error names the file names searched and both ways to point at a registry', async () => {
    const dir = tempTree({ '.git/HEAD': 'x', 'm.json': message('urn:x') });
    for (const args of [['check'], ['validate', 'm.json'], ['compat', '--against', 'HEAD'], ['gdpr'], ['types'], ['export-asyncapi']]) {
      const r = await bq(args, { cwd: dir });
      expectOneLineError(
        r,
        /^bqschema: no registry found: looked for registry\.json, registry\.jsonc, registry\.yaml, registry\.yml in \/\S+; give one with --registry <path> or BQSCHEMA_REGISTRY=<path> \(bqschema init creates one\)$/,
      );
    }
  });

  it('BQSCHEMA_REGISTRY is used instead of discovery; a missing path says it came from the variable', async () => {
    const dir = tempTree({
      '.git/HEAD': 'x',
      'registry.yaml': YAML_REGISTRY,
      'schemas/a.yaml': SCHEMA,
      'alt/registry.json': '{"schemas":[]}',
    });
    expect(await checkedUrns(dir, { BQSCHEMA_REGISTRY: 'alt/registry.json' })).toEqual([]);
    const r = await bq(['check'], { cwd: dir, env: { BQSCHEMA_REGISTRY: 'gone/registry.json' } });
    expectOneLineError(r, /^bqschema: registry manifest not found: gone\/registry\.json \(from BQSCHEMA_REGISTRY\)$/);
  });

  it('--registry beats BQSCHEMA_REGISTRY, and a missing --registry path says so', async () => {
    const dir = tempTree({ '.git/HEAD': 'x', 'alt/registry.json': '{"schemas":[]}' });
    const r = await bq(['check', '--registry', 'nope.json'], { cwd: dir, env: { BQSCHEMA_REGISTRY: 'alt/registry.json' } });
    expectOneLineError(r, /^bqschema: registry manifest not found: nope\.json \(from --registry\)$/);
  });

  it('an empty BQSCHEMA_REGISTRY is unset: discovery runs', async () => {
    const dir = tempTree({ '.git/HEAD': 'x', 'registry.yaml': YAML_REGISTRY, 'schemas/a.yaml': SCHEMA });
    expect(await checkedUrns(dir, { BQSCHEMA_REGISTRY: '' })).toEqual(['urn:d:yaml']);
  });
});
