import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface ModuleGraph {
  /** Every file reached, the entry included. */
  files: Set<string>;
  /** Every specifier that is not relative (`node:fs`, `yaml`). */
  bare: Set<string>;
  /** `file: specifier` for each of them. */
  uses: string[];
  /** Files with a dynamic import whose specifier is computed (a scan cannot follow it). */
  computed: string[];
}

/**
 * Every module a built entry reaches through static imports, re-exports and dynamic imports (and,
 * with `requires`, `require('…')` calls too: lazy loads such as the registry's YAML parser).
 */
export function moduleGraph(entry: string, options: { requires?: boolean } = {}): ModuleGraph {
  const graph: ModuleGraph = { files: new Set(), bare: new Set(), uses: [], computed: [] };
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (graph.files.has(file)) continue;
    graph.files.add(file);
    const source = readFileSync(file, 'utf8');
    const specifiers = [
      ...source.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g),
      ...source.matchAll(/import\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g),
      ...source.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/gm),
      ...(options.requires ? source.matchAll(/\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g) : []),
    ].map((m) => m[1]!);
    for (const spec of specifiers) {
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else {
        graph.bare.add(spec);
        graph.uses.push(`${file}: ${spec}`);
      }
    }
    if (/import\s*\(\s*[^'"`\s]/.test(source)) graph.computed.push(file);
  }
  return graph;
}
