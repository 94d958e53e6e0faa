// The library entry for browsers (src/browser.ts, the "browser" condition of the
// package's exports for `.`) and the standalone modules' runtime (`bqschema/standalone`) reach no
// `node:` module: a static scan of every built file they import. The browser entry exports all of
// the main entry's names but the two providers that need Node.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { moduleGraph } from '../helpers/module-graph.js';

const graph = (entry: string) => moduleGraph(entry, { requires: true });

describe.each([
  ['dist/browser.js', 25],
  ['dist/standalone/index.js', 4],
])('%s', (entry, minimum) => {
  it('is built, and its module graph imports no node: module (nor any other package)', () => {
    expect(existsSync(join(ROOT, entry)), `${entry} is missing: run npm run build`).toBe(true);
    const { files, uses, computed } = graph(join(ROOT, entry));
    expect(files.size).toBeGreaterThan(minimum);
    expect(uses.map((u) => relative(ROOT, u))).toEqual([]);
    // A dynamic import whose specifier is computed would escape this scan: there must be none.
    expect(computed).toEqual([]);
  });
});

describe('the scan finds what it looks for', () => {
  it('reports a node: import, a require and a bare package in a file the entry reaches', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bq-graph-'));
    try {
      writeFileSync(join(dir, 'a.js'), "export { b } from './b.js';\nimport('./c.js');\n");
      writeFileSync(join(dir, 'b.js'), "import { readFileSync } from 'node:fs';\nexport const b = 1;\n");
      writeFileSync(join(dir, 'c.js'), "const p = require('path');\nimport 'yaml';\n");
      writeFileSync(join(dir, 'd.js'), 'const m = "./b.js";\nexport default import(m);\n');
      expect([...graph(join(dir, 'a.js')).bare].sort()).toEqual(['node:fs', 'path', 'yaml']);
      expect(graph(join(dir, 'd.js')).computed).toEqual([join(dir, 'd.js')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the browser entry', () => {
  it('exports every name of the main entry but DirProvider, as the same objects', async () => {
    const main = (await import(pathToFileURL(join(ROOT, 'dist', 'index.js')).href)) as Record<string, unknown>;
    const browser = (await import(pathToFileURL(join(ROOT, 'dist', 'browser.js')).href)) as Record<string, unknown>;
    expect(Object.keys(browser).sort()).toEqual(
      Object.keys(main)
        .filter((n) => n !== 'DirProvider')
        .sort(),
    );
    for (const name of Object.keys(browser)) expect(browser[name], name).toBe(main[name]);
  });

  it('is what `bqschema` resolves to under the browser condition; Node gets the main entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bq-browser-cond-'));
    try {
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(ROOT, join(dir, 'node_modules', 'bqschema'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      const script =
        "import * as b from 'bqschema'; console.log(import.meta.resolve('bqschema').split('/').pop(), typeof b.check, typeof b.DirProvider);";
      const run = (flags: string[]): string => {
        const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
        expect(r.stderr).toBe('');
        return r.stdout.trim();
      };
      expect(run(['--conditions=browser'])).toBe('browser.js function undefined');
      expect(run([])).toBe('index.js function function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('declares its types: the browser condition names dist/browser.d.ts, which exists', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, Record<string, { types: string; default: string }>>;
    };
    const browser = pkg.exports['.']!.browser!;
    expect(Object.keys(pkg.exports['.']!)[0]).toBe('browser'); // conditions match in order: browser before import/require
    expect(existsSync(join(ROOT, browser.types))).toBe(true);
    expect(browser.default).toBe('./dist/browser.js');
  });
});
