import { readFileSync } from 'node:fs';
import { CliError, EXIT_USAGE } from './errors.js';

// Only what a command needs is loaded: `--version` reads package.json and nothing else, and each
// command's module (with its dependencies) is imported when that command runs.

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Runs the CLI; resolves to the exit code. Never throws. */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(version() + '\n');
    return 0;
  }
  try {
    const { buildProgram } = await import('./program.js');
    let code = 0;
    const program = await buildProgram(version(), (c) => {
      code = c;
    });
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    return report(err);
  }
}

function report(err: unknown): number {
  const e = err as { code?: string; exitCode?: number; message?: string };
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) {
    // Commander has already printed its message; help and version are successes, the rest usage errors.
    // `commander.help` is a success for `bqschema help [cmd]` (exitCode 0) and a usage error when no
    // command was given (exitCode 1).
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
    if (e.code === 'commander.help' && e.exitCode === 0) return 0;
    return EXIT_USAGE;
  }
  if (err instanceof CliError) {
    process.stderr.write(`bqschema: ${err.message}\n`);
    return err.exitCode;
  }
  const name = (err as Error)?.name;
  if (name === 'RegistryError' || name === 'ParseFailure' || name === 'SchemaError') {
    process.stderr.write(`bqschema: ${(err as Error).message}\n`);
    return EXIT_USAGE;
  }
  const msg = (err as Error)?.message ?? String(err);
  process.stderr.write(`bqschema: internal error: ${msg}\n`);
  if (process.env.BQSCHEMA_DEBUG) process.stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  return EXIT_USAGE;
}
