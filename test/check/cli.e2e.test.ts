import { describe, expect, it } from 'vitest';
import type { CheckIssue as Issue } from '../../src/cli/commands/check.js';
import { bq, expectExit, FIXTURES, inRepository, type CliResult } from '../helpers/cli.js';
import { junitCases, junitCounts, readJunit, readSarif, sarifAt } from '../helpers/ci-formats.js';

// `bqschema check` end to end: the example registry, and test/fixtures/cli/broken, which holds one
// entry per problem the self-check must report.

interface CheckReport {
  ok: boolean;
  summary: { urns: number; failed: number; errors: number; warnings: number };
  errors: Issue[];
  warnings: Issue[];
}

const BROKEN = { cwd: `${FIXTURES}/broken` };
/** Annotations and SARIF name files from the repository's root; the broken fixture's commands run in its directory. */
const AT = inRepository(`${FIXTURES}/broken`);
const runs: Partial<Record<'text' | 'json' | 'github', Promise<CliResult>>> = {};
/** The broken registry is checked once per format and shared by the tests that read it. */
function broken(format: 'text' | 'json' | 'github'): Promise<CliResult> {
  return (runs[format] ??= bq(['check', '--format', format], BROKEN));
}
async function brokenReport(): Promise<CheckReport> {
  const r = await broken('json');
  expectExit(r, 1);
  return JSON.parse(r.stdout) as CheckReport;
}
async function errorsOf(urn: string | undefined): Promise<Issue[]> {
  return (await brokenReport()).errors.filter((e) => e.urn === urn);
}

describe.concurrent('check: the example registry', () => {
  it('passes (exit 0) with the unsupported `format` warning for payments', async () => {
    const r = await bq(['check', '--registry', 'registry.example.json']);
    expectExit(r, 0);
    for (const urn of ['orders:created', 'orders:cancelled', 'users:registered', 'payments:captured']) {
      expect(r.stdout).toMatch(new RegExp(`^✓ urn:babel:${urn} `, 'm'));
    }
    expect(r.stdout).toMatch(/✓ urn:babel:payments:captured .*\n {4}warning {2}\/properties\/captured_at {2}unsupported keyword "format"/);
    expect(r.stdout).toMatch(/^OK: 4 URN\(s\), 0 error\(s\), 1 warning\(s\)$/m);
  });

  it('json: ok with the one warning, naming URN, file, pointer and keyword', async () => {
    const r = await bq(['check', '--registry', 'registry.example.json', '--format', 'json']);
    expectExit(r, 0);
    const doc = JSON.parse(r.stdout) as CheckReport;
    expect(doc.ok).toBe(true);
    expect(doc.summary).toEqual({ urns: 4, failed: 0, errors: 0, warnings: 1, acknowledged: 0 });
    expect(doc.errors).toEqual([]);
    expect(doc.warnings).toEqual([
      expect.objectContaining({
        urn: 'urn:babel:payments:captured',
        file: 'examples/schemas/payments-captured.jsonc',
        pointer: '/properties/captured_at',
        keyword: 'format',
      }),
    ]);
  });

  it('github: the warning is a ::warning on the JSONC schema, and the summary follows', async () => {
    const r = await bq(['check', '--registry', 'registry.example.json', '--format', 'github']);
    expectExit(r, 0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    // payments-captured.jsonc line 14: `    "captured_at": { "type": "string", "format": "date-time" }`, the keyword's value at column 50
    expect(lines[0]).toMatch(
      /^::warning file=examples\/schemas\/payments-captured\.jsonc,line=14,col=50,title=not enforced::urn:babel:payments:captured: .*"format"/,
    );
    expect(lines[1]).toBe('OK: 4 URN(s), 0 error(s), 1 warning(s)');
  });
});

describe.concurrent('check: a broken registry', () => {
  it('exits 1 with a summary line counting URNs, errors and warnings', async () => {
    const r = await broken('text');
    expectExit(r, 1);
    // 13 entries: a duplicate, an empty urn and an empty schema path are left out of the URNs.
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('FAILED: 10 URN(s), 15 error(s), 0 warning(s)');
  });

  it('json has the documented shape and its summary counts its lists', async () => {
    const doc = await brokenReport();
    expect(Object.keys(doc).sort()).toEqual(['acknowledged', 'errors', 'ok', 'summary', 'warnings']);
    expect(doc.ok).toBe(false);
    const failed = new Set(doc.errors.flatMap((e) => (e.urn === undefined ? [] : [e.urn])));
    expect(doc.summary).toEqual({ urns: 10, failed: 10, errors: doc.errors.length, warnings: doc.warnings.length, acknowledged: 0 });
    // failed counts the URNs with an error (an entry of its own or of the manifest)
    expect(failed.size).toBeGreaterThanOrEqual(doc.summary.failed);
    expect(doc.summary.errors).toBe(15);
    for (const e of doc.errors) {
      expect(typeof e.file).toBe('string');
      expect(typeof e.pointer).toBe('string');
      expect(typeof e.message).toBe('string');
    }
  });

  it('reports a URN registered twice', async () => {
    expect(await errorsOf('urn:t:ok')).toEqual([
      expect.objectContaining({ file: 'registry.json', pointer: '/schemas/1/urn', message: expect.stringMatching(/registered twice/) }),
    ]);
  });

  it('reports an empty urn', async () => {
    const doc = await brokenReport();
    expect(doc.errors.filter((e) => e.pointer === '/schemas/2/urn')).toEqual([
      expect.objectContaining({ file: 'registry.json', message: expect.stringMatching(/empty "urn"/) }),
    ]);
  });

  it('reports an empty schema path', async () => {
    expect(await errorsOf('urn:t:nopath')).toEqual([
      expect.objectContaining({
        file: 'registry.json',
        pointer: '/schemas/3/schema',
        message: expect.stringMatching(/empty "schema" path/),
      }),
    ]);
  });

  it('reports a missing schema file', async () => {
    expect(await errorsOf('urn:t:missing')).toEqual([
      // Located at the manifest entry's "schema" path, the place to fix, not in a file that does not exist.
      expect.objectContaining({
        file: 'registry.json',
        pointer: '/schemas/4/schema',
        line: 7,
        col: 41,
        message: expect.stringMatching(/not found: schemas\/missing\.json/),
      }),
    ]);
  });

  it('reports a malformed schema file with its line:col', async () => {
    // schemas/malformed.json is `{` / `  "type": "object",` / `}`: the trailing comma leaves no property before 3:1.
    expect(await errorsOf('urn:t:malformed')).toEqual([
      expect.objectContaining({
        file: 'schemas/malformed.json',
        line: 3,
        col: 1,
        message: expect.stringMatching(/malformed\.json:3:1: invalid JSON: property name expected$/),
      }),
    ]);
  });

  it('reports a schema that is an array, and one that is a number', async () => {
    expect((await errorsOf('urn:t:array')).map((e) => e.message)).toEqual([
      'schema file for urn:t:array is malformed: schemas/array.json: a schema must be an object or a boolean, got an array',
    ]);
    expect((await errorsOf('urn:t:number')).map((e) => e.message)).toEqual([
      'schema file for urn:t:number is malformed: schemas/number.json: a schema must be an object or a boolean, got number',
    ]);
  });

  it('lints malformed supported keywords, each at its keyword', async () => {
    expect((await errorsOf('urn:t:lint')).map(({ pointer, keyword }) => ({ pointer, keyword }))).toEqual([
      { pointer: '/required', keyword: 'required' },
      { pointer: '/properties/name/type', keyword: 'type' },
      { pointer: '/properties/code/minLength', keyword: 'minLength' },
    ]);
    expect((await errorsOf('urn:t:lintyaml')).map(({ file, pointer, keyword }) => ({ file, pointer, keyword }))).toEqual([
      { file: 'schemas/lint.yaml', pointer: '/properties/label/type', keyword: 'type' },
    ]);
  });

  it('reports a root type that excludes object', async () => {
    expect(await errorsOf('urn:t:string')).toEqual([
      expect.objectContaining({ pointer: '/type', message: expect.stringMatching(/root type "string" excludes "object"/) }),
    ]);
  });

  it('reports a false root schema', async () => {
    expect((await errorsOf('urn:t:false')).map((e) => e.message)).toEqual([expect.stringMatching(/schema is false/)]);
  });

  it('reports every examples entry that fails its own (sub-)schema', async () => {
    expect((await errorsOf('urn:t:examples')).map(({ pointer, keyword }) => ({ pointer, keyword }))).toEqual([
      { pointer: '/examples/1', keyword: 'examples' },
      { pointer: '/properties/id/examples/1', keyword: 'examples' },
    ]);
  });

  it('text lists each failing URN with its errors', async () => {
    const r = await broken('text');
    // A manifest error about a URN entry sits under it (and fails it, as JUnit and the summary count
    // it); one about an entry with no URN or no schema path stands alone, after the URNs.
    expect(r.stdout).toMatch(
      /^✗ urn:t:ok {2}schemas\/ok\.json\n {4}error {2}registry\.json:4 \/schemas\/1\/urn {2}URN urn:t:ok is registered twice \(entries 0 and 1\)$/m,
    );
    expect(r.stdout).toMatch(
      /\n✗ error {2}registry\.json \/schemas\/2\/urn: entry 2 has an empty "urn"\n✗ error {2}registry\.json \/schemas\/3\/schema: entry 3 \(urn:t:nopath\) has an empty "schema" path\n\nFAILED: /,
    );
    for (const urn of ['missing', 'malformed', 'array', 'number', 'lint', 'lintyaml', 'string', 'examples', 'false']) {
      expect(r.stdout).toMatch(new RegExp(`^✗ urn:t:${urn} `, 'm'));
    }
    expect(r.stdout).toMatch(
      /^ {4}error {2}\/properties\/name\/type {2}malformed keyword "type": unknown type name "strin"; it would not be enforced$/m,
    );
  });

  it('github: one ::error per error, at the offending value, then the summary', async () => {
    const r = await broken('github');
    expectExit(r, 1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(15);
    expect(lines.pop()).toBe('FAILED: 10 URN(s), 15 error(s), 0 warning(s)');
    // registry.json line 4: `    { "urn": "urn:t:ok", ...`, the duplicate URN's value at column 14
    expect(lines).toContain(
      `::error file=${AT}registry.json,line=4,col=14,title=registry error::urn:t:ok: /schemas/1/urn: URN urn:t:ok is registered twice (entries 0 and 1)`,
    );
    // the parse error's own position, not the file's start
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^::error file=${AT}schemas/malformed\\.json,line=3,col=1,title=registry error::urn:t:malformed: `)),
    );
  });

  it('github: lint errors in a JSON schema are placed on the keyword value', async () => {
    const lines = (await broken('github')).stdout.split('\n');
    // schemas/lint.json line 3 `  "required": "a",` (value at 15); line 5 `    "name": { "type": "strin" },` (23);
    // line 6 `    "code": { "type": "string", "minLength": "3" }` (46)
    const tail = '; it would not be enforced';
    expect(lines).toContain(
      `::error file=${AT}schemas/lint.json,line=3,col=15,title=registry error::urn:t:lint: /required: malformed keyword "required": must be an array of strings, got the string "a"${tail}`,
    );
    expect(lines).toContain(
      `::error file=${AT}schemas/lint.json,line=5,col=23,title=registry error::urn:t:lint: /properties/name/type: malformed keyword "type": unknown type name "strin"${tail}`,
    );
    expect(lines).toContain(
      `::error file=${AT}schemas/lint.json,line=6,col=46,title=registry error::urn:t:lint: /properties/code/minLength: malformed keyword "minLength": must be a finite number, got the string "3"${tail}`,
    );
  });

  it('github: lint errors in a YAML schema are placed on the keyword value', async () => {
    const lines = (await broken('github')).stdout.split('\n');
    // schemas/lint.yaml line 6: `    type: strng`, the value at column 11
    expect(lines).toContain(
      `::error file=${AT}schemas/lint.yaml,line=6,col=11,title=registry error::urn:t:lintyaml: /properties/label/type: malformed keyword "type": unknown type name "strng"; it would not be enforced`,
    );
  });
});

describe.concurrent('check: SARIF and JUnit', () => {
  /** `file:line:col message` of each ::error line of the github format, the reference for positions. */
  const githubErrors = async (): Promise<string[]> =>
    (await broken('github')).stdout
      .split('\n')
      .filter((l) => l.startsWith('::error '))
      .map((l) => {
        const m = /^::error file=([^,]+)(?:,line=(\d+))?(?:,col=(\d+))?,title=[^:]+::(.*)$/.exec(l)!;
        return `${m[1]}${m[2] ? `:${m[2]}` : ''}${m[3] ? `:${m[3]}` : ''}`;
      });
  /** The same, as the text and JUnit name files: from where the command ran. */
  const githubErrorsAsGiven = async (): Promise<string[]> => (await githubErrors()).map((w) => (w.startsWith(AT) ? w.slice(AT.length) : w));

  it('sarif: valid SARIF 2.1.0, one error result per error at the same place github annotates', async () => {
    const r = await bq(['check', '--format', 'sarif'], BROKEN);
    expectExit(r, 1);
    const log = readSarif(r.stdout);
    const results = log.runs[0]!.results;
    expect(results).toHaveLength(15);
    expect(results.every((x) => x.level === 'error')).toBe(true);
    expect(results.map(sarifAt).sort()).toEqual((await githubErrors()).sort());
    expect(results.find((x) => sarifAt(x) === `${AT}schemas/lint.json:5:23`)).toMatchObject({
      ruleId: 'malformed-keyword',
      message: { text: 'urn:t:lint: /properties/name/type: malformed keyword "type": unknown type name "strin"; it would not be enforced' },
    });
    expect(results.find((x) => sarifAt(x) === `${AT}schemas/lint.json:5:23`)).toMatchObject({
      properties: { urn: 'urn:t:lint', pointer: '/properties/name/type' },
    });
    expect(results.find((x) => sarifAt(x) === `${AT}registry.json:4:14`)?.ruleId).toBe('manifest');
    expect(new Set(results.map((x) => x.ruleId))).toEqual(new Set(['manifest', 'schema', 'malformed-keyword', 'example-fails-schema']));
  });

  it('json: each issue names the rule its SARIF result cites, in the same order (one vocabulary)', async () => {
    const sarif = readSarif((await bq(['check', '--format', 'sarif'], BROKEN)).stdout).runs[0]!.results;
    const doc = await brokenReport();
    const issues: Issue[] = [...doc.errors, ...doc.warnings];
    expect(issues.map((i) => i.rule)).toEqual(sarif.map((x) => x.ruleId));
    // A schema file that is missing is the schema rule's (its help says to fix the entry's path),
    // located at the manifest entry, where it is fixed.
    const missing = issues.filter((i) => / not found: /.test(i.message));
    expect(missing.length).toBeGreaterThan(0);
    for (const i of missing)
      expect(i).toMatchObject({ rule: 'schema', file: 'registry.json', pointer: expect.stringMatching(/^\/schemas\/\d+\/schema$/) });
  });

  it("sarif: the example registry's unsupported keyword is a warning (an error with --fail-on-unsupported)", async () => {
    const ok = await bq(['check', '--format', 'sarif', '--registry', 'registry.example.json']);
    expectExit(ok, 0);
    const warning = readSarif(ok.stdout).runs[0]!.results;
    expect(warning).toEqual([expect.objectContaining({ ruleId: 'unsupported-keyword', level: 'warning' })]);
    expect(sarifAt(warning[0]!)).toBe('examples/schemas/payments-captured.jsonc:14:50');
    const strict = await bq(['check', '--format', 'sarif', '--fail-on-unsupported', '--registry', 'registry.example.json']);
    expectExit(strict, 1);
    expect(readSarif(strict.stdout).runs[0]!.results).toEqual([expect.objectContaining({ ruleId: 'unsupported-keyword', level: 'error' })]);
  });

  it('junit: a failing testcase per error in a suite per file; clean schema files pass', async () => {
    const r = await bq(['check', '--format', 'junit'], BROKEN);
    expectExit(r, 1);
    const doc = readJunit(r.stdout);
    // One test case per URN (the summary's urns and failed), plus an <error> for the manifest
    // problems no URN owns (an entry with an empty "urn"); every error is in some test case's text.
    const json = await brokenReport();
    expect(junitCounts(doc)).toEqual({ tests: json.summary.urns + 1, failures: json.summary.failed, errors: 1, skipped: 0 });
    const texts = junitCases(doc).flatMap((c) => (c.failure ?? c.error)?.['#text']?.split('\n') ?? []);
    expect(texts.map((t) => t.split(':').slice(0, 2).join(':')).sort()).toEqual(
      (await githubErrorsAsGiven()).map((w) => w.split(':').slice(0, 2).join(':')).sort(),
    );
    const ok = await bq(['check', '--format', 'junit', '--registry', 'registry.example.json']);
    expectExit(ok, 0);
    const okDoc = readJunit(ok.stdout);
    expect(okDoc.testsuites.failures).toBe('0');
    expect(junitCounts(okDoc)).toEqual({ tests: 4, failures: 0, errors: 0, skipped: 0 });
  });
});
