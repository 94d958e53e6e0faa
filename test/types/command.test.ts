import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GateError, UsageError } from '../../src/cli/errors.js';
import { Registry, RegistryError } from '../../src/registry/index.js';
import { renderTypes, run, sourceFromRegistry, type TypesSource } from '../../src/cli/commands/types.js';
import { generateTypes, TYPES_HEADER } from '../../src/types/index.js';
import { exampleEntries } from '../helpers/example-registry.js';
import { ROOT } from '../helpers/tsc.js';

const EXAMPLE = join(ROOT, 'examples', 'types', 'bq-types.ts');

function source(schemas: Record<string, unknown>): TypesSource {
  return {
    entries: Object.keys(schemas).map((urn) => ({ urn, owner: 'team' })),
    document: (urn) => schemas[urn],
  };
}

const ORDERS = source({ 'urn:babel:orders:created': { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } });

let dir: string;
let stdout: string;
let stderr: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bq-types-'));
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('the committed example types', () => {
  it('are what the generator makes of registry.example.json (JSON, YAML and JSONC schemas)', () => {
    expect(readFileSync(EXAMPLE, 'utf8')).toBe(generateTypes(exampleEntries()));
  });

  it('are current by `types --check`, loading through the CLI registry', async () => {
    const registry = Registry.workingTree(join(ROOT, 'registry.example.json'));
    expect(await run({ source: sourceFromRegistry(registry), output: EXAMPLE, check: true })).toBe(0);
    expect(stdout).toBe(`${EXAMPLE} is up to date (4 message types)\n`);
  });
});

describe('bqschema types', () => {
  it('writes the module to stdout by default', async () => {
    expect(await run({ source: ORDERS })).toBe(0);
    expect(stdout).toBe(renderTypes(ORDERS));
    expect(stdout.startsWith(TYPES_HEADER)).toBe(true);
    expect(stdout).toContain('export type OrdersCreated = {\n  /** Checked at run time only: integer. */\n  id: number;');
  });

  it('-o writes the file atomically: no temporary file is left, an existing file keeps its mode', async () => {
    const target = join(dir, 'bq-types.ts');
    writeFileSync(target, 'old');
    chmodSync(target, 0o640);
    expect(await run({ source: ORDERS, output: target })).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(renderTypes(ORDERS));
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['bq-types.ts']);
    expect(stdout).toBe(`Wrote ${target}: 1 message type\n`);
  });

  it('-o refuses a directory and a FIFO, writes through a symbolic link (which stays a link), and names a missing directory, in one line', async () => {
    const link = join(dir, 'link.ts');
    writeFileSync(join(dir, 'real.ts'), 'keep');
    symlinkSync(join(dir, 'real.ts'), link);
    await expect(run({ source: ORDERS, output: dir })).rejects.toThrow(
      new UsageError(`cannot write ${dir}: it is a directory; nothing was written`),
    );
    await run({ source: ORDERS, output: link });
    expect(readFileSync(join(dir, 'real.ts'), 'utf8')).toContain('OrdersCreated');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(run({ source: ORDERS, output: fifo })).rejects.toThrow(
      `cannot write ${fifo}: it is not a regular file (a device, FIFO or socket); nothing was written`,
    );
    const missing = join(dir, 'no', 'bq-types.ts');
    await expect(run({ source: ORDERS, output: missing })).rejects.toThrow(
      `cannot write ${missing}: the directory ${join(dir, 'no')} does not exist; nothing was written`,
    );
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('--check exits 0 when the file is current and 1 when it differs or is missing; it never writes', async () => {
    const target = join(dir, 'bq-types.ts');
    expect(await run({ source: ORDERS, output: target, check: true })).toBe(1);
    expect(stderr).toBe(`bqschema: ${target} does not exist; generate it with bqschema types -o ${target}\n`);
    expect(existsSync(target)).toBe(false);
    writeFileSync(target, renderTypes(ORDERS));
    expect(await run({ source: ORDERS, output: target, check: true })).toBe(0);
    writeFileSync(target, renderTypes(ORDERS) + '\n');
    stderr = '';
    expect(await run({ source: ORDERS, output: target, check: true })).toBe(1);
    expect(stderr).toBe(`bqschema: ${target} is out of date; regenerate it with bqschema types -o ${target}\n`);
    expect(readFileSync(target, 'utf8')).toBe(renderTypes(ORDERS) + '\n');
    await expect(run({ source: ORDERS, check: true })).rejects.toThrow('--check compares a file: give it with -o <file>');
  });

  it('a schema the validator cannot read is a one-line error naming its URN, and nothing is written', async () => {
    const target = join(dir, 'bq-types.ts');
    const bad = source({ 'urn:x:ok': true, 'urn:x:bad': 'string' });
    await expect(run({ source: bad, output: target })).rejects.toThrow(
      new GateError('types: urn:x:bad: a schema must be an object or a boolean, got the string "string"'),
    );
    expect(existsSync(target)).toBe(false);
  });

  it('a registry file that cannot be read is a one-line error', () => {
    mkdirSync(join(dir, 'schemas'));
    writeFileSync(join(dir, 'registry.json'), JSON.stringify({ schemas: [{ urn: 'urn:x:y', schema: 'schemas/missing.json' }] }));
    const registry = Registry.workingTree(join(dir, 'registry.json'));
    expect(() => renderTypes(sourceFromRegistry(registry))).toThrow(RegistryError);
  });
});

afterAll(() => vi.restoreAllMocks());
