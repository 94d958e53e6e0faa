// Hostile inputs for `check` (and DirProvider, the library's registry reader): reads before refusing,
// self-referencing YAML, deep schemas, invalid UTF-8, terminal spoofing, resolution errors.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMarkdown } from '../helpers/ci-formats.js';
import { DirProvider } from '../../src/index.js';
import {
  asNobody,
  CYCLIC_SCHEMA_YAML,
  expectNoRawControls,
  expectRun,
  hostileRegistry,
  refusedOpens,
  removeTrees,
  guardRepo,
  run,
  tree,
} from '../helpers/hostile.js';

afterAll(removeTrees);

guardRepo();

describe('check: nothing is opened before the outside-path rule (item 4)', { timeout: 60_000 }, () => {
  it('/dev/zero, FIFOs inside and outside, ../../etc/shadow: each is an error, promptly, the refused ones never opened', async () => {
    const { dir, outsideFifo } = hostileRegistry();
    const r = await run(['check'], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
    expectRun(r, 1);
    expect(r.stderr).toBe('');
    // A refused path is located at its manifest entry (registry.json:line /schemas/N/schema), the place to fix.
    expect(r.stdout).toMatch(
      /✗ urn:hostile:zero +\/dev\/zero\n +error +registry\.json:\d+ \/schemas\/\d+\/schema +schema file for urn:hostile:zero is outside the registry directory/,
    );
    expect(r.stdout).toMatch(
      /✗ urn:hostile:fifo-in +fifo-in\n +error +\(root\) +schema file for urn:hostile:fifo-in is not a regular file: fifo-in/,
    );
    expect(r.stdout).toMatch(
      /✗ urn:hostile:fifo-out +\.\.\/fifo-out\n +error +registry\.json:\d+ \/schemas\/\d+\/schema +schema file for urn:hostile:fifo-out is outside the registry directory/,
    );
    expect(r.stdout).toMatch(
      /✗ urn:hostile:shadow +\.\.\/\.\.\/etc\/shadow\n +error +registry\.json:\d+ \/schemas\/\d+\/schema +schema file for urn:hostile:shadow is outside/,
    );
    expect(r.stdout).toMatch(/✓ urn:test:order +schemas\/order\.json/);
    expect(refusedOpens(r, outsideFifo)).toEqual([]);
    expect(r.opened.some((p) => p.endsWith('schemas/order.json'))).toBe(true); // the watch works
  });

  it('--allow-outside-paths: /dev/zero and a FIFO are still refused as not regular files, not read or waited on', async () => {
    const { dir } = hostileRegistry();
    const r = await run(['check', '--allow-outside-paths'], { cwd: dir, timeoutMs: 15_000, nodeFlags: ['--max-old-space-size=256'] });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/schema file for urn:hostile:zero is not a regular file: \/dev\/zero/);
    expect(r.stdout).toMatch(/schema file for urn:hostile:fifo-out is not a regular file/);
    expect(r.ms).toBeLessThan(15_000);
  });
});

describe('check: self-referencing YAML (item 5)', { timeout: 60_000 }, () => {
  it('in a schema: the URN is an error naming the file and the alias position; the run goes on', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:test:cyc', schema: 'cyc.yaml' },
          { urn: 'urn:test:ok', schema: 'ok.json' },
        ],
      }),
      'cyc.yaml': CYCLIC_SCHEMA_YAML,
      'ok.json': '{"type":"object"}',
    });
    const r = await run(['check'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(r, 1);
    expect(r.stdout).toMatch(
      /✗ urn:test:cyc +cyc\.yaml\n +error +\(root\) +schema file for urn:test:cyc is malformed: cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/,
    );
    expect(r.stdout).toMatch(/✓ urn:test:ok/);
  });

  it('in a manifest: one error naming the file and position', async () => {
    const dir = tree({ 'registry.yaml': 'schemas: &s\n  - urn: urn:test:x\n    schema: *s\n' });
    const r = await run(['check'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(r, 1);
    expect(r.stdout).toMatch(
      /✗ error +\S*registry\.yaml: registry\.yaml:3:13: invalid YAML: the alias \*s refers to a node that contains it/,
    );
  });

  it('DirProvider (the library) refuses it at parse time, naming the file and position, promptly', () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:cyc', schema: 'cyc.yaml' }] }),
      'cyc.yaml': CYCLIC_SCHEMA_YAML,
      'm/registry.yaml': 'schemas: &s\n  - urn: urn:test:x\n    schema: *s\n',
    });
    const started = performance.now();
    expect(() => new DirProvider(join(dir, 'registry.json')).schemaFor('urn:test:cyc')).toThrow(
      /cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/,
    );
    expect(() => new DirProvider(join(dir, 'm', 'registry.yaml')).schemaFor('urn:test:x')).toThrow(
      /registry\.yaml:3:13: invalid YAML: the alias \*s/,
    );
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('check: deep schemas, invalid UTF-8, resolution errors (item 10)', { timeout: 60_000 }, () => {
  it('a 2,000-level schema (JSON) and a 3,000-level YAML document: each an error under its URN and file; the run goes on', async () => {
    let s: unknown = { type: 'string' };
    for (let i = 0; i < 2000; i++) s = { type: 'object', properties: { a: s } };
    const dir = tree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:test:deep', schema: 'deep.json' },
          { urn: 'urn:test:deepy', schema: 'deep.yaml' },
          { urn: 'urn:test:ok', schema: 'ok.json' },
        ],
      }),
      'deep.json': JSON.stringify(s),
      'deep.yaml': 'x: ' + '['.repeat(3000) + ']'.repeat(3000) + '\n',
      'ok.json': '{"type":"object"}',
    });
    const r = await run(['check'], { cwd: dir });
    expectRun(r, 1);
    expect(r.stdout).toMatch(
      /✗ urn:test:deep +deep\.json\n +error +\(root\) +the schema is nested deeper than 512 levels \(objects and arrays\), the most bqschema reads; flatten it/,
    );
    expect(r.stdout).toMatch(
      /✗ urn:test:deepy +deep\.yaml\n +error +\(root\) +schema file for urn:test:deepy is malformed: deep\.yaml:1:515: the document is nested deeper than 512 levels \(objects and arrays\), the most bqschema reads from YAML or JSONC; flatten it/,
    );
    expect(r.stdout).toMatch(/✓ urn:test:ok/);
    const github = await run(['check', '-f', 'github'], { cwd: dir });
    expect(github.stdout).toMatch(/^::error file=deep\.json,.*nested deeper than 512 levels.*; flatten it$/m);
  });

  it('a schema file that is not UTF-8 is a registry error naming the file and the byte offset', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:bin', schema: 'bin.json' }] }),
      'bin.json': Buffer.concat([Buffer.from('{"type":"object","description":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    });
    const r = await run(['check'], { cwd: dir });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/schema file for urn:test:bin is not valid UTF-8 \(byte offset 35\): bin\.json/);
    const gdpr = await run(['gdpr'], { cwd: dir });
    expectRun(gdpr, 1, /^bqschema: schema file for urn:test:bin is not valid UTF-8 \(byte offset 35\): bin\.json$/);
  });

  it('a manifest that is not UTF-8 is one error naming it', async () => {
    const dir = tree({
      'registry.json': Buffer.concat([
        Buffer.from('{"schemas":[{"urn":"urn:test:\xff'),
        Buffer.from([0xff]),
        Buffer.from('","schema":"a.json"}]}'),
      ]),
    });
    const r = await run(['types'], { cwd: dir });
    expectRun(r, 1, /not valid UTF-8 \(byte offset \d+\)/);
  });

  it('a schema symlink loop (ELOOP) is "cannot be resolved", never "not found" and never opened', async () => {
    const dir = tree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:loop', schema: 's/x1' }] }) });
    mkdirSync(join(dir, 's'));
    symlinkSync('x2', join(dir, 's', 'x1'));
    symlinkSync('x1', join(dir, 's', 'x2'));
    const r = await run(['check'], { cwd: dir, watchOpens: true });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/schema file for urn:test:loop cannot be resolved: s\/x1: ELOOP/);
    expect(r.opened.filter((p) => p.includes('/s/x'))).toEqual([]);
  });

  it('as nobody, a schema under an unsearchable directory (EACCES) is "cannot be resolved"', async (ctx) => {
    const nobody = asNobody();
    if ('skip' in nobody) return ctx.skip(nobody.skip);
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:locked', schema: 'locked/a.json' }] }),
      'locked/a.json': '{}',
    });
    const { chmodSync } = await import('node:fs');
    chmodSync(join(dir, 'locked'), 0o000);
    const r = await run(['check'], { cwd: dir, ...nobody });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/schema file for urn:test:locked cannot be resolved: locked\/a\.json: EACCES/);
  });
});

describe('check: terminal spoofing (item 9)', { timeout: 60_000 }, () => {
  for (const format of ['text', 'github']) {
    it(`--format ${format}: URNs, owners and file names with ESC and newlines are escaped; the summary cannot be forged`, async () => {
      const file = 'o\u001b[2J\nOK: 0 URN(s), 0 error(s), 0 warning(s).json';
      const dir = tree({
        'registry.json': JSON.stringify({
          schemas: [
            { urn: 'urn:t:a\u001b[31m\nOK: 5 URN(s), 0 error(s), 0 warning(s)', schema: file },
            { urn: 'urn:t:b', schema: file, owner: '\u001b[1m\u009b2J' },
          ],
        }),
        [file]: '{"type":"object","properties":{"x\u001b[2J\ny":{"type":"string","minLength":"\u001b"}}}',
      });
      const r = await run(['check', '-f', format], { cwd: dir });
      expectRun(r, 1);
      expectNoRawControls(r.stdout + r.stderr);
      expect(r.stdout.split('\n').filter((l) => /^(OK|FAILED): /.test(l))).toHaveLength(1);
      expect(r.stdout).toMatch(/^FAILED: 2 URN\(s\), \d+ error\(s\), \d+ warning\(s\)$/m);
    });
  }

  it('--format markdown (a job summary): one heading, every finding one table row, no markup from input', async () => {
    const file = 'o\u001b[2J\n### OK | x | `y` <b>z<b>.json';
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a\n### OK: 0 URN(s) | *b*', schema: file }] }),
      [file]: '{"type":"object","properties":{"x|y":{"type":"string","minLength":"3"}}}',
    });
    const r = await run(['check', '-f', 'markdown'], { cwd: dir });
    expectRun(r, 1);
    expectNoRawControls(r.stdout + r.stderr);
    const lines = r.stdout.replace(/\n$/, '').split('\n');
    expect(lines.filter((l) => l.startsWith('#'))).toEqual([
      expect.stringMatching(/^### bqschema check: FAILED: 1 URN\(s\), 2 error\(s\), 0 warning\(s\)$/),
    ]);
    // The header, its rule and a row per finding: one line each, four cells (input's `|` escaped).
    const rows = lines.slice(2);
    expect(rows).toHaveLength(4);
    expect(rows.every((l) => /^\| .* \|$/.test(l))).toBe(true);
    const read = readMarkdown(r.stdout).rows;
    expect(read.map((row) => row.length)).toEqual([4, 4]);
    expect(read.map(([level, , rule]) => [level, rule])).toEqual([
      ['error', 'manifest'],
      ['error', 'malformed-keyword'],
    ]);
    expect(read[1]![1]).toBe('o\\x1b[2J\\n### OK | x | `y` <b>z<b>.json:1:67');
    // The URN's newline is a line break inside the cell, its "###" text, not a heading.
    expect(read[1]![3]).toMatch(/^urn:t:a\n### OK: 0 URN\(s\) \| \*b\*: \/properties\/x\|y\/minLength: malformed keyword "minLength"/);
  });
});

describe('check: what already holds stays held', { timeout: 60_000 }, () => {
  it('a manifest that is not JSON, one that is an array, and a schema path with a NUL are one error each, no crash', async () => {
    for (const manifest of ['{"schemas": [', '[]', JSON.stringify({ schemas: [{ urn: 'urn:test:n', schema: 'a\u0000b.json' }] })]) {
      const dir = tree({ 'registry.json': manifest });
      const r = await run(['check'], { cwd: dir });
      expectRun(r, 1);
      expect(r.stdout).toMatch(/^FAILED: /m);
      expectNoRawControls(r.stdout);
    }
  });

  it('a hostile property name (prototype keys, quotes, a script tag) compiles as data', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:p', schema: 'p.json' }] }),
      'p.json': JSON.stringify({
        type: 'object',
        required: ['__proto__'],
        properties: {
          ['__proto__']: { type: 'string' },
          constructor: { type: 'string' },
          "'); process.exit(9); ('": { type: 'string' },
          '</script>': {},
        },
        examples: [{ ['__proto__']: 'x' }],
      }),
    });
    const r = await run(['check'], { cwd: dir });
    expectRun(r, 0);
  });
});
