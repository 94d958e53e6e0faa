import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, COMMANDS as COMMAND_TABLE } from '../../src/cli/program.js';

const COMMANDS = COMMAND_TABLE.map((c) => c.name);

// buildProgram defines only the invoked command when argv starts with its name (a faster start).
// Whatever such a run prints — help, commander's errors and their suggestions — must be what the
// program with every command prints for the same argv.

/** Parses argv with a program built for `built` (the argv, or [] for every command); what it printed and threw. */
async function parse(argv: string[], built: string[]): Promise<{ out: string; err: string; thrown: string; ran: number[] }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  const ran: number[] = [];
  const program = await buildProgram('9.9.9', (c) => ran.push(c), built);
  let thrown = '';
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    const c = e as { code?: string; exitCode?: number; message?: string };
    thrown = `${c.code} ${c.exitCode} ${c.message}`;
  } finally {
    vi.restoreAllMocks();
  }
  return { out, err, thrown, ran };
}

afterEach(() => vi.restoreAllMocks());

describe('a program built for the invoked command', () => {
  it('defines that command only, and every command otherwise', async () => {
    const names = (p: Awaited<ReturnType<typeof buildProgram>>) => p.commands.map((c) => c.name()).filter((n) => n !== 'help');
    expect(names(await buildProgram('9.9.9', () => {}, ['check', '-r', 'x']))).toEqual(['check']);
    expect(names(await buildProgram('9.9.9', () => {}, []))).toEqual(COMMANDS);
    expect(names(await buildProgram('9.9.9', () => {}, ['help', 'check']))).toEqual(COMMANDS);
    expect(names(await buildProgram('9.9.9', () => {}, ['--registry', 'check']))).toEqual(COMMANDS);
    expect(names(await buildProgram('9.9.9', () => {}, ['chek']))).toEqual(COMMANDS);
  });

  const cases: string[][] = [];
  for (const c of COMMANDS) {
    cases.push([c, '--help'], [c, '-h'], [c, '--no-such-option'], [c, '--registr', 'x'], [c, '--format', 'xml'], [c, '-f']);
  }
  cases.push(['validate', '--max-file-byte', '1'], ['compat', 'a', 'b', 'c'], ['check', 'extra'], ['init', 'a', 'b']);

  it('prints and throws what the whole program does, byte for byte', async () => {
    for (const argv of cases) {
      const [one, all] = [await parse(argv, argv), await parse(argv, [])];
      expect(one, argv.join(' ')).toEqual(all);
      expect(one.out + one.err, argv.join(' ')).not.toBe('');
      expect(one.ran, argv.join(' ')).toEqual([]);
      if (argv[1] === '--help') expect(one.out, argv.join(' ')).toContain(`Usage: bqschema ${argv[0]} [options]`);
    }
  });
});
