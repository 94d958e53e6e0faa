// Hostile inputs for `validate`: leaks, reads before refusing, self-referencing YAML, size limits and
// memory, terminal spoofing, unreadable directories, invalid UTF-8, and the cases that already hold.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  asNobody,
  copyExampleRegistry,
  CYCLIC_SCHEMA_YAML,
  expectNoRawControls,
  expectRun,
  hostileRegistry,
  ORDER_VALID,
  refusedOpens,
  removeTrees,
  guardRepo,
  run,
  tree,
} from '../helpers/hostile.js';

afterAll(removeTrees);

guardRepo();

/** A temp dir with the example registry as reg/registry.json and the given files. */
function withRegistry(files: Record<string, string | Buffer> = {}): { dir: string; manifest: string } {
  const dir = tree(files);
  return { dir, manifest: copyExampleRegistry(dir) };
}

describe('validate: no value from a message in an error (item 2)', { timeout: 60_000 }, () => {
  const secretEnvelopes = [
    '{"job":"urn:test:order","data":{"order_id":1,"sku":"ABC","lines":[]},"meta":{"schema_version":"SECRET-4111"}}',
    '{"job":"urn:test:order","data":{"order_id":1,"sku":"ABC","lines":[]},"meta":{"schema_version":{"k":"SECRET-4111"}}}',
    '{"job":"urn:test:order","data":{"order_id":1,"sku":"ABC","lines":[]},"meta":{"schema_version":["SECRET-4111"]}}',
    '{"job":"urn:test:order","data":"SECRET-4111"}',
    '{"job":["SECRET-4111"],"data":{}}',
    '"SECRET-4111"',
  ];
  for (const format of ['text', 'json', 'github', 'markdown', 'sarif', 'junit']) {
    it(`--format ${format}: envelope errors never echo SECRET (files and NDJSON)`, async () => {
      const files: Record<string, string> = {};
      secretEnvelopes.forEach((e, i) => (files[`m${i}.json`] = e));
      files['all.ndjson'] = secretEnvelopes.join('\n') + '\n';
      const { dir, manifest } = withRegistry(files);
      const r = await run(['validate', '-r', manifest, '-f', format, '.'], { cwd: dir });
      expectRun(r, 1);
      // (markdown escapes the underscore)
      expect(r.stdout).toMatch(/schema\\?_version/);
      expect(r.stdout + r.stderr).not.toContain('SECRET');
      const stdin = await run(['validate', '-r', manifest, '-f', format, '--ndjson', '-'], { cwd: dir, input: files['all.ndjson'] });
      expectRun(stdin, 1);
      expect(stdin.stdout + stdin.stderr).not.toContain('SECRET');
    });
  }
});

describe('validate: nothing is opened before the outside-path rule (item 4)', { timeout: 60_000 }, () => {
  it('/dev/zero, FIFOs inside and outside, ../../etc/shadow: prompt, refused paths never opened', async () => {
    const { dir, outsideFifo } = hostileRegistry();
    const messages =
      ['zero', 'fifo-in', 'fifo-out', 'shadow'].map((n) => `{"job":"urn:hostile:${n}","data":{}}`).join('\n') + '\n' + ORDER_VALID;
    writeFileSync(join(dir, 'm.ndjson'), messages);
    const r = await run(['validate', 'm.ndjson'], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/outside the registry directory: \/dev\/zero/);
    expect(r.stdout).toMatch(/outside the registry directory: \.\.\/fifo-out/);
    expect(r.stdout).toMatch(/outside the registry directory: \.\.\/\.\.\/etc\/shadow/);
    expect(r.stdout).toMatch(/is not a regular file: fifo-in/);
    expect(r.stdout).toMatch(/✓ valid +line 5/);
    expect(refusedOpens(r, outsideFifo)).toEqual([]);
    expect(r.opened.some((p) => p.endsWith('registry.json'))).toBe(true);
  });
});

describe('validate: self-referencing YAML (item 5)', { timeout: 60_000 }, () => {
  it('in a schema: an error result naming the file and position, promptly', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:cyc', schema: 'cyc.yaml' }] }),
      'cyc.yaml': CYCLIC_SCHEMA_YAML,
      'm.json': '{"job":"urn:test:cyc","data":{"child":{}}}',
    });
    const r = await run(['validate', 'm.json'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(r, 1);
    expect(r.stdout).toMatch(
      /! error +m\.json +urn:test:cyc\n +schema file for urn:test:cyc is malformed: cyc\.yaml:5:17: invalid YAML: the alias \*p refers to a node that contains it/,
    );
  });

  it('in a manifest: one line naming the file and position', async () => {
    const dir = tree({ 'registry.yaml': 'schemas: &s\n  - urn: urn:test:x\n    schema: *s\n', 'm.json': ORDER_VALID });
    const r = await run(['validate', 'm.json'], { cwd: dir, timeoutMs: 10_000 });
    expectRun(r, 1, /^bqschema: registry\.yaml:3:13: invalid YAML: the alias \*s refers to a node that contains it/);
  });
});

describe('validate: size limits, memory bounded (item 6)', { timeout: 120_000 }, () => {
  const limited = ['--max-file-bytes', '1048576', '--max-line-bytes', '1048576'];
  const heap = ['--max-old-space-size=256'];

  it('validate /dev/zero stops at --max-file-bytes: exit 2, one line, no crash under a 256 MB heap', async () => {
    const { dir, manifest } = withRegistry();
    const r = await run(['validate', '-r', manifest, ...limited, '/dev/zero'], { cwd: dir, nodeFlags: heap });
    expectRun(
      r,
      2,
      /^bqschema: \/dev\/zero: the file is larger than 1048576 bytes \(the limit of --max-file-bytes\); raise the limit with --max-file-bytes <bytes>, and give node 40 bytes of heap per byte of message \(NODE_OPTIONS=--max-old-space-size=<MiB>\)$/,
    );
  });

  it('validate - < /dev/zero stops at the limit likewise', async () => {
    const { dir, manifest } = withRegistry();
    const r = await run(['validate', '-r', manifest, ...limited, '-'], { cwd: dir, nodeFlags: heap, stdinFile: '/dev/zero' });
    expectRun(r, 2, /^bqschema: <stdin>: the input is larger than 1048576 bytes/);
  });

  it('an NDJSON line over --max-line-bytes (stdin of zeros, and a file): exit 2, one line naming the line', async () => {
    const { dir, manifest } = withRegistry({ 'long.ndjson': ORDER_VALID + 'a'.repeat(3 * 1024 * 1024) + '\n' + ORDER_VALID });
    const zeros = await run(['validate', '-r', manifest, ...limited, '--ndjson', '-'], {
      cwd: dir,
      nodeFlags: heap,
      stdinFile: '/dev/zero',
    });
    expectRun(
      zeros,
      2,
      /^bqschema: <stdin>:1: the line is larger than 1048576 bytes \(the limit of --max-line-bytes\); raise the limit with --max-line-bytes <bytes>, and give node 40 bytes of heap per byte of message \(NODE_OPTIONS=--max-old-space-size=<MiB>\)$/,
    );
    const file = await run(['validate', '-r', manifest, ...limited, 'long.ndjson'], { cwd: dir, nodeFlags: heap });
    expectRun(file, 2, /^bqschema: long\.ndjson:2: the line is larger than 1048576 bytes/);
  });

  it.runIf(process.platform === 'linux')('peak memory stays near the limit (GNU time: maximum resident set size)', async () => {
    const { existsSync } = await import('node:fs');
    if (!existsSync('/usr/bin/time')) return; // measured where GNU time exists; the heap cap above still holds
    const { dir, manifest } = withRegistry();
    const r = await run(['validate', '-r', manifest, ...limited, '/dev/zero'], { cwd: dir, prefix: ['/usr/bin/time', '-v'] });
    const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1]);
    console.log(`validate --max-file-bytes 1048576 /dev/zero: max RSS ${Math.round(kb / 1024)} MB`);
    expect(r.code).toBe(2);
    expect(kb).toBeLessThan(200 * 1024);
  });
});

describe('validate: terminal spoofing (item 9)', { timeout: 60_000 }, () => {
  const forged = 'urn:x:\u001b[2J\u001b]0;owned\u0007\nOK: 9 messages: 9 valid, 0 invalid, 0 skipped, 0 errors\r\u009b31m';
  const badName = 'f\u001b[31m\nOK: 1 message.json';

  for (const format of ['text', 'github']) {
    it(`--format ${format}: a job with ESC and newlines, and a file name with control characters, reach the output escaped`, async () => {
      const { dir, manifest } = withRegistry({
        [badName]: JSON.stringify({ job: forged, data: {} }),
        'x.ndjson':
          JSON.stringify({ job: forged, data: {} }) + '\n' + JSON.stringify({ job: 'urn:test:order', data: { order_id: 0 } }) + '\n',
        'ok.json': ORDER_VALID,
      });
      const r = await run(['validate', '-r', manifest, '-f', format, badName, 'x.ndjson', 'ok.json'], { cwd: dir });
      expectRun(r, 1);
      expectNoRawControls(r.stdout + r.stderr);
      // The only summary line is the real one.
      const summaries = r.stdout.split('\n').filter((l) => /^(OK|FAILED): /.test(l));
      expect(summaries).toEqual(['FAILED: 4 messages: 1 valid, 1 invalid, 2 skipped, 0 errors']);
      // The skipped URN is shown in JSON string syntax (its controls as \u escapes), the file name through clean().
      expect(r.stdout).toContain('"urn:x:\\u001b[2J\\u001b]0;owned\\u0007\\nOK: 9 messages');
      expect(r.stdout).toContain('f\\x1b[31m');
      const stdin = await run(['validate', '-r', manifest, '-f', format, '--ndjson', '-'], {
        cwd: dir,
        input: JSON.stringify({ job: forged, data: {} }) + '\n',
      });
      expectRun(stdin, 0);
      expectNoRawControls(stdin.stdout + stdin.stderr);
      expect(stdin.stdout.split('\n').filter((l) => /^(OK|FAILED): /.test(l))).toHaveLength(1);
    });
  }

  it('a usage error quoting a control-character --urn is one escaped line with the whole message', async () => {
    const { dir, manifest } = withRegistry({ 'm.json': ORDER_VALID });
    const r = await run(['validate', '-r', manifest, '--urn', 'urn:x\n\u001b[2Jforged', 'm.json'], { cwd: dir });
    expectRun(r, 2);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expect(r.stderr).toContain('--urn urn:x\\n\\x1b[2Jforged is not registered');
    expectNoRawControls(r.stderr);
  });
});

describe('validate: unreadable directories, resolution errors, invalid UTF-8 (item 10)', { timeout: 60_000 }, () => {
  it('an unreadable subdirectory (run as nobody) is one error result and the run goes on', async (ctx) => {
    const nobody = asNobody();
    if ('skip' in nobody) return ctx.skip(nobody.skip);
    const { dir, manifest } = withRegistry({ 'msgs/a.json': ORDER_VALID, 'msgs/locked/b.json': ORDER_VALID, 'msgs/z.json': ORDER_VALID });
    chmodSync(join(dir, 'msgs', 'locked'), 0o000);
    const r = await run(['validate', '-r', manifest, 'msgs'], { cwd: dir, ...nobody });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/! error +msgs\/locked +directory cannot be read: EACCES/);
    expect(r.stdout).toMatch(/✓ valid +msgs\/a\.json/);
    expect(r.stdout).toMatch(/✓ valid +msgs\/z\.json/);
    expect(r.stdout).toMatch(/FAILED: 3 messages: 2 valid, 0 invalid, 0 skipped, 1 error/);
  });

  it('a directory symlink cycle is walked once; a symlink loop named on the command line is an error result (ELOOP)', async () => {
    const { dir, manifest } = withRegistry({ 'msgs/a.json': ORDER_VALID });
    symlinkSync('..', join(dir, 'msgs', 'up'));
    symlinkSync('l2', join(dir, 'l1'));
    symlinkSync('l1', join(dir, 'l2'));
    const r = await run(['validate', '-r', manifest, 'msgs', 'l1'], { cwd: dir, timeoutMs: 15_000 });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/! error +l1 +cannot be read: ELOOP/);
    expect(r.stdout.match(/✓ valid/g)).toHaveLength(1);
  });

  it('a symlink loop named x.json inside a walked directory is an error result, not silently skipped', async () => {
    const { dir, manifest } = withRegistry({ 'msgs/a.json': ORDER_VALID });
    symlinkSync('y.json', join(dir, 'msgs', 'x.json'));
    symlinkSync('x.json', join(dir, 'msgs', 'y.json'));
    symlinkSync('gone.json', join(dir, 'msgs', 'dangling.json'));
    const r = await run(['validate', '-r', manifest, 'msgs'], { cwd: dir, timeoutMs: 15_000 });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/! error +msgs\/x\.json +cannot be read: ELOOP/);
    expect(r.stdout).toMatch(/! error +msgs\/y\.json +cannot be read: ELOOP/);
    expect(r.stdout).not.toContain('dangling'); // nothing there: skipped
    expect(r.stdout).toMatch(/FAILED: 3 messages: 1 valid, 0 invalid, 0 skipped, 2 errors/);
  });

  it('a schema path that resolves with an error other than ENOENT is not read as missing (ELOOP)', async () => {
    const dir = tree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:order', schema: 's/x1' }] }), 'm.json': ORDER_VALID });
    mkdirSync(join(dir, 's'));
    symlinkSync('x2', join(dir, 's', 'x1'));
    symlinkSync('x1', join(dir, 's', 'x2'));
    const r = await run(['validate', 'm.json'], { cwd: dir, watchOpens: true });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/schema file for urn:test:order cannot be resolved: s\/x1: ELOOP/);
    expect(r.opened.filter((p) => p.endsWith('/s/x1'))).toEqual([]);
  });

  it('a schema in a directory that cannot be searched (EACCES, as nobody) is an error, never read as missing', async (ctx) => {
    const nobody = asNobody();
    if ('skip' in nobody) return ctx.skip(nobody.skip);
    const dir = tree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:order', schema: 'locked/order.json' }] }),
      'locked/order.json': '{}',
      'm.json': ORDER_VALID,
    });
    chmodSync(join(dir, 'locked'), 0o000);
    const r = await run(['validate', 'm.json'], { cwd: dir, ...nobody });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/schema file for urn:test:order cannot be resolved: locked\/order\.json: EACCES/);
    expect(r.stdout).not.toMatch(/not found/);
  });

  it('invalid UTF-8 in a file, on stdin and in an NDJSON line is an error result naming the byte offset', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"job":"urn:test:order","data":{"order_id":1,"sku":"AB'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('C","lines":[]}}'),
    ]);
    const { dir, manifest } = withRegistry({
      'bad.json': bad,
      'bad.ndjson': Buffer.concat([Buffer.from(ORDER_VALID), bad, Buffer.from('\n')]),
    });
    const r = await run(['validate', '-r', manifest, 'bad.json', 'bad.ndjson'], { cwd: dir });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/! error +bad\.json +not valid UTF-8 \(byte offset 54\)/);
    // In a stream the offset counts from the start of the file.
    expect(r.stdout).toContain(`! error  line 2:1  not valid UTF-8 (byte offset ${54 + Buffer.byteLength(ORDER_VALID)})`);
    expect(r.stdout).toMatch(/✓ valid +line 1/);
    const stdin = await run(['validate', '-r', manifest, '-'], { cwd: dir, input: bad });
    expectRun(stdin, 1);
    expect(stdin.stdout).toMatch(/! error +<stdin> +not valid UTF-8 \(byte offset 54\)/);
    expect(stdin.stdout).not.toContain('\ufffd');
  });
});

describe('validate: what already holds stays held', { timeout: 60_000 }, () => {
  it('malformed JSON, a BOM-less empty file, data nested 100,000 levels, a 1 MB string: results, no crash', async () => {
    const deep =
      '{"job":"urn:test:order","data":{"order_id":1,"sku":"ABC","lines":[{"id":"a","qty":' +
      '['.repeat(100_000) +
      ']'.repeat(100_000) +
      '}]}}';
    const { dir, manifest } = withRegistry({
      'a-malformed.json': '{"job": "urn:test:order", "data": {',
      'b-empty.json': '',
      'c-deep.json': deep,
      'd-long.json': JSON.stringify({ job: 'urn:test:order', data: { order_id: 1, sku: 'x'.repeat(1_000_000), lines: [] } }),
    });
    const r = await run(['validate', '-r', manifest, '.'], { cwd: dir, nodeFlags: ['--stack-size=900'] });
    expectRun(r, 1);
    expect(r.stdout).toMatch(/! error +a-malformed\.json:1:\d+ +invalid JSON/);
    expect(r.stdout).toMatch(/b-empty\.json/);
    expect(r.stdout).toMatch(/c-deep\.json/);
    expect(r.stdout).toMatch(/✓ valid +d-long\.json/);
  });

  it('path tricks: a file named like an option after --, a missing path, a directory given as a registry', async () => {
    const { dir, manifest } = withRegistry({ '--strict': ORDER_VALID });
    const dash = await run(['validate', '-r', manifest, '--', '--strict'], { cwd: dir });
    expectRun(dash, 0);
    const missing = await run(['validate', '-r', manifest, 'nope.json'], { cwd: dir });
    expectRun(missing, 1);
    expect(missing.stdout).toMatch(/! error +nope\.json +no such file or directory/);
    const regDir = await run(['validate', '-r', dir, '--strict'], { cwd: dir, input: ORDER_VALID });
    expect([1, 2]).toContain(regDir.code);
    expectRun(regDir, regDir.code!, /^bqschema: /);
  });
});
