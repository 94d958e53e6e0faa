import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/errors.js';
import { bq, expectExit, ROOT } from '../helpers/cli.js';

// The README a new user reads first: short, a quick start that succeeds, an exit-code table that is
// the code's, a library example that runs, and links that lead somewhere.

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The body of the section under `## title`. */
function section(title: string): string {
  const body = readme.split(new RegExp(`^## ${title}$`, 'm'))[1];
  if (body === undefined) throw new Error(`README has no "## ${title}"`);
  return body.split(/^## /m)[0]!;
}

/** The fenced blocks of a text, with their language. */
function fences(text: string): Array<{ lang: string; body: string }> {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

const artifacts = join(ROOT, 'test', 'artifacts', 'docs-readme');
afterAll(() => rmSync(artifacts, { recursive: true, force: true }));

/** GitHub's heading anchors of a Markdown file: lower case, punctuation dropped, spaces as dashes. */
function anchors(path: string): Set<string> {
  const text = readFileSync(path, 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  return new Set(
    [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('README.md', () => {
  it('is at most 10 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(10 * 1024);
  });

  it("the quick start's first block is exactly two commands: install+build+validate the clean examples, and npm test", async () => {
    const first = fences(section('Quick start'))[0]!;
    const lines = first.body.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const [run, test] = lines as [string, string];
    expect(test).toBe('npm test');
    const m = /^npm ci && npm run build && node bin\/bqschema\.js (validate .*)$/.exec(run);
    expect(m, run).not.toBeNull();
    // The part that needs no network: run it on this checkout (built by `npm test`); it must exit 0.
    const r = await bq(m![1]!.split(' '));
    expectExit(r, 0);
    expect(r.stdout).toMatch(/^OK: \d+ messages: (\d+) valid, 0 invalid, 0 skipped, 0 errors$/m);
    // And it validates something: every file of the clean set is named.
    const dir = m![1]!.split(' ').pop()!;
    for (const f of readdirSync(join(ROOT, dir))) expect(r.stdout).toContain(f);
  });

  it('the exit-code table is EXIT_CODES (src/cli/errors.ts)', () => {
    const rows = section('Exit codes')
      .split('\n')
      .filter((l) => /^\| \d+ \|/.test(l))
      .map((l) =>
        l
          .slice(1, -1)
          .split('|')
          .map((c) => c.trim()),
      );
    expect(rows.map(([code, meaning]) => ({ code: Number(code), meaning }))).toEqual(
      EXIT_CODES.map(({ code, meaning }) => ({ code, meaning })),
    );
  });

  it('the library example runs against the example registry as printed', () => {
    const ts = fences(section('Library')).find((f) => f.lang === 'ts')!.body;
    expect(ts.trimEnd().split('\n').length).toBeLessThanOrEqual(13);
    // Inside the package, `import … from 'bqschema'` resolves to the built entry (self-reference).
    mkdirSync(artifacts, { recursive: true });
    const file = join(artifacts, 'readme-library.mjs');
    writeFileSync(file, ts);
    const r = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      '/order_id must be >= 1, got 0\n/reason must be one of "customer_request", "payment_failed", "out_of_stock"\ncancelled 1042\n{"user_id":"u1","email":"a***","locale":"en"}\n',
    );
  });

  it('every relative link in README.md and docs/ leads to a file that exists, and to a heading when it names one', () => {
    const files = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md'))
        .map((f) => join('docs', f)),
    ];
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const [target = '', anchor] = m[1]!.split('#');
        if (/^[a-z]+:/.test(target)) continue;
        const path = target === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), target);
        if (!existsSync(path) || !(statSync(path).isFile() || statSync(path).isDirectory())) broken.push(`${file}: ${m[1]}`);
        else if (anchor !== undefined && path.endsWith('.md') && !anchors(path).has(anchor))
          broken.push(`${file}: ${m[1]} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
