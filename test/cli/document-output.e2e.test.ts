import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';

/*
 * The commands that make a document (types, compile, catalog, export-asyncapi) hand it over one
 * way (src/cli/document.ts): stdout, `-o` written atomically with one `Wrote <file>: …` line, and
 * for those with `--check`, the same words and exit codes for a missing, stale or current file.
 */

afterAll(removeTempTrees);

const registry = (): string =>
  tempTree({
    'registry.json': JSON.stringify({
      schemas: [
        { urn: 'urn:t:a', schema: 'a.json' },
        { urn: 'urn:t:b', schema: 'b.json' },
      ],
    }),
    'a.json': JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }),
    'b.json': JSON.stringify({ type: 'object', properties: { n: { type: 'string' } } }),
  });

const WRITERS: Array<[command: string, extra: string[], file: string, holds: RegExp]> = [
  ['types', [], 'out.ts', /^2 message types$/],
  ['compile', [], 'out.mjs', /^2 validators$/],
  ['catalog', ['--no-history'], 'out.html', /^2 events, \d+ KB$/],
  ['export-asyncapi', [], 'out.json', /^AsyncAPI 3\.0\.0, JSON, 2 channels$/],
];

describe.concurrent('-o: one writer', () => {
  for (const [command, extra, file, holds] of WRITERS) {
    it(`${command}: what stdout gets is what -o writes, and one line says so`, async () => {
      const dir = registry();
      const printed = await bq([command, '-r', 'registry.json', ...extra], { cwd: dir });
      expectExit(printed, 0);
      const written = await bq([command, '-r', 'registry.json', ...extra, '-o', file], { cwd: dir });
      expectExit(written, 0);
      const line = /^Wrote (.+?): (.+)\n$/.exec(written.stdout);
      expect(line?.[1]).toBe(file);
      expect(line?.[2]).toMatch(holds);
      expect(readFileSync(join(dir, file), 'utf8')).toBe(printed.stdout);
    });
  }
});

describe.concurrent('--check: the same words in every command that has it', () => {
  for (const [command, , file, holds] of WRITERS.filter(([c]) => c === 'types' || c === 'compile')) {
    it(`${command}: without -o, missing, stale, current`, async () => {
      const dir = registry();
      expectOneLineError(
        await bq([command, '-r', 'registry.json', '--check'], { cwd: dir }),
        /^bqschema: --check compares a file: give it with -o <file>$/,
        2,
      );
      const rerun = `bqschema ${command} --registry registry.json -o ${file}`;
      const missing = await bq([command, '-r', 'registry.json', '-o', file, '--check'], { cwd: dir });
      expectExit(missing, 1);
      expect(missing.stderr).toBe(`bqschema: ${file} does not exist; generate it with ${rerun}\n`);
      expectExit(await bq([command, '-r', 'registry.json', '-o', file], { cwd: dir }), 0);
      const current = await bq([command, '-r', 'registry.json', '-o', file, '--check'], { cwd: dir });
      expectExit(current, 0);
      const up = /^(.+?) is up to date \((.+)\)\n$/.exec(current.stdout);
      expect(up?.[1]).toBe(file);
      expect(up?.[2]).toMatch(holds);
      writeFileSync(join(dir, file), `${readFileSync(join(dir, file), 'utf8')}\n`);
      const stale = await bq([command, '-r', 'registry.json', '-o', file, '--check'], { cwd: dir });
      expectExit(stale, 1);
      expect(stale.stderr).toBe(`bqschema: ${file} is out of date; regenerate it with ${rerun}\n`);
      expect(stale.stdout).toBe('');
    });
  }
});
