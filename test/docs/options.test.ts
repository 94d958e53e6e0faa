import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { ROOT } from '../helpers/cli.js';

// Each command's page, docs/cli/<command>.md, has an `## Options` table whose first column lists
// exactly the command's commander flags (as `--help` prints them), and whose default column shows
// commander's default wherever one is set. The README links every page.

let commands: Command[] = [];
beforeAll(async () => {
  const program = await buildProgram('0.0.0', () => {});
  commands = program.commands.filter((c) => c.name() !== 'help');
});

/** The rows of the first Markdown table after `## Options` (empty when there is none). */
function optionRows(page: string): string[][] {
  const section = page.split(/^## Options$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2) // header and separator
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

describe('docs/cli option tables', () => {
  it('there is one page per command, and no page for a command that does not exist', () => {
    const pages = readdirSync(join(ROOT, 'docs', 'cli'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(pages).toEqual(commands.map((c) => c.name()).sort());
  });

  it('each table lists exactly the commander flags of its command', () => {
    for (const cmd of commands) {
      const page = readFileSync(join(ROOT, 'docs', 'cli', `${cmd.name()}.md`), 'utf8');
      const documented = optionRows(page).map((r) => /^`([^`]+)`$/.exec(r[0]!)?.[1] ?? `(not a flag: ${r[0]})`);
      const actual = cmd.options.map((o) => o.flags).filter((f) => f !== '-h, --help');
      expect(documented.sort(), cmd.name()).toEqual([...actual].sort());
    }
  });

  it("each commander default appears in the table's default column", () => {
    for (const cmd of commands) {
      const rows = new Map(
        optionRows(readFileSync(join(ROOT, 'docs', 'cli', `${cmd.name()}.md`), 'utf8')).map((r) => [r[0]!.slice(1, -1), r]),
      );
      for (const o of cmd.options) {
        if (o.defaultValue === undefined || typeof o.defaultValue === 'boolean') continue;
        expect(rows.get(o.flags)?.[1], `${cmd.name()} ${o.flags}`).toContain(`\`${o.defaultValue}\``);
      }
    }
  });

  it('a choice option documents every choice', () => {
    for (const cmd of commands) {
      const rows = new Map(
        optionRows(readFileSync(join(ROOT, 'docs', 'cli', `${cmd.name()}.md`), 'utf8')).map((r) => [r[0]!.slice(1, -1), r]),
      );
      for (const o of cmd.options) {
        for (const choice of o.argChoices ?? [])
          expect(rows.get(o.flags)?.join(' '), `${cmd.name()} ${o.flags}`).toContain(`\`${choice}\``);
      }
    }
  });

  it('the README has one line per command linking to its page', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const cmd of commands) {
      const lines = readme.split('\n').filter((l) => l.includes(`(docs/cli/${cmd.name()}.md)`));
      expect(lines, cmd.name()).toHaveLength(1);
      expect(existsSync(join(ROOT, 'docs', 'cli', `${cmd.name()}.md`))).toBe(true);
    }
  });
});
