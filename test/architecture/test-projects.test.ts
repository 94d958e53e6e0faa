import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

// The unit project (vitest.config.ts: every test file not named *.e2e.test.ts) runs without a build,
// so none of its files may run bin/ or read dist/, directly or through what they import from test/
// and scripts/. A static scan, so that a unit file that would only reach the CLI on some branch is
// caught too (at run time the CLI helpers refuse under BQ_TEST_PROJECT=unit).

const TEST = join(ROOT, 'test');
const DATA = new Set(['fixtures', 'vendor', 'artifacts']);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return DATA.has(d.name) && dir === TEST ? [] : testFiles(p);
    return d.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** A built artefact named in code: dist/…, 'dist', bin/bqschema, 'bin'. */
const BUILT = /(?<![\w.-])dist\/|['"`]dist['"`]|bin\/bqschema|['"`]bin['"`]/;

/** Static and dynamic imports with a relative specifier, and the names a static import takes. */
function localImports(text: string): Array<{ spec: string; names: string[] }> {
  const out: Array<{ spec: string; names: string[] }> = [];
  for (const m of text.matchAll(/^import\s+(?:type\s+)?(?:\{([^}]*)\}|[\w*\s]+?)\s+from\s+'(\.{1,2}\/[^']+)'/gm)) {
    const names = (m[1] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && !s.startsWith('type '))
      .map((s) => s.split(/\s+as\s+/)[0]!.trim());
    out.push({ spec: m[2]!, names });
  }
  for (const m of text.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)) out.push({ spec: m[1]!, names: ['*'] });
  return out;
}

function resolveLocal(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  return [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts')].find((p) => existsSync(p));
}

/**
 * The exports of a test helper that run the built CLI: those whose own text names bin/ or dist/ or
 * calls another helper that does. Derived from the helper's source, so a new driver needs no list.
 */
function drivers(file: string, text: string, seen: Map<string, Set<string>>): Set<string> {
  const known = seen.get(file);
  if (known) return known;
  const found = new Set<string>();
  seen.set(file, found);
  const imported = new Set<string>();
  for (const { spec, names } of localImports(text)) {
    const target = resolveLocal(file, spec);
    if (!target || !target.startsWith(TEST)) continue;
    const theirs = drivers(target, readFileSync(target, 'utf8'), seen);
    for (const n of names) if (theirs.has(n)) imported.add(n);
  }
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const chunks = code.split(/\n(?=export )/);
  for (const chunk of chunks) {
    const name = /^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+(\w+)/.exec(chunk)?.[1];
    if (!name) continue;
    const calls = [...imported, ...found].some((n) => new RegExp(`\\b${n}\\b`).test(chunk.replace(/^export[^\n(=]*/, '')));
    if (BUILT.test(chunk) || calls) found.add(name);
  }
  for (const m of text.matchAll(/^export\s*\{([^}]*)\}\s*from/gm))
    for (const n of m[1]!.split(',').map((s) => s.trim())) if (imported.has(n)) found.add(n);
  return found;
}

/** Why a unit-project file would need the build: each line names the file and what it reaches. */
function unitProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  const seen = new Map<string, Set<string>>();
  const visited = new Set<string>();
  const visit = (path: string, body: string, via: string): void => {
    if (visited.has(path)) return;
    visited.add(path);
    const line = body.split('\n').findIndex((l) => BUILT.test(l) && !/^\s*(\/\/|\*|\/\*)/.test(l));
    if (line >= 0) problems.push(`${via}: line ${line + 1} names a built file (${body.split('\n')[line]!.trim().slice(0, 80)})`);
    for (const { spec, names } of localImports(body)) {
      const target = resolveLocal(path, spec);
      if (!target || target.startsWith(join(ROOT, 'src') + '/')) continue;
      const text = readFileSync(target, 'utf8');
      const rel = relative(ROOT, target);
      if (target.startsWith(TEST)) {
        const driving = drivers(target, text, seen);
        const used = names.filter((n) => driving.has(n));
        if (used.length > 0) problems.push(`${via}: imports ${used.join(', ')} from ${rel}, which run the built CLI`);
        continue; // a helper's other exports are judged by what the unit file uses
      }
      visit(target, text, `${via} → ${rel}`);
    }
  };
  visit(file, text, relative(ROOT, file));
  return problems;
}

describe('the unit project needs no build', () => {
  const files = testFiles(TEST);
  // This file's own strings name built files as data for the scan's self-test below.
  const unit = files.filter((f) => !f.endsWith('.e2e.test.ts') && f !== fileURLToPath(import.meta.url));

  it('finds both projects', () => {
    expect(unit.length).toBeGreaterThan(40);
    expect(files.length - unit.length).toBeGreaterThan(40);
  });

  it('no unit test file runs bin/ or reads dist/ (name such a file *.e2e.test.ts)', () => {
    const problems = unit.flatMap((f) => unitProblems(f, readFileSync(f, 'utf8')));
    expect(problems).toEqual([]);
  });

  it('the scan sees a CLI helper used, a built file imported or named, and a script that reads dist/', () => {
    const here = join(TEST, 'architecture', 'probe.test.ts');
    expect(unitProblems(here, "import { bq, ROOT } from '../helpers/cli.js';\n")).toEqual([
      'test/architecture/probe.test.ts: imports bq from test/helpers/cli.ts, which run the built CLI',
    ]);
    expect(unitProblems(here, "import { run, tree } from '../helpers/hostile.js';\n")[0]).toMatch(
      /imports run from test\/helpers\/hostile\.ts/,
    );
    expect(unitProblems(here, "import { serve } from '../helpers/serve.js';\n")[0]).toMatch(/imports serve from test\/helpers\/serve\.ts/);
    expect(unitProblems(here, "import { lines } from '../../dist/cli/inputs.js';\n")[0]).toMatch(/line 1 names a built file/);
    expect(unitProblems(here, "const main = join(ROOT, 'dist', 'cli', 'main.js');\n")[0]).toMatch(/line 1 names a built file/);
    expect(unitProblems(here, "import { compatRulesPage } from '../../scripts/gen-compat-rules.js';\n")[0]).toMatch(
      /→ scripts\/gen-compat-rules\.js: line \d+ names a built file/,
    );
    expect(
      unitProblems(here, "import { ROOT, tempTree } from '../helpers/cli.js';\nimport { tree } from '../helpers/hostile.js';\n"),
    ).toEqual([]);
  });
});
