import { findRegistry, notFoundMessage, type FoundRegistry } from './discover.js';
import { RegistryError, RegistryNotFoundError } from './errors.js';
import { resolve } from 'node:path';
import { Registry, registryAtRef, type AtRefOptions, type RegistryAtRef, type RegistryOptions } from './registry.js';
import type { WorkingTreeOptions } from './source.js';

export interface LoadOptions extends RegistryOptions, WorkingTreeOptions {
  /** `--registry`: the manifest; else $BQSCHEMA_REGISTRY, else discovery. */
  registry?: string;
  env?: NodeJS.ProcessEnv;
}

/** The working tree's registry, found as `findRegistry` says. A missing manifest is a RegistryNotFoundError. */
export function loadRegistry(options: LoadOptions = {}): Registry {
  const found = findRegistry(options.registry, options.env, options.cwd);
  try {
    return Registry.workingTree(found.path, options);
  } catch (err) {
    throw notFound(err, found);
  }
}

/**
 * The registry at a git ref, for the manifest the working tree's options name; where that manifest
 * was found by discovery, discovery at the ref starts from the same directory.
 */
export async function loadRegistryAtRef(
  ref: string,
  options: LoadOptions & Pick<AtRefOptions, 'named' | 'urns'> = {},
): Promise<RegistryAtRef & { found: FoundRegistry }> {
  const found = findRegistry(options.registry, options.env, options.cwd);
  const start = found.origin === 'discovered' ? resolve(options.cwd ?? process.cwd()) : undefined;
  return { ...(await registryAtRef(found.path, ref, { ...options, ...(start === undefined ? {} : { start }) })), found };
}

function notFound(err: unknown, found: FoundRegistry): unknown {
  if (err instanceof RegistryError && err.kind === 'missing' && err.urn === undefined) {
    return new RegistryNotFoundError(err.file, notFoundMessage(found, err.message.replace(/^registry manifest not found: /, '')));
  }
  return err;
}
