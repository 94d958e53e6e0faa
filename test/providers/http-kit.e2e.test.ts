// HttpProvider passes the conformance kit against a real `bqschema serve` process, one per scenario.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runProviderSuite, SCENARIOS, type ProviderFactory } from '../../src/conformance/index.js';
import { HttpProvider } from '../../src/index.js';
import { manifest, registryDir, serve, stop } from '../helpers/serve.js';

const factory: ProviderFactory = async ({ registry, onWarning }) => {
  const files = new Map(Object.keys(registry).map((urn, i) => [urn, `s${i}.json`]));
  const texts: Record<string, string> = { 'registry.json': manifest([...files].map(([urn, schema]) => ({ urn, schema }))) };
  for (const [urn, file] of files) texts[file] = registry[urn]!;
  const dir = registryDir(texts);
  const served = await serve(['--registry', join(dir, 'registry.json')]);
  const provider = new HttpProvider(`http://127.0.0.1:${served.port}`, { onWarning, refreshMs: Infinity, timeoutMs: 5000 });
  return {
    provider,
    // The registry changes the way a fleet's does: a file changes and serve reloads on SIGHUP.
    async update(urn, text) {
      writeFileSync(join(dir, files.get(urn)!), text);
      const from = served.stderr().length;
      served.child.kill('SIGHUP');
      await served.waitFor(/reloaded \(\d+ subjects\)/, from);
    },
    reload: () => provider.refresh(),
    async close() {
      await stop(served);
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

it('HttpProvider over bqschema serve passes every scenario, reload included', async () => {
  const report = await runProviderSuite(factory, { async: true, reload: true }, { timeoutMs: 5000 });
  expect(report.passed).toEqual(Object.values(SCENARIOS));
}, 180_000);
