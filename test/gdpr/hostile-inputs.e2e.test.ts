// Hostile inputs for `gdpr`: masking fails closed end to end (the property tests of the masker itself are
// in test/gdpr/mask-closed.test.ts), no error quotes a value, reads before refusing,
// self-referencing YAML, terminal spoofing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CYCLIC_SCHEMA_YAML,
  expectNoRawControls,
  expectRun,
  hostileRegistry,
  refusedOpens,
  removeTrees,
  guardRepo,
  run,
  tree,
} from '../helpers/hostile.js';

afterAll(removeTrees);

guardRepo();

const M = { 'x-gdpr-sensitive': true };
const PII_SCHEMA = {
  type: 'object',
  properties: {
    user: { type: 'object', properties: { phone: { type: 'string', ...M } } },
    tags: { type: 'array', items: { type: 'string', ...M } },
  },
};

function piiRegistry(files: Record<string, string> = {}): string {
  return tree({
    'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:pii', schema: 'pii.json' }] }),
    'pii.json': JSON.stringify(PII_SCHEMA),
    ...files,
  });
}

describe('gdpr --mask fails closed and never quotes a value (item 2)', { timeout: 60_000 }, () => {
  it("the issue's example: data of another shape is masked whole, in a file and on an NDJSON stream", async () => {
    const msg = '{"job":"urn:test:pii","data":{"user":[{"phone":"SECRET-1"}],"tags":{"0":"SECRET-2"}}}';
    const dir = piiRegistry({ 'm.json': msg });
    const file = await run(['gdpr', '--mask', 'm.json'], { cwd: dir });
    expectRun(file, 0);
    expect(JSON.parse(file.stdout)).toEqual({ job: 'urn:test:pii', data: { user: '***', tags: '***' } });
    const stream = await run(['gdpr', '--mask', '-', '--ndjson'], { cwd: dir, input: `${msg}\n${msg}\n` });
    expectRun(stream, 0);
    expect(stream.stdout + stream.stderr).not.toContain('SECRET');
    expect(stream.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('envelope errors (schema_version, data, job of any shape) never echo a value, in a file or a stream', async () => {
    const envelopes = [
      '{"job":"urn:test:pii","data":{"tags":["SECRET-a"]},"meta":{"schema_version":"SECRET-v"}}',
      '{"job":"urn:test:pii","data":{"tags":["SECRET-a"]},"meta":{"schema_version":{"x":"SECRET-v"}}}',
      '{"job":"urn:test:pii","data":"SECRET-d"}',
      '{"job":"urn:test:pii","data":["SECRET-d"]}',
      '{"job":{"k":1},"urn":"urn:test:pii","data":{"user":{"phone":"SECRET-p"}}}',
      '"SECRET-whole"',
      '{"job":"urn:test:pii","data":{"tags":["SECRET-a"]},"bad json": SECRET',
    ];
    const dir = piiRegistry();
    envelopes.forEach((e, i) => writeFileSync(join(dir, `e${i}.json`), e));
    for (let i = 0; i < envelopes.length; i++) {
      const r = await run(['gdpr', '--mask', `e${i}.json`], { cwd: dir });
      expect(r.stdout + r.stderr).not.toContain('SECRET');
      expect(r.stderr).not.toMatch(/^ {4}at /m);
      expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2); // an identity warning, then the error
    }
    const stream = await run(['gdpr', '--mask', '-', '--ndjson'], { cwd: dir, input: envelopes.join('\n') + '\n' });
    expect(stream.code).toBe(1);
    expect(stream.stdout + stream.stderr).not.toContain('SECRET');
    expect(stream.stderr).toMatch(/<stdin>:1: meta\.schema_version is a string; only 1 is known/);
  });
});

describe('gdpr: nothing is opened before the outside-path rule (item 4)', { timeout: 60_000 }, () => {
  for (const args of [[], ['--require'], ['--mask', 'm.json']]) {
    it(`gdpr ${args.join(' ')}: /dev/zero, FIFOs, ../../etc/shadow are refused promptly, never opened`, async () => {
      const { dir, outsideFifo } = hostileRegistry();
      writeFileSync(join(dir, 'm.json'), '{"job":"urn:hostile:zero","data":{}}');
      const r = await run(['gdpr', ...args], { cwd: dir, watchOpens: true, timeoutMs: 15_000 });
      expectRun(
        r,
        1,
        /^bqschema: (m\.json: )?schema file for urn:hostile:[\w-]+ (is outside the registry directory|is not a regular file)/,
      );
      expect(refusedOpens(r, outsideFifo)).toEqual([]);
    });
  }
});

describe('gdpr: self-referencing YAML (item 5)', { timeout: 60_000 }, () => {
  for (const args of [[], ['--require'], ['--mask', 'm.json']]) {
    it(`gdpr ${args.join(' ')}: one line naming the file and position, promptly (it once spun forever)`, async () => {
      const dir = tree({
        'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:test:cyc', schema: 'cyc.yaml' }] }),
        'cyc.yaml': CYCLIC_SCHEMA_YAML.replace('type: object\nproperties', 'type: object\nx-gdpr-sensitive: false\nproperties'),
        'm.json': '{"job":"urn:test:cyc","data":{"child":{"child":{}}}}',
      });
      const r = await run(['gdpr', ...args], { cwd: dir, timeoutMs: 10_000, nodeFlags: ['--max-old-space-size=256'] });
      expectRun(r, 1, /cyc\.yaml:6:17: invalid YAML: the alias \*p refers to a node that contains it/);
      expect(r.stdout).toBe('');
    });
  }
});

describe('gdpr: terminal spoofing (item 9)', { timeout: 60_000 }, () => {
  const esc = 'urn:t:x\u001b[2J\nOK: no unmarked PII-named field\r\u009b';
  for (const format of ['text', 'github']) {
    it(`--format ${format}: URNs, file names and field names with control characters are escaped`, async () => {
      const file = 's\u001b[31m\nOK.json';
      const dir = tree({
        'registry.json': JSON.stringify({ schemas: [{ urn: esc, schema: file }] }),
        [file]: JSON.stringify({
          type: 'object',
          properties: { 'email\u001b[2J\nOK': { type: 'string' }, 'phone\u0007': { type: 'string', ...M } },
        }),
      });
      for (const args of [[], ['--require']]) {
        const r = await run(['gdpr', '-f', format, ...args], { cwd: dir });
        expect(r.stderr).not.toMatch(/^ {4}at /m);
        expectNoRawControls(r.stdout + r.stderr);
        expect(r.stdout.split('\n').filter((l) => /^OK: /.test(l))).toHaveLength(0);
      }
    });
  }

  it('--mask: a file name with ESC and a newline is kept whole and escaped in the one error line', async () => {
    const name = 'f\u001b[31m\nOK: 1.json';
    const dir = piiRegistry({ [name]: JSON.stringify({ job: 'urn:x:\u001b[2J\nOK', data: {} }) });
    const r = await run(['gdpr', '--mask', name], { cwd: dir });
    expectRun(
      r,
      1,
      /^bqschema: f\\x1b\[31m\\nOK: 1\.json: no schema registered for urn:x:\\x1b\[2J\\nOK: it cannot be masked, so it is not printed$/,
    );
    const malformed = 'g\u001b[1m\n.json';
    writeFileSync(join(dir, malformed), '{"job":');
    const bad = await run(['gdpr', '--mask', malformed], { cwd: dir });
    expect(bad.code).not.toBe(0);
    expectRun(bad, bad.code!, /^bqschema: g\\x1b\[1m\\n\.json:\d+:\d+: invalid JSON/);
  });
});
