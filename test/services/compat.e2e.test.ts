import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/index.js';
import { compareRegistries } from '../../src/compat/registry.js';
import { rolloutOrder } from '../../src/compat/rollout.js';
import { RULES } from '../../src/compat/rules.js';
import { changeReach, directions, rolloutWithServices, teamsOf } from '../../src/compat/reach.js';
import type { Change } from '../../src/compat/compare.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

/*
 * compat names the reach of a change: the consumers a backward break breaks, the producers whose
 * data old consumers reject after a forward break, in every format; the rollout line names the
 * services in the order to deploy them; --mention names the owning teams in the markdown comment.
 */

afterAll(removeTempTrees);

const services = { producers: ['orders'], consumers: ['billing', 'shipping'] };
const change = (rule: Change['rule'], breaking = true): Change => ({ rule, breaking, path: '/x', message: 'm' });

describe('reach of one change', () => {
  it('backward breaks reach consumers, forward breaks producers; full goes by the rule', () => {
    const breaks = (id: string) => RULES.find((r) => r.id === id)!.breaks;
    expect(changeReach(change('required-added'), 'backward', breaks('required-added'), services)).toEqual({
      consumers: ['billing', 'shipping'],
    });
    expect(changeReach(change('required-added'), 'forward', breaks('required-added'), services)).toEqual({ producers: ['orders'] });
    // required-added breaks backward only; type-widened forward only; a rule that breaks both ways reaches both.
    expect(directions('full', breaks('required-added'))).toEqual({ backward: true, forward: false });
    expect(changeReach(change('type-widened'), 'full', breaks('type-widened'), services)).toEqual({ producers: ['orders'] });
    expect(changeReach(change('type-widened'), 'full', 'both', services)).toEqual({
      consumers: ['billing', 'shipping'],
      producers: ['orders'],
    });
    expect(changeReach(change('required-added', false), 'backward', 'backward', services)).toBeUndefined();
    expect(changeReach(change('required-added'), 'backward', 'backward', { producers: ['orders'], consumers: [] })).toBeUndefined();
  });

  it('the rollout names the services in the order it allows', () => {
    const sentence = (b: boolean, f: boolean): string => rolloutWithServices(rolloutOrder(b, f), services).sentence;
    expect(sentence(true, false)).toMatch(/Here: deploy consumers billing and shipping, then producer orders\.$/);
    expect(sentence(false, true)).toMatch(/Here: deploy producer orders, then consumers billing and shipping\.$/);
    expect(sentence(true, true)).toMatch(/Here: deploy consumers billing and shipping and producer orders in any order\.$/);
    expect(sentence(false, false)).toMatch(/Here: under the new URN, deploy consumers billing and shipping, then producer orders\.$/);
    expect(rolloutWithServices(rolloutOrder(true, false), services).deploy).toEqual([
      { role: 'consumers', services: ['billing', 'shipping'] },
      { role: 'producers', services: ['orders'] },
    ]);
    const plain = rolloutOrder(true, false);
    expect(rolloutWithServices(plain, undefined)).toBe(plain);
  });

  it('mentions only team handles, each once', () => {
    const declared = [
      { name: 'a', team: '@acme/billing', index: 0 },
      { name: 'b', team: '@acme/billing', index: 1 },
      { name: 'c', team: '<img src=x onerror=alert(1)>', index: 2 },
      { name: 'd', index: 3 },
      { name: 'e', team: '@solo', index: 4 },
    ];
    expect(teamsOf(['a', 'b', 'c', 'd', 'e', 'unknown'], declared)).toEqual(['@acme/billing', '@solo']);
  });
});

const schemaV1 = '{"type": "object", "properties": {"id": {"type": "string"}}}\n';
const schemaV2 = '{"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}\n';

function manifest(extra: { services?: object[]; peers?: object; gone?: boolean } = {}): string {
  const peers = extra.peers ?? { producers: ['orders'], consumers: ['billing', 'shipping'] };
  const schemas = [
    { urn: 'urn:shop:order', schema: 'order.json', ...peers },
    ...(extra.gone ? [] : [{ urn: 'urn:shop:gone', schema: 'order.json', consumers: ['shipping'] }]),
  ];
  const declared = extra.services ?? [
    { name: 'orders', team: '@acme/orders' },
    { name: 'billing', team: '@acme/billing' },
    { name: 'shipping', team: '@acme/shipping' },
  ];
  return JSON.stringify({ services: declared, schemas }, null, 2);
}

describe('compareRegistries', () => {
  it('gives each breaking change its reach, each URN its services, the rollout its order of services', () => {
    const base = Registry.workingTree(join(tempTree({ 'registry.json': manifest(), 'order.json': schemaV1 }), 'registry.json'));
    const current = Registry.workingTree(
      join(tempTree({ 'registry.json': manifest({ gone: true }), 'order.json': schemaV2 }), 'registry.json'),
    );
    const rows = compareRegistries(base, current, 'backward');
    const order = rows.find((r) => r.urn === 'urn:shop:order')!;
    expect(order.changes.map((c) => c.reach)).toEqual([{ consumers: ['billing', 'shipping'] }]);
    expect(order.services).toEqual(services);
    expect(order.rollout?.deploy?.map((s) => s.role)).toEqual(['producers', 'consumers']);
    const gone = rows.find((r) => r.urn === 'urn:shop:gone')!;
    expect(gone).toMatchObject({ status: 'removed', breaking: true, services: { producers: [], consumers: ['shipping'] } });
    // Level none breaks nothing, so reaches no one.
    expect(
      compareRegistries(base, current, 'none')
        .find((r) => r.urn === 'urn:shop:order')!
        .changes.every((c) => c.reach === undefined),
    ).toBe(true);
  });

  it('a registry that names no services reads as before', () => {
    const plain = (schema: string): Registry =>
      Registry.workingTree(
        join(
          tempTree({ 'registry.json': '{"schemas": [{"urn": "urn:shop:order", "schema": "order.json"}]}', 'order.json': schema }),
          'registry.json',
        ),
      );
    const [row] = compareRegistries(plain(schemaV1), plain(schemaV2), 'backward');
    expect(row!.changes[0]!.reach).toBeUndefined();
    expect(row!.services).toBeUndefined();
    expect(row!.rollout).toEqual(rolloutOrder(false, true));
  });
});

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
}

/** A repository whose HEAD holds the registry at v1; the working tree has v2 and `after` as the manifest. */
function repo(before: string, after: string): string {
  const dir = tempTree({ 'registry.json': before, 'order.json': schemaV1 });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Services Test');
  git(dir, 'config', 'user.email', 'services@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  writeFileSync(join(dir, 'order.json'), schemaV2);
  writeFileSync(join(dir, 'registry.json'), after);
  return dir;
}

const compatSchema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'output', 'compat.json'), 'utf8')) as object;

describe('compat --against: every format names the reach', () => {
  it('text, json, markdown, github, sarif and junit', async () => {
    const dir = repo(manifest(), manifest({ gone: true }));
    const run = async (format: string, ...more: string[]): Promise<string> => {
      const r = await bq(['compat', '--against', 'HEAD', '--format', format, ...more], { cwd: dir });
      expectExit(r, 1);
      return r.stdout;
    };
    const text = await run('text');
    expect(text).toContain('breaks consumers billing and shipping');
    expect(text).toContain('Here: deploy producer orders, then consumers billing and shipping.');
    expect(text).toContain('breaks consumer shipping'); // the removed URN's

    const json = JSON.parse(await run('json')) as {
      urns: Array<{ urn: string; changes: Array<{ reach?: object }>; services?: object; rollout?: { deploy?: object } }>;
    };
    const ajv = new Ajv({ allErrors: true, strict: false });
    expect(ajv.validate(compatSchema, json), JSON.stringify(ajv.errors)).toBe(true);
    const order = json.urns.find((u) => u.urn === 'urn:shop:order')!;
    expect(order.changes[0]!.reach).toEqual({ consumers: ['billing', 'shipping'] });
    expect(order.services).toEqual(services);
    expect(order.rollout?.deploy).toEqual([
      { role: 'producers', services: ['orders'] },
      { role: 'consumers', services: ['billing', 'shipping'] },
    ]);

    const md = await run('markdown');
    expect(md).toContain('**Reach:** breaks consumers billing and shipping');
    expect(md).toContain('**Reach:** breaks consumer shipping');
    expect(md).not.toContain('@acme/'); // only with --mention

    const github = await run('github');
    expect(github).toMatch(/^::error .*urn:shop:order: \/required: .*Reach: breaks consumers billing and shipping/m);
    expect(github).toMatch(/^::error .*urn:shop:gone: removed\. Reach: breaks consumer shipping/m);

    const sarif = JSON.parse(await run('sarif')) as {
      runs: Array<{ results: Array<{ ruleId: string; properties?: { reach?: object } }> }>;
    };
    const results = sarif.runs[0]!.results;
    expect(results.find((r) => r.ruleId === 'required-added')!.properties?.reach).toEqual({ consumers: ['billing', 'shipping'] });
    expect(results.find((r) => r.ruleId === 'urn-removed')!.properties?.reach).toEqual({ consumers: ['shipping'] });

    expect(await run('junit')).toContain('Reach: breaks consumers billing and shipping');
  });

  it('--mention names the teams of the services reached, handles only', async () => {
    const declared = [
      { name: 'orders', team: '@acme/orders' },
      { name: 'billing', team: '@acme/billing' },
      { name: 'shipping', team: '<img src=x onerror=alert(1)>' },
    ];
    const dir = repo(manifest({ services: declared }), manifest({ services: declared, gone: true }));
    const r = await bq(['compat', '--against', 'HEAD', '--format', 'markdown', '--mention'], { cwd: dir });
    expectExit(r, 1);
    expect(r.stdout).toContain('Teams of the services reached: @acme/billing\n');
    expect(r.stdout).not.toContain('<img');
    // The producer's team is not reached by a backward break.
    expect(r.stdout).not.toContain('@acme/orders');
  });

  it('--mention without --against is a usage error', async () => {
    expectOneLineError(
      await bq(['compat', 'a.json', 'b.json', '--mention'], { cwd: tempTree({}) }),
      /^bqschema: --mention applies to --against REF/,
    );
  });
});

describe('hostile service names are inert in every output', () => {
  const hostile = ['<b>x</b>', 'esc\u001b[31mred', 'rtl\u202eevil', 'line\nbreak', `l${'o'.repeat(5000)}ng`, 'Orders', '`code`|pipe*'];
  it('compat: text, markdown, github and junit escape them; json and sarif keep them exactly', async () => {
    const peers = { producers: ['orders'], consumers: hostile };
    const declared = [{ name: 'orders', team: '@acme/orders' }, ...hostile.map((name) => ({ name, team: `@acme/${name}` }))];
    const body = (gone: boolean): string =>
      JSON.stringify({
        services: declared,
        schemas: [
          { urn: 'urn:shop:order', schema: 'order.json', ...peers },
          ...(gone ? [] : [{ urn: 'urn:shop:gone', schema: 'order.json', consumers: hostile }]),
        ],
      });
    const dir = repo(body(false), body(true));
    // Two services one case apart make the manifest unusable: compat stops with one line.
    const folded = await bq(['compat', '--against', 'HEAD'], { cwd: dir });
    expectOneLineError(folded, /^bqschema: registry\.json:1:\d+: service \d+: "Orders" and "orders" differ only in case/, 1);

    const unique = hostile.filter((n) => n !== 'Orders');
    const declared2 = [{ name: 'orders', team: '@acme/orders' }, ...unique.map((name) => ({ name, team: `@acme/${name}` }))];
    const body2 = (gone: boolean): string =>
      JSON.stringify({
        services: declared2,
        schemas: [
          { urn: 'urn:shop:order', schema: 'order.json', producers: ['orders'], consumers: unique },
          ...(gone ? [] : [{ urn: 'urn:shop:gone', schema: 'order.json', consumers: unique }]),
        ],
      });
    const dir2 = repo(body2(false), body2(true));
    for (const format of ['text', 'markdown', 'github', 'junit']) {
      const r = await bq(
        ['compat', '--against', 'HEAD', '--format', format, '--mention'].filter((a) => format === 'markdown' || a !== '--mention'),
        { cwd: dir2 },
      );
      expectExit(r, 1);
      expect(r.stdout, format).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      if (format === 'markdown') {
        expect(r.stdout).not.toContain('<b>');
        expect(r.stdout).toContain('\\<b\\>x\\</b\\>');
        expect(r.stdout).not.toMatch(/Teams of the services reached: .*[<`]/);
      }
      if (format === 'junit') expect(r.stdout).not.toContain('<b>');
      if (format === 'github')
        for (const line of r.stdout.trimEnd().split('\n')) expect(line).toMatch(/^(::(error|warning|notice) |FAILED: )/);
    }
    for (const format of ['json', 'sarif']) {
      const r = await bq(['compat', '--against', 'HEAD', '--format', format], { cwd: dir2 });
      expectExit(r, 1);
      const names = JSON.stringify(JSON.parse(r.stdout));
      for (const n of unique) expect(names, format).toContain(JSON.stringify(n).slice(1, -1));
    }
  });

  it('check reports each one on one line, quoted and cut short', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({
        services: hostile.filter((n) => n !== 'Orders').map((name) => ({ name })),
        schemas: [{ urn: 'urn:shop:order', schema: 'order.json', producers: hostile }],
      }),
      'order.json': schemaV1,
    });
    for (const format of ['text', 'github', 'markdown']) {
      const r = await bq(['check', '--format', format], { cwd: dir });
      expectExit(r, 1);
      expect(r.stdout, format).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      if (format === 'markdown') expect(r.stdout).not.toContain('<b>'); // text is no markup: `<b>` is inert there
      expect(r.stdout, format).not.toContain('o'.repeat(100));
    }
  });
});
