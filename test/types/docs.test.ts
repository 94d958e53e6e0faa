import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../../src/types/index.js';
import { exampleEntries } from '../helpers/example-registry.js';
import { ROOT, typeCheck } from '../helpers/tsc.js';

const doc = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');

describe('docs/types.md', () => {
  it('shows the example registry exactly as the generator writes it', () => {
    const block = /```text\n\$ bqschema types --registry registry\.example\.json\n([\s\S]*?)```/.exec(doc);
    expect(block).not.toBeNull();
    expect(block![1]).toBe(generateTypes(exampleEntries()));
  });

  it('has a TypeScript example that compiles, but for the line it says fails', () => {
    const block = /```ts\n([\s\S]*?)```/.exec(doc)![1]!;
    const source = 'declare const message: string;\n' + block.replace(`from 'bqschema'`, `from '../src/index.js'`);
    const diagnostics = typeCheck({ 'test/__docs_example.ts': source, 'test/bq-types.ts': generateTypes(exampleEntries()) });
    const lines = source.split('\n');
    expect(
      diagnostics.map(
        (d) =>
          `${d.file.endsWith('__docs_example.ts') ? '' : d.file + ':'}${lines[d.line - 1]?.includes('// tsc error') ? 'marked' : d.line + ': ' + d.message}`,
      ),
    ).toEqual(['marked']);
  });
});
