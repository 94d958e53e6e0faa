import { afterAll, describe, expect, it } from 'vitest';
import { bq, expectExit, removeTempTrees, tempTree } from '../helpers/cli.js';
import { junitCases, junitCounts, readGithub, readJunit, readSarif, sarifAt, withoutTimes } from '../helpers/ci-formats.js';

afterAll(removeTempTrees);

// validate --format sarif|junit: the same findings as the github format, in CI documents, each at
// the offending value (hand-counted positions as in cli-validate's github test).

const ARGS = ['validate', '-r', 'test/fixtures/cli/reg/registry.json'];
const F = 'test/fixtures/cli/messages/order-invalid.json';

describe.concurrent('validate --format sarif', () => {
  it('one schema-valid SARIF 2.1.0 log: each violation at its value, with its rule', async () => {
    const r = await bq([...ARGS, '--format', 'sarif', F, 'test/fixtures/cli/messages/order-valid.json']);
    expectExit(r, 1);
    const log = readSarif(r.stdout);
    const results = log.runs[0]!.results;
    expect(results.map((x) => [x.ruleId, x.level, sarifAt(x), x.message.text])).toEqual([
      ['invalid-data', 'error', `${F}:4:17`, 'urn:test:order: /order_id must be >= 1, got 0'],
      ['invalid-data', 'error', `${F}:5:12`, 'urn:test:order: /sku must be at least 3 characters long, got 2'],
      ['invalid-data', 'error', `${F}:8:7`, 'urn:test:order: /lines/1 must have required property "id"'],
      ['invalid-data', 'error', `${F}:8:16`, 'urn:test:order: /lines/1/qty must be integer, got string'],
    ]);
    expect(log.runs[0]!.tool.driver.rules.map((x) => x.id)).toEqual(
      expect.arrayContaining(['invalid-data', 'unreadable-input', 'no-schema']),
    );
    // The URN and the JSON Pointer into the message file (the data sits under /data), in each result's property bag.
    expect(results.map((x) => (x as { properties?: unknown }).properties)).toEqual([
      { urn: 'urn:test:order', pointer: '/data/order_id' },
      { urn: 'urn:test:order', pointer: '/data/sku' },
      { urn: 'urn:test:order', pointer: '/data/lines/1' },
      { urn: 'urn:test:order', pointer: '/data/lines/1/qty' },
    ]);
  });

  it('unreadable inputs are errors; an unregistered URN is a note, an error under --strict; a clean run has no results (exit 0)', async () => {
    const [mixed, strict, clean] = await Promise.all([
      bq([...ARGS, '--format', 'sarif', 'test/fixtures/cli/messages/malformed.json', 'test/fixtures/cli/messages/unregistered.json']),
      bq([...ARGS, '--format', 'sarif', '--strict', 'test/fixtures/cli/messages/unregistered.json']),
      bq([...ARGS, '--format', 'sarif', 'test/fixtures/cli/messages/order-valid.json']),
    ]);
    expectExit(mixed, 1);
    expect(readSarif(mixed.stdout).runs[0]!.results.map((x) => [x.ruleId, x.level])).toEqual([
      ['unreadable-input', 'error'],
      ['no-schema', 'note'],
    ]);
    expectExit(strict, 1);
    expect(readSarif(strict.stdout).runs[0]!.results.map((x) => x.level)).toEqual(['error']);
    expectExit(clean, 0);
    expect(readSarif(clean.stdout).runs[0]!.results).toEqual([]);
  });
});

describe.concurrent('validate --format junit', () => {
  it('a test case per message: a failure for an invalid one (every violation in its text), a pass for a valid one', async () => {
    const r = await bq([...ARGS, '--format', 'junit', F, 'test/fixtures/cli/messages/order-valid.json']);
    expectExit(r, 1);
    const doc = readJunit(r.stdout);
    const cases = junitCases(doc);
    expect(cases.map((c) => [c.name, c.classname, c.failure === undefined ? 'pass' : 'fail'])).toEqual([
      [F, 'bqschema.validate', 'fail'],
      ['test/fixtures/cli/messages/order-valid.json', 'bqschema.validate', 'pass'],
    ]);
    expect(cases[0]!.failure!['#text']!.split('\n')).toHaveLength(4);
    expect(cases[0]!.failure!['#text']!.split('\n')[0]).toBe(`${F}:4:17: urn:test:order: /order_id must be >= 1, got 0`);
    expect(doc.testsuites.failures).toBe('1');
    for (const c of cases) expect(c.time).toMatch(/^\d+\.\d{3}$/);
  });

  it("the counts are the summary line's, for every fixture directory (valid, invalid, skipped, errors)", async () => {
    for (const dir of ['examples/messages/valid', 'examples/messages/invalid', 'test/fixtures/cli/messages']) {
      const args = dir.startsWith('examples') ? ['validate', '-r', 'registry.example.json'] : ARGS;
      const [junit, json] = await Promise.all([bq([...args, '--format', 'junit', dir]), bq([...args, '--format', 'json', dir])]);
      const summary = (
        JSON.parse(json.stdout) as { summary: { messages: number; valid: number; invalid: number; skipped: number; errors: number } }
      ).summary;
      expect({ dir, ...junitCounts(readJunit(junit.stdout)) }).toEqual({
        dir,
        tests: summary.messages,
        failures: summary.invalid,
        errors: summary.errors,
        skipped: summary.skipped,
      });
      expect(junit.code).toBe(json.code);
    }
  });

  it('--strict: a message with no schema is an error in JSON and JUnit alike (it fails the run; it is not skipped)', async () => {
    const args = ['validate', '-r', 'registry.example.json', '--strict', 'examples/messages/invalid/traffic.ndjson'];
    const [junit, json] = await Promise.all([bq([...args, '--format', 'junit']), bq([...args, '--format', 'json'])]);
    expectExit(junit, 1);
    expectExit(json, 1);
    const { summary } = JSON.parse(json.stdout) as { summary: { messages: number; invalid: number; skipped: number; errors: number } };
    expect(summary).toMatchObject({ messages: 4, invalid: 2, skipped: 0, errors: 1 });
    expect(junitCounts(readJunit(junit.stdout))).toEqual({
      tests: summary.messages,
      failures: summary.invalid,
      errors: summary.errors,
      skipped: summary.skipped,
    });
  });

  it('--jobs is ignored for whole-document formats: the same document as one thread (times aside)', async () => {
    const [one, two] = await Promise.all([
      bq([...ARGS, '--format', 'junit', '--jobs', '1', 'test/fixtures/cli/messages']),
      bq([...ARGS, '--format', 'junit', '--jobs', '2', 'test/fixtures/cli/messages']),
    ]);
    expect(withoutTimes(two.stdout)).toBe(withoutTimes(one.stdout));
    expect(two.code).toBe(one.code);
  });
});

describe.concurrent("validate: a URN's schema problem is located where it is fixed, in every format", () => {
  // The manifest: entry 1's "schema" value is on line 4, from column 38 (hand-counted); b.json's
  // malformed "type" value on line 3, column 32.
  const manifest =
    '{\n  "schemas": [\n    { "urn": "urn:t:a", "schema": "schemas/a.json", "owner": "o" },\n    { "urn": "urn:t:gone", "schema": "schemas/gone.json", "owner": "o" },\n    { "urn": "urn:t:b", "schema": "schemas/b.json", "owner": "o" }\n  ]\n}\n';
  const files = {
    'reg/registry.json': manifest,
    'reg/schemas/a.json': '{"type":"object"}',
    'reg/schemas/b.json': '{\n  "type": "object",\n  "properties": {"a": {"type": "strin"}}\n}\n',
    'm/gone.json': '{"job":"urn:t:gone","data":{}}',
    'm/b.json': '{"job":"urn:t:b","data":{}}',
  };
  const run = (dir: string, format: string, ...more: string[]) =>
    bq(['validate', '-r', 'reg/registry.json', '--format', format, ...more, 'm/gone.json', 'm/b.json'], { cwd: dir });

  it('a missing schema file at its manifest entry, a malformed keyword at its place in the schema file: github, SARIF, JUnit and JSON agree', async () => {
    const dir = tempTree(files);
    const [gh, sarif, junit, json, parallel] = await Promise.all([
      run(dir, 'github'),
      run(dir, 'sarif'),
      run(dir, 'junit'),
      run(dir, 'json'),
      run(dir, 'github', '--jobs', '2'),
    ]);
    for (const r of [gh, sarif, junit, json, parallel]) expectExit(r, 1);
    const want = [
      ['reg/registry.json', 4, 38],
      ['reg/schemas/b.json', 3, 32],
    ];
    expect(readGithub(gh.stdout).annotations.map((a) => [a.file, a.line, a.col])).toEqual(want);
    // Worker threads judge the same way.
    expect(readGithub(parallel.stdout).annotations.map((a) => [a.file, a.line, a.col])).toEqual(want);
    expect(
      readSarif(sarif.stdout).runs[0]!.results.map((x) => [
        x.ruleId,
        sarifAt(x),
        (x as { properties?: { pointer?: string } }).properties?.pointer,
      ]),
    ).toEqual([
      ['unreadable-input', 'reg/registry.json:4:38', '/schemas/1/schema'],
      ['unreadable-input', 'reg/schemas/b.json:3:32', undefined],
    ]);
    // The test case is still the message; its error text says where to fix it.
    const cases = junitCases(readJunit(junit.stdout));
    expect(cases.map((c) => [c.name, c.error?.['#text']?.split(': ')[0]])).toEqual([
      ['m/gone.json', 'reg/registry.json:4:38'],
      ['m/b.json', 'reg/schemas/b.json:3:32'],
    ]);
    const results = (JSON.parse(json.stdout) as { results: Array<{ file: string; errorLocation?: unknown }> }).results;
    expect(results.map((x) => [x.file, x.errorLocation])).toEqual([
      ['m/gone.json', { file: 'reg/registry.json', pointer: '/schemas/1/schema', line: 4, col: 38 }],
      ['m/b.json', { file: 'reg/schemas/b.json', pointer: '', line: 3, col: 32 }],
    ]);
  });
});
