// Markdown from inputs is inert: a URN, file name, property name, keyword or value holding
// `<script>`, `<img onerror>`, `<!--` or an entity reaches every markdown output (validate, check,
// compat of two files and against a ref, gdpr's inventory and its --require gate: the job summary and
// compat's pull-request comment) as text. Each output is read back with markdown-it, HTML on as on
// GitHub: no HTML token comes from input, and the rendered page has no element but the renderer's own.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { liveHtml } from '../helpers/ci-formats.js';
import { bq, removeTempTrees, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

const require = createRequire(import.meta.url);
const MarkdownIt = require('markdown-it') as new (o: object) => { render(s: string): string };
const render = (s: string): string => new MarkdownIt({ html: true }).render(s);

const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(1)>';
const U1 = `urn:t:${SCRIPT}`;
const U2 = 'urn:t:<!--';
const FILE_A = `s<!--/a${IMG}.json`;
const FILE_B = 's<!--/b&lt;.yaml';

function schemaA(required: string[], kType: string): string {
  return JSON.stringify({
    type: 'object',
    required,
    properties: {
      id: { type: 'integer' },
      'email<!--': { type: 'string' },
      [SCRIPT]: { type: 'string', 'x-gdpr-sensitive': true },
      k: { type: kType, enum: ['<script>', '-->', '&amp;'] },
    },
    '<!--unknown': 1,
  });
}

function fixture(): string {
  const dir = tempTree({
    'registry.json': JSON.stringify({
      schemas: [
        { urn: U1, schema: FILE_A },
        { urn: U2, schema: FILE_B },
      ],
    }),
    [FILE_A]: schemaA(['id'], 'string'),
    [FILE_B]: 'type: object\nproperties:\n  n: { type: integer }\n"&amp;<!--x": 1\n',
    'm<!--.ndjson':
      [
        { job: U1, data: {} },
        { job: U2, data: { n: IMG } },
        { job: 'urn:none:<script>', data: {} },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n') + '\n',
    '<!--old.json': schemaA(['id'], 'string'),
    [`${SCRIPT}new.json`]: schemaA(['id', '<b>x</b>'], 'integer'),
  });
  const git = (...a: string[]): void => void execFileSync('git', a, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
  // The change compat --against sees: a new required name, a retyped property.
  writeFileSync(join(dir, FILE_A), schemaA(['id', '<b>x</b>'], 'integer'));
  return dir;
}

// The elements markdown of ours can make: headings, paragraphs, lists, tables, code, strong, <br>.
const OURS = new Set(['h3', 'p', 'ul', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'code', 'strong', 'br']);

const RUNS: Array<[string, string[], number]> = [
  ['validate', ['validate', '--strict', 'm<!--.ndjson'], 1],
  ['check', ['check'], 1],
  ['compat (two files)', ['compat', '<!--old.json', `${SCRIPT}new.json`], 1],
  ['compat --against', ['compat', '--against', 'HEAD'], 1],
  ['gdpr', ['gdpr'], 0],
  ['gdpr --require', ['gdpr', '--require', '--pattern', 'email'], 1],
];

describe.concurrent('every markdown output keeps input as text', () => {
  for (const [name, args, code] of RUNS) {
    it(`${name}: no HTML from input, only our own elements, and the hostile words shown`, async () => {
      const dir = fixture();
      const r = await bq([...args, '--format', 'markdown'], { cwd: dir });
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(r.code, r.stderr).toBe(code);
      expect(liveHtml(r.stdout)).toEqual([]);
      const html = render(r.stdout);
      const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase()));
      expect([...tags].filter((t) => !OURS.has(t))).toEqual([]);
      expect(html).not.toContain('<!--');
      // What input held is on the page as text: its characters escaped once, as HTML shows text.
      expect(html).toMatch(/&lt;script&gt;|&lt;!--|&lt;b&gt;/);
    });
  }

  it('the words read back as written: an entity in input is not decoded, a comment hides nothing after it', async () => {
    const dir = fixture();
    const r = await bq(['check', '--format', 'markdown'], { cwd: dir });
    const html = render(r.stdout);
    // The schema file b&lt;.yaml and its keyword "&amp;<!--x" show their "&lt;" and "&amp;" as
    // written (the page holds &amp;lt; and &amp;amp;), not as the characters they would encode.
    expect(html).toContain('b&amp;lt;.yaml');
    expect(html).toContain('&amp;amp;&lt;!--x');
    // The last row of the table is still there after every `<!--` of input.
    const rows = html.match(/<tr>/g) ?? [];
    const written = r.stdout.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| ---'));
    expect(written.length).toBe(5); // the header and four findings
    expect(rows.length).toBe(written.length);
    expect(html).toContain(
      'not enforced (no JSON Schema draft defines it). Fix the name, or allow it with --allow-keyword &amp;amp;&lt;!--x',
    );
  });
});
