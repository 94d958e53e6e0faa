import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifest, Registry } from '../../src/registry/index.js';
import { checkRegistry, verdictOf } from '../../src/check/index.js';
import { serviceIssues } from '../../src/check/service-rules.js';
import { CHECK_RULES } from '../../src/check/report.js';
import { bq, expectExit, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

/*
 * The manifest's `services` and each URN's `producers` and `consumers`: read with their places,
 * what makes a manifest unusable (a wrong type, two services one name apart only in case), and the
 * four check rules about them.
 */

afterAll(removeTempTrees);

const entry = { urn: 'urn:a:one', schema: 'a.json' };
const fatal = (m: unknown): string[] =>
  readManifest(m)
    .issues.filter((p) => p.fatal)
    .map((p) => p.pointer);
const reported = (m: unknown): string[] =>
  readManifest(m)
    .issues.filter((p) => !p.fatal)
    .map((p) => p.pointer);

describe('reading services, producers and consumers', () => {
  it("reads every field, in order, with each service's index", () => {
    const m = readManifest({
      services: [
        { name: 'orders', team: '@acme/orders', contact: 'o@acme.example', repository: 'https://x.example/o' },
        { name: 'billing' },
      ],
      schemas: [{ ...entry, producers: ['orders'], consumers: ['billing'] }],
    });
    expect(m.issues).toEqual([]);
    expect(m.services).toEqual([
      { name: 'orders', team: '@acme/orders', contact: 'o@acme.example', repository: 'https://x.example/o', index: 0 },
      { name: 'billing', index: 1 },
    ]);
    expect(m.entries[0]).toMatchObject({ producers: ['orders'], consumers: ['billing'] });
  });

  it('refuses a manifest whose services or peer lists have the wrong type', () => {
    expect(fatal({ services: {}, schemas: [] })).toEqual(['/services']);
    expect(fatal({ services: ['orders'], schemas: [] })).toEqual(['/services/0']);
    expect(fatal({ services: [{ team: 'x' }], schemas: [] })).toEqual(['/services/0/name']);
    expect(fatal({ services: [{ name: 'a', team: 7 }], schemas: [] })).toEqual(['/services/0/team']);
    expect(fatal({ schemas: [{ ...entry, producers: 'orders' }] })).toEqual(['/schemas/0/producers']);
    expect(fatal({ schemas: [{ ...entry, consumers: [1] }] })).toEqual(['/schemas/0/consumers']);
  });

  it('refuses two services whose names differ only in case (or are the same)', () => {
    const m = readManifest({ services: [{ name: 'Billing' }, { name: 'billing' }, { name: 'Billing' }], schemas: [] });
    expect(m.issues.filter((p) => p.fatal).map((p) => [p.pointer, p.message])).toEqual([
      ['/services/1/name', expect.stringContaining('"billing" and "Billing" differ only in case')],
      ['/services/2/name', expect.stringContaining('is declared twice')],
    ]);
    expect(m.services.map((s) => s.name)).toEqual(['Billing']);
  });

  it('reports (check only) a name outside service syntax, a very long one, an unknown key, a name listed twice', () => {
    expect(
      reported({
        services: [{ name: '<b>x</b>' }, { name: 'a'.repeat(101) }, { name: 'ok', tema: '@x' }],
        schemas: [{ ...entry, consumers: ['ok', 'ok'] }],
      }),
    ).toEqual(['/services/0/name', '/services/1/name', '/services/2/tema', '/schemas/0/consumers/1']);
    const long = readManifest({ services: [{ name: 'a'.repeat(5000) }], schemas: [] }).issues[0]!.message;
    expect(long.length).toBeLessThan(200); // the name is cut short in the message
  });
});

function registryOf(manifest: object): Registry {
  const text = JSON.stringify(manifest, null, 2);
  return Registry.workingTree(join(tempTree({ 'registry.json': text, 'a.json': '{"type": "object"}' }), 'registry.json'));
}

const rulesOf = (manifest: object): Array<[string, string, string | undefined]> => {
  const r = registryOf(manifest);
  const v = verdictOf(checkRegistry(r, { serviceIssues: serviceIssues(r) }), 'registry.json');
  return [...v.errors, ...v.warnings].map((i) => [i.rule, i.pointer, i.urn]);
};

describe('check: the service rules', () => {
  it('an unknown service is an error with the nearest declared name, case first', () => {
    const r = registryOf({
      services: [{ name: 'billing' }, { name: 'orders' }],
      schemas: [{ ...entry, producers: ['Orders'], consumers: ['biling', 'zzz'] }],
    });
    const v = verdictOf(checkRegistry(r, { serviceIssues: serviceIssues(r) }), 'registry.json');
    expect(v.ok).toBe(false);
    expect(v.errors.map((i) => [i.rule, i.pointer, i.suggestion])).toEqual([
      ['unknown-service', '/schemas/0/producers/0', 'orders'],
      ['unknown-service', '/schemas/0/consumers/0', 'billing'],
      ['unknown-service', '/schemas/0/consumers/1', undefined],
    ]);
    expect(v.errors[1]!.message).toContain('(did you mean "billing"?)');
    // Placed at the name in the manifest.
    expect(v.errors[0]!.line).toBe(r.manifestText.split('\n').findIndex((l) => l.includes('"Orders"')) + 1);
  });

  it('without a services section, a named service is unknown, and nothing else is said', () => {
    expect(
      rulesOf({
        schemas: [
          { ...entry, consumers: ['billing'] },
          { urn: 'urn:a:two', schema: 'a.json' },
        ],
      }),
    ).toEqual([['unknown-service', '/schemas/0/consumers/0', 'urn:a:one']]);
    expect(rulesOf({ schemas: [entry] })).toEqual([]);
  });

  it('warns of an unused service, consumers without a producer, and a live URN nothing produces', () => {
    expect(
      rulesOf({
        services: [{ name: 'orders' }, { name: 'billing' }, { name: 'idle' }],
        schemas: [
          { ...entry, producers: ['orders'], consumers: ['billing'] },
          { urn: 'urn:a:two', schema: 'a.json', consumers: ['billing'] },
          { urn: 'urn:a:three', schema: 'a.json', producers: [] },
          { urn: 'urn:a:four', schema: 'a.json', status: 'deprecated' },
        ],
      }),
    ).toEqual([
      ['unused-service', '/services/2/name', undefined],
      ['consumers-without-producer', '/schemas/1/urn', 'urn:a:two'],
      ['no-producer', '/schemas/2/producers', 'urn:a:three'],
    ]);
  });

  it('every rule it cites is in the rules table, and docs/cli/check.md has the table as the code has it', () => {
    for (const id of ['unknown-service', 'unused-service', 'consumers-without-producer', 'no-producer'])
      expect(CHECK_RULES.map((r) => r.id)).toContain(id);
    // The page's table is made from CHECK_RULES (a cell escaped as markdown wants it); the message shows the table to paste.
    const cell = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\|/g, '\\|');
    const table = [
      '| rule | what it finds | what to do |',
      '| --- | --- | --- |',
      ...CHECK_RULES.map((r) => `| \`${r.id}\` | ${cell(r.description)} | ${cell(r.help)} |`),
    ].join('\n');
    const page = readFileSync(join(ROOT, 'docs', 'cli', 'check.md'), 'utf8');
    expect(page.includes(`\n${table}\n`), `docs/cli/check.md should have this table:\n${table}`).toBe(true);
  });
});

describe('check on the CLI', () => {
  it('the bundled example registry declares services, producers and consumers, and passes', async () => {
    const example = readManifest(JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8')));
    expect(example.services.length).toBeGreaterThan(1);
    expect(example.entries.every((e) => (e.producers?.length ?? 0) > 0 && (e.consumers?.length ?? 0) > 0)).toBe(true);
    const r = await bq(['check', '--registry', 'registry.example.json', '--format', 'json']);
    expectExit(r, 0);
    expect((JSON.parse(r.stdout) as { warnings: Array<{ rule: string }> }).warnings.map((w) => w.rule)).toEqual(['unsupported-keyword']);
  });

  it('a warning about services reads as itself in text, not as a keyword not enforced', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ services: [{ name: 'idle' }], schemas: [entry] }),
      'a.json': '{"type": "object"}',
    });
    const r = await bq(['check'], { cwd: dir });
    expectExit(r, 0);
    expect(r.stdout).toContain('service "idle" produces and consumes nothing');
    expect(r.stdout).toContain('no service produces or consumes it');
    expect(r.stdout).not.toContain('is not enforced');
  });
});
