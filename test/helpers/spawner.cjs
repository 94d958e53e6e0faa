'use strict';
// Starts processes for a vitest worker (test/helpers/cli.ts: `bq`, and hostile.ts's `run`) and sends back what they wrote.
// A worker is a large process (hundreds of MB once the files it ran have loaded their parsers and
// inputs), and fork() copies its page tables: about 3 ms of system CPU per 100 MB for every process
// it starts, ~15 ms a CLI run. This process is small, so a run costs the fork of a small process.
// What is run, its arguments, directory, environment and stdin are the worker's, unchanged.
const { spawn } = require('node:child_process');
const { closeSync, openSync } = require('node:fs');

process.on('message', (m) => {
  let sent = false;
  const reply = (answer) => {
    if (sent) return;
    sent = true;
    process.send({ id: m.id, ...answer });
  };
  let child;
  let fd;
  try {
    // stdin: a file opened here (`stdinFile`, e.g. /dev/zero), or what `input` holds.
    if (m.stdinFile !== undefined) fd = openSync(m.stdinFile, 'r');
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: [fd ?? 'pipe', 'pipe', 'pipe'] });
  } catch (err) {
    reply({ error: String(err && err.message) });
    return;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const out = [];
  const err = [];
  // `timeoutMs`: killed (SIGKILL) after that long, and the answer says so.
  let timedOut = false;
  const timer =
    m.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, m.timeoutMs);
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => err.push(c));
  child.on('error', (e) => {
    clearTimeout(timer);
    reply({ error: e.message });
  });
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    reply({ code, signal, timedOut, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
  });
  if (child.stdin) {
    child.stdin.on('error', () => {}); // the command may exit before reading stdin
    child.stdin.end(m.input ?? '');
  }
});
// The worker has gone: nothing is left to answer.
process.on('disconnect', () => process.exit(0));
