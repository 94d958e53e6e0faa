// PHP: `bqschema types --lang php`, proven by PHP 8.2 (php-cli, installed by .ci/run):
// `php -l` on the example registry and a registry of hostile names; every valid example message
// decodes through Urns::decode into the generated readonly classes (strict_types), and a wrong type
// or a missing required key is a TypeError, a value outside a string enum (a backed enum read with
// from()) a ValueError; an open class keeps undeclared keys in $extra. A missing php fails the test
// naming the package.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validExampleLines, writeRegistry } from '../helpers/example-registry.js';
import { generatePhp, phpString } from '../../src/types/index.js';
import { RawJson } from '../helpers/roundtrip-common.js';
import { roundTripPhp } from '../helpers/roundtrip-php.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'bqschema.js');
let work = '';

function php(args: string[], cwd: string, input?: string): { code: number | null; out: string } {
  const r = spawnSync('php', args, { cwd, encoding: 'utf8', input });
  if (r.error) throw new Error(`php is needed for the PHP types tests: apt-get install php-cli (${r.error.message})`);
  return { code: r.status, out: r.stdout + r.stderr };
}

function generate(registry: string): string {
  const r = spawnSync(process.execPath, [BIN, 'types', '--lang', 'php', '-r', registry], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

// Reads envelopes (one per line) on stdin; prints ok and the short class name (with the argument
// echo: ok and the value as json_encode writes it, the message's data; with vars: ok and its public
// properties), or the class of what was thrown.
const CHECK = `<?php
declare(strict_types=1);
require __DIR__ . '/bqtypes.php';
while (($line = fgets(STDIN)) !== false) {
    $e = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
    try {
        $v = \\BqTypes\\Urns::decode($e['job'] ?? $e['urn'], $e['data']);
        if (($argv[1] ?? '') === 'echo') {
            echo 'ok ', json_encode($v, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES), "\\n";
        } elseif (($argv[1] ?? '') === 'vars') {
            echo 'ok ', json_encode(get_object_vars($v), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES), "\\n";
        } else {
            echo 'ok ', is_object($v) ? (new \\ReflectionClass($v))->getShortName() : gettype($v), "\\n";
        }
    } catch (\\Throwable $t) {
        echo get_class($t), "\\n";
    }
}
`;

/** Enum values that are no identifier, `class`, empty, a line separator, equal after sanitising, or start with a digit. */
const HOSTILE_ENUM = ['*/', '\u2028', 'class', 'Class', '', 'a-b', 'a_b', '9lives', "'; ?>", 'list'];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-php-'));
  console.info(`toolchain: ${php(['-v'], work).out.split('\n')[0]}`);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('types --lang php', { timeout: 120_000 }, () => {
  it('the example registry: php -l passes; every valid example decodes; a wrong type and a missing key are TypeErrors', () => {
    const dir = mkdtempSync(join(work, 'examples-'));
    writeFileSync(join(dir, 'bqtypes.php'), generate('registry.example.json'));
    writeFileSync(join(dir, 'check.php'), CHECK);
    expect(php(['-l', 'bqtypes.php'], dir)).toMatchObject({ code: 0 });
    const lines = validExampleLines();
    const bad = [
      JSON.stringify({ job: 'urn:babel:orders:cancelled', data: { order_id: 'x', reason: 'out_of_stock' } }),
      JSON.stringify({ job: 'urn:babel:orders:cancelled', data: { reason: 'out_of_stock' } }),
      JSON.stringify({ job: 'urn:nobody', data: {} }),
      JSON.stringify({ job: 'urn:babel:orders:cancelled', data: { order_id: 1, reason: 'lost' } }),
      JSON.stringify({ job: 'urn:babel:orders:cancelled', data: { order_id: 1, reason: 7 } }),
      JSON.stringify({ job: 'urn:babel:orders:created', data: { order_id: 1, customer_id: 'c', currency: 'eur', lines: [] } }),
    ];
    const r = php(['-d', 'error_reporting=E_ALL & ~E_WARNING', 'check.php'], dir, [...lines, ...bad].join('\n') + '\n');
    expect(r.code, r.out).toBe(0);
    const out = r.out.trim().split('\n');
    expect(out.slice(0, lines.length).every((l) => l.startsWith('ok '))).toBe(true);
    expect(out.slice(lines.length)).toEqual([
      'TypeError',
      'TypeError',
      'InvalidArgumentException',
      'ValueError',
      'TypeError',
      'ValueError',
    ]);
  });

  it('the example registry: an open class keeps the keys it does not declare in $extra; a closed one has no $extra; enums read as cases', () => {
    const dir = mkdtempSync(join(work, 'extra-'));
    const src = generate('registry.example.json');
    writeFileSync(join(dir, 'bqtypes.php'), src);
    writeFileSync(join(dir, 'check.php'), CHECK);
    const payment = { payment_id: 'p-123456', order_id: 7, amount: 9.5, currency: 'TRY' };
    const input = [
      { job: 'urn:babel:payments:captured', data: { ...payment, gateway: { id: 'g-1' }, '7': true } },
      { job: 'urn:babel:payments:captured', data: payment },
      { job: 'urn:babel:users:registered', data: { user_id: 'u', email: 'a@b', locale: 'en', addresses: [{ city: 'Izmir', zip: '35' }] } },
      { job: 'urn:babel:orders:cancelled', data: { order_id: 1, reason: 'payment_failed' } },
    ];
    const stdin = input.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const r = php(['check.php', 'vars'], dir, stdin);
    expect(r.code, r.out).toBe(0);
    const got = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.replace(/^ok /, '')) as Record<string, unknown>);
    const nulls = { cardLast4: null, capturedAt: null };
    expect(got).toEqual([
      { paymentId: 'p-123456', orderId: 7, amount: 9.5, currency: 'TRY', ...nulls, extra: { gateway: { id: 'g-1' }, '7': true } },
      { paymentId: 'p-123456', orderId: 7, amount: 9.5, currency: 'TRY', ...nulls, extra: [] },
      {
        userId: 'u',
        email: 'a@b',
        locale: 'en',
        phone: null,
        fullName: null,
        addresses: [{ city: 'Izmir', zip: '35' }],
        marketingOptIn: null,
        explicitNulls: [],
      },
      { orderId: 1, reason: 'payment_failed', note: null },
    ]);
    // json_encode writes each one back as it was read, the undeclared keys included.
    const back = php(['check.php', 'echo'], dir, stdin);
    expect(
      back.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l.replace(/^ok /, '')) as unknown),
    ).toEqual(input.map((l) => l.data));
    expect(src).toContain("enum OrdersCancelledReason: string\n{\n    case CustomerRequest = 'customer_request';");
  });

  it('hostile names: php -l passes, JSON names are kept, no value escapes its literal or comment', () => {
    const dir = mkdtempSync(join(work, 'hostile-'));
    const schemas: Record<string, unknown> = {
      "urn:x:'; system('id'); //": {
        type: 'object',
        required: ['this'],
        properties: {
          this: { type: 'string', description: 'ends PHP ?> <?php system("id");' },
          class: { type: 'integer' },
          'a-b': { type: 'string' },
          aB: { type: 'string' },
          "q'uote\\\\": { type: 'boolean' },
          nested: { type: 'object', properties: { $x: { type: ['number', 'null'] } } },
          list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
        },
      },
      'urn:x:null': { type: 'object', properties: { a: { type: 'string' } } },
      'urn:x:Urns': { type: 'string' },
      'urn:x:kind': { type: 'object', required: ['k'], properties: { k: { enum: HOSTILE_ENUM } }, additionalProperties: false },
      'urn:x:open': { type: 'object', properties: { extra: { type: 'string' }, kind: { const: 'class' } } },
    };
    writeRegistry(dir, schemas);
    const src = generate(join(dir, 'registry.json'));
    writeFileSync(join(dir, 'bqtypes.php'), src);
    writeFileSync(join(dir, 'check.php'), CHECK);
    expect(php(['-l', 'bqtypes.php'], dir)).toMatchObject({ code: 0 });
    expect(src).toContain(`= ${phpString("urn:x:'; system('id'); //")};`);
    expect(src).not.toMatch(/^system/m);
    // In a PHPDoc block `?>` ends nothing; `*/` would, and is broken up.
    expect(src).toContain('         * ends PHP ?> <?php system("id");\n');
    const line = JSON.stringify({
      job: "urn:x:'; system('id'); //",
      data: { this: 't', class: 1, 'a-b': 'a', aB: 'b', "q'uote\\\\": true, nested: { $x: null }, list: [{ k: 'v' }] },
    });
    const r = php(['check.php'], dir, `${line}\n${JSON.stringify({ job: 'urn:x:Urns', data: 's' })}\n`);
    expect(r.out.trim().split('\n')).toEqual([expect.stringMatching(/^ok /), 'ok string']);
    for (const v of HOSTILE_ENUM) expect(src).toContain(` = ${phpString(v)};\n`);
    const lines = [
      ...HOSTILE_ENUM.map((v) => ({ job: 'urn:x:kind', data: { k: v } })),
      { job: 'urn:x:kind', data: { k: 'a.b' } },
      { job: 'urn:x:kind', data: { k: 'CLASS' } },
      { job: 'urn:x:open', data: { extra: 'e', kind: 'class', more: '?>' } },
      { job: 'urn:x:open', data: { kind: 'klass' } },
    ];
    const e = php(['check.php', 'echo'], dir, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    // The property named extra is $extra_2: $extra holds the undeclared keys.
    expect(src).toContain('public ?string $extra_2 = null,');
    expect(e.out.trim().split('\n')).toEqual([
      ...HOSTILE_ENUM.map((v) => `ok {"k":${JSON.stringify(v).replace(/\u2028/, '\\u2028')}}`),
      'ValueError',
      'ValueError',
      'ok {"extra":"e","kind":"class","more":"?>"}',
      'ValueError',
    ]);
  });

  it('docs/types.md shows real output: each of its PHP samples is in the generated file', () => {
    const page = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');
    const section = /\n## PHP\n([\s\S]*?)\n## /.exec(page)![1]!;
    const samples = [...section.matchAll(/```php\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
    expect(samples.length).toBe(2);
    const src = generate('registry.example.json');
    for (const sample of samples) expect(src).toContain(sample);
  });

  it('--check works for php', () => {
    const dir = mkdtempSync(join(work, 'check-'));
    const file = join(dir, 'bqtypes.php');
    const args = ['types', '--lang', 'php', '-r', 'registry.example.json', '-o', file];
    expect(spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT }).status).toBe(0);
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8') + '\n');
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(1);
  });

  it('reserved words and case-insensitive collisions are no class names; nested nullable objects load; integers written 1.0 or 1e2 are ints; json_encode writes back what was read', async () => {
    const item = { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } };
    const registry: Record<string, unknown> = {
      'urn:x:try': { type: 'object', properties: { a: { type: 'string' } } },
      'urn:x:List': { type: 'object', properties: { a: { type: 'string' } } },
      'urn:x:int': { type: 'object', properties: { a: { type: 'string' } } },
      'urn:x:self': { type: 'object', properties: { a: { type: 'string' } } },
      'urn:x:OrderId': { type: 'object', properties: { a: { type: 'string' } } },
      'urn:x:orderid': { type: 'object', properties: { a: { type: 'string' } } },
      // An optional nullable object and a nullable array of objects (a nested `?:` PHP refuses unparenthesised).
      'urn:x:nested': {
        required: ['id'],
        properties: {
          id: { type: 'integer' },
          o: { ...item, type: ['object', 'null'] },
          list: { type: ['array', 'null'], items: { ...item, type: ['object', 'null'] } },
          free: { type: 'object' },
          any: {},
          u: { type: ['string', 'integer', 'null'] },
        },
      },
    };
    const src = generatePhp(Object.entries(registry).map(([urn, schema]) => ({ urn, schema })));
    for (const name of ['Try_2', 'List_2', 'Int_2', 'Self_2', 'OrderId', 'Orderid_2'])
      expect(src).toContain(`final readonly class ${name} implements`);
    const messages = [
      '{"id": 1}',
      '{"id": 1.0, "o": null, "list": null}',
      '{"id": 1e2, "o": {"n": 2.0}, "list": [null, {"n": 3e0}]}',
      '{"id": 4, "free": {}, "any": {"k": {}, "l": []}, "u": 5.0, "x": {"0": 1}}',
      '{"id": 5, "u": "s", "free": {"0": [], "": null}}',
    ];
    const [result] = await roundTripPhp([
      {
        registry,
        urn: 'urn:x:nested',
        data: [...messages.map((m) => new RawJson(m)), { id: 'x' }, { id: 1, o: { n: 'x' } }, { id: 1, list: {} }, { id: 1, u: 1.5 }],
      },
    ]);
    expect(result!.compiled, JSON.stringify(result)).toBe(true);
    const outcomes = result!.compiled ? result!.outcomes : [];
    // JSON-equal to what was read (1.0 is 1), and written with integers as integers.
    expect(outcomes.slice(0, messages.length).map((o) => (o.ok ? o.text : o.error))).toEqual([
      '{"id":1}',
      '{"id":1,"o":null,"list":null}',
      '{"id":100,"o":{"n":2},"list":[null,{"n":3}]}',
      '{"id":4,"free":{},"any":{"k":{},"l":[]},"u":5,"x":{"0":1}}',
      '{"id":5,"free":{"0":[],"":null},"u":"s"}',
    ]);
    expect(outcomes.slice(messages.length).map((o) => (o.ok ? o.text : o.error.replace(/:.*/, '')))).toEqual([
      'TypeError',
      'TypeError',
      'TypeError',
      'TypeError',
    ]);
    // json_decode($json, true) reads the same messages; toArray gives that array back.
    const [assoc] = await roundTripPhp([{ registry, urn: 'urn:x:nested', data: messages.slice(0, 3).map((m) => new RawJson(m)) }], {
      assoc: true,
    });
    expect(assoc!.compiled && assoc!.outcomes.map((o) => o.ok && o.text)).toEqual([
      '{"id":1}',
      '{"id":1,"o":null,"list":null}',
      '{"id":100,"o":{"n":2},"list":[null,{"n":3}]}',
    ]);
    const dir = mkdtempSync(join(work, 'toarray-'));
    writeFileSync(join(dir, 'bqtypes.php'), src);
    const script = `<?php declare(strict_types=1); require 'bqtypes.php';
$v = \\BqTypes\\Urns::decode('urn:x:nested', json_decode('{"id": 1, "o": {"n": 2}, "list": [{"n": 3}], "x": {"y": {}}}'));
echo json_encode($v->toArray()), "\\n", json_encode($v->o), "\\n", get_class($v->list[0]), "\\n";`;
    writeFileSync(join(dir, 'toarray.php'), script);
    expect(php(['toarray.php'], dir).out).toBe('{"id":1,"o":{"n":2},"list":[{"n":3}],"x":{"y":[]}}\n{"n":2}\nBqTypes\\NestedListItem\n');
  });
});
