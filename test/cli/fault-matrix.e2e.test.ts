import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  EXIT_CODES,
  EXIT_GATE,
  EXIT_INTERNAL,
  EXIT_OK,
  EXIT_POLICY,
  EXIT_USAGE,
  exitCodeFor,
  GateError,
  UsageError,
} from '../../src/cli/errors.js';
import { GitError, ParseFailure, RegistryError, RegistryNotFoundError } from '../../src/registry/index.js';
import { SchemaError } from '../../src/validator/index.js';
import { bq, removeTempTrees, tempTree, type CliResult } from '../helpers/cli.js';

// Every command against the same faults: one exit-code policy (src/cli/errors.ts), one line on
// stderr (or none, when the fault is a result in the output), never a stack trace.

afterAll(removeTempTrees);

const GOOD_SCHEMA = '{ "type": "object", "required": ["id"] }';
const MESSAGE = '{"job":"urn:t:a","data":{"id":1}}';

/** A registry with one URN whose schema file is `schema` (written unless null) at `path`. */
function registry(schema: string | null, path = 'a.json', extra: Record<string, string> = {}): string {
  const files: Record<string, string> = {
    'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: path }] }),
    'm.json': MESSAGE,
    ...extra,
  };
  if (schema !== null) files[path] = schema;
  return tempTree(files);
}

type Command = { name: string; args: string[] };

/** Every command that reads a registry, as a one-shot run (serve is started and stopped by its own tests). */
const COMMANDS: Command[] = [
  { name: 'validate', args: ['validate', 'm.json'] },
  { name: 'check', args: ['check'] },
  { name: 'gdpr', args: ['gdpr'] },
  { name: 'gdpr --mask', args: ['gdpr', '--mask', 'm.json'] },
  { name: 'export-asyncapi', args: ['export-asyncapi'] },
  { name: 'types', args: ['types'] },
  { name: 'catalog', args: ['catalog', '--no-history'] },
];

/**
 * The faults of the manifest itself (not found, not parsed) are met where gdpr opens its registry,
 * before it branches on --mask (src/cli/commands/gdpr.ts run): `gdpr` meets them for `gdpr --mask`.
 */
const MANIFEST_COMMANDS = COMMANDS.filter((c) => c.name !== 'gdpr --mask');

function expectOneLineAtMost(r: CliResult): void {
  expect(r.stderr).not.toMatch(/^ {4}at /m);
  expect(r.stderr).not.toMatch(/internal error/);
  const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('bqschema: warning:'));
  expect(lines.length, `stderr: ${r.stderr}`).toBeLessThanOrEqual(1);
}

describe.concurrent('fault matrix: every command, the same faults, one policy', () => {
  it.each(MANIFEST_COMMANDS)('$name: no manifest where --registry points: exit 2, one line naming where it came from', async ({ args }) => {
    const dir = registry(GOOD_SCHEMA);
    const r = await bq([...args, '--registry', 'nope.json'], { cwd: dir });
    expect(r.code).toBe(EXIT_USAGE);
    expect(r.stderr).toBe('bqschema: registry manifest not found: nope.json (from --registry)\n');
  });

  it.each(MANIFEST_COMMANDS)('$name: no manifest in $BQSCHEMA_REGISTRY: exit 2, the error says so', async ({ args }) => {
    const dir = registry(GOOD_SCHEMA);
    const r = await bq(args, { cwd: dir, env: { BQSCHEMA_REGISTRY: 'gone.yaml' } });
    expect(r.code).toBe(EXIT_USAGE);
    expect(r.stderr).toBe('bqschema: registry manifest not found: gone.yaml (from BQSCHEMA_REGISTRY)\n');
  });

  it.each(MANIFEST_COMMANDS)('$name: a manifest that does not parse: exit 1 at file:line:col', async ({ name, args }) => {
    const dir = tempTree({ 'registry.json': '{ "schemas": [\n  { "urn": "urn:t:a", }\n] }', 'm.json': MESSAGE });
    const r = await bq(args, { cwd: dir });
    expect(r.code).toBe(EXIT_GATE);
    expectOneLineAtMost(r);
    // check reports it in its output; every other command stops with the one line.
    expect(name === 'check' ? r.stdout : r.stderr).toMatch(/registry\.json:2:\d+: invalid JSON/);
  });

  it.each(COMMANDS)('$name: a schema file that does not parse: exit 1, named with its position', async ({ args }) => {
    const dir = registry('{ "type": "object",\n  "required": [ }');
    const r = await bq(args, { cwd: dir });
    expect(r.code).toBe(EXIT_GATE);
    expectOneLineAtMost(r);
    expect(r.stdout + r.stderr).toMatch(/schema file for urn:t:a is malformed: a\.json:2:\d+: invalid JSON/);
  });

  it.each(COMMANDS)('$name: a malformed keyword is never ignored silently', async ({ name, args }) => {
    // "integr" and a string "required": no effect on a verdict, so every gate must fail on them.
    const dir = registry('{ "type": "object", "properties": { "id": { "type": "integr" } }, "required": "id" }');
    const r = await bq(args, { cwd: dir });
    expectOneLineAtMost(r);
    if (['validate', 'check', 'export-asyncapi', 'types'].includes(name)) {
      // The gates, and the commands that publish a schema as if it were enforced, fail on it.
      expect(r.code).toBe(EXIT_GATE);
      expect(r.stdout + r.stderr).toMatch(/malformed keyword "(type|required)"/);
    } else {
      // gdpr inventories and masks, the catalog flags it: neither claims it is enforced.
      expect(r.code).toBe(EXIT_OK);
    }
  });

  it.each(COMMANDS)('$name: a schema path outside the registry directory: exit 1, never read', async ({ args }) => {
    const dir = registry(null, '../outside.json');
    const r = await bq(args, { cwd: dir });
    expect(r.code).toBe(EXIT_GATE);
    expectOneLineAtMost(r);
    expect(r.stdout + r.stderr).toMatch(/schema file for urn:t:a is outside the registry directory: \.\.\/outside\.json/);
  });

  it.each([
    { name: 'validate', args: ['validate', '--urn', 'urn:t:b', 'm.json'] },
    { name: 'gdpr --mask', args: ['gdpr', '--mask', 'm.json', '--urn', 'urn:t:b'] },
  ])('$name: an unregistered --urn: exit 2 with a did-you-mean', async ({ args }) => {
    const dir = registry(GOOD_SCHEMA);
    const r = await bq(args, { cwd: dir });
    expect(r.code).toBe(EXIT_USAGE);
    expect(r.stderr).toBe('bqschema: --urn urn:t:b is not registered in registry.json (did you mean "urn:t:a"?)\n');
    expect(r.stdout).toBe('');
  });

  it.each([
    { name: 'validate', args: ['validate', 'missing.json'] },
    { name: 'validate (beside a good file)', args: ['validate', 'missing.json', 'm.json'] },
    { name: 'gdpr --mask', args: ['gdpr', '--mask', 'missing.json'] },
  ])('$name: an input that cannot be read: exit 1 whatever else is in the batch', async ({ args }) => {
    const dir = registry(GOOD_SCHEMA);
    const r = await bq(args, { cwd: dir });
    expect(r.code).toBe(EXIT_GATE);
    expectOneLineAtMost(r);
    expect(r.stdout + r.stderr).toMatch(/missing\.json.*no such file or directory/);
  });

  it.each([
    { name: 'validate', args: ['validate', 'bad.json'] },
    { name: 'validate (beside a good file)', args: ['validate', 'bad.json', 'm.json'] },
    { name: 'gdpr --mask', args: ['gdpr', '--mask', 'bad.json'] },
  ])('$name: an input that does not parse: exit 1 whatever else is in the batch', async ({ args }) => {
    const dir = registry(GOOD_SCHEMA, 'a.json', { 'bad.json': '{"job": ' });
    const r = await bq(args, { cwd: dir });
    expect(r.code).toBe(EXIT_GATE);
    expectOneLineAtMost(r);
    expect(r.stdout + r.stderr).toMatch(/bad\.json:1:\d+/);
  });

  it.each([
    {
      name: 'validate',
      args: ['validate', 'empty'],
      stderr: /^bqschema: no messages found in empty \(looked for \*\.json, \*\.ndjson and \*\.jsonl files\)\n$/,
    },
    {
      name: 'gdpr --mask',
      args: ['gdpr', '--mask', 'empty'],
      stderr: /^bqschema: --mask takes a file or - for stdin: empty is a directory\n$/,
    },
  ])('$name: an empty directory is no input: exit 2, one line', async ({ args, stderr }) => {
    const dir = registry(GOOD_SCHEMA);
    mkdirSync(join(dir, 'empty'));
    const r = await bq(args, { cwd: dir });
    expect(r.code).toBe(EXIT_USAGE);
    expect(r.stderr).toMatch(stderr);
  });

  it('compat: the same faults on either side of a comparison fail the gate (exit 1), a missing registry is usage (exit 2)', async () => {
    const dir = registry(GOOD_SCHEMA, 'a.json', { 'bad.json': '{ "type": ', 'typo.json': '{ "type": "integr" }' });
    const [missingFile, badFile, typo, noRegistry] = await Promise.all([
      bq(['compat', 'a.json', 'nope.json'], { cwd: dir }),
      bq(['compat', 'a.json', 'bad.json'], { cwd: dir }),
      bq(['compat', 'a.json', 'typo.json'], { cwd: dir }),
      bq(['compat', '--against', 'HEAD', '--registry', 'nope.json'], { cwd: dir }),
    ]);
    for (const r of [missingFile, badFile, typo]) {
      expect(r.code).toBe(EXIT_GATE);
      expect(r.stderr).toBe('');
    }
    expect(typo.stdout).toMatch(/new schema: malformed keyword "type" at the schema root: unknown type name "integr"/);
    expect(typo.stdout).not.toMatch(/^OK/m);
    expect(noRegistry.code).toBe(EXIT_USAGE);
    expect(noRegistry.stderr).toBe('bqschema: registry manifest not found: nope.json (from --registry)\n');
  });

  it('serve: startup faults follow the same policy', async () => {
    const dir = registry(GOOD_SCHEMA);
    const broken = tempTree({ 'registry.json': '{ "schemas": [' });
    const [missing, malformed, port] = await Promise.all([
      bq(['serve', '--registry', 'nope.json'], { cwd: dir }),
      bq(['serve'], { cwd: broken }),
      bq(['serve', '--port', 'http'], { cwd: dir }),
    ]);
    expect(missing.code).toBe(EXIT_USAGE);
    expect(malformed.code).toBe(EXIT_GATE);
    expect(malformed.stderr).toMatch(/^bqschema: registry\.json:1:\d+: invalid JSON/);
    expect(port.code).toBe(EXIT_USAGE);
    for (const r of [missing, malformed, port]) expectOneLineAtMost(r);
  });

  it('an unknown option or command is usage (exit 2) in one bqschema: line', async () => {
    const [option, command] = await Promise.all([bq(['validate', '--nope', 'x']), bq(['frobnicate'])]);
    for (const r of [option, command]) {
      expect(r.code).toBe(EXIT_USAGE);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^bqschema: (unknown option '--nope'|unknown command 'frobnicate')/);
    }
  });
});

describe('the exit-code policy', () => {
  it('maps error classes by instanceof, subclasses before their parents; anything else is internal (3)', () => {
    expect(exitCodeFor(new UsageError('x'))).toBe(EXIT_USAGE);
    expect(exitCodeFor(new RegistryNotFoundError('f', 'x'))).toBe(EXIT_USAGE);
    expect(exitCodeFor(new GitError('x'))).toBe(EXIT_USAGE);
    expect(exitCodeFor(new RegistryError('malformed', 'f', 'x'))).toBe(EXIT_GATE);
    expect(exitCodeFor(new ParseFailure('f', 1, 1, 'x'))).toBe(EXIT_GATE);
    expect(exitCodeFor(new SchemaError('x'))).toBe(EXIT_GATE);
    expect(exitCodeFor(new GateError('x'))).toBe(EXIT_GATE);
    expect(exitCodeFor(new TypeError('x'))).toBe(EXIT_INTERNAL);
    // A name string does not decide: only the class does.
    const impostor = Object.assign(new Error('x'), { name: 'UsageError' });
    expect(exitCodeFor(impostor)).toBe(EXIT_INTERNAL);
    // A subclass row must come before its parent's, or the parent's code would win.
    EXIT_POLICY.forEach((row, i) => {
      for (const earlier of EXIT_POLICY.slice(0, i)) expect(row.error.prototype instanceof earlier.error).toBe(false);
    });
  });

  it('documents every code it can return, each once', () => {
    const codes = EXIT_CODES.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const row of EXIT_POLICY) expect(codes).toContain(row.code);
    expect(codes).toEqual(expect.arrayContaining([EXIT_OK, EXIT_GATE, EXIT_USAGE, EXIT_INTERNAL]));
  });
});
