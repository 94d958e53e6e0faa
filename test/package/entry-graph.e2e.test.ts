import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleGraph } from '../helpers/module-graph.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI_DEPENDENCIES = ['commander', 'chalk', 'yaml', 'jsonc-parser', '@asyncapi/specs', 'ajv'];

describe('the library entry', () => {
  const entry = join(root, 'dist', 'index.js');
  it('is built (npm test builds first)', () => {
    expect(existsSync(entry), 'dist/index.js is missing: run npm run build').toBe(true);
  });
  it('reaches no CLI dependency and no CLI module', () => {
    const { files, bare } = moduleGraph(entry);
    expect(files.size).toBeGreaterThan(5);
    for (const dep of CLI_DEPENDENCIES) expect([...bare].filter((b) => b === dep || b.startsWith(dep + '/'))).toEqual([]);
    expect([...bare].every((b) => b.startsWith('node:'))).toBe(true);
    expect([...files].filter((f) => f.includes(`${join('dist', 'cli')}`))).toEqual([]);
  });
  it('imports in a fresh process without loading commander', async () => {
    const { execFileSync } = await import('node:child_process');
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { check, wrap, MapProvider } from ${JSON.stringify(entry)};
       import { createRequire } from 'node:module';
       const loaded = Object.keys(createRequire(import.meta.url).cache);
       console.log(typeof check, typeof wrap, typeof MapProvider, loaded.some((f) => f.includes('commander')));`,
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('function function function false');
  });
});
