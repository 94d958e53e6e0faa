// Hostile inputs for `compat`: reads before refusing (working tree and git ref), self-referencing YAML,
// a multi-megabyte blob at a ref, terminal spoofing in every format, hostile git refs.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
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

const GIT_ENV = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

function commitAll(dir: string): void {
  const git = (args: string[]): void => void execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, stdio: 'ignore' });
  if (!existsGit(dir)) git(['init', '-q']);
  git(['add', '-A']);
  git(['commit', '-q', '--allow-empty', '-m', 'c']);
}
function existsGit(dir: string): boolean {
  try {
    execFileSync('git', ['rev-parse', '--git-dir'], { cwd: dir, stdio: 'ignore' });
    return execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8' }).trim() === dir;
  } catch {
    return false;
  }
}

describe('compat: nothing is opened before the outside-path rule (item 4)', { timeout: 60_000 }, () => {
  it("--against: the working tree's /dev/zero, FIFOs and ../../etc/shadow are refused promptly, never opened", async () => {
    const { dir, outsideFifo } = hostileRegistry();
    execFileSync('rm', [join(dir, 'fifo-in')]); // git cannot commit a FIFO; it is tested in the working tree below
    commitAll(dir);
    execFileSync('mkfifo', [join(dir, 'fifo-in')]);
    const r = await run(['compat', '--against', 'HEAD'], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
    // Each such URN is invalid on both sides; the run reports them all.
    expectRun(r, 1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/schema file for urn:hostile:zero is outside the registry directory: \/dev\/zero/);
    expect(r.stdout).toMatch(/schema file for urn:hostile:zero at HEAD is outside the repository: \/dev\/zero/);
    expect(r.stdout).toMatch(/schema file for urn:hostile:shadow is outside the registry directory/);
    expect(r.stdout).toMatch(/schema file for urn:hostile:fifo-out is outside the registry directory/);
    expect(r.stdout).toMatch(/schema file for urn:hostile:fifo-in is not a regular file: fifo-in/);
    expect(refusedOpens(r, outsideFifo)).toEqual([]);
  });

  it('at a git ref, a schema path outside the registry, or a committed symlink pointing out, is refused', async () => {
    const dir = tree({
      'reg/registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:a', schema: 'a.json' }] }),
      'reg/a.json': '{"type":"object"}',
    });
    commitAll(dir);
    const { symlinkSync, rmSync } = await import('node:fs');
    writeFileSync(
      join(dir, 'reg', 'registry.json'),
      JSON.stringify({
        schemas: [
          { urn: 'urn:test:a', schema: 'a.json' },
          { urn: 'urn:test:s', schema: '../../etc/shadow' },
          { urn: 'urn:test:l', schema: 'l.json' },
        ],
      }),
    );
    symlinkSync('/etc/passwd', join(dir, 'reg', 'l.json'));
    commitAll(dir);
    rmSync(join(dir, 'reg', 'l.json'));
    writeFileSync(join(dir, 'reg', 'l.json'), '{}'); // a plain file now: only the commit's is a link
    const r = await run(['compat', '-r', 'reg/registry.json', '--against', 'HEAD'], { cwd: dir, watchOpens: true });
    expectRun(r, 1);
    expect(r.opened.filter((p) => /etc\/(shadow|passwd)/.test(p))).toEqual([]);
    expect(r.stdout).toMatch(/schema file for urn:test:l at HEAD is a symbolic link out of the repository: reg\/l\.json/);
    expect(r.stdout).toMatch(/schema file for urn:test:s at HEAD is outside the repository: \.\.\/\.\.\/etc\/shadow/);
  });
});

describe('compat: self-referencing YAML (item 5)', { timeout: 60_000 }, () => {
  it('two files, and --against with the cycle in the working tree or at the ref: an error naming the file and position', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:cyc', schema: 'cyc.yaml' }] }),
      'cyc.yaml': 'type: object\n',
      'old.yaml': CYCLIC_SCHEMA_YAML,
    });
    const files = await run(['compat', 'old.yaml', 'cyc.yaml'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(files, 1);
    expect(files.stdout).toMatch(
      /^error +schema file is malformed: old\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/m,
    );
    commitAll(dir);
    writeFileSync(join(dir, 'cyc.yaml'), CYCLIC_SCHEMA_YAML);
    const against = await run(['compat', '--against', 'HEAD'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(against, 1);
    expect(against.stdout).toMatch(
      /✗ urn:test:cyc +invalid\n +error +schema file for urn:test:cyc is malformed: cyc\.yaml:5:17: invalid YAML: the alias \*p/,
    );
    // And at the ref: the committed schema is the cyclic one.
    commitAll(dir);
    writeFileSync(join(dir, 'cyc.yaml'), 'type: object\n');
    const atRef = await run(['compat', '--against', 'HEAD'], { cwd: dir, timeoutMs: 10_000 });
    expect(atRef.timedOut).toBe(false);
    expect(atRef.code).toBe(1);
    expect(atRef.stderr + atRef.stdout).toMatch(/cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/);
    expect(atRef.stderr).not.toMatch(/^ {4}at /m);
  });
});

describe('compat --against: a multi-megabyte blob is read in linear time (item 7)', { timeout: 120_000 }, () => {
  it('a 20 MB schema (a long description) at HEAD compares in seconds', async () => {
    const schema = JSON.stringify({ type: 'object', description: 'd'.repeat(20 * 1024 * 1024), properties: { a: { type: 'string' } } });
    const dir = tree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:big', schema: 'big.json' }] }), 'big.json': schema });
    commitAll(dir);
    writeFileSync(join(dir, 'big.json'), schema.replace('"properties":{"a":{"type":"string"}}', '"properties":{}'));
    const r = await run(['compat', '--against', 'HEAD'], { cwd: dir, timeoutMs: 60_000 });
    console.log(`compat --against HEAD with a ${(schema.length / 1048576).toFixed(0)} MB blob: ${Math.round(r.ms)} ms`);
    expectRun(r, 1);
    expect(r.stdout).toMatch(/property "a" removed/);
    expect(r.ms).toBeLessThan(30_000);
  });
});

describe('compat: terminal spoofing (item 9)', { timeout: 60_000 }, () => {
  const oldName = 'o\u001b[2J\nOK: no breaking change.json';
  const newName = 'n\u001b]0;x\u0007\r\nOK: 0 breaking.json';
  const files = {
    [oldName]: JSON.stringify({ type: 'object', properties: { 'a\u001b[31m\nOK': { type: 'string' }, b: { type: 'string' } } }),
    [newName]: JSON.stringify({ type: 'object', properties: { b: { type: 'integer' } }, description: '\u001b[2J' }),
  };
  for (const format of ['text', 'github', 'markdown']) {
    it(`two files, --format ${format}: file names and property names are escaped; one summary`, async () => {
      const dir = tree(files);
      const r = await run(['compat', '-f', format, oldName, newName], { cwd: dir });
      expectRun(r, 1);
      expectNoRawControls(r.stdout + r.stderr);
      if (format !== 'markdown')
        expect(r.stdout.split('\n').filter((l) => /^(OK|FAILED): /.test(l))).toEqual([
          expect.stringMatching(/^FAILED: 2 breaking change\(s\) from o\\x1b\[2J\\nOK/),
        ]);
      else expect(r.stdout.split('\n').filter((l) => l.startsWith('### '))).toHaveLength(1);
    });
  }

  it('--against, every format: URNs and file names with control characters are escaped', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a\u001b[1m.json' }] }),
      'a\u001b[1m.json': JSON.stringify({ type: 'object', properties: { 'x\u001b[2J\nOK': { type: 'string' } } }),
    });
    commitAll(dir);
    writeFileSync(join(dir, 'a\u001b[1m.json'), JSON.stringify({ type: 'object', properties: {} }));
    for (const format of ['text', 'github', 'markdown', 'json']) {
      const r = await run(['compat', '--against', 'HEAD', '-f', format], { cwd: dir });
      expectRun(r, 1);
      expectNoRawControls(r.stdout + r.stderr);
    }
  });
});

describe('compat: hostile git refs and what already holds', { timeout: 60_000 }, () => {
  it('refs that look like options or hold control characters are one usage line; nothing is written', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:a', schema: 'a.json' }] }),
      'a.json': '{"type":"object"}',
    });
    commitAll(dir);
    for (const ref of ['--output=x', '-r', '--upload-pack=touch pwned', 'HE\u001b[2JAD\nOK', '']) {
      const r = await run(['compat', `--against=${ref}`], { cwd: dir });
      expectRun(r, 2, /^bqschema: not a git ref: /);
      expectNoRawControls(r.stderr);
    }
    for (const ref of ['HEAD:registry.json', 'HEAD~99', 'no-such-branch', 'HEAD^{tree}']) {
      const r = await run(['compat', '--against', ref], { cwd: dir });
      expectRun(r, 2, /^bqschema: unknown git ref: /);
    }
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir).sort()).toEqual(['.git', 'a.json', 'registry.json']);
  });

  it('malformed files, a non-object schema and a 100,000-deep array: problems, not crashes', async () => {
    const dir = tree({
      'a.json': '{"type": ',
      'b.json': '[1,2]',
      'c.json': '{"enum":[' + '['.repeat(100_000) + ']'.repeat(100_000) + ']}',
      'ok.json': '{}',
    });
    for (const [a, b] of [
      ['a.json', 'ok.json'],
      ['ok.json', 'b.json'],
      ['c.json', 'ok.json'],
      ['ok.json', 'missing.json'],
    ]) {
      const r = await run(['compat', a!, b!], { cwd: dir });
      expectRun(r, 1);
      expect(r.stdout).toMatch(/^FAILED: /m);
    }
  });
});
