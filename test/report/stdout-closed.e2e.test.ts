// Reports are whole when stdout closes early: `bqschema validate … --report json=r.json | head -1`
// still writes every report file whole and exits with the whole run's verdict, for validate (which
// streams its output while it reads) and for check (which renders once). The reader goes away
// after the first chunk, while megabytes of output are still to come, so the run meets EPIPE.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJunit, readSarif } from '../helpers/ci-formats.js';
import { BIN, removeTempTrees, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

/** Runs the CLI with stdout a pipe whose reader closes it after the first chunk read. */
function runClosingStdout(args: string[], cwd: string): Promise<{ code: number | null; stderr: string; read: number }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NO_COLOR: '1' };
    delete env.BQSCHEMA_REGISTRY;
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let read = 0;
    child.stdout.once('data', (chunk: Buffer) => {
      read = chunk.length;
      child.stdout.destroy(); // like `head -1` exiting: the run's next write gets EPIPE
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, read }));
  });
}

const SCHEMA = JSON.stringify({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } });

describe.concurrent('--report files when stdout closes early', () => {
  it('validate: 40,000 messages, the reader gone after the first chunk; every report whole, exit 1 for the last message', async () => {
    const valid = JSON.stringify({ job: 'urn:t:a', data: { id: 1 } });
    const invalid = JSON.stringify({ job: 'urn:t:a', data: { id: 'x' } });
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json' }] }),
      'a.json': SCHEMA,
    });
    // The one invalid message is the last: an exit code earned "so far" would be 0.
    writeFileSync(join(dir, 'm.ndjson'), `${valid}\n`.repeat(40_000) + `${invalid}\n`);
    const r = await runClosingStdout(
      ['validate', 'm.ndjson', '--report', 'json=r.json', '--report', 'sarif=r.sarif', '--report', 'junit=r.xml'],
      dir,
    );
    expect(r.stderr).toBe('');
    expect(r.read).toBeGreaterThan(0);
    expect(r.code).toBe(1);
    const json = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
      ok: boolean;
      summary: Record<string, number>;
      results: unknown[];
    };
    expect(json.ok).toBe(false);
    expect(json.summary).toMatchObject({ messages: 40_001, valid: 40_000, invalid: 1 });
    expect(json.results).toHaveLength(40_001);
    const sarif = readSarif(readFileSync(join(dir, 'r.sarif'), 'utf8'));
    expect(sarif.runs[0]!.results.map((x) => x.locations?.[0]?.physicalLocation.region?.startLine)).toEqual([40_001]);
    expect(readJunit(readFileSync(join(dir, 'r.xml'), 'utf8')).testsuites.tests).toBe('40001');
  });

  it('validate without --report still stops at once, quietly, with the code earned so far', async () => {
    const valid = JSON.stringify({ job: 'urn:t:a', data: { id: 1 } });
    const dir = tempTree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json' }] }), 'a.json': SCHEMA });
    writeFileSync(join(dir, 'm.ndjson'), `${valid}\n`.repeat(40_000));
    const r = await runClosingStdout(['validate', 'm.ndjson'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('check: 2,000 URNs, each with a finding; the reader gone after the first chunk; the reports whole, exit 1', async () => {
    const n = 2000;
    const files: Record<string, string> = { 'bad.json': JSON.stringify({ type: 'object', requried: ['id'] }) };
    files['registry.json'] = JSON.stringify({ schemas: Array.from({ length: n }, (_, i) => ({ urn: `urn:t:e${i}`, schema: 'bad.json' })) });
    const dir = tempTree(files);
    const r = await runClosingStdout(['check', '--report', 'json=r.json', '--report', 'sarif=r.sarif'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const json = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { ok: boolean; summary: Record<string, number> };
    expect(json.ok).toBe(false);
    expect(json.summary).toMatchObject({ urns: n, errors: n });
    expect(readSarif(readFileSync(join(dir, 'r.sarif'), 'utf8')).runs[0]!.results).toHaveLength(n);
  });
});
