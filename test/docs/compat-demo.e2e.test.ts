import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bq, expectExit, ROOT } from '../helpers/cli.js';

// docs/compat-demo.md holds a transcript of the example registry's breaking-change demo: the
// command, its exact output and its exit code. This runs the command and compares.

const DOC = readFileSync(join(ROOT, 'docs', 'compat-demo.md'), 'utf8');

function transcript(): { args: string[]; output: string; code: number } {
  const block = /```console\n([\s\S]*?)```/.exec(DOC);
  if (block === null) throw new Error('docs/compat-demo.md has no ```console block');
  const lines = block[1]!.replace(/\n$/, '').split('\n');
  const command = lines[0]!;
  expect(command.startsWith('$ bqschema ')).toBe(true);
  const echo = lines.indexOf('$ echo $?');
  expect(echo).toBeGreaterThan(0);
  return {
    args: command.slice('$ bqschema '.length).split(' '),
    output: lines.slice(1, echo).join('\n') + '\n',
    code: Number(lines[echo + 1]),
  };
}

describe('the compat demo in docs/compat-demo.md', () => {
  it('prints exactly the transcript, with its exit code', async () => {
    const t = transcript();
    const r = await bq(t.args);
    expectExit(r, t.code);
    expect(r.stdout).toBe(t.output);
  });

  it('shows the witness, the corpus count and the rollout order', () => {
    const t = transcript();
    expect(t.output).toMatch(/^ {12}witness \(valid under old, rejected by new\): \{/m);
    expect(t.output).toMatch(/^corpus: 3 of 5 corpus message\(s\) rejected by the new schema$/m);
    expect(t.output).toMatch(/^rollout: Deploy producers first: /m);
    expect(t.code).toBe(1);
  });
});
