import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderOf, importsOf, LAYERS, layerOf, sourceModules, upwardImports } from '../helpers/layers.js';
import { ROOT } from '../helpers/tsc.js';

/*
 * The folders of src in layer order (test/helpers/layers.ts): no module imports a folder of its
 * own layer or one above it, whether by a static, type-only, re-exporting or dynamic import.
 */

const SRC = join(ROOT, 'src');
const folders = (): string[] =>
  [
    '.',
    ...readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name),
  ].sort();

describe('the layer order of src', () => {
  it('places every folder of src in exactly one layer, and names no folder that is not there', () => {
    const placed = LAYERS.flatMap((l) => l.folders);
    expect(new Set(placed).size, 'a folder in two layers').toBe(placed.length);
    expect(
      folders().filter((f) => layerOf(f) === undefined),
      'folders with no layer: add a row in test/helpers/layers.ts',
    ).toEqual([]);
    expect(
      placed.filter((f) => !existsSync(join(SRC, f))),
      'layers naming folders that do not exist',
    ).toEqual([]);
  });

  it('has no import of a folder in the same layer or a layer above', () => {
    const edges = sourceModules().map((f) => [f, importsOf(f)] as const);
    expect(edges.length).toBeGreaterThan(100);
    expect(upwardImports(edges)).toEqual([]);
  });

  it('the runtime guard no longer reaches gdpr (the loop guard/mask.ts -> gdpr -> guard/envelope.ts is gone)', () => {
    const guard = sourceModules(join(SRC, 'guard'));
    expect(
      guard
        .flatMap((f) => importsOf(f))
        .map(folderOf)
        .filter((f) => f === 'gdpr'),
    ).toEqual([]);
  });

  it('fails on an added import of every folder above or beside the importer, in every import form, and on nothing else', () => {
    // Every ordered pair of placed folders, with each way a module can name another.
    const forms = [
      (s: string) => `import { x } from '${s}';`,
      (s: string) => `import type { X } from '${s}';`,
      (s: string) => `export { x } from '${s}';`,
      (s: string) => `export * from '${s}';`,
      (s: string) => `import '${s}';`,
      (s: string) => `async function f() { return import('${s}'); }`,
      (s: string) => `import {\n  a,\n  b,\n} from '${s}';`,
    ];
    const placed = LAYERS.flatMap((l) => l.folders);
    let flagged = 0;
    for (const from of placed) {
      const file = from === '.' ? join(SRC, 'entry.ts') : join(SRC, from, 'deep', 'm.ts');
      const prefix = from === '.' ? './' : '../../';
      for (const to of placed) {
        if (to === from) continue;
        const target = to === '.' ? `${prefix}index.js` : `${prefix}${to}/index.js`;
        const wrong = layerOf(to)! <= layerOf(from)!;
        for (const form of forms) {
          const found = upwardImports([[file, importsOf(file, form(target))]]);
          expect(found.length, `${from} -> ${to}: ${form(target)}`).toBe(wrong ? 1 : 0);
          flagged += found.length;
        }
      }
      // An import within the folder, or of a package, is never a layering question.
      const own = from === '.' ? './browser.js' : '../n.js';
      expect(upwardImports([[file, importsOf(file, `import a from '${own}'; import b from 'node:fs'; import c from 'yaml';`)]])).toEqual(
        [],
      );
    }
    expect(flagged).toBeGreaterThan(0);
    // The import this test was written for: the guard reaching up into a command's core.
    const mask = join(SRC, 'guard', 'mask.ts');
    expect(upwardImports([[mask, importsOf(mask, "import { mask } from '../gdpr/index.js';")]])).toEqual([
      'src/guard/mask.ts (guard) -> src/gdpr/index.ts (gdpr)',
    ]);
    // An unplaced folder is an error too, in either direction.
    const stray = join(SRC, 'stray', 'x.ts');
    expect(upwardImports([[stray, importsOf(stray, "import '../validator/index.js';")]])).toHaveLength(1);
  });

  it('is the order docs/ARCHITECTURE.md gives, row for row', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
    const block = /<!-- layers -->\n([\s\S]*?)<!-- \/layers -->/.exec(doc);
    expect(block, 'docs/ARCHITECTURE.md has no <!-- layers --> table').not.toBeNull();
    const rows = block![1]!
      .split('\n')
      .filter((l) => /^\| \d/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()));
    expect(rows.map((r) => [r[1], r[2], r[3]])).toEqual(
      LAYERS.map((l, i) => [String(i + 1), l.name, l.folders.map((f) => (f === '.' ? '`src/*.ts`' : `\`src/${f}\``)).join(', ')]),
    );
  });
});
