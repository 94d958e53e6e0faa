import { SchemaError } from '../../validator/index.js';
import { standaloneModule, type StandaloneEntry } from '../../compile/module.js';
import { claimDocument, emitDocument, requireCheckedFile } from '../document.js';
import { GateError } from '../errors.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { rerunCommand } from '../shell.js';

export interface CompileCommandOptions extends RegistryCliOptions {
  output?: string;
  check?: boolean;
}

/** `bqschema compile`: every URN's validator in one standalone ES module (no code generation at run time). */
export async function runCompile(options: CompileCommandOptions): Promise<number> {
  const { output } = options;
  requireCheckedFile(options);
  const registry = openRegistry(options);
  // Checked before anything is compiled: a file this run reads is never the output.
  claimDocument(options);
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
  return emitDocument(text, options, {
    holds: `${n} validator${n === 1 ? '' : 's'}`,
    rerun: () => rerunCommand('compile', { ...options, output: output! }),
  });
}
