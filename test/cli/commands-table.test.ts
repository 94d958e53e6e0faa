import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/program.js';
import { commandModules } from '../helpers/commands.js';
import { ROOT } from '../helpers/tsc.js';

/*
 * The command table (COMMANDS in src/cli/program.ts) is the one list of commands: the program and
 * its help are built from it, the tests that visit every command read it, and the documents that
 * list commands are held to it here.
 */

const names = COMMANDS.map((c) => c.name);

describe('the command table', () => {
  it('names each command once, each with a one-line summary and a handler that imports its module under commands/', () => {
    expect(new Set(names).size).toBe(names.length);
    for (const c of COMMANDS) {
      expect(c.name).toMatch(/^[a-z][a-z-]*$/);
      expect(c.summary, c.name).toMatch(/^[a-z][^\n]+[^.]$/);
    }
    expect([...commandModules().keys()]).toEqual(names);
    for (const [name, module] of commandModules())
      expect(existsSync(join(ROOT, 'src', 'cli', 'commands', `${module}.ts`)), name).toBe(true);
  });

  it("is the README's command list, in its order, each linking its docs/cli page", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = /\n## Commands\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    const listed = [...section.matchAll(/^- \[`([a-z-]+)`\]\(docs\/cli\/([a-z-]+)\.md\)/gm)].map((m) => [m[1], m[2]]);
    expect(listed).toEqual(names.map((n) => [n, n]));
  });

  it('has a docs/cli page per command, and docs/cli has no page for a command that is not in it', () => {
    const pages = readdirSync(join(ROOT, 'docs', 'cli'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(pages).toEqual([...names].sort());
  });
});
