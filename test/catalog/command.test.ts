import { execFileSync } from 'node:child_process';
import {
  chmodSync,
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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildCatalog } from '../../src/catalog/index.js';
import { exitCodeFor, UsageError } from '../../src/cli/errors.js';
import { run, type CatalogRegistry } from '../../src/cli/commands/catalog.js';
import { exampleEntries } from '../helpers/catalog-example.js';

/** When set, renameSync fails as a full or failing disk would. */
const failRename = { on: false };
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    renameSync: (from: string, to: string) => {
      if (failRename.on) throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
      return fs.renameSync(from, to);
    },
  };
});

function registry(over: Partial<CatalogRegistry> = {}): CatalogRegistry {
  const entries = exampleEntries();
  const byUrn = new Map(entries.map((e) => [e.urn, e]));
  return {
    entries: entries.map(({ urn, owner, status, description }) => ({ urn, owner, status, description })),
    document: (urn) => byUrn.get(urn)!.schema,
    file: (urn) => byUrn.get(urn)!.file!,
    examples: (urn) => byUrn.get(urn)!.examples ?? [],
    ...over,
  };
}

let dir: string;
let stdout: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bq-catalog-'));
  stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  }) as typeof process.stdout.write);
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const leftovers = (): string[] => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

describe('bqschema catalog', () => {
  it('writes the catalog the builder makes, with a one-line summary', async () => {
    const out = join(dir, 'catalog.html');
    expect(await run({ registry: registry(), output: out, title: 'Orders & co' })).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(buildCatalog({ title: 'Orders & co', entries: exampleEntries() }));
    expect(stdout).toMatch(/^Wrote .*catalog\.html: 4 events, \d+ KB\n$/);
    expect(leftovers()).toEqual([]);
  });

  it('writes to stdout without -o', async () => {
    expect(await run({ registry: registry() })).toBe(0);
    expect(stdout).toBe(buildCatalog({ entries: exampleEntries() }));
  });

  it('passes the history the registry gives', async () => {
    const out = join(dir, 'c.html');
    const history = () => [{ commit: 'abc', date: '2026-11-30', subject: 'rename field', verdict: 'breaking' as const }];
    await run({ registry: registry({ history }), output: out });
    expect(readFileSync(out, 'utf8').match(/<h3>Compat history<\/h3>/g)).toHaveLength(4);
  });

  it('replaces a regular file and keeps its mode', async () => {
    const out = join(dir, 'c.html');
    writeFileSync(out, 'old');
    chmodSync(out, 0o640);
    await run({ registry: registry(), output: out });
    expect(readFileSync(out, 'utf8')).toContain('<!DOCTYPE html>');
    expect(statSync(out).mode & 0o777).toBe(0o640);
  });

  it('refuses a directory or a FIFO as target and writes nothing; writes through a symbolic link, which stays a link', async () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    await expect(run({ registry: registry(), output: sub })).rejects.toThrow(
      /^cannot write .*sub: it is a directory; nothing was written$/,
    );
    const real = join(dir, 'real.html');
    writeFileSync(real, 'keep');
    const link = join(dir, 'link.html');
    symlinkSync(real, link);
    await run({ registry: registry(), output: link });
    expect(readFileSync(real, 'utf8')).toContain('<!DOCTYPE html>');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(run({ registry: registry(), output: fifo })).rejects.toThrow(
      /it is not a regular file \(a device, FIFO or socket\); nothing was written$/,
    );
    expect(leftovers()).toEqual([]);
  });

  it('reports a missing directory in one line and leaves no temporary file', async () => {
    const err = await run({ registry: registry(), output: join(dir, 'nope', 'c.html') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/^cannot write .*c\.html: the directory .*nope does not exist; nothing was written$/);
    expect(exitCodeFor(err)).toBe(2);
  });

  it('removes the temporary file when the rename fails', async () => {
    const out = join(dir, 'c.html');
    failRename.on = true;
    const err = await run({ registry: registry(), output: out }).catch((e: unknown) => e);
    failRename.on = false;
    expect((err as Error).message).toBe(`cannot write ${out}: EIO: i/o error, rename; nothing was written`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops on a schema the registry cannot read, naming the URN, before writing', async () => {
    const out = join(dir, 'c.html');
    const err = await run({
      registry: registry({
        document: (urn) => {
          throw new Error(`bad.yaml:3:1: unexpected token (${urn})`);
        },
      }),
      output: out,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('urn:babel:orders:created: bad.yaml:3:1: unexpected token (urn:babel:orders:created)');
    expect(readdirSync(dir)).toEqual([]);
  });
});
