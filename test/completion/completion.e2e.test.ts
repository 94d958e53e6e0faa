import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, COMMANDS } from '../../src/cli/program.js';
import { COMPAT_LEVELS, COMPAT_POLICIES } from '../../src/compat/levels.js';
import { FORMAT_NAMES } from '../../src/report/formats.js';
import { bq, expectExit, expectOneLineError } from '../helpers/cli.js';
import { expectRun, guardRepo, run } from '../helpers/hostile.js';

/*
 * `bqschema completion`: the script the built CLI prints is run by the shells it is for, and what it
 * offers is what the command table defines (every command, every option, every value an option's
 * choices or its command take), so a command or option added to the table completes with no edit.
 * bash and zsh are Debian packages .ci/run installs.
 */

let dir: string;
let program: Command;
const scripts: Record<'bash' | 'zsh', string> = { bash: '', zsh: '' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bq-completion-'));
  for (const shell of ['bash', 'zsh'] as const) {
    const r = await bq(['completion', shell]);
    expectExit(r, 0);
    expect(r.stderr).toBe('');
    scripts[shell] = join(dir, `completion.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
  program = await buildProgram('0.0.0', () => {});
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the script's function answers for a command line whose last word is being completed, one shell run for all. */
function complete(shell: 'bash' | 'zsh', lines: readonly (readonly string[])[]): string[][] {
  const q = (w: string): string => `'${w.replace(/'/g, `'\\''`)}'`;
  const calls = lines.map((words) => `t ${words.map(q).join(' ')}`).join('\n');
  const prelude =
    shell === 'bash'
      ? `source ${q(scripts.bash)}`
      : // zsh: compinit first (bashcompinit registers through compdef), arrays from 0 as bash's.
        `autoload -U +X compinit && compinit -u -d ${q(join(dir, 'zcompdump'))}\nsource ${q(scripts.zsh)}\nsetopt ksharrays`;
  const body = `${prelude}
t() { COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _bqschema; printf '%s\\n' "\${COMPREPLY[*]}" "--"; }
${calls}
`;
  const out = execFileSync(shell, ['-c', body], { cwd: dir, encoding: 'utf8', env: { ...process.env, HOME: dir } });
  const answers = out.split('--\n').slice(0, -1);
  return answers.map((a) =>
    a
      .replace(/\n$/, '')
      .split(' ')
      .filter((w) => w !== ''),
  );
}

const longFlags = (options: readonly Option[]): string[] => options.filter((o) => !o.hidden && o.long !== undefined).map((o) => o.long!);

describe('bqschema completion', () => {
  it('both scripts parse in their shell', () => {
    for (const shell of ['bash', 'zsh'] as const) {
      const r = spawnSync(shell, ['-n', scripts[shell]], { encoding: 'utf8' });
      expect(r.status, `${shell} -n: ${r.stderr}`).toBe(0);
    }
  });

  it('bash: the first word is a command of the table, or a program option, by prefix', () => {
    const [all, co, dashes] = complete('bash', [
      ['bqschema', ''],
      ['bqschema', 'co'],
      ['bqschema', '--'],
    ]);
    expect(all).toEqual([...COMMANDS.map((c) => c.name), '-V', '--version', '-h', '--help']);
    expect(co).toEqual(COMMANDS.map((c) => c.name).filter((n) => n.startsWith('co')));
    expect(dashes).toEqual(['--version', '--help']);
  });

  it('bash: after a command and `--`, every long option the command defines, and --help; after `-`-less words, nothing (files)', () => {
    const cases = program.commands.map((c) => ['bqschema', c.name(), '--']);
    const answers = complete('bash', [...cases, ['bqschema', 'validate', 'mess']]);
    program.commands.forEach((c, i) => expect(answers[i], c.name()).toEqual([...longFlags(c.options), '--help']));
    // A positional argument: nothing offered, so `complete -o default` completes file names.
    expect(answers.at(-1)).toEqual([]);
  });

  it('bash: the value of an option with choices, by either spelling and after `=`; a free value completes files', () => {
    const withChoices = program.commands.flatMap((c) =>
      c.options.filter((o) => o.argChoices !== undefined && !o.hidden).map((o) => ({ command: c.name(), o })),
    );
    expect(withChoices.length).toBeGreaterThan(4);
    const answers = complete('bash', [
      ...withChoices.map(({ command, o }) => ['bqschema', command, o.long!, '']),
      ['bqschema', 'validate', '-f', 's'],
      ['bqschema', 'validate', '--format', '=', 'j'],
      ['bqschema', 'validate', '--registry', ''],
      ['bqschema', 'validate', '--format', 'json', '--st'],
    ]);
    withChoices.forEach(({ command, o }, i) => expect(answers[i], `${command} ${o.long}`).toEqual(o.argChoices));
    expect(answers.slice(withChoices.length)).toEqual([['sarif'], ['json', 'junit'], [], ['--strict']]);
  });

  it('bash: the compatibility levels and policies their commands read in any case, from the compat tables', () => {
    const [level, mode, policy, serveLevel, full] = complete('bash', [
      ['bqschema', 'compat', '--compatibility', ''],
      ['bqschema', 'compat', '-m', ''],
      ['bqschema', 'compat', '--policy', ''],
      ['bqschema', 'serve', '--compatibility', ''],
      ['bqschema', 'compat', '--compatibility', 'fu'],
    ]);
    expect(level).toEqual(COMPAT_LEVELS);
    expect(mode).toEqual(COMPAT_LEVELS);
    expect(policy).toEqual(COMPAT_POLICIES);
    expect(serveLevel).toEqual(COMPAT_LEVELS.map((l) => l.toUpperCase()));
    expect(full).toEqual(['full']);
  });

  it('zsh: the same answers through bashcompinit (zsh matches the word itself, so nothing is cut by prefix here)', () => {
    const [first, formats, policy] = complete('zsh', [
      ['bqschema', ''],
      ['bqschema', 'check', '--format', ''],
      ['bqschema', 'compat', '--policy', 'c'],
    ]);
    expect(first).toEqual([...COMMANDS.map((c) => c.name), '-V', '--version', '-h', '--help']);
    expect(formats).toEqual([...FORMAT_NAMES]);
    expect(policy).toEqual(COMPAT_POLICIES);
    // Registered with zsh's completion system for the command's name.
    const body = `autoload -U +X compinit && compinit -u -d '${join(dir, 'zcompdump')}'\nsource '${scripts.zsh}'\nprint -r -- "\${_comps[bqschema]}"`;
    expect(execFileSync('zsh', ['-c', body], { encoding: 'utf8', env: { ...process.env, HOME: dir } }).trim()).not.toBe('');
  });
});

describe('bqschema completion: hostile input', () => {
  guardRepo();

  it('a shell it does not write for: one line naming the ones it does, exit 2', async () => {
    for (const shell of ['fish', 'BASH', '', 'bash; rm -rf /']) {
      const r = await run(['completion', shell], { cwd: dir });
      expectRun(r, 2, /^bqschema: completion is written for bash or zsh, not ".*": bqschema completion bash$/);
      expect(r.stdout).toBe('');
    }
  });

  it('more than one shell, or an unknown option: one line, exit 2', async () => {
    expectOneLineError(await bq(['completion', 'bash', 'zsh'], { cwd: dir }), /too many arguments/);
    expectOneLineError(await bq(['completion', '--shell', 'bash'], { cwd: dir }), /unknown option '--shell'/);
  });
});
