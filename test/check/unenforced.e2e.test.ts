// Reviewed noise: the manifest's `unenforced` acknowledges unsupported keywords,
// registry-wide or per URN. An acknowledged keyword warns no more in text, annotations, CI reports
// or on stderr, but stays in `check --format json` (and is counted); the others are grouped, one
// finding per URN and keyword; check ends with one line counting what is not enforced and naming
// the subtrees ($ref, allOf, …) not checked at all.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DirProvider } from '../../src/index.js';
import type { SchemaWarning } from '../../src/validator/index.js';
import { junitCases, readGithub, readJunit, readSarif } from '../helpers/ci-formats.js';
import { bq, expectExit, expectOneLineError, removeTempTrees, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

// orders: format (acknowledged for every URN), pattern ×2 (acknowledged on its entry), a $ref;
// users: pattern ×3 (not acknowledged there), an allOf.
const ORDER = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', pattern: '@' },
    sku: { type: 'string', pattern: '^[A-Z]' },
    address: { $ref: '#/definitions/address' },
  },
  definitions: { address: { type: 'object', required: ['city'] } },
};
const USER = {
  type: 'object',
  allOf: [{ required: ['id'] }],
  properties: { a: { type: 'string', pattern: 'a' }, b: { type: 'string', pattern: 'b' }, c: { type: 'string', pattern: 'c' } },
};
const manifest = (acknowledge: boolean): string =>
  JSON.stringify(
    {
      ...(acknowledge ? { unenforced: ['format'] } : {}),
      schemas: [
        { urn: 'urn:t:order', schema: 'order.json', ...(acknowledge ? { unenforced: ['pattern'] } : {}) },
        { urn: 'urn:t:user', schema: 'user.json' },
      ],
    },
    null,
    2,
  );
const tree = (acknowledge: boolean): string =>
  tempTree({
    'registry.json': manifest(acknowledge),
    'order.json': JSON.stringify(ORDER, null, 2),
    'user.json': JSON.stringify(USER, null, 2),
    'm.ndjson': '{"job":"urn:t:order","data":{"email":"x","sku":"A"}}\n{"job":"urn:t:user","data":{"id":1}}\n',
  });

interface Issue {
  rule: string;
  urn?: string;
  keyword?: string;
  pointer: string;
  acknowledged?: true;
}
interface CheckJson {
  ok: boolean;
  summary: Record<string, number>;
  errors: Issue[];
  warnings: Issue[];
  acknowledged: Issue[];
}

describe('the manifest acknowledges unsupported keywords', () => {
  it('an acknowledged keyword is not warned about in text, annotations, SARIF, JUnit or markdown; JSON keeps it, acknowledged', async () => {
    const dir = tree(true);
    const [text, gh, json, sarif, junit, md] = await Promise.all(
      ['text', 'github', 'json', 'sarif', 'junit', 'markdown'].map((f) => bq(['check', '--format', f], { cwd: dir })),
    );
    for (const r of [text, gh, json, sarif, junit, md]) expectExit(r!, 0);
    // Only orders' format and pattern sit at /properties/email and /properties/sku.
    for (const r of [text, gh, sarif, junit, md]) expect(r!.stdout).not.toMatch(/properties\/(email|sku)/);
    expect(text!.stdout).toContain('unsupported keyword "pattern" is not enforced at 3 places'); // users' own, unreviewed
    const doc = JSON.parse(json!.stdout) as CheckJson;
    expect(doc.acknowledged.map((i) => [i.urn, i.keyword, i.pointer, i.acknowledged])).toEqual([
      ['urn:t:order', 'format', '/properties/email', true],
      ['urn:t:order', 'pattern', '/properties/email', true],
      ['urn:t:order', 'pattern', '/properties/sku', true],
    ]);
    // The unreviewed ones stay warnings: users' pattern (acknowledged for orders only), $ref, definitions, allOf.
    expect(doc.warnings.map((i) => `${i.urn} ${i.keyword} ${i.pointer}`)).toEqual([
      'urn:t:order $ref /properties/address',
      'urn:t:order definitions ',
      'urn:t:user allOf ',
      'urn:t:user pattern /properties/a',
      'urn:t:user pattern /properties/b',
      'urn:t:user pattern /properties/c',
    ]);
    expect(doc.summary).toEqual({ urns: 2, failed: 0, errors: 0, warnings: 6, acknowledged: 3 });
    expect(text!.stdout.trimEnd().split('\n').at(-1)).toBe('OK: 2 URN(s), 0 error(s), 6 warning(s), 3 acknowledged');
  });

  it('negative control: without `unenforced`, the same registry warns about each', async () => {
    const dir = tree(false);
    const [text, json] = await Promise.all([bq(['check'], { cwd: dir }), bq(['check', '--format', 'json'], { cwd: dir })]);
    expect(text.stdout).toContain('unsupported keyword "format" is not enforced');
    expect(text.stdout).toMatch(/unsupported keyword "pattern" is not enforced at 2 places: \/properties\/email and \/properties\/sku/);
    const doc = JSON.parse(json.stdout) as CheckJson;
    expect([doc.summary.warnings, doc.summary.acknowledged, doc.acknowledged.length]).toEqual([9, 0, 0]);
  });

  it('validate (one thread or more) and DirProvider stay quiet about acknowledged keywords, and still warn about the others', async () => {
    const dir = tree(true);
    const [one, two] = await Promise.all([
      bq(['validate', 'm.ndjson'], { cwd: dir }),
      bq(['validate', '--jobs', '2', 'm.ndjson'], { cwd: dir, env: { BQSCHEMA_TEST_TASK_SIZE: '40,1' } }),
    ]);
    for (const r of [one, two]) {
      expectExit(r, 0);
      const warned = r.stderr.split('\n').filter((l) => l !== '');
      expect(warned.every((l) => l.startsWith('bqschema: warning: schema for urn:t:'))).toBe(true);
      expect(warned.some((l) => /"(format)"/.test(l) || /urn:t:order: unsupported keyword "pattern"/.test(l))).toBe(false);
      expect(warned).toContain(
        'bqschema: warning: schema for urn:t:order: unsupported keyword "$ref" at /properties/address is not enforced',
      );
      expect(warned).toContain('bqschema: warning: schema for urn:t:user: unsupported keyword "pattern" at /properties/a is not enforced');
    }
    const said: SchemaWarning[] = [];
    const provider = new DirProvider(join(dir, 'registry.json'), { onWarning: (w) => said.push(w) });
    provider.schemaFor('urn:t:order');
    expect(said.map((w) => w.keyword)).toEqual(['$ref', 'definitions']);
    // The provider's own list keeps every warning: what is not enforced is still known.
    expect(provider.warnings.map((w) => w.keyword).sort()).toEqual(['$ref', 'definitions', 'format', 'pattern', 'pattern']);
  });

  it('--fail-on-unsupported fails on the unreviewed keywords only', async () => {
    const dir = tree(true);
    const r = await bq(['check', '--fail-on-unsupported', '--format', 'json'], { cwd: dir });
    expectExit(r, 1);
    const doc = JSON.parse(r.stdout) as CheckJson;
    expect(doc.errors.map((i) => i.keyword)).toEqual(['$ref', 'definitions', 'allOf', 'pattern', 'pattern', 'pattern']);
    expect(doc.acknowledged).toHaveLength(3);
    // With every keyword acknowledged, it passes.
    const all = tempTree({
      'registry.json': JSON.stringify({
        unenforced: ['format', 'pattern', '$ref', 'definitions', 'allOf'],
        schemas: [
          { urn: 'urn:t:order', schema: 'order.json' },
          { urn: 'urn:t:user', schema: 'user.json' },
        ],
      }),
      'order.json': JSON.stringify(ORDER),
      'user.json': JSON.stringify(USER),
    });
    expectExit(await bq(['check', '--fail-on-unsupported'], { cwd: all }), 0);
  });

  it('a name that is no unsupported keyword is an error of the manifest, placed on it; a value that is no list of names makes the manifest unusable', async () => {
    const dir = tempTree({
      'registry.json': '{\n  "unenforced": ["patern", "required"],\n  "schemas": [{"urn": "urn:t:a", "schema": "a.json"}]\n}\n',
      'a.json': '{"type": "object"}',
    });
    const r = await bq(['check', '--format', 'github'], { cwd: dir });
    expectExit(r, 1);
    const a = readGithub(r.stdout).annotations;
    expect(a.map((x) => [x.level, x.file, x.line, x.col])).toEqual([
      ['error', 'registry.json', 2, 18],
      ['error', 'registry.json', 2, 28],
    ]);
    expect(a[0]!.message).toBe(
      '/unenforced/0: the manifest: "unenforced" lists "patern": no JSON Schema draft defines it (did you mean "pattern"?), and a keyword of your own is best named x-patern, which never warns; list only keywords bqschema leaves unenforced (pattern, format, $ref, …)',
    );
    expect(a[1]!.message).toMatch(/lists "required": it is enforced; list only keywords/);
    const bad = tempTree({
      'registry.json': '{"schemas": [{"urn": "urn:t:a", "schema": "a.json", "unenforced": "pattern"}]}',
      'a.json': '{"type": "object"}',
      'm.json': '{"job":"urn:t:a","data":{}}',
    });
    expectOneLineError(
      await bq(['validate', 'm.json'], { cwd: bad }),
      /^bqschema: registry\.json:1:\d+: entry 0: "unenforced" must be an array of keyword names, e\.g\. \["pattern", "format"\]$/,
      1,
    );
  });
});

describe('one annotation per URN and keyword', () => {
  it('a keyword at several places of one schema is one annotation (and one SARIF result, one JUnit line) naming every place', async () => {
    const dir = tree(false);
    const [gh, sarif, junit] = await Promise.all(['github', 'sarif', 'junit'].map((f) => bq(['check', '--format', f], { cwd: dir })));
    const annotations = readGithub(gh!.stdout).annotations;
    expect(annotations.map((x) => x.message)).toEqual([
      'urn:t:order: /properties/email: unsupported keyword "format" at /properties/email is not enforced',
      'urn:t:order: unsupported keyword "pattern" is not enforced at 2 places: /properties/email and /properties/sku',
      'urn:t:order: /properties/address: unsupported keyword "$ref" at /properties/address is not enforced',
      'urn:t:order: unsupported keyword "definitions" at the schema root is not enforced',
      'urn:t:user: unsupported keyword "allOf" at the schema root is not enforced',
      'urn:t:user: unsupported keyword "pattern" is not enforced at 3 places: /properties/a, /properties/b and /properties/c',
    ]);
    // At its first place: users' pattern on /properties/a.
    expect(annotations[5]).toMatchObject({ file: 'user.json', line: 13, col: 18 }); // `      "pattern": "a"` in user.json
    expect(readSarif(sarif!.stdout).runs[0]!.results.map((x) => x.message.text)).toEqual(annotations.map((x) => x.message));
    const out = junitCases(readJunit(junit!.stdout))
      .map((c) => c['system-out'] ?? '')
      .join('\n');
    expect(out.match(/keyword "pattern"/g)).toHaveLength(2);
  });

  it('a schema with a keyword at more places than are listed names the first ten and counts the rest', async () => {
    const properties = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, { type: 'string', pattern: 'x' }]));
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json' }] }),
      'a.json': JSON.stringify({ type: 'object', properties }),
    });
    const a = readGithub((await bq(['check', '--format', 'github'], { cwd: dir })).stdout).annotations;
    expect(a).toHaveLength(1);
    expect(a[0]!.message).toBe(
      `urn:t:a: unsupported keyword "pattern" is not enforced at 25 places: ${Array.from({ length: 10 }, (_, i) => `/properties/p${i}`).join(', ')} and 15 more`,
    );
  });
});

describe("check's last line: what is not enforced, and what is not checked at all", () => {
  it('counts every unsupported keyword, acknowledged or not, and names the $ref and allOf subtrees', async () => {
    const r = await bq(['check'], { cwd: tree(true) });
    expectExit(r, 0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-3)).toBe(
      'not enforced: 9 constraint(s) ($ref 1, definitions 1, format 1, pattern 5, allOf 1), 3 acknowledged in the manifest; not checked at all: 2 subtree(s): urn:t:order /properties/address/$ref, urn:t:user /allOf',
    );
    expect(lines.at(-2)).toBe('');
  });

  it('a registry whose every keyword is enforced has no such line', async () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:t:a', schema: 'a.json' }] }),
      'a.json': '{"type": "object", "required": ["id"]}',
    });
    const r = await bq(['check'], { cwd: dir });
    expect(r.stdout).not.toContain('not enforced');
  });
});
