import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { bq, expectExit, expectOneLineError, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

/*
 * export-asyncapi and the manifest's services: --service <name> writes that application's document
 * (send for what it produces, receive for what it consumes); without it the registry's document
 * lists every application. Each document is read by @asyncapi/parser with no error diagnostic (the
 * example registry's without --service in export-cli.e2e.test.ts).
 */

afterAll(removeTempTrees);

interface Doc {
  info: { title: string; contact?: { name: string; email?: string; url?: string }; 'x-service'?: { name: string } };
  channels: Record<string, { address: string; 'x-producers'?: string[]; 'x-consumers'?: string[] }>;
  operations: Record<string, { action: string; channel: { $ref: string } }>;
  'x-applications'?: Array<{ name: string }>;
}

async function parsed(text: string): Promise<void> {
  // Imported here: the parser is slow to load and only these tests need it.
  const { Parser } = await import('@asyncapi/parser');
  const { document, diagnostics } = await new Parser().parse(text);
  expect(diagnostics.filter((d) => d.severity === 0)).toEqual([]);
  expect(document).toBeDefined();
}

describe('export-asyncapi --service', () => {
  it('one service: send for what it produces, receive for what it consumes, the service in info', async () => {
    const r = await bq(['export-asyncapi', '-r', 'registry.example.json', '--service', 'billing']);
    expectExit(r, 0);
    const doc = JSON.parse(r.stdout) as Doc;
    const actions = Object.values(doc.operations)
      .map((o) => [doc.channels[o.channel.$ref.slice('#/channels/'.length)]!.address, o.action])
      .sort();
    expect(actions).toEqual([
      ['urn:babel:orders:cancelled', 'receive'],
      ['urn:babel:orders:created', 'receive'],
      ['urn:babel:payments:captured', 'send'],
    ]);
    expect(doc.info).toMatchObject({
      title: 'billing',
      contact: { name: '@babel-example/payments', email: 'billing@babel.example', url: 'https://github.com/babel-example/billing' },
    });
    expect(doc['x-applications']).toBeUndefined();
    await parsed(r.stdout);
    const yaml = await bq(['export-asyncapi', '-r', 'registry.example.json', '--service', 'identity', '--doc-format', 'yaml']);
    expectExit(yaml, 0);
    await parsed(yaml.stdout);
  });

  it('a service that both sends and reads a URN has an operation of each', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({
        services: [{ name: 'loop' }],
        schemas: [{ urn: 'urn:a:x', schema: 'x.json', producers: ['loop'], consumers: ['loop'] }],
      }),
      'x.json': '{"type": "object"}',
    });
    const r = await bq(['export-asyncapi', '--service', 'loop'], { cwd: dir });
    expectExit(r, 0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(Object.entries(doc.operations).map(([k, o]) => [k, o.action])).toEqual([
      ['urn_a_x.send', 'send'],
      ['urn_a_x.receive', 'receive'],
    ]);
    await parsed(r.stdout);
  });

  it('without --service, the registry document lists every application and each channel its producers and consumers', async () => {
    const r = await bq(['export-asyncapi', '-r', 'registry.example.json']);
    expectExit(r, 0);
    const doc = JSON.parse(r.stdout) as Doc;
    const manifest = JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8')) as {
      services: Array<{ name: string }>;
      schemas: Array<{ urn: string; producers: string[]; consumers: string[] }>;
    };
    expect(doc['x-applications']!.map((a) => a.name)).toEqual(manifest.services.map((s) => s.name));
    for (const e of manifest.schemas) {
      const channel = Object.values(doc.channels).find((c) => c.address === e.urn)!;
      expect([channel['x-producers'], channel['x-consumers']]).toEqual([e.producers, e.consumers]);
    }
    expect(Object.values(doc.operations).every((o) => o.action === 'receive')).toBe(true);
    // This very document (export-asyncapi --registry registry.example.json) is read by
    // @asyncapi/parser, payload by payload, in test/asyncapi/export-cli.e2e.test.ts.
  });

  it('an unknown service is a usage error with the nearest name; nothing is written', async () => {
    const dir = tempTree({});
    expectOneLineError(
      await bq(['export-asyncapi', '-r', join(ROOT, 'registry.example.json'), '--service', 'biling', '-o', join(dir, 'out.json')]),
      /^bqschema: --service: no service "biling" in .*registry\.example\.json \(did you mean "billing"\?\)$/,
    );
    expect(() => readFileSync(join(dir, 'out.json'))).toThrow();
  });

  it('hostile service names are inert: the document is parsed, the names kept as data', async () => {
    const hostile = ['<script>alert(1)</script>', 'esc\u001b[2J', 'rtl\u202eevil', `l${'o'.repeat(3000)}ng`, '$ref', '__proto__'];
    const dir = tempTree({
      'registry.json': JSON.stringify({
        services: hostile.map((name) => ({ name, team: name, contact: name, repository: name })),
        schemas: [{ urn: 'urn:a:x', schema: 'x.json', producers: hostile, consumers: hostile }],
      }),
      'x.json': '{"type": "object"}',
    });
    let whole: unknown;
    for (const args of [[], ['--service', '<script>alert(1)</script>'], ['--doc-format', 'yaml']]) {
      const r = await bq(['export-asyncapi', ...args], { cwd: dir });
      expectExit(r, 0);
      if (args[0] !== '--doc-format') {
        const doc = JSON.parse(r.stdout) as Doc;
        if (args.length === 0) {
          expect(doc['x-applications']!.map((a) => a.name)).toEqual(hostile);
          whole = doc;
          // The parser reads this document as the YAML below, which says the same (checked there).
          continue;
        }
        expect(doc.info.contact).toEqual({ name: '<script>alert(1)</script>' }); // not an address nor a URL: only the name
      } else {
        expect(YAML.parse(r.stdout)).toEqual(whole);
      }
      await parsed(r.stdout);
    }
  });
});
