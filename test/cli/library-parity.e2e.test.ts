import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { check, DirProvider, EnvelopeError, readEnvelope, RegistryError } from '../../src/index.js';
import { Registry } from '../../src/registry/index.js';
import { bq, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

// One registry, one verdict: every registry under examples/ and test/fixtures is read by the CLI
// (`validate`) and by the library (`DirProvider` + `readEnvelope` + `check`), and the two must
// agree message by message. The CLI's gates are strict (a malformed keyword fails its URN), so the
// library side runs with `strict: true` too; without it the library reports the same schemas as
// malformed warnings (checked below).

type Verdict = { status: 'valid' | 'invalid' | 'skipped' | 'error'; violations: Array<{ instancePath: string; keyword: string }> };

const REGISTRIES = [
  { manifest: 'registry.example.json', messages: ['examples/messages'] },
  { manifest: 'test/fixtures/cli/reg/registry.json', messages: ['test/fixtures/cli/messages'] },
  { manifest: 'test/fixtures/gdpr/registry.json', messages: ['test/fixtures/gdpr/messages'] },
  { manifest: 'test/fixtures/asyncapi/awkward/registry.json', messages: [] },
  { manifest: 'test/fixtures/asyncapi/invalid/registry.json', messages: [] },
  { manifest: 'test/fixtures/cli/bomb/registry.json', messages: [] },
  { manifest: 'test/fixtures/cli/outside/reg/registry.json', messages: [] },
  { manifest: 'test/fixtures/cli/syntax/json/registry.json', messages: [] },
  { manifest: 'test/fixtures/cli/syntax/jsonc/registry.json', messages: [] },
];

/** Every message file under the given directories, in the CLI's walk order. */
function messageFiles(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(json|ndjson|jsonl)$/i.test(name)) out.push(full);
    }
  };
  for (const d of dirs) walk(join(ROOT, d));
  return out;
}

/** The messages of a file as the CLI reads them: a whole file, or one per non-blank NDJSON line. */
function messagesOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  return /\.(ndjson|jsonl)$/i.test(file) ? text.split(/\r?\n/).filter((l) => l.trim() !== '') : [text];
}

/** The library's verdict on one message's text. */
function libraryVerdict(provider: DirProvider, text: string): Verdict {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 'error', violations: [] };
  }
  let urn: string;
  let data: unknown;
  try {
    ({ urn, data } = readEnvelope(value));
  } catch (err) {
    if (err instanceof EnvelopeError) return { status: 'invalid', violations: [{ instancePath: '(envelope)', keyword: 'envelope' }] };
    throw err;
  }
  try {
    if (provider.schemaFor(urn) === undefined) return { status: 'skipped', violations: [] };
  } catch (err) {
    if (err instanceof RegistryError) return { status: 'error', violations: [] };
    throw err;
  }
  const violations = check(provider, urn, data).map(({ instancePath, keyword }) => ({ instancePath, keyword }));
  return { status: violations.length === 0 ? 'valid' : 'invalid', violations };
}

describe.concurrent('CLI and library parity', () => {
  it.each(REGISTRIES)(
    '$manifest: every message gets the same verdict from validate and from DirProvider + check',
    async ({ manifest, messages }) => {
      const registryPath = join(ROOT, manifest);
      const files = messageFiles(messages);
      // Every registered URN also gets a message with empty data, so registries without messages are compared too.
      const urns = Registry.workingTree(registryPath).urns();
      const synthetic = urns.map((urn) => JSON.stringify({ job: urn, data: {} })).join('\n') + '\n';
      const cliRuns = await Promise.all([
        files.length > 0 ? bq(['validate', '--registry', registryPath, '--format', 'json', ...files]) : undefined,
        urns.length > 0
          ? bq(['validate', '--registry', registryPath, '--format', 'json', '--ndjson', '-'], { input: synthetic })
          : undefined,
      ]);
      const cli: Verdict[] = [];
      for (const run of cliRuns) {
        if (run === undefined) continue;
        expect(run.stderr).not.toMatch(/^ {4}at /m);
        const doc = JSON.parse(run.stdout) as { results: Array<Verdict & { violations: Verdict['violations'] }> };
        for (const r of doc.results)
          cli.push({ status: r.status, violations: r.violations.map(({ instancePath, keyword }) => ({ instancePath, keyword })) });
      }
      const provider = new DirProvider(registryPath, { strict: true, onWarning: () => {} });
      const library = [...files.flatMap(messagesOf), ...synthetic.split('\n').filter((l) => l !== '' && urns.length > 0)].map((t) =>
        libraryVerdict(provider, t),
      );
      expect(library.length).toBeGreaterThan(0);
      expect(cli).toEqual(library);
    },
  );

  it('the runtime reads every bundled example schema the CLI reads (JSON, JSONC and YAML)', () => {
    const provider = new DirProvider(join(ROOT, 'registry.example.json'), { onWarning: () => {} });
    expect(provider.urns()).toHaveLength(4);
    for (const urn of provider.urns()) expect(provider.schemaFor(urn), urn).toBeDefined();
    const files = provider.urns().map((u) => relative(ROOT, join(dirname(join(ROOT, 'registry.example.json')), provider.entry(u)!.schema)));
    expect(files.some((f) => f.endsWith('.yaml'))).toBe(true);
    expect(files.some((f) => f.endsWith('.jsonc'))).toBe(true);
  });

  it('a malformed keyword: the CLI fails it, strict DirProvider refuses it, lenient DirProvider warns (kind malformed), never silent', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:typo', schema: 't.yaml' }] }),
      't.yaml': 'type: object\nrequired: order_id\nproperties:\n  order_id: {type: integr}\n',
    });
    const manifest = join(dir, 'registry.json');
    const cli = await bq(['validate', '--registry', manifest, '--format', 'json', '--ndjson', '-'], {
      input: '{"job":"urn:t:typo","data":{}}\n',
    });
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout).results[0].status).toBe('error');
    expect(() => new DirProvider(manifest, { strict: true }).schemaFor('urn:t:typo')).toThrow(RegistryError);
    const warnings: Array<{ kind?: string; pointer: string; keyword: string }> = [];
    const lenient = new DirProvider(manifest, { onWarning: (w) => warnings.push(w) });
    expect(lenient.schemaFor('urn:t:typo')!.isValid({})).toBe(true); // no effect on a verdict (CLARIFICATIONS 8)...
    expect(warnings.map(({ kind, pointer, keyword }) => ({ kind, pointer, keyword }))).toEqual([
      // ...but reported
      { kind: 'malformed', pointer: '', keyword: 'required' },
      { kind: 'malformed', pointer: '/properties/order_id', keyword: 'type' },
    ]);
  });
});

afterAll(removeTempTrees);
