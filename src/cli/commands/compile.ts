import { existsSync, readFileSync } from 'node:fs';
import { SchemaError } from '../../validator/index.js';
import { standaloneModule, type StandaloneEntry } from '../../compile/module.js';
import { EXIT_GATE, EXIT_OK, GateError, UsageError } from '../errors.js';
import { printDocument } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { rerunCommand } from '../shell.js';
import { claimTarget, outputTarget, writeFileAtomic } from '../write.js';

export interface CompileCommandOptions extends RegistryCliOptions {
  output?: string;
  check?: boolean;
}

/** `bqschema compile`: every URN's validator in one standalone ES module (no code generation at run time). */
export async function runCompile(options: CompileCommandOptions): Promise<number> {
  const { output } = options;
  if (options.check && output === undefined) throw new UsageError('--check compares a file: give it with -o <file>');
  const registry = openRegistry(options);
  // Checked before anything is compiled: a file this run reads is never the output.
  if (output !== undefined && !options.check) claimTarget(output, '-o');
  // The registry is strict: a schema with a malformed keyword is refused (a RegistryError naming
  // it), not written as if its keyword were enforced.
  const entries: StandaloneEntry[] = registry.entries.map(({ urn }) => {
    registry.compiled(urn);
    return { urn, schema: registry.document(urn).value };
  });
  let text: string;
  try {
    text = standaloneModule(entries);
  } catch (err) {
    if (err instanceof SchemaError) throw new GateError(`compile: ${err.message}`);
    throw err;
  }
  const n = entries.length;
  const what = `${n} validator${n === 1 ? '' : 's'}`;
  if (output === undefined) return printDocument(text);

  if (options.check) {
    const stale = !existsSync(outputTarget(output)) ? 'does not exist' : readCurrent(output).equals(Buffer.from(text, 'utf8')) ? undefined : 'is out of date';
    if (stale !== undefined) {
      process.stderr.write(`bqschema: ${output} ${stale}; write it with ${rerunCommand('compile', { ...options, output })}\n`);
      return EXIT_GATE;
    }
    process.stdout.write(`${output} is up to date (${what})\n`);
    return EXIT_OK;
  }
  writeFileAtomic(output, text);
  process.stdout.write(`Wrote ${output}: ${what}\n`);
  return EXIT_OK;
}

function readCurrent(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
}
