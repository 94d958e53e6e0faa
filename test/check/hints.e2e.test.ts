import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, bq } from '../helpers/cli.js';
import { writeRegistry } from '../helpers/example-registry.js';

/*
 * `types --check` and `compile --check` name the command that writes the file, whole: its
 * `--lang`, `--registry`, `--allow-outside-paths` and `-o`, quoted for the shell. Each test runs
 * the printed hint as a shell command (with `bqschema` on PATH) and compares the file it wrote with
 * what the checked command expects. Before, `types --lang go -o x.go --check` said `bqschema types
 * -o x.go`, which writes TypeScript over the Go file.
 */

let work = '';
let bin = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-hints-'));
  bin = join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'bqschema'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(bin, 'bqschema'), 0o755);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The command after "… with " on the one line of stderr. */
function hintOf(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const m = /; (?:generate|regenerate|write) it with (.*)$/.exec(lines[0]!);
  expect(m, stderr).not.toBeNull();
  return m![1]!;
}

/** Runs a hint through the shell, in `cwd`, with the built bqschema on PATH. */
function runHint(hint: string, cwd: string): { code: number | null; out: string } {
  const r = spawnSync('/bin/sh', ['-c', hint], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', BQSCHEMA_REGISTRY: '' },
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('--check hints repeat the whole command', () => {
  const cases: Array<[string, string[], string]> = [
    ['types (TypeScript)', ['types'], 'bq types.ts'],
    ['types --lang go', ['types', '--lang', 'go'], 'bq types.go'],
    ['types --lang python', ['types', '--lang', 'python'], "it's.py"],
    ['types --lang php', ['types', '--lang', 'php'], 'BqTypes.php'],
    ['compile', ['compile'], 'validators $x.js'],
  ];

  it.each(cases)('%s: the hint for a missing file and for a stale one writes what --check expects', async (_name, command, file) => {
    const dir = mkdtempSync(join(work, 'case-'));
    const regDir = join(dir, 'my registry');
    mkdirSync(regDir);
    writeRegistry(regDir, {
      'urn:x:orders:created': {
        type: 'object',
        required: ['order_id'],
        properties: { order_id: { type: 'integer' }, note: { type: 'string' } },
      },
    });
    const args = [...command, '--registry', 'my registry/registry.json', '-o', file];
    const expected = await bq([...command, '--registry', 'my registry/registry.json'], { cwd: dir });
    expect(expected.code).toBe(0);

    const missing = await bq([...args, '--check'], { cwd: dir });
    expect(missing.code).toBe(1);
    const hint = hintOf(missing.stderr);
    expect(hint).toContain(command.join(' '));
    expect(hint).toContain("--registry 'my registry/registry.json'");
    expect(runHint(hint, dir)).toMatchObject({ code: 0 });
    expect(readFileSync(join(dir, file), 'utf8')).toBe(expected.stdout);
    expect((await bq([...args, '--check'], { cwd: dir })).code).toBe(0);

    writeFileSync(join(dir, file), 'stale');
    const stale = await bq([...args, '--check'], { cwd: dir });
    expect(stale.code).toBe(1);
    expect(hintOf(stale.stderr)).toBe(hint);
    expect(runHint(hintOf(stale.stderr), dir)).toMatchObject({ code: 0 });
    expect(readFileSync(join(dir, file), 'utf8')).toBe(expected.stdout);
  });

  it('the hint keeps --allow-outside-paths, and leaves out what was not given (a registry found by discovery)', async () => {
    const dir = mkdtempSync(join(work, 'outside-'));
    const regDir = join(dir, 'reg');
    mkdirSync(regDir);
    writeFileSync(join(dir, 'shared.json'), JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }));
    writeFileSync(join(regDir, 'registry.json'), JSON.stringify({ schemas: [{ urn: 'urn:x:a', schema: '../shared.json' }] }));
    const outside = await bq(
      ['types', '--lang', 'python', '--registry', 'reg/registry.json', '--allow-outside-paths', '-o', 'a.py', '--check'],
      { cwd: dir },
    );
    expect(hintOf(outside.stderr)).toBe('bqschema types --lang python --registry reg/registry.json --allow-outside-paths -o a.py');
    expect(runHint(hintOf(outside.stderr), dir)).toMatchObject({ code: 0 });
    expect(
      (
        await bq(['types', '--lang', 'python', '--registry', 'reg/registry.json', '--allow-outside-paths', '-o', 'a.py', '--check'], {
          cwd: dir,
        })
      ).code,
    ).toBe(0);

    // Found by discovery (registry.json in the working directory): nothing to repeat but -o.
    const plain = mkdtempSync(join(work, 'plain-'));
    writeRegistry(plain, { 'urn:x:b': { type: 'object' } });
    const discovered = await bq(['types', '-o', 'b.ts', '--check'], { cwd: plain });
    expect(hintOf(discovered.stderr)).toBe('bqschema types -o b.ts');
  });
});
