// Hostile inputs for `export-asyncapi`: -o targets, temp files on signals, reads before refusing,
// self-referencing YAML, a schema too deep to check. See test/helpers/hostile.ts.
import { spawnSync } from 'node:child_process';
import { readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CYCLIC_SCHEMA_YAML,
  describeOutputTargets,
  expectRun,
  hostileRegistry,
  listing,
  refusedOpens,
  removeTrees,
  guardRepo,
  ROOT,
  run,
  tree,
} from '../helpers/hostile.js';

afterAll(removeTrees);

describeOutputTargets('export-asyncapi', (manifest) => ['export-asyncapi', '-r', manifest]);

describe('export-asyncapi: hostile registries', { timeout: 60_000 }, () => {
  guardRepo();

  it('refuses /dev/zero, an outside FIFO and ../../etc/shadow before opening them; an inside FIFO is refused, not waited on', async () => {
    const { dir, outsideFifo } = hostileRegistry();
    const r = await run(['export-asyncapi'], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
    expectRun(r, 1, /^bqschema: schema file for urn:hostile:zero is outside the registry directory: \/dev\/zero/);
    expect(r.stdout).toBe('');
    expect(refusedOpens(r, outsideFifo)).toEqual([]);
    expect(r.opened.some((p) => p.endsWith('registry.json'))).toBe(true); // the watch works
  });

  it('self-referencing YAML: one line naming the file and the alias position', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:cyc', schema: 'cyc.yaml' }] }),
      'cyc.yaml': CYCLIC_SCHEMA_YAML,
    });
    const r = await run(['export-asyncapi'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(
      r,
      1,
      /^bqschema: schema file for urn:test:cyc is malformed: cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/,
    );
    expect(r.ms).toBeLessThan(10_000);
  });

  it('a 2,000-level schema is an issue naming the URN and its file, not a stack overflow', async () => {
    let s: unknown = { type: 'string' };
    for (let i = 0; i < 2000; i++) s = { type: 'object', properties: { a: s } };
    const dir = tree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:test:ok', schema: 'ok.json' },
          { urn: 'urn:test:deep', schema: 'deep.json' },
        ],
      }),
      'ok.json': '{"type":"object"}',
      'deep.json': JSON.stringify(s),
    });
    const r = await run(['export-asyncapi'], { cwd: dir });
    // The registry refuses it before the document is built: one line naming the URN and its file.
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/^ {4}at |internal error/m);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'bqschema: schema for urn:test:deep (deep.json): the schema is nested deeper than 512 levels (objects and arrays), the most bqschema reads; flatten it',
    ]);
  });
});

describe('export-asyncapi -o: no temporary file survives SIGINT or SIGTERM', { timeout: 120_000 }, () => {
  // A 40 MB description: the document is built in a moment and its write (and fsync) takes a
  // good part of the run, so some signals land while the temporary file exists.
  const big = (): string =>
    tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:big', schema: 's.json' }] }),
      's.json': JSON.stringify({ type: 'object', description: 'd'.repeat(40_000_000) }),
    });

  it('a signal sent the moment the temporary file appears: the target is the old file or the whole new one, no .tmp is left', async () => {
    const dir = big();
    const target = join(dir, 'out.json');
    const full = await run(['export-asyncapi', '-o', 'out.json'], { cwd: dir, timeoutMs: 60_000 });
    expectRun(full, 0);
    const complete = readFileSync(target, 'utf8');
    const outcomes: string[] = [];
    let caught = 0;
    // One run a signal: the watcher below signals as the temporary file is created, so each run
    // catches the write (a run that misses is only counted, and `caught` must still be above 0).
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      writeFileSync(target, 'old\n');
      let sawTemp = false;
      const r = await run(['export-asyncapi', '-o', 'out.json'], {
        cwd: dir,
        timeoutMs: 60_000,
        onSpawn: (child) => {
          // Watch for the temporary file and signal at once: the write is then in progress. An
          // inotify watch wakes this process only when the directory changes (a 1 ms readdir loop
          // spent CPU the whole run).
          const watcher = watch(dir, (_event, name) => {
            if (!sawTemp && typeof name === 'string' && name.endsWith('.tmp')) {
              sawTemp = true;
              child.kill(signal);
              watcher.close();
            }
          });
          child.once('exit', () => watcher.close());
        },
      });
      expect(r.stderr).not.toMatch(/^ {4}at /m);
      const now = readFileSync(target, 'utf8');
      expect([complete, 'old\n']).toContain(now);
      expect(listing(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      if (sawTemp) {
        // Caught by the write's handler: it finishes (or removes) the file, then exits 130 / 143.
        expect(r.code).toBe(signal === 'SIGINT' ? 130 : 143);
        caught++;
      }
      outcomes.push(`${signal}:${sawTemp ? 'during write' : 'missed'}:${r.code ?? r.signal}:${now === complete ? 'new' : 'old'}`);
    }
    console.log(`export-asyncapi -o signals (full run ${Math.round(full.ms)} ms): ${outcomes.join(' ')}`);
    expect(caught).toBeGreaterThan(0);
  });

  it('deterministically: a signal that arrives during the write is handled after it, with no temp file left', () => {
    // writeSync is wrapped (through syncBuiltinESMExports, which ESM named imports of node:fs see)
    // so the process signals itself in the middle of the write.
    const dir = tree();
    const script = `
      const fs = require('node:fs');
      const { syncBuiltinESMExports } = require('node:module');
      const writeSync = fs.writeSync;
      let sent = false;
      fs.writeSync = function (...args) {
        if (!sent) { sent = true; process.kill(process.pid, process.argv[1]); }
        return writeSync.apply(this, args);
      };
      syncBuiltinESMExports();
      import(${JSON.stringify(join(ROOT, 'dist', 'cli', 'write.js'))}).then(({ writeFileAtomic }) => {
        writeFileAtomic(${JSON.stringify(join(dir, 'out.txt'))}, 'x'.repeat(1 << 20));
        setTimeout(() => process.exit(0), 2000); // never reached: the handler exits first
      });
    `;
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const r = spawnSync(process.execPath, ['-e', script, signal], { encoding: 'utf8', timeout: 10_000 });
      expect(r.status, r.stderr).toBe(code);
      expect(listing(dir)).toEqual(['out.txt']);
      expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toHaveLength(1 << 20);
    }
  });
});
