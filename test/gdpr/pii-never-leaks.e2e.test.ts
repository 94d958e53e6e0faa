// Property: random schemas that mark personal data in every way a schema can
// (every marker shape, under the ten keywords and anyOf/oneOf/allOf/not/if/then/else, $ref,
// patternProperties, tuple items, prefixItems, additionalItems; YAML keys written plain) and
// random data carrying a sentinel wherever a schema marks it (test/helpers/pii.ts). No output
// may contain a sentinel: the library's Violation and InvalidPayloadError, mask, compat's corpus
// judgement, and through the built CLI, one run per batch of cases: validate in all six formats,
// check in all six, compat --against with a corpus in all six, gdpr --mask, and the catalog.
//
// BQ_PII_RUNS=<n> runs n batches through the CLI (and 100·n cases in the library); BQ_PII_SEED
// replays a reported seed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeCorpus } from '../../src/compat/evidence.js';
import { mask } from '../../src/validator/mask.js';
import { compile, InvalidPayloadError, MapProvider, validate as guardValidate } from '../../src/index.js';
import { parseSchema } from '../../src/validator/index.js';
import { preview } from '../../src/validator/compile.js';
import { interpret } from '../../src/validator/interpret.js';
import { bq, removeTempTrees, tempTree, type CliResult } from '../helpers/cli.js';
import { piiCase, yamlFlow, type PiiCase } from '../helpers/pii.js';

afterAll(removeTempTrees);

const SEED = Number(process.env.BQ_PII_SEED ?? 35_005);
const RUNS = Number(process.env.BQ_PII_RUNS ?? 2);
const BATCH = 24;
const FORMATS = ['text', 'json', 'github', 'markdown', 'sarif', 'junit'] as const;
const quiet = { onWarning: (): void => {} };

/** The sentinels found in `text`, with where: empty when nothing leaked. */
function leaks(where: string, text: string, sentinels: readonly string[]): string[] {
  return sentinels.filter((s) => text.includes(s)).map((s) => `${where}: ${s}`);
}

const stripMarkers = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'x-gdpr-sensitive' ? undefined : x)));

/** Everything the library says about one case's data. */
async function libraryOutputs(c: PiiCase): Promise<Array<[string, string]>> {
  const compiled = compile(c.schema, quiet);
  const walked = interpret(parseSchema(c.schema).root, preview, new Map());
  const provider = new MapProvider({ 'urn:pii:x': c.schema }, quiet);
  const out: Array<[string, string]> = [];
  for (const d of c.data) {
    const violations = compiled.validate(d);
    // The interpreter words it as the generated code does (the CSP fallback).
    expect(walked.validate(d)).toEqual(violations);
    out.push(['Violation', JSON.stringify(violations)], ['mask', JSON.stringify(mask(d, c.schema))]);
    try {
      guardValidate(provider, 'urn:pii:x', d);
    } catch (err) {
      if (!(err instanceof InvalidPayloadError)) throw err;
      out.push(['InvalidPayloadError', `${err.message} ${JSON.stringify(err.violations)}`]);
    }
  }
  const docs = c.data.map((d, i) => ({
    kind: 'doc' as const,
    file: 'corpus.ndjson',
    line: i + 1,
    text: JSON.stringify({ job: 'urn:pii:x', data: d }),
  }));
  const report = await judgeCorpus(
    (async function* () {
      yield docs;
    })(),
    (urn) => (urn === 'urn:pii:x' ? { key: urn, schema: compiled } : undefined),
    ['urn:pii:x'],
  );
  out.push(['compat corpus', JSON.stringify(report)]);
  return out;
}

describe('no output shows a marked value (property)', () => {
  it(
    `the library: Violation, InvalidPayloadError, mask, compat's corpus (${RUNS * 100} cases)`,
    { timeout: Math.max(60_000, RUNS * 30_000) },
    async () => {
      let secrets = 0;
      let worded = 0;
      let hiddenKeys = 0;
      let masked = 0;
      let unmarkedLeaks = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.nat(1_000_000), async (seed, id) => {
          const c = piiCase(seed, id);
          secrets += c.sentinels.length;
          const found: string[] = [];
          for (const [where, text] of await libraryOutputs(c)) {
            found.push(...leaks(where, text, c.sentinels));
            if (where === 'Violation') {
              if (/got an? (negative )?(integer|number)/.test(text)) worded++;
              if (text.includes('/***')) hiddenKeys++;
            }
            if (where === 'mask' && /"P\*\*\*"|"\*\*\*"/.test(text)) masked++;
          }
          if (found.length > 0)
            throw new Error(`${found.slice(0, 5).join('\n')}\nschema ${JSON.stringify(c.schema)}\ndata ${JSON.stringify(c.data)}`);
          // The control: without its markers the same schema quotes the same data.
          const bare = compile(stripMarkers(c.schema), quiet);
          for (const d of c.data) if (leaks('', JSON.stringify(bare.validate(d)), c.sentinels).length > 0) unmarkedLeaks++;
        }),
        { numRuns: RUNS * 100, seed: SEED, endOnFailure: true },
      );
      // Not vacuous: secrets were placed, validators spoke of them, and unmarked they would show.
      expect(secrets).toBeGreaterThan(RUNS * 500);
      expect(worded).toBeGreaterThan(RUNS * 10);
      expect(hiddenKeys).toBeGreaterThan(RUNS * 5);
      expect(masked).toBeGreaterThan(RUNS * 50);
      expect(unmarkedLeaks).toBeGreaterThan(RUNS * 10);
    },
  );

  it(
    `through the CLI: validate, check and compat in six formats, gdpr --mask, catalog (${RUNS} batches of ${BATCH})`,
    { timeout: Math.max(120_000, RUNS * 60_000) },
    async () => {
      const batches = fc.sample(fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { minLength: BATCH, maxLength: BATCH }), {
        numRuns: RUNS,
        seed: SEED,
      });
      let spoke = 0;
      // Two batches a pass: one registry of 48 cases and one run of each command over them, where
      // a pass per batch would pay each command's start, git's and the catalog's fixed work twice.
      for (let b = 0; b < batches.length; b += 2) {
        const cases = batches.slice(b, b + 2).flatMap((seeds, k) => seeds.map((seed, i) => piiCase(seed, (b + k) * BATCH + i)));
        const sentinels = cases.flatMap((c) => c.sentinels);
        const found: string[] = [];
        const seen = (where: string, r: CliResult | string): void => {
          const texts = typeof r === 'string' ? [r] : [r.stdout, r.stderr];
          for (const t of texts) found.push(...leaks(where, t, sentinels));
          if (typeof r !== 'string') {
            expect(r.stderr, where).not.toMatch(/^ {4}at /m); // no stack trace
            expect(r.code, `${where}: ${r.stderr}`).not.toBe(3); // no internal error
          }
        };
        const dir = registryOf(cases);
        const reports = (name: string): string[] =>
          FORMATS.filter((f) => f !== 'text').flatMap((f) => ['--report', `${f}=out/${name}.${f}`]);
        const readReports = (name: string): void => {
          for (const f of FORMATS.filter((x) => x !== 'text')) seen(`${name} ${f}`, readFileSync(join(dir, 'out', `${name}.${f}`), 'utf8'));
        };

        const validate = await bq(['validate', 'corpus.ndjson', ...reports('validate')], { cwd: dir });
        seen('validate text', validate);
        readReports('validate');
        spoke += (validate.stdout.match(/got an? (negative )?(integer|number)|\/\*\*\*/g) ?? []).length;

        const check = await bq(['check', ...reports('check')], { cwd: dir });
        seen('check text', check);
        readReports('check');

        const compat = await bq(['compat', '--against', 'HEAD', '--corpus', 'corpus.ndjson', ...reports('compat')], { cwd: dir });
        seen('compat text', compat);
        readReports('compat');
        expect(compat.stdout).toMatch(/corpus: \d+ message\(s\) checked/);

        const masked = await bq(['gdpr', '--mask', 'corpus.ndjson'], { cwd: dir });
        seen('gdpr --mask', masked);
        expect(masked.stdout).toContain('***');
        for (let i = 0; i < cases.length; i += BATCH) {
          const bare = await bq(['gdpr', '--mask', `bare-${i}.json`, '--urn', `urn:pii:${i}`], { cwd: dir });
          seen('gdpr --mask --urn', bare);
        }

        const catalog = await bq(['catalog', '--messages', 'messages', '-o', 'out/catalog.html'], { cwd: dir });
        seen('catalog', catalog);
        seen('catalog html', readFileSync(join(dir, 'out', 'catalog.html'), 'utf8'));

        if (found.length > 0) throw new Error(`batches ${b} and ${b + 1} (BQ_PII_SEED=${SEED}): ${found.slice(0, 8).join('\n')}`);
      }
      expect(spoke).toBeGreaterThan(RUNS * 5); // validate said things about marked values, redacted
    },
  );
});

/**
 * A git repository holding a registry of the cases (a third of the schemas as YAML flow text with
 * plain keys), committed with one more property per schema, so that compat --against HEAD sees
 * every URN changed; a corpus of every message, a message file each for the catalog, and each
 * batch's first case's data bare for --urn. Half the schemas carry their first datum as `examples`.
 */
function registryOf(cases: PiiCase[]): string {
  const schemas = cases.map((c, i) => (i % 2 === 0 && c.data.length > 0 ? { ...c.schema, examples: [c.data[0]] } : c.schema));
  const file = (i: number): string => (i % 3 === 0 ? `s/${i}.yaml` : `s/${i}.json`);
  const text = (i: number, s: unknown): string => (i % 3 === 0 ? `${yamlFlow(s)}\n` : `${JSON.stringify(s, null, 2)}\n`);
  const files: Record<string, string> = {
    'registry.json': JSON.stringify(
      { schemas: cases.map((_, i) => ({ urn: `urn:pii:${i}`, schema: file(i), owner: 'privacy' })) },
      null,
      2,
    ),
  };
  // The base: each schema with a property the working tree no longer has.
  schemas.forEach((s, i) => {
    const props = (s as { properties?: Record<string, unknown> }).properties ?? {};
    files[file(i)] = text(i, { ...s, properties: { ...props, zz_base: { type: 'string' } } });
  });
  const dir = tempTree(files);
  const git = (...args: string[]): void => {
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  schemas.forEach((s, i) => writeFileSync(join(dir, file(i)), text(i, s)));
  const lines: string[] = [];
  mkdirSync(join(dir, 'messages'));
  mkdirSync(join(dir, 'out'));
  cases.forEach((c, i) =>
    c.data.forEach((d, j) => {
      const envelope = JSON.stringify({ job: `urn:pii:${i}`, data: d, meta: { id: `m-${i}-${j}` } });
      lines.push(envelope);
      writeFileSync(join(dir, 'messages', `m-${i}-${j}.json`), envelope);
    }),
  );
  writeFileSync(join(dir, 'corpus.ndjson'), `${lines.join('\n')}\n`);
  for (let i = 0; i < cases.length; i += BATCH) writeFileSync(join(dir, `bare-${i}.json`), JSON.stringify(cases[i]!.data[0] ?? {}));
  return dir;
}
