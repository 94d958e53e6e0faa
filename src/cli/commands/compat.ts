import { CliError } from '../errors.js';

// Placeholder until this command lands; it says so rather than passing silently.
export async function run(..._args: unknown[]): Promise<number> {
  throw new CliError('the "compat" command is coming in a later release', 2);
}
