import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirProvider, MapProvider } from '../../src/index.js';
import { buildSnapshot, schemaJson } from '../../src/serve/snapshot.js';
import { bq, expectExit, removeTempTrees, tempTree } from '../helpers/cli.js';

// CLARIFICATIONS 13 end to end: ±Infinity in a schema is a number everywhere it travels.

afterAll(removeTempTrees);

describe('non-finite numbers in schemas', () => {
  it('serve publishes const 1e400 as a number that reads back as Infinity, never as null', () => {
    const provider = MapProvider.fromJson({
      'urn:t:inf': '{"type":"object","properties":{"x":{"const":1e400},"y":{"enum":[-1e400,"1e999"]}}}',
    });
    const snapshot = buildSnapshot(provider);
    const entry = snapshot.bySubject.get('urn:t:inf')!;
    expect(entry.ok).toBe(true);
    const served = JSON.parse((entry as { schema: string }).schema) as { properties: { x: { const: unknown }; y: { enum: unknown[] } } };
    expect(served.properties.x.const).toBe(Infinity);
    expect(served.properties.y.enum).toEqual([-Infinity, '1e999']); // a string that looks like the marker stays a string
    expect(schemaJson({ a: 'plain' })).toBe('{"a":"plain"}');
  });

  it('a YAML .inf const is enforced the same by validate and by DirProvider: null fails, the number passes', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:inf', schema: 's.yaml' }] }),
      's.yaml': 'type: object\nproperties:\n  x: {const: .inf}\n',
      'null.json': '{"job":"urn:t:inf","data":{"x":null}}',
      'inf.json': '{"job":"urn:t:inf","data":{"x":1e400}}',
    });
    const provider = new DirProvider(join(dir, 'registry.json'));
    const schema = provider.schemaFor('urn:t:inf')!;
    expect(schema.isValid({ x: null })).toBe(false);
    expect(schema.isValid({ x: Infinity })).toBe(true);
    const r = await bq(['validate', '--format', 'json', 'null.json', 'inf.json'], { cwd: dir });
    expectExit(r, 1);
    expect((JSON.parse(r.stdout).results as { status: string }[]).map((x) => x.status)).toEqual(['invalid', 'valid']);
  });
});
