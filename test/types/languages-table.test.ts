import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { GENERATORS } from '../../src/types/generators.js';
import { DEFAULT_LANG, LANGUAGES } from '../../src/types/languages.js';
import { ROOT } from '../helpers/tsc.js';

/* `types --lang`: one row per language (src/types/languages.ts), from which the option, its help and the dispatch derive. */

const langs = LANGUAGES.map((l) => l.lang);

describe('the language table', () => {
  it("is --lang's choices, default and help, in order", async () => {
    const program = await buildProgram('0.0.0', () => {}, ['types']);
    const option = program.commands.find((c) => c.name() === 'types')!.options.find((o) => o.long === '--lang')!;
    expect(option.argChoices).toEqual(langs);
    expect(option.defaultValue).toBe(DEFAULT_LANG);
    const positions = LANGUAGES.map((l) => option.description.indexOf(`${l.lang} (${l.what})`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('gives each language its own generator, each writing its own file for the same registry', () => {
    expect(Object.keys(GENERATORS).sort()).toEqual([...langs].sort());
    const entries = [
      {
        urn: 'urn:t:orders:created',
        schema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, note: { type: 'string' } } },
      },
    ];
    const files = langs.map((l) => GENERATORS[l](entries));
    for (const [i, text] of files.entries()) expect(text, langs[i]).toMatch(/note/i);
    expect(new Set(files).size).toBe(langs.length);
  });

  it('is the list docs/cli/types.md gives for --lang', () => {
    const row = readFileSync(join(ROOT, 'docs', 'cli', 'types.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| `--lang <lang>`'))!;
    expect([...row.matchAll(/`([a-z]+)` \(/g)].map((m) => m[1])).toEqual(langs);
  });
});
