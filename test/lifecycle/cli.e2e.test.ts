import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGithub, readJunit, junitCases, readSarif } from '../helpers/ci-formats.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';

// A URN's lifecycle end to end: check reads `deprecated`, compat --against lets a deprecated URN go
// only on or after its sunset (BQSCHEMA_NOW sets today), and every format says so.

afterAll(removeTempTrees);

const OLD = 'urn:t:orders:placed';
const NEW = 'urn:t:orders:placed.v2';
const OBJECT = '{ "type": "object" }\n';

function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

const manifest = (entries: object[]): string => `${JSON.stringify({ schemas: entries }, null, 2)}\n`;

/** `main` registers OLD (deprecated, sunset 2026-06-30, replaced by NEW) and NEW; the working tree removes OLD. */
function removalRepo(): string {
  const dir = tempTree({
    'registry.json': manifest([
      {
        urn: OLD,
        schema: 'schemas/old.json',
        deprecated: { since: '2026-01-31', sunset: '2026-06-30', replacement: NEW, reason: 'split by region' },
      },
      { urn: NEW, schema: 'schemas/new.json' },
    ]),
    'schemas/old.json': OBJECT,
    'schemas/new.json': OBJECT,
  });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Lifecycle Test');
  git(dir, 'config', 'user.email', 'lifecycle@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  writeFileSync(join(dir, 'registry.json'), manifest([{ urn: NEW, schema: 'schemas/new.json' }]));
  return dir;
}

const REMEDY = `keep ${OLD} registered until its sunset 2026-06-30 (29 days from now), then remove it; its consumers move to ${NEW}`;

describe('compat --against: removing a deprecated URN before and after its sunset', () => {
  let dir: string;
  beforeAll(() => {
    dir = removalRepo();
  });
  const early = (format: string) =>
    bq(['compat', '--against', 'main', '--format', format], { cwd: dir, env: { BQSCHEMA_NOW: '2026-06-01' } });

  it('text: the URN fails, with the days left and the replacement', async () => {
    const r = await early('text');
    expectExit(r, 1);
    expect(r.stdout).toContain(`✗ ${OLD}  removed (deprecated)\n    → ${REMEDY}\n`);
    expect(r.stdout).toMatch(/^FAILED: 1 URN\(s\) fail against main/m);
  });

  it('json, github, markdown, sarif and junit say the same', async () => {
    const json = JSON.parse((await early('json')).stdout) as {
      ok: boolean;
      urns: Array<{ urn: string; breaking: boolean; remedy?: string; deprecated?: boolean }>;
    };
    expect(json.ok).toBe(false);
    expect(json.urns.find((u) => u.urn === OLD)).toMatchObject({ breaking: true, deprecated: true, remedy: REMEDY });

    const gh = readGithub((await early('github')).stdout);
    expect(gh.annotations).toContainEqual(
      expect.objectContaining({ level: 'error', message: `${OLD}: removed (it was deprecated). Remedy: ${REMEDY}` }),
    );

    const md = (await early('markdown')).stdout;
    expect(md).toContain(
      `| \`${OLD}\` | **✗ removed** | **Remedy:** keep \`${OLD}\` registered until its sunset 2026-06-30 (29 days from now), then remove it; its consumers move to \`${NEW}\` |`,
    );

    const sarif = readSarif((await early('sarif')).stdout);
    expect(sarif.runs[0]!.results.filter((x) => x.ruleId === 'urn-removed').map((x) => [x.level, x.message.text])).toEqual([
      ['error', `${OLD}: removed (it was deprecated). Remedy: ${REMEDY}`],
    ]);

    const junit = junitCases(readJunit((await early('junit')).stdout)).find((c) => c.name === OLD);
    expect(junit?.failure?.message).toBe(`${OLD}: removed (it was deprecated). Remedy: ${REMEDY}`);
  });

  it('on the sunset day the removal passes', async () => {
    const r = await bq(['compat', '--against', 'main'], { cwd: dir, env: { BQSCHEMA_NOW: '2026-06-30' } });
    expectExit(r, 0);
    expect(r.stdout).toContain(`- ${OLD}  removed (deprecated)\n`);
  });

  it('a BQSCHEMA_NOW that is no day is a usage error, not a verdict', async () => {
    const before = readdirSync(dir);
    const r = await bq(['compat', '--against', 'main'], { cwd: dir, env: { BQSCHEMA_NOW: '2026-02-30' } });
    expectOneLineError(r, /^bqschema: BQSCHEMA_NOW must be a date YYYY-MM-DD, got "2026-02-30"$/, 2);
    expect(readdirSync(dir)).toEqual(before);
  });
});

describe('check and the other commands read `deprecated`', () => {
  it('check names each problem at its place; other commands refuse a sunset that is no day, in one line', async () => {
    const dir = tempTree({
      'registry.json': manifest([
        {
          urn: OLD,
          schema: 'schemas/old.json',
          status: 'active',
          deprecated: { since: '2026-07-01', sunset: '2026-06-30', replacement: 'urn:t:nowhere' },
        },
        { urn: NEW, schema: 'schemas/new.json', deprecated: { sunset: '2026-02-30' } },
      ]),
      'schemas/old.json': OBJECT,
      'schemas/new.json': OBJECT,
      'msg.json': JSON.stringify({ job: NEW, data: {} }),
    });
    const text = readFileSync(join(dir, 'registry.json'), 'utf8');
    const check = await bq(['check', '--format', 'json'], { cwd: dir });
    expectExit(check, 1);
    const issues = (JSON.parse(check.stdout) as { errors: Array<{ rule: string; pointer: string; line: number }> }).errors.filter(
      (e) => e.rule === 'manifest',
    );
    expect(issues?.map((i) => i.pointer).sort()).toEqual([
      '/schemas/0/deprecated/replacement',
      '/schemas/0/deprecated/sunset',
      '/schemas/0/status',
      '/schemas/1/deprecated/sunset',
    ]);
    const lineOf = (needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;
    expect(issues?.find((i) => i.pointer === '/schemas/1/deprecated/sunset')?.line).toBe(lineOf('"2026-02-30"'));

    const validate = await bq(['validate', 'msg.json'], { cwd: dir });
    expectOneLineError(
      validate,
      new RegExp(
        `^bqschema: registry\\.json:${lineOf('"2026-02-30"')}:\\d+: entry 1: "deprecated\\.sunset" is "2026-02-30", not a real calendar day; write it as YYYY-MM-DD, e.g\\. "2026-06-30"$`,
      ),
      1,
    );
    expect(readFileSync(join(dir, 'registry.json'), 'utf8')).toBe(text);
  });
});

describe('validate warns on a message of a deprecated URN, and never changes a verdict', () => {
  let dir: string;
  const WARNING = `${OLD} is deprecated (since 2026-01-31, sunset 2026-06-30): split by region; move its producers and consumers to ${NEW}`;
  beforeAll(() => {
    dir = tempTree({
      'registry.json': manifest([
        {
          urn: OLD,
          schema: 'schemas/old.json',
          deprecated: { since: '2026-01-31', sunset: '2026-06-30', replacement: NEW, reason: 'split by region' },
        },
        { urn: NEW, schema: 'schemas/new.json' },
        { urn: 'urn:t:bare', schema: 'schemas/new.json', status: 'deprecated' },
      ]),
      'schemas/old.json': '{ "type": "object", "properties": { "n": { "type": "integer" } } }\n',
      'schemas/new.json': OBJECT,
      'm/1-old.json': JSON.stringify({ job: OLD, data: {} }),
      'm/2-new.json': JSON.stringify({ job: NEW, data: {} }),
      'm/3-bare.json': JSON.stringify({ job: 'urn:t:bare', data: {} }),
      'bad.json': JSON.stringify({ job: OLD, data: { n: 'x' } }),
      'stream.ndjson': Array.from({ length: 40 }, (_, i) => JSON.stringify({ job: i % 2 === 0 ? OLD : NEW, data: {} })).join('\n') + '\n',
    });
  });

  it('every format says it; the run still passes (exit 0)', async () => {
    const text = await bq(['validate', 'm'], { cwd: dir });
    expectExit(text, 0);
    expect(text.stdout).toContain(
      `✓ valid  m/1-old.json  ${OLD}\n    warning: ${WARNING}\n✓ valid  m/2-new.json  ${NEW}\n✓ valid  m/3-bare.json  urn:t:bare\n    warning: urn:t:bare is deprecated; move its producers and consumers to the URN that replaces it\n`,
    );
    expect(text.stdout).toMatch(/^OK: 3 messages: 3 valid/m);

    const json = await bq(['validate', 'm', '--format', 'json'], { cwd: dir });
    expectExit(json, 0);
    const results = (JSON.parse(json.stdout) as { results: Array<{ urn: string; deprecation?: string }> }).results;
    expect(results.map((r) => r.deprecation)).toEqual([
      WARNING,
      undefined,
      'urn:t:bare is deprecated; move its producers and consumers to the URN that replaces it',
    ]);

    const gh = await bq(['validate', 'm/1-old.json', '--format', 'github'], { cwd: dir });
    expectExit(gh, 0);
    expect(readGithub(gh.stdout).annotations).toEqual([
      { level: 'warning', file: 'm/1-old.json', title: 'deprecated URN', message: WARNING },
    ]);

    const sarif = await bq(['validate', 'm/1-old.json', '--format', 'sarif'], { cwd: dir });
    expectExit(sarif, 0);
    expect(readSarif(sarif.stdout).runs[0]!.results.map((x) => [x.ruleId, x.level, x.message.text])).toEqual([
      ['deprecated-urn', 'warning', WARNING],
    ]);

    const md = await bq(['validate', 'm/1-old.json', '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toContain(`| warning | \`m/1-old.json\` | \`deprecated-urn\` | ${WARNING} |`);

    const junit = await bq(['validate', 'm/1-old.json', '--format', 'junit'], { cwd: dir });
    expectExit(junit, 0);
    const tc = junitCases(readJunit(junit.stdout))[0]!;
    expect(tc.failure).toBeUndefined();
    expect(tc['system-out']).toBe(`warning: m/1-old.json: ${WARNING}`);
  });

  it('an invalid message of a deprecated URN fails as before, warned too', async () => {
    const r = await bq(['validate', 'bad.json'], { cwd: dir });
    expectExit(r, 1);
    expect(r.stdout).toContain(`✗ invalid  bad.json  ${OLD}\n    /n  must be integer, got string\n    warning: ${WARNING}\n`);
  });

  it('--no-deprecation-warnings hides it; worker threads say what one thread says', async () => {
    const hidden = await bq(['validate', 'm', '--format', 'json', '--no-deprecation-warnings'], { cwd: dir });
    expectExit(hidden, 0);
    expect(hidden.stdout).not.toContain('deprecat');
    const one = await bq(['validate', 'stream.ndjson', '--format', 'json', '--jobs', '1'], { cwd: dir });
    const two = await bq(['validate', 'stream.ndjson', '--format', 'json', '--jobs', '2'], { cwd: dir });
    expect(two.stdout).toBe(one.stdout);
    expect(one.stdout.split(WARNING).length - 1).toBe(20);
  });
});

describe('catalog: the changelog from git, and deprecation', () => {
  it('each version: date, commit, author, the rules that fired and the modes they break, the deprecation state; a deprecated property is marked', async () => {
    const dir = tempTree({
      'registry.json': manifest([
        { urn: OLD, schema: 'schemas/old.json', deprecated: { since: '2000-01-01', replacement: NEW } },
        { urn: NEW, schema: 'schemas/new.json' },
      ]),
      'schemas/old.json': '{ "type": "object", "properties": { "a": { "type": "string" } } }\n',
      'schemas/new.json': OBJECT,
    });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'commit.gpgsign', 'false');
    const commit = (author: string, subject: string): string => {
      git(dir, 'add', '-A');
      git(dir, '-c', `user.name=${author}`, '-c', 'user.email=a@example.invalid', 'commit', '-q', '-m', subject);
      return git(dir, 'rev-parse', 'HEAD');
    };
    const first = commit('Ada "<b>"', 'first <img src=x>');
    writeFileSync(
      join(dir, 'schemas/old.json'),
      '{ "type": "object", "required": ["n"], "properties": { "a": { "type": ["string", "null"], "deprecated": true }, "n": { "type": "integer" } } }\n',
    );
    const second = commit('Bob', 'a may be null; n required');
    const r = await bq(['catalog', '-o', 'catalog.html'], { cwd: dir });
    expectExit(r, 0);
    const page = readFileSync(join(dir, 'catalog.html'), 'utf8');
    const section = page.slice(
      page.indexOf(`<section class="event" id="${OLD}"`),
      page.indexOf('</section>', page.indexOf(`<section class="event" id="${OLD}"`)),
    );
    expect(section).toContain('<th>Author</th>');
    expect(section).toContain(
      `<code title="${second}">${second.slice(0, 12)}</code></td><td>Bob</td><td class="nw"><span class="badge v-breaking">breaking</span> <span class="badge st-deprecated">deprecated</span></td><td>a may be null; n required<ul>`,
    );
    expect(section).toContain(
      '<li><span class="badge v-breaking">breaks backward</span> <code>required-added</code> <code>/required</code>: property &quot;n&quot; is now required</li>',
    );
    expect(section).toContain(
      '<li><span class="badge v-breaking">breaks forward</span> <code>type-widened</code> <code>/properties/a/type</code>: ',
    );
    // git drops < and > from a name; the rest is escaped.
    expect(section).toContain(
      `<code title="${first}">${first.slice(0, 12)}</code></td><td>Ada &quot;b</td><td class="nw"><span class="badge v-added">added</span> <span class="badge st-deprecated">deprecated</span></td><td>first &lt;img src=x&gt;</td>`,
    );
    expect(section).toContain('<span class="badge st-deprecated" title="deprecated: true">deprecated</span>');
    expect(section).toContain(`use <a href="#${NEW}"><code>${NEW}</code></a> instead`);
    expect(section).not.toContain('not enforced</strong>');
  });
});

describe('export-asyncapi: deprecation and, with --versions, the version count', () => {
  it('the message carries deprecated: true, x-bqschema-deprecation, and x-bqschema-versions counted from git', async () => {
    const dir = tempTree({
      'registry.json': manifest([
        {
          urn: OLD,
          schema: 'schemas/old.json',
          deprecated: { reason: 'split "by" region', sunset: '2026-06-30', replacement: NEW, since: '2026-01-31' },
        },
        { urn: NEW, schema: 'schemas/new.json' },
      ]),
      'schemas/old.json': '{ "type": "object", "properties": { "a": { "type": "string" } } }\n',
      'schemas/new.json': OBJECT,
    });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'Lifecycle Test');
    git(dir, 'config', 'user.email', 'lifecycle@example.invalid');
    git(dir, 'config', 'commit.gpgsign', 'false');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'one');
    writeFileSync(join(dir, 'schemas/old.json'), '{ "type": "object", "properties": { "a": { "type": "string", "deprecated": true } } }\n');
    git(dir, 'commit', '-q', '-am', 'two');
    // The working tree's change is a third version.
    writeFileSync(
      join(dir, 'schemas/old.json'),
      '{ "type": "object", "properties": { "a": { "type": ["string", "null"], "deprecated": true } } }\n',
    );
    type Message = {
      deprecated?: boolean;
      'x-bqschema-deprecation'?: unknown;
      'x-bqschema-versions'?: number;
      payload: { schema: { properties: { a: { deprecated?: boolean } } } };
    };
    const messages = (out: string): Message[] =>
      Object.values((JSON.parse(out) as { channels: Record<string, { messages: Record<string, Message> }> }).channels).flatMap((c) =>
        Object.values(c.messages),
      );

    const counted = await bq(['export-asyncapi', '--versions'], { cwd: dir });
    expectExit(counted, 0);
    const [old, next] = messages(counted.stdout);
    expect(old).toMatchObject({
      deprecated: true,
      'x-bqschema-versions': 3,
      'x-bqschema-deprecation': { since: '2026-01-31', sunset: '2026-06-30', replacement: NEW, reason: 'split "by" region' },
    });
    expect(Object.keys(old!['x-bqschema-deprecation'] as object)).toEqual(['since', 'sunset', 'replacement', 'reason']);
    expect(old!.payload.schema.properties.a.deprecated).toBe(true);
    expect(next!.deprecated).toBeUndefined();
    expect(next!['x-bqschema-versions']).toBe(1);

    const plain = await bq(['export-asyncapi'], { cwd: dir });
    expectExit(plain, 0);
    expect(plain.stdout).not.toContain('x-bqschema-versions');
    expect(plain.stdout).toContain('x-bqschema-deprecation');
  });
});

describe('hostile deprecation text', () => {
  it('a reason with a control character and a line break stays one escaped line in text, annotations and markdown', async () => {
    const reason = 'x\u001b[31mRED\nnext line <b>&';
    const dir = tempTree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: OLD, schema: 'a.json', deprecated: { reason, replacement: NEW } },
          { urn: NEW, schema: 'a.json' },
        ],
      }),
      'a.json': OBJECT,
      'm.json': JSON.stringify({ job: OLD, data: {} }),
    });
    const before = readdirSync(dir).sort();
    const text = await bq(['validate', 'm.json'], { cwd: dir });
    expectExit(text, 0);
    expect(text.stdout).not.toContain('\u001b');
    expect(text.stdout.split('\n').filter((l) => l.includes('is deprecated'))).toEqual([
      `    warning: ${OLD} is deprecated: x\\x1b[31mRED\\nnext line <b>&; move its producers and consumers to ${NEW}`,
    ]);
    const gh = await bq(['validate', 'm.json', '--format', 'github'], { cwd: dir });
    expect(gh.stdout.split('\n')[0]).toBe(
      `::warning file=m.json,title=deprecated URN::${OLD} is deprecated: x\\x1b[31mRED%0Anext line <b>&; move its producers and consumers to ${NEW}`,
    );
    const md = await bq(['validate', 'm.json', '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toContain('x\\\\x1b\\[31mRED<br>next line \\<b\\>\\&;');
    expect(readdirSync(dir).sort()).toEqual(before);
  });
});
