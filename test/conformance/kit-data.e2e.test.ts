import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shipped = path.join(root, 'conformance');
const vendor = path.join(root, 'test', 'vendor', 'conformance');

describe('the conformance data the package ships', () => {
  it('is byte for byte the vendored suite and contract (test/vendor stays the source)', () => {
    const names = readdirSync(shipped).sort();
    expect(names).toEqual(['CONFORMANCE_VERSION', 'contract-cases.json', 'manifest.json', 'results.schema.json']);
    for (const name of names) {
      expect(
        readFileSync(path.join(shipped, name), 'utf8'),
        `conformance/${name} differs from test/vendor/conformance/${name}: copy it again`,
      ).toBe(readFileSync(path.join(vendor, name), 'utf8'));
    }
  });

  it('is in the package files, and the kit is its own export', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.files).toContain('conformance/');
    expect(pkg.exports['./conformance']).toEqual({
      import: { types: './dist/conformance/index.d.ts', default: './dist/conformance/index.js' },
      require: { types: './dist/conformance/index.d.cts', default: './dist/conformance/index.cjs' },
    });
  });

  it('the built kit loads its data from the shipped folder, and the main entry does not load the kit', async () => {
    const kit = path.join(root, 'dist', 'conformance', 'index.js');
    expect(existsSync(kit), 'dist is not built').toBe(true);
    const mod = await import(pathToFileURL(kit).href);
    expect(typeof mod.runProviderSuite).toBe('function');
    const { MapProvider } = await import(pathToFileURL(path.join(root, 'dist', 'index.js')).href);
    const report = await mod.runProviderSuite(({ registry, onWarning }: { registry: Record<string, string>; onWarning: () => void }) =>
      MapProvider.fromJson(registry, { onWarning }),
    );
    expect(report.passed.length).toBe(7);
    expect(readFileSync(path.join(root, 'dist', 'index.js'), 'utf8')).not.toMatch(/conformance/);
  });
});
