import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import MarkdownIt from 'markdown-it';
import { Ajv } from 'ajv';
import { Registry } from '../../src/registry/index.js';
import { codeownersLines, codeownersText, servicesView } from '../../src/services/index.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

/*
 * `bqschema services`: what each service produces and consumes and the personal data it handles,
 * in text, JSON and markdown; CODEOWNERS lines for the schema files; -o through the output guard.
 */

afterAll(removeTempTrees);

const personal = JSON.stringify({
  type: 'object',
  properties: { email: { type: 'string', 'x-gdpr-sensitive': 'email' }, id: { type: 'string' } },
});
const plain = '{"type": "object"}';

function tree(manifest: object, files: Record<string, string> = {}): string {
  return tempTree({ 'registry.json': JSON.stringify(manifest, null, 2), 'user.json': personal, 'order.json': plain, ...files });
}

const base = {
  services: [
    { name: 'identity', team: '@acme/identity', contact: 'id@acme.example' },
    { name: 'mailer', team: '@acme/growth' },
    { name: 'orders', team: 'ops@acme.example' },
  ],
  schemas: [
    { urn: 'urn:a:user', schema: 'user.json', producers: ['identity'], consumers: ['mailer', 'ghost'] },
    { urn: 'urn:a:order', schema: 'order.json', producers: ['orders'], consumers: ['mailer'] },
    { urn: 'urn:a:orphan', schema: 'order.json' },
  ],
};

describe('servicesView', () => {
  it('lists each service with what it produces, consumes and the personal fields of those URNs; undeclared names too', () => {
    const dir = tree(base);
    const registry = Registry.workingTree(join(dir, 'registry.json'));
    const views = servicesView(
      registry,
      registry.entries.map((e) => ({ urn: e.urn, schema: registry.document(e.urn).value })),
    );
    expect(views.map((v) => [v.name, v.declared, v.produces, v.consumes, v.pii.map((f) => `${f.urn} ${f.path} ${f.category}`)])).toEqual([
      ['identity', true, ['urn:a:user'], [], ['urn:a:user email email']],
      ['mailer', true, [], ['urn:a:user', 'urn:a:order'], ['urn:a:user email email']],
      ['orders', true, ['urn:a:order'], [], []],
      ['ghost', false, [], ['urn:a:user'], ['urn:a:user email email']],
    ]);
  });

  it('CODEOWNERS: producers own, --consumers-review adds consumers, a URN nobody owns is a comment', () => {
    const registry = Registry.workingTree(join(tree(base), 'registry.json'));
    const lines = codeownersLines(registry, (urn) => registry.entry(urn)!.schema, true);
    expect(lines.map((l) => [l.file, l.owners])).toEqual([
      ['user.json', ['@acme/identity', '@acme/growth']],
      ['order.json', ['ops@acme.example', '@acme/growth']],
      ['order.json', []],
    ]);
    const text = codeownersText(
      codeownersLines(registry, (urn) => `dir with space/${registry.entry(urn)!.schema}`, false),
      'x',
      false,
    );
    expect(text.split('\n').slice(2)).toEqual([
      '/dir\\ with\\ space/user.json @acme/identity',
      '/dir\\ with\\ space/order.json ops@acme.example',
      '# /dir\\ with\\ space/order.json: no service with a team produces "urn:a:orphan"',
      '',
    ]);
  });
});

describe('bqschema services', () => {
  it('text, json and markdown say the same services', async () => {
    const dir = tree(base);
    const text = await bq(['services'], { cwd: dir });
    expectExit(text, 0);
    expect(text.stdout).toContain(
      'mailer  @acme/growth\n  produces  -\n  consumes  urn:a:user, urn:a:order\n  personal data\n    urn:a:user  email (email)\n',
    );
    expect(text.stdout).toContain('ghost  (not declared in "services")');
    expect(text.stdout).toMatch(/\n4 service\(s\), 3 handling personal data\n$/);
    const json = await bq(['services', '--format', 'json'], { cwd: dir });
    expectExit(json, 0);
    const doc = JSON.parse(json.stdout) as { services: Array<{ name: string; pii: unknown[] }> };
    expect(doc.services.map((s) => s.name)).toEqual(['identity', 'mailer', 'orders', 'ghost']);
    const md = await bq(['services', '--format', 'markdown'], { cwd: dir });
    expectExit(md, 0);
    const tokens = new MarkdownIt().parse(md.stdout, {});
    expect(tokens.filter((t) => t.type === 'tr_open')).toHaveLength(5); // the header and a row per service
  });

  it('--format codeowners -o writes paths from the repository top, atomically; the output guard refuses an input', async () => {
    const dir = tree(base);
    mkdirSync(join(dir, '.git'));
    mkdirSync(join(dir, 'reg'));
    writeFileSync(join(dir, 'reg', 'registry.json'), JSON.stringify(base));
    writeFileSync(join(dir, 'reg', 'user.json'), personal);
    writeFileSync(join(dir, 'reg', 'order.json'), plain);
    const r = await bq(['services', '-r', 'reg/registry.json', '--format', 'codeowners', '-o', 'CODEOWNERS'], { cwd: dir });
    expectExit(r, 0);
    expect(r.stdout).toBe('Wrote CODEOWNERS: codeowners, 3 service(s)\n');
    expect(readFileSync(join(dir, 'CODEOWNERS'), 'utf8')).toContain('\n/reg/user.json @acme/identity\n');
    const before = readFileSync(join(dir, 'reg', 'registry.json'), 'utf8');
    expectOneLineError(
      await bq(['services', '-r', 'reg/registry.json', '--format', 'codeowners', '-o', 'reg/registry.json'], { cwd: dir }),
      /^bqschema: .*registry\.json/,
    );
    expect(readFileSync(join(dir, 'reg', 'registry.json'), 'utf8')).toBe(before);
    expectOneLineError(await bq(['services', '-r', 'reg/registry.json', '-o', 'reg/user.json'], { cwd: dir }), /^bqschema: .*user\.json/);
    expect(readFileSync(join(dir, 'reg', 'user.json'), 'utf8')).toBe(personal);
    expectOneLineError(
      await bq(['services', '-r', 'reg/registry.json', '--consumers-review'], { cwd: dir }),
      /^bqschema: --consumers-review applies to --format codeowners$/,
    );
  });

  it('a team CODEOWNERS cannot name stops it with one line, and nothing is written', async () => {
    const dir = tree({ ...base, services: [{ name: 'identity', team: 'Identity Team\n* @evil' }, { name: 'mailer' }, { name: 'orders' }] });
    const r = await bq(['services', '--format', 'codeowners', '-o', 'CODEOWNERS'], { cwd: dir });
    expectOneLineError(r, /^bqschema: registry\.json: service "identity": team "Identity Team\\n\* @evil" is not a code-host handle/, 1);
    expect(readdirSync(dir)).not.toContain('CODEOWNERS');
  });

  it('hostile service names are inert in text, markdown and JSON', async () => {
    const hostile = ['<img src=x onerror=alert(1)>', 'esc\u001b[2Jred', 'rtl\u202eevil', `l${'o'.repeat(5000)}ng`, '`x`|y'];
    const dir = tree({
      services: hostile.map((name) => ({ name, team: name, contact: name })),
      schemas: [{ urn: 'urn:a:user', schema: 'user.json', producers: hostile, consumers: hostile }],
    });
    const text = await bq(['services'], { cwd: dir });
    expectExit(text, 0);
    expect(text.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    const md = await bq(['services', '--format', 'markdown'], { cwd: dir });
    expectExit(md, 0);
    const html = new MarkdownIt().render(md.stdout);
    expect(html).not.toContain('<img');
    expect(md.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(new MarkdownIt().parse(md.stdout, {}).filter((t) => t.type === 'tr_open')).toHaveLength(1 + hostile.length);
    const json = await bq(['services', '--format', 'json'], { cwd: dir });
    expectExit(json, 0);
    expect((JSON.parse(json.stdout) as { services: Array<{ name: string }> }).services.map((s) => s.name)).toEqual(hostile);
    // The CODEOWNERS gate refuses every one of those teams.
    expectOneLineError(await bq(['services', '--format', 'codeowners'], { cwd: dir }), /is not a code-host handle/, 1);
  });
});

describe('bqschema gdpr --by-service', () => {
  it('lists the services that handle personal data, with team and contact, and counts those that do not', async () => {
    const dir = tree(base);
    const r = await bq(['gdpr', '--by-service'], { cwd: dir });
    expectExit(r, 0);
    expect(r.stdout).toBe(
      [
        'identity  @acme/identity  id@acme.example',
        '    urn:a:user  email (email)',
        'mailer  @acme/growth  (no contact)',
        '    urn:a:user  email (email)',
        'ghost  (no team)  (no contact)',
        '    urn:a:user  email (email)',
        '',
        '3 of 4 service(s) handle personal data',
        '',
      ].join('\n'),
    );
    const json = await bq(['gdpr', '--by-service', '--format', 'json'], { cwd: dir });
    expectExit(json, 0);
    expect(
      (JSON.parse(json.stdout) as { services: Array<{ name: string; declared: boolean }> }).services.map((s) => [s.name, s.declared]),
    ).toEqual([
      ['identity', true],
      ['mailer', true],
      ['ghost', false],
    ]);
    const md = await bq(['gdpr', '--by-service', '--format', 'markdown'], { cwd: dir });
    expectExit(md, 0);
    expect(new MarkdownIt().parse(md.stdout, {}).filter((t) => t.type === 'tr_open')).toHaveLength(4);
  });

  it('refuses what it cannot do, in one line', async () => {
    const dir = tree(base);
    expectOneLineError(
      await bq(['gdpr', '--by-service', '--format', 'sarif'], { cwd: dir }),
      /^bqschema: --by-service prints text, json or markdown, not sarif$/,
    );
    expectOneLineError(
      await bq(['gdpr', '--by-service', '--require'], { cwd: dir }),
      /^bqschema: --by-service lists the inventory by service/,
    );
  });
});

describe('bqschema gdpr --require: services handling personal data need a team and a contact', () => {
  const gdprSchema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'output', 'gdpr.json'), 'utf8')) as object;

  it('fails on each such service, at its manifest entry, in every format; passes once they have both', async () => {
    const dir = tree(base); // identity has both; mailer no contact; orders handles no personal data; ghost is not declared
    const text = await bq(['gdpr', '--require'], { cwd: dir });
    expectExit(text, 1);
    expect(text.stdout).toContain('✗ error  service "mailer" handles personal data (urn:a:user) but has no contact in the manifest');
    expect(text.stdout).not.toContain('"identity"');
    expect(text.stdout).not.toContain('"orders"');
    expect(text.stdout).toMatch(/^FAILED: 1 service\(s\) handling personal data without a team or contact; 3 URN\(s\) checked$/m);
    const json = await bq(['gdpr', '--require', '--format', 'json'], { cwd: dir });
    expectExit(json, 1);
    const doc = JSON.parse(json.stdout) as { services: unknown };
    expect(new Ajv({ strict: false }).validate(gdprSchema, doc)).toBe(true);
    expect(doc.services).toEqual([{ service: 'mailer', missing: ['contact'], urns: ['urn:a:user'] }]);
    const github = await bq(['gdpr', '--require', '--format', 'github'], { cwd: dir });
    expectExit(github, 1);
    const line =
      readFileSync(join(dir, 'registry.json'), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('"mailer"')) + 1;
    expect(github.stdout).toMatch(
      new RegExp(`^::error file=registry\\.json,line=${line},col=\\d+,title=service without owner::service "mailer"`, 'm'),
    );
    const sarif = JSON.parse((await bq(['gdpr', '--require', '--format', 'sarif'], { cwd: dir })).stdout) as {
      runs: Array<{ results: Array<{ ruleId: string }> }>;
    };
    expect(sarif.runs[0]!.results.map((r) => r.ruleId)).toEqual(['gdpr-service-without-owner']);
    const fixed = tree({ ...base, services: base.services.map((x) => ({ contact: 'x@acme.example', ...x })) });
    expectExit(await bq(['gdpr', '--require'], { cwd: fixed }), 0);
  });

  it('a manifest without services is gated as before', async () => {
    const dir = tree({ schemas: [{ urn: 'urn:a:user', schema: 'user.json' }] });
    const r = await bq(['gdpr', '--require', '--format', 'json'], { cwd: dir });
    expectExit(r, 0);
    expect(JSON.parse(r.stdout)).not.toHaveProperty('services');
  });
});
