import { afterAll, describe, expect, it } from 'vitest';
import { readEnvelope } from '../../src/guard/index.js';
import { junitCases, readJunit, readSarif } from '../helpers/ci-formats.js';
import { bq, expectExit, removeTempTrees, tempTree, type CliResult, type RunOptions } from '../helpers/cli.js';

// validate and the mistakes a newcomer makes: a misspelled URN is seen without --strict,
// and each wrong input says what it looks like and what to do instead.

afterAll(removeTempTrees);

const URN = 'urn:acme:rides:requested';
const TYPO = 'urn:acme:ride:requested';
const RIDE = { ride_id: 7 };
const env = (job: string, data: unknown = RIDE): string => JSON.stringify({ job, data });

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['ride_id'],
  properties: { ride_id: { type: 'integer' } },
  additionalProperties: false,
};
const MANIFEST = JSON.stringify({ schemas: [{ urn: URN, schema: 'ride.json' }] }, null, 2);

/** A registry of one URN, plus the given message files. */
const tree = (files: Record<string, string> = {}): string =>
  tempTree({ 'registry.json': MANIFEST, 'ride.json': JSON.stringify(SCHEMA, null, 2), ...files });
const validate = (dir: string, args: string[], options: RunOptions = {}): Promise<CliResult> =>
  bq(['validate', ...args], { cwd: dir, ...options });
const json = (
  r: CliResult,
): { results: Array<Record<string, unknown> & { violations: Array<{ message: string; instancePath: string }> }> } => JSON.parse(r.stdout);

describe.concurrent('validate: a misspelled URN is seen without --strict', () => {
  it('text: the skipped line quotes both URNs and suggests the registered one; the summary counts it; exit 0', async () => {
    const dir = tree({ 'm.json': env(TYPO) });
    const r = await validate(dir, ['m.json']);
    expectExit(r, 0);
    expect(r.stdout).toContain(`- skipped  m.json  "${TYPO}"  (no schema registered; did you mean "${URN}"?)\n`);
    expect(r.stdout).toContain('OK: 1 message: 0 valid, 0 invalid, 1 skipped (1 close to a registered URN), 0 errors\n');
    expect(r.stderr).toBe('');
  });

  it('--strict still fails it, with the same quoted suggestion', async () => {
    const dir = tree({ 'm.json': env(TYPO) });
    const r = await validate(dir, ['--strict', 'm.json']);
    expectExit(r, 1);
    // Under --strict it cannot be judged: an error, with the suggestion.
    expect(r.stdout).toContain(`! error  m.json  "${TYPO}"  (no schema registered, --strict; did you mean "${URN}"?)\n`);
  });

  it('a trailing space gets a suggestion that visibly differs, and says what differs', async () => {
    const dir = tree({ 'space.json': env(`${URN} `), 'case.json': env(URN.toUpperCase()) });
    const r = await validate(dir, ['space.json', 'case.json']);
    expectExit(r, 0);
    expect(r.stdout).toContain(
      `- skipped  space.json  "${URN} "  (no schema registered; did you mean "${URN}" (without the trailing whitespace)?)\n`,
    );
    expect(r.stdout).toContain(
      `- skipped  case.json  "${URN.toUpperCase()}"  (no schema registered; did you mean "${URN}" (URNs are case-sensitive)?)\n`,
    );
  });

  it('invisible characters in either URN are escaped inside the quotes', async () => {
    const dir = tree({ 'zw.json': env(`${URN}\u200b`), 'nbsp.json': env(`urn:acme:rides:\u00a0requested`) });
    const r = await validate(dir, ['zw.json', 'nbsp.json']);
    expectExit(r, 0);
    expect(r.stdout).toContain(`"${URN}\\u200b"  (no schema registered; did you mean "${URN}"?)`);
    expect(r.stdout).toContain(`"urn:acme:rides:\\u00a0requested"  (no schema registered; did you mean "${URN}"?)`);
  });

  it('an unregistered URN far from every registered one is skipped without a suggestion, as before', async () => {
    const dir = tree({ 'far.json': env('urn:other:thing:happened') });
    const r = await validate(dir, ['far.json']);
    expectExit(r, 0);
    expect(r.stdout).toContain('- skipped  far.json  "urn:other:thing:happened"  (no schema registered)\n');
    expect(r.stdout).toContain('OK: 1 message: 0 valid, 0 invalid, 1 skipped, 0 errors\n');
  });

  it('json: the result carries the suggestion; github: a warning annotation (an error under --strict)', async () => {
    const dir = tree({ 'm.json': env(TYPO) });
    const [j, gh, ghStrict] = await Promise.all([
      validate(dir, ['--format', 'json', 'm.json']),
      validate(dir, ['--format', 'github', 'm.json']),
      validate(dir, ['--format', 'github', '--strict', 'm.json']),
    ]);
    expectExit(j, 0);
    expect(json(j).results[0]).toMatchObject({ urn: TYPO, status: 'skipped', suggestion: URN });
    expectExit(gh, 0);
    expect(gh.stdout).toContain(`::warning file=m.json,title=no schema::no schema registered for "${TYPO}"; did you mean "${URN}"?\n`);
    expectExit(ghStrict, 1);
    expect(ghStrict.stdout).toContain(`::error file=m.json,title=no schema::no schema registered for "${TYPO}"; did you mean "${URN}"?\n`);
  });

  it('sarif: a warning (not a note); junit: a skipped case with the suggestion as its text', async () => {
    const dir = tree({ 'm.json': env(TYPO) });
    const [sarif, junit] = await Promise.all([
      validate(dir, ['--format', 'sarif', 'm.json']),
      validate(dir, ['--format', 'junit', 'm.json']),
    ]);
    expectExit(sarif, 0);
    expect(readSarif(sarif.stdout).runs[0]!.results.map((x) => [x.ruleId, x.level, x.message.text])).toEqual([
      ['no-schema', 'warning', `no schema registered for "${TYPO}"; did you mean "${URN}"?`],
    ]);
    expectExit(junit, 0);
    const cases = junitCases(readJunit(junit.stdout));
    const said = `no schema registered for "${TYPO}"; did you mean "${URN}"?`;
    expect(cases.map((c) => [c.failure, c.skipped])).toEqual([
      [undefined, { message: said, type: 'no-schema', '#text': `m.json: ${said}` }],
    ]);
  });

  it('the summary count is the same with worker threads (--jobs 2, one line a task)', async () => {
    const lines = [env(URN), env(TYPO), env('urn:far:away:thing'), env(`${URN} `)].join('\n') + '\n';
    const dir = tree({ 's.ndjson': lines });
    const [one, two] = await Promise.all([
      validate(dir, ['--jobs', '1', 's.ndjson']),
      validate(dir, ['--jobs', '2', 's.ndjson'], { env: { BQSCHEMA_TEST_TASK_SIZE: '1,1' } }),
    ]);
    expectExit(one, 0);
    expect(one.stdout).toContain('OK: 4 messages: 1 valid, 0 invalid, 3 skipped (2 close to a registered URN), 0 errors');
    expectExit(two, 0);
    expect(two.stdout).toBe(one.stdout);
  });
});

describe.concurrent('validate: wrong inputs say how to fix them', () => {
  it('NDJSON on stdin without --ndjson: pass --ndjson', async () => {
    const dir = tree();
    const r = await validate(dir, ['-'], { input: `${env(URN)}\n${env(URN)}\n` });
    expectExit(r, 1);
    expect(r.stdout).toContain(
      '! error  <stdin>:2:1  invalid JSON: end of file expected; this looks like NDJSON (one JSON value per line): pass --ndjson to read stdin line by line\n',
    );
  });

  it('NDJSON in a .json file: name it .ndjson', async () => {
    const dir = tree({ 'batch.json': `${env(URN)}\n\n${env(URN)}\n` });
    const r = await validate(dir, ['batch.json']);
    expectExit(r, 1);
    expect(r.stdout).toContain(
      '! error  batch.json:3:1  invalid JSON: end of file expected; this looks like NDJSON (one JSON value per line): a .json file holds one message; name the file .ndjson or .jsonl to read it line by line\n',
    );
  });

  it('two values that are not one per line: says a document holds one message', async () => {
    const dir = tree();
    const r = await validate(dir, ['-'], { input: `${env(URN)} ${env(URN)}` });
    expectExit(r, 1);
    expect(r.stdout).toMatch(
      /! error {2}<stdin>:1:\d+ {2}invalid JSON: end of file expected; another JSON value starts here, and a document holds one message\n/,
    );
  });

  it('a JSON Schema given as a message: says so, and names bqschema check', async () => {
    const dir = tree({ 'loose.json': JSON.stringify({ type: 'object', properties: { a: { type: 'string' } } }) });
    const [schema, loose] = await Promise.all([validate(dir, ['ride.json']), validate(dir, ['loose.json'])]);
    expectExit(schema, 1);
    expect(schema.stdout).toContain(
      '    (envelope)  the envelope has no identity: no usable "job" or "urn"; this looks like a JSON Schema (it has "$schema"), not a message: schemas are listed in the registry manifest and checked with bqschema check\n',
    );
    expectExit(loose, 1);
    expect(loose.stdout).toContain('this looks like a JSON Schema (it has "type" and "properties"), not a message');
  });

  it('the registry manifest given as a message: says to pass it as --registry, and names bqschema check', async () => {
    const dir = tree({ 'entries.json': JSON.stringify([{ urn: URN, schema: 'ride.json' }]) });
    const [manifest, entries] = await Promise.all([validate(dir, ['registry.json']), validate(dir, ['entries.json'])]);
    expectExit(manifest, 1);
    expect(manifest.stdout).toContain(
      '    (envelope)  the envelope has no identity: no usable "job" or "urn"; this looks like a registry manifest (it has a "schemas" list), not a message: pass it as --registry registry.json, and check it with bqschema check --registry registry.json\n',
    );
    expectExit(entries, 1);
    expect(entries.stdout).toContain(
      '    (envelope)  the envelope is not a JSON object (it is an array); this looks like registry entries ({"urn", "schema"} objects), not messages: they belong in the "schemas" list of a registry manifest, checked with bqschema check\n',
    );
  });

  it('--urn given a whole envelope: says to drop --urn, before the violations', async () => {
    const dir = tree({ 'm.json': env(URN) });
    const r = await validate(dir, ['--urn', URN, '--format', 'json', 'm.json']);
    expectExit(r, 1);
    const [first, ...rest] = json(r).results[0]!.violations;
    expect(first).toMatchObject({
      instancePath: '(envelope)',
      message: 'this looks like an envelope (it has "job" and "data"), not bare data: drop --urn, and its URN is read from the envelope',
    });
    expect(rest.map((v) => `${v.instancePath} ${v.message}`)).toContain('/job is not allowed (additionalProperties is false)');
    const text = await validate(dir, ['--urn', URN, 'm.json']);
    expectExit(text, 1);
    expect(text.stdout).toContain('    (envelope)  this looks like an envelope (it has "job" and "data"), not bare data: drop --urn');
  });

  it('--urn given a whole envelope of that URN against an open schema: invalid, not a false green', async () => {
    // An open schema accepts the envelope's keys, so its data was never checked: before, "valid".
    const dir = tempTree({
      'registry.json': MANIFEST,
      'ride.json': JSON.stringify({ type: 'object', properties: { ride_id: { type: 'string' } } }),
      'm.json': env(URN, { ride_id: 7 }),
      'other.json': env('urn:some:other', { x: 1 }),
    });
    const r = await validate(dir, ['--urn', URN, '--format', 'json', 'm.json']);
    expectExit(r, 1);
    expect(json(r).results[0]!.violations.map((v) => v.message)).toEqual([
      'this looks like an envelope (it has "job" and "data"), not bare data: drop --urn, and its URN is read from the envelope',
    ]);
    // Bare data that merely has job/data keys naming another URN stays data.
    expectExit(await validate(dir, ['--urn', URN, 'other.json']), 0);
  });

  it('a JSON array of envelopes: says NDJSON is the batch format (validate --ndjson)', async () => {
    const batch = JSON.stringify([
      { job: URN, data: RIDE },
      { job: URN, data: RIDE },
      { urn: URN, data: RIDE },
    ]);
    const dir = tree({ 'batch.json': batch });
    const [file, stdin] = await Promise.all([validate(dir, ['batch.json']), validate(dir, ['-'], { input: batch })]);
    expectExit(file, 1);
    expect(file.stdout).toContain(
      `    (envelope)  the envelope is not a JSON object (it is an array of 3 envelopes); a document holds one message: for a batch, write one envelope per line (NDJSON) and run validate --ndjson, e.g. jq -c '.[]' batch.json | bqschema validate --ndjson -\n`,
    );
    expectExit(stdin, 1);
    expect(stdin.stdout).toContain(
      `write one envelope per line (NDJSON) and run validate --ndjson, e.g. ... | jq -c '.[]' | bqschema validate --ndjson -\n`,
    );
  });

  it('payload, body, Data, dta instead of data: did you mean "data"?', async () => {
    const dir = tree();
    const input = ['payload', 'body', 'Data', 'dta'].map((k) => JSON.stringify({ job: URN, [k]: RIDE })).join('\n') + '\n';
    const r = await validate(dir, ['--ndjson', '-'], { input });
    expectExit(r, 1);
    for (const k of ['payload', 'body', 'Data', 'dta']) {
      expect(r.stdout).toContain(`(envelope)  "data" must be a JSON object, got missing (the envelope has "${k}": did you mean "data"?)\n`);
    }
    // No near miss, no guess.
    const none = await validate(dir, ['-'], { input: JSON.stringify({ job: URN, other: RIDE }) });
    expectExit(none, 1);
    expect(none.stdout).toContain('(envelope)  "data" must be a JSON object, got missing\n');
  });

  it('readEnvelope (the library) gives the same hint, and quotes no value', () => {
    expect(() => readEnvelope({ job: URN, Payload: { secret: 's3cr3t' } })).toThrow(
      '"data" must be a JSON object, got missing (the envelope has "Payload": did you mean "data"?)',
    );
    expect(() => readEnvelope({ JOB: URN, data: {} })).toThrow(
      'the envelope has no identity: no usable "job" or "urn" (the envelope has "JOB": did you mean "job"?)',
    );
  });
});

describe.concurrent('validate: YAML message files', () => {
  const ride = (id: string): string => `# a ride\njob: ${URN}\ndata:\n  ride_id: ${id}\n`;

  it('a .yaml or .yml message is read as YAML', async () => {
    const dir = tree({ 'ride.yaml': ride('7'), 'ride.yml': ride('8') });
    const r = await validate(dir, ['ride.yaml', 'ride.yml']);
    expectExit(r, 0);
    expect(r.stdout).toContain(`✓ valid  ride.yaml  ${URN}\n`);
    expect(r.stdout).toContain(`✓ valid  ride.yml  ${URN}\n`);
  });

  it('violations are placed at line:column in the YAML (github, json)', async () => {
    const dir = tree({ 'bad.yaml': ride('"seven"') });
    const [gh, j] = await Promise.all([validate(dir, ['--format', 'github', 'bad.yaml']), validate(dir, ['--format', 'json', 'bad.yaml'])]);
    expectExit(gh, 1);
    // line 4 `  ride_id: "seven"`: the value at column 12
    expect(gh.stdout).toContain(
      `::error file=bad.yaml,line=4,col=12,title=invalid data::urn:acme:rides:requested: /ride_id must be integer, got string\n`,
    );
    expectExit(j, 1);
    expect(json(j).results[0]!.violations[0]).toMatchObject({ instancePath: '/ride_id', line: 4, col: 12 });
  });

  it('a YAML syntax error is an error at its line:column', async () => {
    const dir = tree({ 'broken.yaml': `job: ${URN}\ndata:\n  ride_id: [1, 2\n` });
    const r = await validate(dir, ['broken.yaml']);
    expectExit(r, 1);
    expect(r.stdout).toMatch(/! error {2}broken\.yaml:\d+:\d+ {2}invalid YAML: /);
    expect(r.stdout).not.toContain('invalid JSON');
  });
});
