import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleAsyncApi, validateAsyncApi, type CatalogEntry, type Origin } from '../../src/asyncapi/index.js';
import { parseText } from '../../src/registry/parse.js';
import { parsePointer } from '../../src/validator/index.js';
import { differs, SchemaSources } from '../helpers/asyncapi-meaning.js';
import { expectRun, guardRepo, listing, removeTrees, ROOT, run, tree, type Run } from '../helpers/hostile.js';

// export-asyncapi on registries whose schemas use `$ref` and names AsyncAPI tools cannot read, each
// document read by @asyncapi/parser, the reader the export is for: a written document is read
// with no error and means what the registry means (./helpers/asyncapi-meaning.ts follows the
// registry's references itself); a refused one is one @asyncapi/parser rejects or misreads.
//
// BQ_ASYNCAPI_RUNS=<n> runs more generated registries (four a run, parsed together), BQ_ASYNCAPI_SEED=<n> another seed.

const RUNS = Number(process.env['BQ_ASYNCAPI_RUNS'] ?? 12);
const SEED = Number(process.env['BQ_ASYNCAPI_SEED'] ?? 20250137);

const REFS = join(ROOT, 'test', 'fixtures', 'asyncapi', 'refs');

afterAll(removeTrees);

type Parsed = {
  errors: string[];
  /** Where each error is, as `errors` lists them. */
  errorPaths: Array<Array<string | number>>;
  payloads: Map<string, unknown>;
  components: Map<string, unknown>;
};

let parserPromise:
  | Promise<{
      parse(text: string): Promise<{
        document?: any;
        diagnostics: Array<{ severity: number; code: string | number; message: string; path: Array<string | number> }>;
      }>;
    }>
  | undefined;
/** @asyncapi/parser, loaded once (it is slow to load). */
function parser() {
  parserPromise ??= import('@asyncapi/parser').then(({ Parser }) => new Parser());
  return parserPromise;
}

/** What @asyncapi/parser reads: its error diagnostics, each message's payload schema by name, the component keys. */
async function parse(text: string): Promise<Parsed> {
  const { document, diagnostics } = await (await parser()).parse(text);
  const errorDiagnostics = diagnostics.filter((d) => d.severity === 0);
  const errors = errorDiagnostics.map((d) => `${d.code}: ${d.message} at /${d.path.join('/')}`);
  const payloads = new Map<string, unknown>();
  const components = new Map<string, unknown>();
  if (document !== undefined) {
    for (const message of document.messages().all())
      payloads.set(message.name(), (message.payload()!.json() as { schema: unknown }).schema);
    for (const schema of document.components().schemas().all()) {
      // A Multi Format Schema Object (a boolean schema) holds its schema; a Schema Object is one.
      const json = schema.json() as Record<string, unknown>;
      components.set(schema.id(), Object.prototype.hasOwnProperty.call(json, 'schemaFormat') ? json.schema : json);
    }
  }
  return { errors, errorPaths: errorDiagnostics.map((d) => d.path), payloads, components };
}

interface Manifest {
  schemas: Array<{ urn: string; schema: string; owner?: string; status?: string; description?: string }>;
}

/** The registry's entries as the test reads them (its own reading: JSON.parse keeps a "__proto__" key). */
function entriesOf(manifest: string): Array<CatalogEntry & { file: string }> {
  const dir = join(manifest, '..');
  const m = JSON.parse(readFileSync(manifest, 'utf8')) as Manifest;
  const sources = new SchemaSources();
  return m.schemas.map((e) => {
    const file = join(dir, e.schema);
    return { ...e, file, schema: sources.root(file) };
  });
}

/**
 * Every payload the parser read means what its registry schema means, and every component what the
 * place it was copied from (`origins`, as the export says) means; the first difference otherwise.
 */
function meaningDiffers(
  read: Parsed,
  entries: ReadonlyArray<{ urn: string; schema: unknown; file: string }>,
  sources: SchemaSources,
  origins: readonly Origin[] = [],
): string | undefined {
  for (const e of entries) {
    if (!read.payloads.has(e.urn)) return `${e.urn}: no message read`;
    const d = differs(read.payloads.get(e.urn), e.schema, e.file, sources);
    if (d !== undefined) return `${e.urn}${d}`;
  }
  for (const o of origins) {
    const [section, , key] = parsePointer(o.at);
    if (section !== 'components') continue;
    if (!read.components.has(key!)) return `component ${key}: not read`;
    const from = sources.deref(
      {
        $ref:
          '#' +
          parsePointer(o.pointer)
            .map((t) => '/' + enc(t))
            .join(''),
      },
      o.file!,
    );
    if (from === undefined) return `component ${key}: its origin ${o.pointer} is not in ${o.file}`;
    const d = differs(read.components.get(key!), from.value, from.file, sources);
    if (d !== undefined) return `component ${key}${d}`;
  }
  return undefined;
}

/**
 * How @asyncapi/parser reads the document each group of entries makes, without the files they refer
 * to: undefined when it reads it as the registry means it, else why not (its first error, or the
 * first difference in meaning). A parse costs ~0.3 s whatever the document's size, so the groups
 * are read together, their URNs set apart: an error is the group's whose channel, operation or
 * component it is at; the groups without one are read together again (the parser may report one
 * error for two groups), until a reading has no error and gives each group's meaning. An error at a
 * place no group owns sends the groups of that reading to be parsed alone; `alone` are the groups
 * known to stop the parser on the whole document (an uncaught error, an error at no place), read
 * alone from the start. `sources` holds the files the entries name (default: read from disk).
 */
async function readEach(
  groups: ReadonlyArray<ReadonlyArray<CatalogEntry & { file: string }>>,
  { alone = new Set<number>(), sources = new SchemaSources() }: { alone?: ReadonlySet<number>; sources?: SchemaSources } = {},
): Promise<Array<string | undefined>> {
  const verdicts = new Map<number, string | undefined>();
  let pending = groups.map((_, g) => g).filter((g) => !alone.has(g));
  // Each reading with errors judges at least one group, so this ends.
  while (pending.length > 0) {
    const groupOf = new Map<string, number>();
    const entries = pending.flatMap((g) =>
      groups[g]!.map((e, j) => {
        const urn = `urn:group${g}:${j}`;
        groupOf.set(urn, g);
        return { ...e, urn };
      }),
    );
    const { document, origins } = assembleAsyncApi(entries);
    const read = await parse(JSON.stringify(document));
    const owner = new Map<string, number | undefined>();
    const channels = (document as { channels?: Record<string, { address: string }> }).channels ?? {};
    for (const [key, channel] of Object.entries(channels)) {
      owner.set(`channels/${key}`, groupOf.get(channel.address));
      owner.set(`operations/${key}`, groupOf.get(channel.address));
    }
    for (const o of origins) {
      const [section, kind, key] = parsePointer(o.at);
      if (section === 'components') owner.set(`${section}/${kind}/${key}`, groupOf.get(o.urn));
    }
    const errored = new Map<number, string>();
    let stray = false;
    read.errorPaths.forEach((path, i) => {
      const g = owner.get(path.slice(0, 2).join('/')) ?? owner.get(path.slice(0, 3).join('/'));
      if (g === undefined) stray = true;
      else if (!errored.has(g)) errored.set(g, read.errors[i]!);
    });
    if (stray) break;
    for (const [g, error] of errored) verdicts.set(g, `rejected: ${error}`);
    pending = pending.filter((g) => !errored.has(g));
    if (read.errors.length === 0) {
      for (const g of pending)
        verdicts.set(
          g,
          meaningDiffers(
            read,
            entries.filter((e) => groupOf.get(e.urn) === g),
            sources,
            origins.filter((o) => groupOf.get(o.urn) === g),
          ),
        );
      pending = [];
    }
  }
  for (const g of [...pending, ...alone]) {
    const { document, origins } = assembleAsyncApi(groups[g]!);
    const read = await parse(JSON.stringify(document));
    verdicts.set(g, read.errors.length > 0 ? `rejected: ${read.errors[0]}` : meaningDiffers(read, groups[g]!, sources, origins));
  }
  return groups.map((_, g) => verdicts.get(g));
}

/** The fixture's files as the CLI reads them (what a $ref names, from the file holding it). */
const fixtureFiles = {
  load(from: string, path: string) {
    const file = join(from, '..', path);
    return { file, name: file.slice(REFS.length + 1), value: new SchemaSources().root(file) };
  },
};

describe('export-asyncapi: references rewritten into the document', { timeout: 120_000 }, () => {
  const out = tree();
  let json: string;
  let yaml: string;
  let wrote: string;

  beforeAll(async () => {
    const a = await run(['export-asyncapi', '-r', join(REFS, 'registry.json'), '-o', join(out, 'refs.json')], {
      cwd: ROOT,
      timeoutMs: 60_000,
    });
    expectRun(a, 0);
    wrote = a.stdout;
    const b = await run(['export-asyncapi', '-r', join(REFS, 'registry.json'), '-o', join(out, 'refs.yaml')], {
      cwd: ROOT,
      timeoutMs: 60_000,
    });
    expectRun(b, 0);
    json = readFileSync(join(out, 'refs.json'), 'utf8');
    yaml = readFileSync(join(out, 'refs.yaml'), 'utf8');
  }, 150_000);

  it('local, $defs, recursive, root, percent-encoded and cross-file references: the parser reads JSON and YAML with no error, and each payload means what the registry says', async () => {
    expect(wrote).toBe(`Wrote ${join(out, 'refs.json')}: AsyncAPI 3.0.0, JSON, 3 channels, 11 shared schemas in components\n`);
    const entries = entriesOf(join(REFS, 'registry.json'));
    const { origins } = assembleAsyncApi(entries, { files: fixtureFiles });
    for (const text of [json, yaml]) {
      const read = await parse(text);
      expect(read.errors).toEqual([]);
      expect(meaningDiffers(read, entries, new SchemaSources(), origins)).toBeUndefined();
      expect([...read.components.keys()].sort()).toEqual([
        'schemas_common.address',
        'schemas_common.country',
        'schemas_shared_money',
        'schemas_shared_tracking.code',
        'urn_refs_orders_created.any',
        'urn_refs_orders_created.caf__cr_me',
        'urn_refs_orders_created.eur_cent_s',
        'urn_refs_orders_created.line',
        'urn_refs_orders_created.money',
        'urn_refs_orders_created.node',
        'urn_refs_orders_created.note_text',
      ]);
    }
  });

  it('every reference names a place in the document; definitions move to components; a schema without $ref is carried verbatim', () => {
    const doc = JSON.parse(json);
    const refs = [...json.matchAll(/"\$ref": "([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(ref).toMatch(/^#\/(channels|components)\//);
    const created = doc.channels.urn_refs_orders_created.messages.urn_refs_orders_created.payload.schema;
    expect(created.definitions).toBeUndefined();
    expect(created.$defs).toBeUndefined();
    expect(created.properties.total).toEqual({ $ref: '#/components/schemas/urn_refs_orders_created.money' });
    expect(doc.components.schemas['urn_refs_orders_created.money']).toEqual(
      JSON.parse(readFileSync(join(REFS, 'schemas', 'order.json'), 'utf8')).definitions.money,
    );
    // A component is a Schema Object, but `true` and `false`, which cannot be one: a draft-07 Multi Format Schema Object, as a payload is.
    expect(doc.components.schemas['urn_refs_orders_created.any']).toEqual({
      schemaFormat: 'application/schema+json;version=draft-07',
      schema: true,
    });
    expect(created.properties.anything).toEqual({ $ref: '#/components/schemas/urn_refs_orders_created.any/schema' });
    // A reference to a schema that is only a reference goes to the end of the chain.
    expect(created.properties['legacy total'].$ref).toBe('#/components/schemas/urn_refs_orders_created.money');
    expect(created.properties.parent.$ref).toBe('#/channels/urn_refs_orders_created/messages/urn_refs_orders_created/payload/schema');
    // A pointer through a name with a space or non-ASCII letters is percent-encoded.
    expect(doc.channels.urn_refs_orders_shipped.messages.urn_refs_orders_shipped.payload.schema.properties.order_id.$ref).toBe(
      '#/channels/urn_refs_orders_created/messages/urn_refs_orders_created/payload/schema/properties/order_id',
    );
    const plain = doc.channels.urn_refs_plain.messages.urn_refs_plain.payload.schema;
    expect(plain).toEqual(JSON.parse(readFileSync(join(REFS, 'schemas', 'plain.json'), 'utf8')));
  });

  it('the same registry gives the same bytes whatever the order of its entries', () => {
    const entries = entriesOf(join(REFS, 'registry.json'));
    const a = JSON.stringify(assembleAsyncApi(entries, { files: fixtureFiles }).document, null, 2) + '\n';
    const b = JSON.stringify(assembleAsyncApi([...entries].reverse(), { files: fixtureFiles }).document, null, 2) + '\n';
    expect(b).toBe(a);
    expect(a).toBe(json);
  });
});

describe('export-asyncapi on every registry in the repository, and on the one init scaffolds', { timeout: 300_000 }, () => {
  it('a registry it writes, @asyncapi/parser reads with no error, as the registry means it; one it refuses, it writes nothing for', async () => {
    const manifests = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /(^|\/)registry[^/]*\.(json|jsonc|ya?ml)$/.test(f) && !f.endsWith('registry.schema.json'))
      .map((f) => join(ROOT, f))
      // The first describe exports this one (JSON and YAML), has both parsed, and checks each
      // payload's and component's meaning: a third export and parse here would prove nothing more.
      .filter((f) => f !== join(REFS, 'registry.json'));
    const scaffold = tree();
    expectRun(await run(['init', scaffold], { cwd: scaffold }), 0);
    manifests.push(join(scaffold, 'registry.json'));
    expect(manifests.length).toBeGreaterThan(10);
    const out = tree();
    let written = 0;
    for (const [i, manifest] of manifests.entries()) {
      const target = join(out, `${i}.json`);
      const r = await run(['export-asyncapi', '-r', manifest, '-o', target], { cwd: ROOT, timeoutMs: 60_000 });
      if (r.code !== 0) {
        expect(r.stdout, manifest).toBe('');
        expect(listing(out), manifest).not.toContain(`${i}.json`);
        continue;
      }
      written++;
      expect(r.stdout, manifest).toMatch(/^Wrote /);
      const read = await parse(readFileSync(target, 'utf8'));
      expect(read.errors, manifest).toEqual([]);
      // The registry's own reading of its files (JSONC and YAML included), followed by the test's resolver.
      const m = parseText(readFileSync(manifest, 'utf8'), manifest) as Manifest;
      const sources = new SchemaSources({}, (text, file) => parseText(text, file));
      const entries = m.schemas.map((e) => {
        const file = join(manifest, '..', e.schema);
        return { urn: e.urn, file, schema: sources.root(file) };
      });
      expect(meaningDiffers(read, entries, sources), manifest).toBeUndefined();
    }
    expect(written).toBeGreaterThanOrEqual(5); // the refs fixture, the sixth, is the first describe's
  });
});

/**
 * Registries export-asyncapi refuses, each with one problem. The document as it would have been
 * (the schema carried as the registry holds it) the parser must reject or misread, which is why it
 * is refused. `stopsParser`: the parser fails on that whole document, not at its schema, so the
 * test reads it alone (see readEach).
 */
const HOSTILE: Array<{ name: string; files: Record<string, string>; line: RegExp; stopsParser?: true }> = [
  {
    name: 'a property named __proto__',
    files: { 's.json': '{"type":"object","properties":{"__proto__":{"type":"string"},"id":{"type":"string"}}}' },
    line: /^bqschema: s\.json:1:44: urn:h:x: \/properties\/__proto__: the key "__proto__" is lost by AsyncAPI tools .*; rename it; the AsyncAPI document was not written$/,
  },
  {
    name: '__proto__ inside a default value',
    files: { 's.json': '{"type":"object","default":{"__proto__":{"admin":true}}}' },
    line: /^bqschema: s\.json:1:41: urn:h:x: \/default\/__proto__: the key "__proto__" is lost/,
  },
  {
    name: 'a property named hasOwnProperty',
    stopsParser: true,
    files: { 's.json': '{"type":"object","properties":{"hasOwnProperty":{"type":"string"}}}' },
    line: /^bqschema: s\.json:1:\d+: urn:h:x: \/properties\/hasOwnProperty: the key "hasOwnProperty" stops AsyncAPI tools/,
  },
  {
    name: 'a property named $ref',
    stopsParser: true,
    files: { 's.yaml': 'type: object\nproperties:\n  $ref:\n    type: string\n' },
    line: /^bqschema: s\.yaml:4:5: urn:h:x: \/properties\/\$ref: the key "\$ref" here is not a reference, but AsyncAPI tools read every "\$ref" key as one/,
  },
  {
    name: '$ref inside examples',
    files: { 's.json': '{"type":"object","examples":[{"$ref":"#/info"}]}' },
    line: /^bqschema: s\.json:1:\d+: urn:h:x: \/examples\/0\/\$ref: the key "\$ref" here is not a reference/,
  },
  {
    name: 'a "<<" property (a YAML merge key)',
    files: { 's.json': '{"type":"object","properties":{"<<":{"type":"string"}}}' },
    line: /^bqschema: s\.json:1:\d+: urn:h:x: \/properties\/<<: the key "<<" is read as a YAML merge key by AsyncAPI tools/,
  },
  {
    name: 'a $ref that is not a string',
    files: { 's.json': '{"type":"object","properties":{"a":{"$ref":5}}}' },
    line: /^bqschema: s\.json:1:\d+: urn:h:x: \/properties\/a\/\$ref: "\$ref" must be a string \(a URI reference\), got a number/,
  },
  {
    name: 'a $ref to a definition that does not exist',
    files: { 's.json': '{"type":"object","properties":{"a":{"$ref":"#/definitions/mony"}},"definitions":{"money":{"type":"integer"}}}' },
    line: /^bqschema: s\.json:1:\d+: urn:h:x: \/properties\/a\/\$ref: the \$ref "#\/definitions\/mony" points at nothing: this schema has no \/definitions\/mony; the AsyncAPI document was not written$/,
  },
  {
    name: 'a $ref to an anchor',
    stopsParser: true,
    files: { 's.json': '{"type":"object","properties":{"a":{"$ref":"#money"}},"definitions":{"money":{"$id":"#money","type":"integer"}}}' },
    line: /the \$ref "#money" names an anchor: only JSON Pointer fragments .* are bundled/,
  },
  {
    name: 'a $ref to another location (http)',
    files: { 's.json': '{"type":"object","properties":{"a":{"$ref":"http://127.0.0.1:9/money.json"}}}' },
    line: /the \$ref "http:\/\/127\.0\.0\.1:9\/money\.json" names another location: references are bundled only from the registry's own files/,
  },
  {
    name: 'a $ref to a file that does not exist',
    files: { 's.json': '{"type":"object","properties":{"a":{"$ref":"common.json#/definitions/money"}}}' },
    line: /^bqschema: s\.json:1:\d+: urn:h:x: \/properties\/a\/\$ref: the \$ref "common\.json#\/definitions\/money" cannot be followed: the file not found: .*common\.json; the AsyncAPI document was not written$/,
  },
  {
    name: 'a $ref through an empty property name',
    files: { 's.json': '{"type":"object","properties":{"":{"type":"integer"},"a":{"$ref":"#/properties/"}}}' },
    line: /the \$ref "#\/properties\/" passes through an empty name, which AsyncAPI tools misread/,
  },
  {
    name: 'a __proto__ in a file another schema refers to',
    files: {
      's.json': '{"type":"object","properties":{"a":{"$ref":"common.json#/definitions/a"}}}',
      'common.json': '{"definitions":{"a":{"type":"object","properties":{"__proto__":{"type":"string"}}}}}',
    },
    line: /^bqschema: common\.json:1:\d+: urn:h:x: \/definitions\/a\/properties\/__proto__: the key "__proto__" is lost/,
  },
];

describe('export-asyncapi: what AsyncAPI tools cannot read is refused before writing, in one line', { timeout: 180_000 }, () => {
  guardRepo();

  // One run over a registry holding every case, case i's files in c<i>/ under URN urn:h:x<i>: each
  // problem is its own line naming its file and URN (every case is a bundling problem, so none
  // hides another), and the count says each was counted as one. A lone problem's line ("; the
  // AsyncAPI document was not written") is shown by the tests below. One process instead of 13.
  let merged: Promise<{ r: Run; dir: string; before: string[] }> | undefined;
  const all = (): Promise<{ r: Run; dir: string; before: string[] }> =>
    (merged ??= (async () => {
      const files: Record<string, string> = { 'out.json': 'previous\n' };
      const schemas = HOSTILE.map((c, i) => {
        for (const [name, text] of Object.entries(c.files)) files[`c${i}/${name}`] = text;
        return { urn: `urn:h:x${i}`, schema: `c${i}/${Object.keys(c.files)[0]}` };
      });
      const dir = tree({ ...files, 'registry.json': JSON.stringify({ schemas }) });
      const before = listing(dir);
      return { r: await run(['export-asyncapi', '-o', 'out.json'], { cwd: dir, timeoutMs: 30_000 }), dir, before };
    })());

  it('every case at once: exit 1, one line a problem, then the count; nothing written, nothing else changed', async () => {
    const { r, dir, before } = await all();
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/^ {4}at |internal error/m);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(HOSTILE.length + 1);
    expect(lines.at(-1)).toBe(`bqschema: the AsyncAPI document has ${HOSTILE.length} problems; nothing was written`);
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe('previous\n');
    expect(listing(dir)).toEqual(before);
  });

  HOSTILE.forEach((c, i) => {
    it(c.name, async () => {
      const { r } = await all();
      const mine = r.stderr.split('\n').filter((l) => l.includes(` urn:h:x${i}: `));
      expect(mine, r.stderr).toHaveLength(1);
      const line = new RegExp(
        c.line.source
          .replace(/^\^bqschema: /, `^bqschema: c${i}/`)
          .replace('urn:h:x:', `urn:h:x${i}:`)
          .replace('; the AsyncAPI document was not written$', '$'),
      );
      expect(mine[0]).toMatch(line);
    });
  });

  it('each of these documents as it would have been: @asyncapi/parser rejects it, or reads something else', async () => {
    const groups = HOSTILE.map((c) => {
      const dir = tree({ 'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:h:x', schema: Object.keys(c.files)[0] }] }), ...c.files });
      return entriesOf(join(dir, 'registry.json'));
    });
    const verdicts = await readEach(groups, { alone: new Set(HOSTILE.flatMap((c, i) => (c.stopsParser ? [i] : []))) });
    HOSTILE.forEach((c, i) =>
      expect(verdicts[i], `${c.name}: the parser read the refused document as the registry means it`).toBeDefined(),
    );
  });

  it('several problems: one line each, then the count', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:h:a', schema: 'a.json' },
          { urn: 'urn:h:b', schema: 'b.json' },
        ],
      }),
      'a.json': '{"properties":{"__proto__":{},"b":{"$ref":"#/nope"}}}',
      'b.json': '{"properties":{"hasOwnProperty":{}}}',
    });
    const r = await run(['export-asyncapi'], { cwd: dir, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^bqschema: a\.json:1:28: urn:h:a: \/properties\/__proto__: the key "__proto__"/),
      expect.stringMatching(/^bqschema: b\.json:1:33: urn:h:b: \/properties\/hasOwnProperty: the key "hasOwnProperty"/),
      expect.stringMatching(/^bqschema: a\.json:1:\d+: urn:h:a: \/properties\/b\/\$ref: the \$ref "#\/nope" points at nothing/),
      'bqschema: the AsyncAPI document has 3 problems; nothing was written',
    ]);
  });

  it('a $ref out of the registry directory is refused before the file is opened', async () => {
    const outer = tree({ 'secret.json': '{"type":"string"}' });
    const dir = join(outer, 'reg');
    execFileSync('mkdir', [dir]);
    writeFileSync(join(dir, 'registry.json'), JSON.stringify({ schemas: [{ urn: 'urn:h:x', schema: 's.json' }] }));
    writeFileSync(join(dir, 's.json'), '{"properties":{"a":{"$ref":"../secret.json"}}}');
    const r = await run(['export-asyncapi'], { cwd: dir, watchOpens: true, timeoutMs: 30_000 });
    expectRun(
      r,
      1,
      /^bqschema: s\.json:1:\d+: urn:h:x: \/properties\/a\/\$ref: the \$ref "\.\.\/secret\.json" cannot be followed: \.\.\/secret\.json is outside the registry directory \(use --allow-outside-paths to permit it\); the AsyncAPI document was not written$/,
    );
    expect(r.opened.filter((p) => p.endsWith('secret.json'))).toEqual([]);
    const allowed = await run(['export-asyncapi', '--allow-outside-paths'], { cwd: dir, timeoutMs: 30_000 });
    expectRun(allowed, 0);
    expect(JSON.parse(allowed.stdout).components.schemas).toEqual({ '.._secret': { type: 'string' } });
  });

  it('a $ref to a FIFO is refused, not waited on; -o onto a file a $ref names is refused (exit 2)', async () => {
    const dir = tree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: 'urn:h:x', schema: 's.json' },
          { urn: 'urn:h:y', schema: 't.json' },
        ],
      }),
      's.json': '{"properties":{"a":{"$ref":"fifo.json"}}}',
      't.json': '{"properties":{"a":{"$ref":"common.json#/definitions/a"}}}',
      'common.json': '{"definitions":{"a":{"type":"string"}}}',
    });
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    const fifo = await run(['export-asyncapi'], { cwd: dir, timeoutMs: 15_000 });
    expectRun(
      fifo,
      1,
      /the \$ref "fifo\.json" cannot be followed: the file is not a regular file: fifo\.json; the AsyncAPI document was not written$/,
    );
    writeFileSync(join(dir, 's.json'), '{"type":"object"}');
    const onto = await run(['export-asyncapi', '-o', 'common.json'], { cwd: dir, timeoutMs: 15_000 });
    expectRun(
      onto,
      2,
      /^bqschema: refusing to write common\.json: it is a schema file a \$ref names \(common\.json\); choose another path$/,
    );
    expect(readFileSync(join(dir, 'common.json'), 'utf8')).toBe('{"definitions":{"a":{"type":"string"}}}');
  });
});

// Generated registries: definitions with awkward names referring to each other, to the root and to
// properties, with references that cannot be followed and names no AsyncAPI tool reads mixed in.
const NAMES = ['a', 'money', 'b c', 'x/y', 't~0', 'café', '0', 'a%b', '#?', 'constructor', 'toString'];
const UNREADABLE_NAMES = ['__proto__', 'hasOwnProperty', '$ref', '<<'];
/** A JSON Pointer token as a `$ref` fragment writes it: escaped, then percent-encoded where a URI needs it. */
const enc = (t: string): string => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'));

/** One thing AsyncAPI tools cannot read, put into a generated schema. */
const HOSTILE_EDITS: Array<(schema: Record<string, any>) => void> = [
  ...UNREADABLE_NAMES.map(
    (n) => (s: Record<string, any>) =>
      Object.defineProperty(s.properties, n, { value: { type: 'string' }, enumerable: true, writable: true, configurable: true }),
  ),
  (s) => (s.examples = [{ $ref: '#/info' }]),
  (s) => (s.properties['%41'] = { type: 'object', properties: { r: { $ref: '#' } } }),
  (s) => (s.properties.broken = { $ref: '#/definitions/missing' }),
  (s) => {
    s.properties[''] = { type: 'integer' };
    s.properties.empty = { $ref: '#/properties/' };
  },
];

function registryArb(): fc.Arbitrary<Array<{ urn: string; schema: unknown }>> {
  const name = fc.constantFrom(...NAMES);
  const schemaOf = (defs: string[], props: string[]): fc.Arbitrary<unknown> => {
    const ref = fc.oneof(
      { weight: 6, arbitrary: defs.length === 0 ? fc.constant('#') : fc.constantFrom(...defs).map((d) => `#/definitions/${enc(d)}`) },
      { weight: 1, arbitrary: fc.constant('#') },
      { weight: 2, arbitrary: fc.constantFrom(...props).map((p) => `#/properties/${enc(p)}`) },
    );
    const leaf = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom<unknown>({ type: 'string' }, { type: 'integer', minimum: 0 }, true, { enum: ['x', 1] }) },
      { weight: 2, arbitrary: ref.map((r) => ({ $ref: r })) },
    );
    return fc.letrec<{ s: unknown }>((tie) => ({
      s: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.dictionary(name, tie('s'), { maxKeys: 3 }).map((properties) => ({ type: 'object', properties })),
        tie('s').map((items) => ({ type: 'array', items })),
      ),
    })).s;
  };
  return fc
    .array(fc.tuple(fc.uniqueArray(name, { maxLength: 4 }), fc.uniqueArray(name, { minLength: 1, maxLength: 3 })), {
      minLength: 1,
      maxLength: 3,
    })
    .chain((shapes) =>
      fc.tuple(
        ...shapes.map(([defs, props]) =>
          fc
            .tuple(
              fc.tuple(...defs.map(() => schemaOf(defs, props))),
              fc.tuple(...props.map(() => schemaOf(defs, props))),
              fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat(HOSTILE_EDITS.length - 1) }),
            )
            .map(([defSchemas, propSchemas, hostile]) => {
              const schema: Record<string, any> = {
                type: 'object',
                properties: Object.fromEntries(props.map((p, i) => [p, propSchemas[i]])),
              };
              if (defs.length > 0) schema.definitions = Object.fromEntries(defs.map((d, i) => [d, defSchemas[i]]));
              if (hostile !== null) HOSTILE_EDITS[hostile]!(schema);
              return schema;
            }),
        ),
      ),
    )
    .map((schemas) => schemas.map((schema, i) => ({ urn: `urn:gen:${i}`, schema })));
}

describe('generated registries', () => {
  // BATCH registries a run: their documents are read by the parser together (see readEach).
  const BATCH = 4;
  it(
    `${RUNS} registries: an exported document is read as the registry means it; a refused one is rejected or misread by @asyncapi/parser`,
    { timeout: Math.max(120_000, RUNS * 6_000) },
    async () => {
      let written = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(registryArb(), { minLength: BATCH, maxLength: BATCH }), async (registries) => {
          const made = await Promise.all(
            registries.map(async (generated, b) => {
              const entries = generated.map((e) => ({ ...e, file: `/mem/${b}/${e.urn}.json` }));
              const { document, issues } = assembleAsyncApi(entries);
              return { entries, problems: issues.length > 0 ? issues : await validateAsyncApi(document) };
            }),
          );
          const sources = new SchemaSources(Object.fromEntries(made.flatMap((m) => m.entries.map((e) => [e.file, e.schema]))));
          const ok = made.filter((m) => m.problems.length === 0);
          const refusing = made.filter((m) => m.problems.length > 0);
          written += ok.length;
          refused += refusing.length;
          // Written: the parser reads each as the registry means it.
          const reads = await readEach(
            ok.map((m) => m.entries),
            { sources },
          );
          ok.forEach((m, i) => expect(reads[i], JSON.stringify(m.entries)).toBeUndefined());
          // Refused: the document, as far as it could be made, is one the parser rejects or misreads.
          // The one refusal that is knowingly wider than the parser's misreading: a name with a
          // percent escape on a reference's way is misread unless the reference leads back to an
          // ancestor (the parser leaves a cycle unresolved), which the export does not try to tell.
          const strict = refusing.filter((m) => !m.problems.every((p) => p.message.startsWith('this $ref sits under the name')));
          if (process.env['BQ_ASYNCAPI_DEBUG']) for (const m of refusing) console.log(m.problems.map((p) => p.message).join('\n'));
          const misreads = await readEach(
            strict.map((m) => m.entries),
            { sources },
          );
          strict.forEach((m, i) =>
            expect(misreads[i], `refused for ${JSON.stringify(m.problems[0])}, but the parser reads it`).toBeDefined(),
          );
        }),
        { numRuns: Math.ceil(RUNS / BATCH), seed: SEED },
      );
      console.log(`generated registries: ${written} written, ${refused} refused`);
      expect(written).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    },
  );
});
