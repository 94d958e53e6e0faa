// `--report <format>=<file>` (repeatable) on validate, check, compat and gdpr.
// Each file holds exactly what `--format <format>` prints for the same run (JUnit's run-dependent
// times aside), while --format keeps driving stdout; the exit code is the same. Bad values are one
// line, exit 2, and nothing is written.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMarkdown, readSarif, withoutTimes } from '../helpers/ci-formats.js';
import { bq, expectOneLineError, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

const REG = ['-r', join(ROOT, 'registry.example.json')];
const COMMANDS: Array<[string, string[], string[]]> = [
  ['validate', ['validate', ...REG, join(ROOT, 'examples/messages')], ['text', 'json', 'github', 'markdown', 'sarif', 'junit']],
  ['check', ['check', '-r', join(ROOT, 'examples/broken/registry.json')], ['text', 'json', 'github', 'markdown', 'sarif', 'junit']],
  [
    'compat',
    ['compat', join(ROOT, 'examples/compat/orders-created.v1.json'), join(ROOT, 'examples/compat/orders-created.breaking.json')],
    ['text', 'json', 'github', 'markdown', 'sarif', 'junit'],
  ],
  ['gdpr --require', ['gdpr', ...REG, '--require'], ['text', 'json', 'github', 'markdown', 'sarif', 'junit']],
  ['gdpr inventory', ['gdpr', ...REG], ['text', 'json', 'github', 'markdown']],
];

describe.concurrent('--report <format>=<file>', () => {
  for (const [name, args, formats] of COMMANDS) {
    it(`${name}: each report file is what --format prints; stdout keeps --format github`, async () => {
      const dir = tempTree({});
      const reports = formats.filter((f) => f !== 'github').flatMap((f) => ['--report', `${f}=${join(dir, `out.${f}`)}`]);
      const [both, ...alone] = await Promise.all([
        bq([...args, '--format', 'github', ...reports], { cwd: dir }),
        ...formats.map((f) => bq([...args, '--format', f], { cwd: dir, env: { NO_COLOR: '1' } })),
      ]);
      const github = alone[formats.indexOf('github')]!;
      expect(both.stdout).toBe(github.stdout);
      expect(both.code).toBe(github.code);
      formats.forEach((f, i) => {
        if (f === 'github') return;
        const file = readFileSync(join(dir, `out.${f}`), 'utf8');
        expect(withoutTimes(file), `${name} ${f}`).toBe(withoutTimes(alone[i]!.stdout));
        expect(alone[i]!.code).toBe(both.code);
      });
    });
  }

  it('validate --jobs 2 with reports: the same files (reports run on one thread)', async () => {
    const dir = tempTree({});
    const lines = readFileSync(join(ROOT, 'examples/messages/invalid/traffic.ndjson'), 'utf8');
    writeFileSync(join(dir, 'big.ndjson'), lines.repeat(200));
    const one = await bq(['validate', ...REG, '--jobs', '1', '--report', `json=${join(dir, 'a.json')}`, 'big.ndjson'], { cwd: dir });
    const two = await bq(['validate', ...REG, '--jobs', '2', '--report', `json=${join(dir, 'b.json')}`, 'big.ndjson'], { cwd: dir });
    expect(two.code).toBe(one.code);
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe(readFileSync(join(dir, 'a.json'), 'utf8'));
    expect((JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8')) as { summary: { messages: number } }).summary.messages).toBe(800);
  });

  it('validate --format markdown: at most 1,000 rows, the rest counted; SARIF has them all', async () => {
    const dir = tempTree({});
    const line = JSON.stringify({ job: 'urn:babel:orders:created', data: { order_id: 0 } });
    writeFileSync(join(dir, 'm.ndjson'), `${line}\n`.repeat(600));
    const r = await bq(['validate', ...REG, '--format', 'markdown', '--report', `sarif=${join(dir, 'm.sarif')}`, 'm.ndjson'], { cwd: dir });
    expect(r.code).toBe(1);
    const all = readSarif(readFileSync(join(dir, 'm.sarif'), 'utf8')).runs[0]!.results;
    expect(all.length).toBeGreaterThan(1000);
    const md = readMarkdown(r.stdout);
    expect(md.rows).toHaveLength(1000);
    expect(md.rows.map((row) => row[3])).toEqual(all.slice(0, 1000).map((x) => x.message.text));
    expect(md.paragraphs).toContain(`… and ${all.length - 1000} more finding(s), not shown: the SARIF and JUnit reports hold them all.`);
  });

  it('an existing report is replaced whole', async () => {
    const dir = tempTree({ 'r.json': 'old content that is longer than nothing at all' });
    const r = await bq(['check', ...REG, '--report', 'json=r.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { ok: boolean }).ok).toBe(true);
  });

  const bad: Array<[string, string[], RegExp]> = [
    [
      'no =',
      ['check', ...REG, '--report', 'sarif'],
      /^bqschema: option '--report <format=file>' argument 'sarif' is invalid\. It takes <format>=<file>, e\.g\. --report sarif=bq\.sarif$/,
    ],
    ['an empty file', ['check', ...REG, '--report', 'sarif='], /argument 'sarif=' is invalid\. It takes <format>=<file>/],
    [
      'a format no command has',
      ['check', ...REG, '--report', 'html=x.md'],
      /"html" is not a format of this command: use one of text, json, github, markdown, sarif, junit$/,
    ],
    [
      'the same file twice',
      ['check', ...REG, '--report', 'sarif=x', '--report', 'junit=x'],
      /^bqschema: refusing to write x: --report junit=x and --report sarif=x name the same file; give each output a file of its own$/,
    ],
    [
      'a missing directory',
      ['validate', ...REG, '--report', 'sarif=no/such/dir/x.sarif', join(ROOT, 'examples/messages')],
      /^bqschema: cannot write --report sarif=no\/such\/dir\/x\.sarif: the directory .*no\/such\/dir does not exist; nothing was written$/,
    ],
    [
      'a directory as the file',
      [
        'compat',
        join(ROOT, 'examples/compat/orders-created.v1.json'),
        join(ROOT, 'examples/compat/orders-created.next.json'),
        '--report',
        'json=.',
      ],
      /^bqschema: cannot write \.: it is a directory; nothing was written$/,
    ],
    [
      'gdpr --mask',
      ['gdpr', ...REG, '--mask', join(ROOT, 'examples/messages/valid/user-registered.json'), '--report', 'json=m.json'],
      /--report does not apply to --mask/,
    ],
    [
      'gdpr sarif without --require',
      ['gdpr', ...REG, '--report', 'sarif=g.sarif'],
      /--report sarif reports the --require gate: add --require$/,
    ],
    [
      'compat --list-rules',
      ['compat', '--list-rules', '--report', 'json=r.json'],
      /--report applies to a comparison, not to --list-rules$/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`hostile: ${what} is a usage error, nothing is written`, async () => {
      const dir = tempTree({});
      const r = await bq(args, { cwd: dir });
      expectOneLineError(r, message);
      expect(r.code).toBe(2);
      expect(readdirSync(dir)).toEqual([]);
      expect(existsSync(join(ROOT, 'x.md')) || existsSync(join(ROOT, 'x'))).toBe(false);
    });
  }
});
