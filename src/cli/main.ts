import { readFileSync } from 'node:fs';

// Only what a command needs is loaded: `--version` reads package.json and nothing else, each
// command's module (with its dependencies) is imported when that command runs, and the exit-code
// policy (which imports the registry's error classes) only when there is an error to report.
const EXIT_OK = 0;
const EXIT_USAGE = 2;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Runs the CLI; resolves to the exit code. Never throws. */
export async function main(argv: string[]): Promise<number> {
  let code = EXIT_OK;
  // `bqschema --help | head`: help and usage are written before any command installs its own
  // handler (src/cli/stdout.ts). When a command has one, that handler decides (it may exit with the
  // code it has earned, or let the run finish its report files); this fallback stands aside.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    // Set by src/cli/stdout.ts (a symbol on stdout, so that --version loads no module of ours).
    if ((process.stdout as unknown as Record<symbol, unknown>)[Symbol.for('bqschema.stdout-errors-handled')] === true) return;
    if (err.code === 'EPIPE') setImmediate(() => process.exit(code));
    else {
      process.stderr.write(`bqschema: cannot write to stdout: ${err.message}\n`);
      setImmediate(() => process.exit(EXIT_USAGE));
    }
  });
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(version() + '\n');
    return EXIT_OK;
  }
  try {
    const { buildProgram } = await import('./program.js');
    const program = await buildProgram(
      version(),
      (c) => {
        code = c;
      },
      argv,
    );
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    return await report(err);
  }
}

/** One line on stderr for any error, and its exit code from the one policy (EXIT_POLICY). */
async function report(err: unknown): Promise<number> {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) {
    // Commander has already printed its (rewritten, one-line) message. Help and version are
    // successes; `commander.help` is a success for `bqschema help [cmd]` (exitCode 0) and a usage
    // error when no command was given (exitCode 1).
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT_OK;
    if (e.code === 'commander.help' && e.exitCode === 0) return EXIT_OK;
    return EXIT_USAGE;
  }
  const [{ EXIT_INTERNAL, exitCodeFor }, { clean }] = await Promise.all([import('./errors.js'), import('./output.js')]);
  const code = exitCodeFor(err);
  const message = (err as Error)?.message ?? String(err);
  if (code === EXIT_INTERNAL) {
    // A foreign message may run over lines: its first line, escaped.
    process.stderr.write(`bqschema: internal error: ${clean(message.split('\n')[0] ?? '')}\n`);
    if (process.env.BQSCHEMA_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  } else {
    // Our own messages are whole sentences that may quote input: escaped whole, one line.
    process.stderr.write(`bqschema: ${clean(message)}\n`);
  }
  return code;
}
