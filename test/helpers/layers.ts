import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { ROOT } from './tsc.js';

/*
 * The layer order of src's folders, outermost first: a module may import its own folder and any
 * folder of a layer below its own, never a folder of its own layer or one above. Two folders of one
 * layer know nothing of each other, so no two folders can import each other round a loop either.
 * docs/ARCHITECTURE.md ("Layers") lists the same rows; test/architecture/layers.test.ts holds the two equal.
 * A new folder under src must take a row here before any test passes.
 */
export const LAYERS: readonly { name: string; folders: readonly string[]; job: string }[] = [
  {
    name: 'cli',
    folders: ['cli'],
    job: 'the terminal: options, loading files, exit codes; each command loads, computes with its core, renders',
  },
  {
    name: 'entries',
    folders: ['.', 'babelqueue-node', 'conformance', 'standalone'],
    job: 'the package entries besides the CLI (`.` is src/index.ts, src/browser.ts and their twins)',
  },
  {
    name: 'composites',
    folders: ['catalog', 'serve'],
    job: 'the cores built on another core: the HTML catalog and the HTTP API judge compatibility with compat',
  },
  {
    name: 'cores',
    folders: ['asyncapi', 'check', 'compat', 'compile', 'completion', 'gdpr', 'services', 'types', 'validate'],
    job: 'one pure core per command: from loaded registries and inputs to a verdict or a document',
  },
  { name: 'report', folders: ['report'], job: 'the Report and its renderers; imports nothing of ours' },
  { name: 'guard', folders: ['guard'], job: 'the run-time guard: envelopes, check/validate/wrap, masking for logs' },
  { name: 'providers', folders: ['providers'], job: 'a URN to its compiled schema: in memory, a directory, a registry server' },
  { name: 'registry', folders: ['registry'], job: 'reading a registry: manifest, discovery, parsing with positions, git' },
  {
    name: 'validator',
    folders: ['validator'],
    job: 'schemas compiled to checkers; where personal data is and masking it; no dependencies',
  },
];

/** The folder of src a module belongs to: its first directory under src, `.` for src's own files. */
export function folderOf(file: string): string {
  const parts = relative(join(ROOT, 'src'), file).split(sep);
  return parts.length > 1 ? parts[0]! : '.';
}

/** The layer index (0 outermost) of a folder, or undefined for a folder the table does not place. */
export function layerOf(folder: string): number | undefined {
  const i = LAYERS.findIndex((l) => l.folders.includes(folder));
  return i < 0 ? undefined : i;
}

export function sourceModules(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceModules(p);
    return /\.(c|m)?ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Each module's relative imports (static, `export … from`, dynamic `import()`, type-only alike), resolved to source files. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('./') || s.startsWith('../'))
    .map((s) => resolve(dirname(file), s).replace(/\.(c|m)?js$/, (ext) => ext.replace('js', 'ts')));
}

/** Every import that points at a folder of the importer's own layer or one above it. */
export function upwardImports(edges: Iterable<readonly [string, readonly string[]]>): string[] {
  const out: string[] = [];
  for (const [file, targets] of edges) {
    const from = folderOf(file);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === from) continue;
      const a = layerOf(from);
      const b = layerOf(to);
      if (a === undefined || b === undefined || b <= a) {
        out.push(`${relative(ROOT, file)} (${from}) -> ${relative(ROOT, target)} (${to})`);
      }
    }
  }
  return out;
}
