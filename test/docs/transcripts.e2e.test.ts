import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without types (the same code rewrites the docs with --update)
import { docFiles, findBlocks, normalise, ROOT, runBlock } from '../../scripts/transcripts.js';

// Every ```console block in README.md and docs/**/*.md is run from the repository root against the
// built CLI, and each command's output must be what the page shows, up to normalise() (temporary
// directories, commit ids, timings). Refresh with `node scripts/transcripts.js --update`.

interface Step {
  command: string;
  expected: string;
}
interface Block {
  line: number;
  steps: Step[];
}

const files = (docFiles() as string[]).map((file) => ({ file, blocks: findBlocks(readFileSync(join(ROOT, file), 'utf8')) as Block[] }));

describe('docs transcripts', () => {
  it('there are transcripts, and every docs/cli page has one (init, check, validate, compat, …)', () => {
    const total = files.reduce((n, f) => n + f.blocks.length, 0);
    expect(total).toBeGreaterThanOrEqual(20);
    for (const f of files.filter((x) => x.file.startsWith('docs/cli/'))) {
      expect(f.blocks.length, f.file).toBeGreaterThan(0);
      expect(
        f.blocks.some((b) => b.steps.some((s) => /(^|\| )bqschema /.test(s.command))),
        f.file,
      ).toBe(true);
    }
  });

  it('normalise hides only what differs between runs', () => {
    expect(normalise(`${ROOT.replace(/\/$/, '')}/x against HEAD (c1f05890e1c6) /tmp/tmp.AbC123/out 12.5ms`)).toBe(
      '<repo>/x against HEAD (<commit>) <tmp>/out <time>',
    );
    // Words made of hex letters only, and short numbers, are kept.
    expect(normalise('added 4 URN(s), faced 1234')).toBe('added 4 URN(s), faced 1234');
  });

  for (const { file, blocks } of files) {
    for (const block of blocks) {
      it(`${file}:${block.line}: ${block.steps[0]!.command}`, () => {
        const actual = runBlock(block.steps) as string[];
        block.steps.forEach((step, i) => {
          expect(normalise(actual[i]!), `$ ${step.command}`).toBe(normalise(step.expected));
        });
      }, 120_000);
    }
  }
});
