#!/usr/bin/env node
// The docs' terminal transcripts: every ```console block in README.md and docs/**/*.md is a bash
// session run from the repository root. A line starting `$ ` is a command; the lines after it, up
// to the next command, are its output (stdout and stderr as a terminal shows them). `bqschema` is
// this checkout's bin/bqschema.js; NO_COLOR=1; TMPDIR is a fresh directory per block.
//
//   node scripts/transcripts.js            exit 1 and show a diff when a transcript is stale
//   node scripts/transcripts.js --update   rewrite each block's output with the real output
//
// test/docs/transcripts.e2e.test.ts runs the same check. Requires a build (npm run build).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** README.md and every Markdown file under docs/, relative to the root, sorted. */
export function docFiles(root = ROOT) {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f));
  return ['README.md', ...docs.sort()];
}

const FENCE = /^```console\n([\s\S]*?)^```$/gm;

/**
 * The console blocks of a Markdown text: each with its offset and length (of the body), and its
 * commands with their expected output.
 */
export function findBlocks(text) {
  const blocks = [];
  for (const m of text.matchAll(FENCE)) {
    const body = m[1];
    const start = m.index + m[0].indexOf('\n') + 1;
    const steps = [];
    for (const line of body.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), expected: [] });
      else if (steps.length === 0) throw new Error(`a console block must start with a "$ " command line, found: ${line}`);
      else steps[steps.length - 1].expected.push(line);
    }
    blocks.push({
      start,
      length: body.length,
      line: text.slice(0, m.index).split('\n').length,
      steps: steps.map((s) => ({ command: s.command, expected: s.expected.join('\n') })),
    });
  }
  return blocks;
}

const marker = (i) => `@@bq-transcript-${i}@@`;

/** Runs a block's commands in one bash session; resolves each command's output (trailing newline dropped). */
export function runBlock(steps, root = ROOT) {
  const tmp = mkdtempSync(join(tmpdir(), 'bq-transcripts-'));
  try {
    // `bqschema` is a script on PATH (not a shell function), so `bqschema serve &` leaves $! = its pid.
    mkdirSync(join(tmp, '.bin'));
    writeFileSync(join(tmp, '.bin', 'bqschema'), `#!/bin/sh\nexec node ${JSON.stringify(join(root, 'bin', 'bqschema.js'))} "$@"\n`, {
      mode: 0o755,
    });
    const script = [
      'exec 2>&1',
      // The marker keeps $? so that `echo $?` shows the previous command's exit code.
      ...steps.flatMap((s, i) => [`__bq_rc=$?; printf '%s\\n' '${marker(i)}'; (exit $__bq_rc)`, s.command]),
      `printf '%s\\n' '${marker(steps.length)}'`,
    ].join('\n');
    const env = {
      ...process.env,
      PATH: `${join(tmp, '.bin')}:${process.env.PATH}`,
      NO_COLOR: '1',
      TMPDIR: tmp,
      LC_ALL: 'C.UTF-8',
      GIT_AUTHOR_NAME: 'Docs',
      GIT_AUTHOR_EMAIL: 'docs@example.com',
      GIT_COMMITTER_NAME: 'Docs',
      GIT_COMMITTER_EMAIL: 'docs@example.com',
      GIT_CONFIG_GLOBAL: '/dev/null',
    };
    for (const k of ['BQSCHEMA_REGISTRY', 'BQSCHEMA_DEBUG', 'FORCE_COLOR', 'GITHUB_ACTIONS']) delete env[k];
    const r = spawnSync('bash', ['--noprofile', '--norc', '-c', script], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    if (r.error) throw r.error;
    const out = r.stdout;
    return steps.map((_, i) => {
      const from = out.indexOf(marker(i) + '\n');
      const to = out.indexOf(marker(i + 1) + '\n');
      if (from < 0 || to < 0) throw new Error(`transcript session ended early:\n${out}`);
      // The temporary directory is shown as plain /tmp, as a reader's mktemp would give.
      return out
        .slice(from + marker(i).length + 1, to)
        .replace(/\n$/, '')
        .split(tmp + '/')
        .join('/tmp/');
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** What may differ between two runs: temp directories, commit ids, timings, the checkout's path. */
export function normalise(text, root = ROOT) {
  return text
    .split(root.replace(/\/$/, ''))
    .join('<repo>')
    .replace(/\/tmp\/tmp\.[A-Za-z0-9]+/g, '<tmp>')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g, '<commit>')
    .replace(/\b\d+(\.\d+)? ?ms\b/g, '<time>');
}

function main() {
  const update = process.argv.includes('--update');
  let stale = 0;
  for (const file of docFiles()) {
    const path = join(ROOT, file);
    let text = readFileSync(path, 'utf8');
    const blocks = findBlocks(text);
    // From the last block back, so earlier offsets stay valid while rewriting.
    for (const block of [...blocks].reverse()) {
      const actual = runBlock(block.steps);
      // A shown output that already matches (up to normalise) is kept as it is.
      const shown = block.steps.map((s, i) => (normalise(s.expected) === normalise(actual[i]) ? s.expected : actual[i]));
      const body = block.steps.map((s, i) => [`$ ${s.command}`, ...(shown[i] === '' ? [] : [shown[i]])].join('\n')).join('\n') + '\n';
      block.steps.forEach((s, i) => {
        if (normalise(s.expected) !== normalise(actual[i])) {
          stale++;
          if (!update)
            process.stdout.write(
              `${relative(ROOT, path)}:${block.line}: $ ${s.command}\n--- shown\n${s.expected}\n+++ actual\n${actual[i]}\n\n`,
            );
        }
      });
      if (update) text = text.slice(0, block.start) + body + text.slice(block.start + block.length);
    }
    if (update) writeFileSync(path, text);
  }
  if (!update && stale > 0) {
    process.stdout.write(`${stale} stale transcript output(s); run node scripts/transcripts.js --update\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
