import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

/** Every name in the `export { … }` lists of a built declaration file, `type` markers removed. */
function declaredNames(file: string): string[] {
  const names: string[] = [];
  for (const m of read(file).matchAll(/export\s*(?:type\s*)?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name !== '') names.push(name);
    }
  }
  return names;
}

// The package's public surface is a decision, not an accident: a new export must be added to the
// committed list and documented in docs/library.md; a removed one is a breaking change.
describe.each([
  ['dist/index.js', 'test/package/api-surface.txt', 'docs/library.md', 20],
  ['dist/conformance/index.js', 'test/package/api-surface-conformance.txt', 'docs/library.md', 8],
])('%s', (entry, list, doc, minimum) => {
  it('exports exactly the committed list of runtime names', async () => {
    expect(existsSync(path.join(root, entry)), `${entry} is missing: run npm run build`).toBe(true);
    const mod = (await import(pathToFileURL(path.join(root, entry)).href)) as Record<string, unknown>;
    const expected = read(list)
      .split('\n')
      .filter((l) => l !== '');
    expect(Object.keys(mod).sort()).toEqual(expected);
  });
  it('documents every exported name, types included', () => {
    const page = read(doc);
    const names = declaredNames(entry.replace(/\.js$/, '.d.ts'));
    expect(names.length).toBeGreaterThan(minimum);
    const undocumented = names.filter((n) => !new RegExp('`(new )?' + n + '\\b').test(page));
    expect(undocumented).toEqual([]);
  });
});

// An option a caller can pass is surface too: each member of the options types docs/library.md
// lists must appear there as `name?` (e.g. `{ onWarning?, unknownUrn? }`).
describe('docs/library.md documents every option', () => {
  const declarations = (readdirSync(path.join(root, 'dist'), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) =>
    f.endsWith('.d.ts'),
  );
  it.each(['GuardOptions', 'ProviderOptions', 'DirProviderOptions', 'HttpProviderOptions', 'CompileOptions'])('%s', (name) => {
    const body = declarations
      .map((f) => new RegExp(`export interface ${name}\\b[^{]*\\{\\n([\\s\\S]*?)\\n\\}`).exec(read(path.join('dist', f)))?.[1])
      .find((b) => b !== undefined);
    expect(body, `no declaration of ${name} in dist/: run npm run build`).toBeDefined();
    const members = [...body!.matchAll(/^ {4}(?:readonly )?(\w+)\?:/gm)].map((m) => m[1]!);
    expect(members.length).toBeGreaterThan(0);
    const page = read('docs/library.md');
    // Documented as `name?` in a signature, or as a row of an options table (`| \`name\`` first in its cell).
    const inTable = (m: string) => new RegExp(`^\\| (?:\`\\w+\`, )*\`${m}[\`(]`, 'm').test(page);
    expect(members.filter((m) => !page.includes(`${m}?`) && !inTable(m))).toEqual([]);
  });
});
