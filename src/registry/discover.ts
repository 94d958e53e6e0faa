import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RegistryNotFoundError } from './errors.js';
import { display } from './source.js';

/** The manifest names looked for, in order, in each directory. */
export const MANIFEST_NAMES: readonly string[] = ['registry.json', 'registry.jsonc', 'registry.yaml', 'registry.yml'];

const REGISTRY_ENV = 'BQSCHEMA_REGISTRY';

/** Where the manifest path came from: it is named in errors, so a stale variable is easy to spot. */
type RegistryOrigin = 'option' | 'env' | 'discovered';

export interface FoundRegistry {
  path: string;
  origin: RegistryOrigin;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The manifest to use: `--registry`, else $BQSCHEMA_REGISTRY, else the first of MANIFEST_NAMES found
 * in the current directory or a parent, up to the repository's root (the directory holding `.git`)
 * or the file system's root. Nothing found is a RegistryNotFoundError that says what was searched
 * and how to point at a registry.
 */
export function findRegistry(option: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): FoundRegistry {
  if (option !== undefined) return { path: resolve(cwd, option), origin: 'option' };
  const fromEnv = env[REGISTRY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { path: resolve(cwd, fromEnv), origin: 'env' };
  const searched: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    searched.push(dir);
    for (const name of MANIFEST_NAMES) {
      const path = join(dir, name);
      if (isFile(path)) return { path, origin: 'discovered' };
    }
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) break;
  }
  const where =
    searched.length === 1
      ? display(searched[0]!, cwd) || '.'
      : `${display(searched[0]!, cwd) || '.'} and its parents up to ${searched[searched.length - 1]}`;
  throw new RegistryNotFoundError(
    resolve(cwd),
    `no registry found: looked for ${MANIFEST_NAMES.join(', ')} in ${where}; give one with --registry <path> or ${REGISTRY_ENV}=<path> (bqschema init creates one)`,
  );
}

/** A manifest that is not where it was said to be: the message says where the path came from. */
export function notFoundMessage(found: FoundRegistry, shown: string): string {
  const from = found.origin === 'env' ? ` (from ${REGISTRY_ENV})` : found.origin === 'option' ? ' (from --registry)' : '';
  return `registry manifest not found: ${shown}${from}`;
}
