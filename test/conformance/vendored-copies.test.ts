import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shared = path.resolve(repoRoot, '..', 'shared');
const vendor = path.join(repoRoot, 'test', 'vendor');

/** Every regular file under `dir`, as `/`-separated paths relative to it, sorted. */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out.sort();
}

// Drift can only be checked where the reference data is present; every other test reads the vendored
// copy, so a checkout without ../shared still runs them.
describe.skipIf(!existsSync(shared))('vendored data is byte-identical to ../shared (when ../shared is present)', () => {
  for (const folder of ['conformance', 'json-schema-test-suite']) {
    describe(folder, () => {
      const source = path.join(shared, folder);
      const copy = path.join(vendor, folder);

      it('holds the same files, none missing and none extra', () => {
        expect(existsSync(copy), `${copy} is missing`).toBe(true);
        const sourceFiles = listFiles(source);
        expect(sourceFiles.length).toBeGreaterThan(0);
        expect(listFiles(copy)).toEqual(sourceFiles);
      });

      for (const rel of existsSync(source) ? listFiles(source) : []) {
        it(`${rel} is byte-identical`, () => {
          const copyFile = path.join(copy, rel);
          expect(existsSync(copyFile), `${copyFile} is missing`).toBe(true);
          expect(readFileSync(copyFile).equals(readFileSync(path.join(source, rel)))).toBe(true);
        });
      }
    });
  }
});
