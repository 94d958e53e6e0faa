import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/tsc.js';

/*
 * No module of src imports itself back, through static imports or dynamic import() alike: a cycle
 * is a layering mistake (validate.ts and its workers once imported each other), and a
 * cycle through a dynamic import hides it from most tools.
 */

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return modules(p);
    return /\.(c|m)?ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function graph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const out: string[] = [];
    for (const m of readFileSync(f, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(f), m[1]!).replace(/\.(c|m)?js$/, (ext) => ext.replace('js', 'ts'));
      if (known.has(target)) out.push(target);
    }
    edges.set(f, out);
  }
  return edges;
}

/** Tarjan's strongly connected components of more than one module (or a module importing itself). */
function cycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(scc.map((s) => relative(ROOT, s)).sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return found;
}

describe('module graph of src', () => {
  it('has no import cycle, static or dynamic', () => {
    expect(cycles(graph(modules(join(ROOT, 'src'))))).toEqual([]);
  });

  it('src/report (the Report and its renderers) imports nothing of ours outside it; no core imports the CLI', () => {
    const edges = graph(modules(join(ROOT, 'src')));
    const under =
      (dir: string) =>
      (f: string): boolean =>
        relative(ROOT, f).startsWith(`src/${dir}/`);
    const outward = (from: string, banned: (f: string) => boolean): string[] =>
      [...edges]
        .filter(([f]) => under(from)(f))
        .flatMap(([f, to]) => to.filter(banned).map((t) => `${relative(ROOT, f)} -> ${relative(ROOT, t)}`));
    expect(outward('report', (t) => !under('report')(t))).toEqual([]);
    for (const core of ['check', 'compat', 'gdpr', 'registry', 'validate', 'validator'])
      expect(outward(core, under('cli')), core).toEqual([]);
  });

  it('finds a cycle when there is one (the detector is not vacuous)', () => {
    const a = join(ROOT, 'src/a.ts');
    const b = join(ROOT, 'src/b.ts');
    const c = join(ROOT, 'src/c.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ),
    ).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
    ).toEqual([]);
  });
});
