import {
  DEFAULT_MAX_YAML_EXPANSION,
  didYouMean,
  display,
  loadRegistry,
  RegistryError,
  YAML_EXPANSION_ENV,
  type Registry,
  type RegistryOptions,
} from '../registry/index.js';
import { noteRegistry } from './report/emit.js';
import { UsageError } from './errors.js';
import { protectManifest, protectRegistry } from './protect.js';

/** The options every command that reads a registry takes. */
export interface RegistryCliOptions {
  registry?: string;
  allowOutsidePaths?: boolean;
}

/**
 * The working tree's registry for a command: `--registry`, $BQSCHEMA_REGISTRY or discovery. Its
 * gates are strict (a malformed keyword makes the URN's schema unusable, docs/contract.md §8; an
 * unknown keyword does not: check and compat report it, validate warns, §14). A
 * manifest that cannot be used is refused unless `lenient` (check reports its problems itself).
 */
export function openRegistry(options: RegistryCliOptions, extra: RegistryOptions & { lenient?: boolean } = {}): Registry {
  // Warnings are each command's to report (validate and serve print them, check lists them); by
  // default they are not sent to process.emitWarning, whose format is not bqschema's one line.
  let registry: Registry;
  try {
    registry = loadRegistry({
      registry: options.registry,
      allowOutsidePaths: options.allowOutsidePaths,
      strict: true,
      strictUnknown: false,
      onWarning: () => {},
      ...registryLimits(),
      ...extra,
    });
  } catch (err) {
    // A manifest that does not parse is still this run's input (check reports it, and may write reports).
    if (err instanceof RegistryError && err.kind === 'manifest') {
      protectManifest(err.file);
      noteRegistry(display(err.file));
    }
    throw err;
  }
  // Its manifest and schema files are never an output's target (./protect.ts).
  protectRegistry(registry);
  noteRegistry(registry.manifest.shown);
  return extra.lenient ? registry : registry.requireUsable();
}

/**
 * The limits every command reads registry files within, from the environment:
 * BQSCHEMA_MAX_YAML_EXPANSION, the most values YAML aliases may add to one file (docs/registry.md).
 */
export function registryLimits(env: NodeJS.ProcessEnv = process.env): { maxYamlExpansion?: number } {
  const raw = env[YAML_EXPANSION_ENV];
  if (raw === undefined || raw === '') return {};
  const n = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new UsageError(
      `${YAML_EXPANSION_ENV} must be a whole number of values (default ${DEFAULT_MAX_YAML_EXPANSION}), got ${JSON.stringify(raw.slice(0, 40))}`,
    );
  }
  return { maxYamlExpansion: n };
}

/** `--urn` must name a registered URN: a typo would otherwise skip every message and pass. */
export function requireUrn(registry: Registry, urn: string): void {
  if (!registry.has(urn)) {
    throw new UsageError(`--urn ${urn} is not registered in ${registry.manifest.shown}${didYouMean(urn, registry.urns())}`);
  }
}
