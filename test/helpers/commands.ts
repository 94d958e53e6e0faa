import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './tsc.js';

/**
 * Each row of the command table (src/cli/program.ts), in order, and the module under
 * src/cli/commands/ its handler imports, read from the source: the bundle names a command's chunk
 * after that module, and a transformed handler's text no longer shows the import.
 */
export function commandModules(): Map<string, string> {
  const text = readFileSync(join(ROOT, 'src', 'cli', 'program.ts'), 'utf8');
  const table = text.slice(text.indexOf('export const COMMANDS'));
  const rows = table.split(/\n {2}\{\n {4}name: /).slice(1);
  return new Map(
    rows.map((row) => [
      /^'([a-z-]+)'/.exec(row)?.[1] ?? row.slice(0, 20),
      /handler:[\s\S]*?import\('\.\/commands\/([a-z-]+)\.js'\)/.exec(row)?.[1] ?? '(none)',
    ]),
  );
}
