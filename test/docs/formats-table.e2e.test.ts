import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { CHECK_FORMATS } from '../../src/cli/report/check.js';
import { PAIR_FORMATS, REGISTRY_FORMATS } from '../../src/cli/report/compat.js';
import { INVENTORY_FORMATS, REQUIRE_FORMATS } from '../../src/cli/report/gdpr.js';
import { FORMAT_NAMES, isCiFormat, isWholeDocument, OUTPUT_FORMATS } from '../../src/report/formats.js';
import { ROOT } from '../helpers/cli.js';

// The output formats are one table (src/report/formats.ts): every gate's --format and --report
// choices, its formatters and the docs derive from it, so adding a format is one renderer file and
// one row. These fail when a place spells the formats on its own and drifts from the table.

const GATES = ['validate', 'check', 'compat', 'gdpr'];

let commands: Map<string, Command>;
beforeAll(async () => {
  const program = await buildProgram('0.0.0', () => {});
  commands = new Map(program.commands.map((c) => [c.name(), c]));
});

/** The rows of the table under `## Output formats` in docs/ci-reports.md. */
function docsRows(): string[][] {
  const page = readFileSync(join(ROOT, 'docs', 'ci-reports.md'), 'utf8');
  const section = page.split(/^## Output formats$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2)
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

describe('the output formats table', () => {
  it('names each format once, with an extension, a description and a renderer file that exists', () => {
    expect(new Set(FORMAT_NAMES).size).toBe(FORMAT_NAMES.length);
    for (const f of OUTPUT_FORMATS) {
      expect(f.extension, f.name).toMatch(/^[a-z0-9]+$/);
      expect(f.description.length, f.name).toBeGreaterThan(10);
      expect(existsSync(join(ROOT, f.renderer)), f.renderer).toBe(true);
    }
  });

  it('docs/ci-reports.md shows the table row by row', () => {
    const want = OUTPUT_FORMATS.map((f) => [
      `\`${f.name}\``,
      `\`.${f.extension}\``,
      f.description,
      `\`${f.renderer}\``,
      f.streams ? 'yes' : 'no',
    ]);
    expect(docsRows()).toEqual(want);
  });

  it("every gate's --format and --report offer exactly the table's formats, in its order", () => {
    for (const gate of GATES) {
      const cmd = commands.get(gate)!;
      const format = cmd.options.find((o) => o.long === '--format')!;
      expect(format.argChoices, gate).toEqual([...FORMAT_NAMES]);
      const report = cmd.options.find((o) => o.long === '--report')!;
      expect(report.description, gate).toContain(`formats: ${FORMAT_NAMES.join(', ')})`);
      expect(() => report.parseArg!('nope=x.out', undefined as never), gate).toThrow(`use one of ${FORMAT_NAMES.join(', ')}`);
      for (const f of OUTPUT_FORMATS)
        expect(report.parseArg!(`${f.name}=bq.${f.extension}`, undefined as never), gate).toEqual([
          { format: f.name, file: `bq.${f.extension}` },
        ]);
    }
  });

  it("each gate's formatters are the table's formats; the inventory refuses the CI results formats", () => {
    for (const table of [CHECK_FORMATS, PAIR_FORMATS, REGISTRY_FORMATS, INVENTORY_FORMATS, REQUIRE_FORMATS])
      expect(Object.keys(table)).toEqual([...FORMAT_NAMES]);
    const ci = FORMAT_NAMES.filter(isCiFormat);
    expect(ci).toEqual(['sarif', 'junit']);
    const inventory = { urns: [], summary: { urns: 0, fields: 0, errors: 0 as const }, summaryLine: '0 URN(s)' };
    for (const f of ci)
      expect(() => INVENTORY_FORMATS[f](inventory, null as never, null as never)).toThrow(`--format ${f} reports the --require gate`);
    expect(FORMAT_NAMES.filter(isWholeDocument)).toEqual(['markdown', 'sarif', 'junit']);
  });
});
