// Providers for the kit's own tests: conforming ones, and broken ones that must fail a named scenario.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compile, DirProvider, MapProvider, type AsyncProvider, type CompiledSchema, type SchemaAnswer } from '../../src/index.js';
import type { ProviderFactory, ProviderFixture, ProviderHandle } from '../../src/conformance/index.js';

export const mapFactory: ProviderFactory = ({ registry, onWarning }) =>
  MapProvider.fromJson(registry as Record<string, string>, { onWarning });

/** DirProvider over a temp directory: one file per URN, a manifest, update() rewrites a file. */
export const dirFactory: ProviderFactory = ({ registry, onWarning }) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bq-kit-dir-'));
  const files = new Map<string, string>();
  Object.keys(registry).forEach((urn, i) => {
    files.set(urn, `s${i}.json`);
    writeFileSync(path.join(dir, `s${i}.json`), registry[urn]!);
  });
  writeFileSync(path.join(dir, 'registry.json'), JSON.stringify({ schemas: [...files].map(([urn, schema]) => ({ urn, schema })) }));
  return {
    provider: new DirProvider(path.join(dir, 'registry.json'), { onWarning }),
    update: (urn, text) => writeFileSync(path.join(dir, files.get(urn)!), text),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
};

interface LazyOptions {
  /** Keep a failed load (the bug the kit must catch). */
  cacheFailures?: boolean;
  /** Start a new load for every lookup (the bug the kit must catch). */
  noSharing?: boolean;
}

/** A lazy asynchronous provider over texts, like a remote one: loads on first use, shares the in-flight load. */
export function lazyAsync({ registry, onWarning }: ProviderFixture, options: LazyOptions = {}): ProviderHandle {
  const texts = new Map(Object.keys(registry).map((urn) => [urn, registry[urn]!]));
  const loads = new Map<string, Promise<SchemaAnswer>>();
  const load = async (urn: string): Promise<SchemaAnswer> => {
    await new Promise((r) => setTimeout(r, 2));
    const text = texts.get(urn);
    if (text === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`schema for ${urn} is not JSON: ${(err as Error).message}`);
    }
    return compile(value, { urn, onWarning });
  };
  const provider: AsyncProvider = {
    schemaFor(urn) {
      if (options.noSharing) return load(urn);
      let p = loads.get(urn);
      if (p === undefined) {
        p = load(urn);
        loads.set(urn, p);
        if (!options.cacheFailures) p.catch(() => loads.delete(urn));
      }
      return p;
    },
  };
  // reload: forget every loaded schema, so the next lookup reads the current text.
  return { provider, update: (urn, text) => void texts.set(urn, text), reload: () => loads.clear() };
}

/** Answers `null` for every URN, registered or not. */
export const nullFactory: ProviderFactory = (fixture) => {
  const inner = MapProvider.fromJson(fixture.registry as Record<string, string>, { onWarning: fixture.onWarning });
  return { schemaFor: (urn: string): CompiledSchema | null => (inner.has(urn) ? null : null) };
};

/** Never wires the fixture's onWarning: warnings go elsewhere (process.emitWarning). */
export const silentFactory: ProviderFactory = ({ registry }) =>
  MapProvider.fromJson(registry as Record<string, string>, { onWarning: () => {} });
