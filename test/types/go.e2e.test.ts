// Go: `bqschema types --lang go`, proven by Go's own toolchain (golang-go, installed by
// .ci/run): the file is as gofmt writes it (gofmt -l is silent) and passes `go vet` for the example
// registry and a registry of hostile names (a description with lines gofmt reads as code, a list, a
// heading and a build constraint among them); every valid example message decodes into the
// generated types with encoding/json (closed objects with DisallowUnknownFields), and a wrong type,
// an unknown field of a closed object and a value
// outside a string enum are caught; an open object keeps its undeclared keys through a round trip.
// A missing go fails the test naming the package to install.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validExampleLines, writeRegistry } from '../helpers/example-registry.js';
import { goString } from '../../src/types/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'bqschema.js');
let work = '';

function goEnv(): NodeJS.ProcessEnv {
  // A home, cache and module path of the test's own: the checkout's user may have none writable.
  return {
    ...process.env,
    HOME: work,
    GOCACHE: join(work, 'gocache'),
    GOPATH: join(work, 'gopath'),
    GOFLAGS: '-mod=mod',
    GO111MODULE: 'on',
    CGO_ENABLED: '0',
  };
}

function go(args: string[], cwd: string): { code: number | null; out: string } {
  const r = spawnSync('go', args, { cwd, env: goEnv(), encoding: 'utf8' });
  if (r.error) throw new Error(`go is needed for the Go types tests: apt-get install golang-go (${r.error.message})`);
  return { code: r.status, out: r.stdout + r.stderr };
}

/**
 * gofmt -l on the module's generated file: empty when it is as gofmt writes it (else the file and
 * what gofmt -d would change).
 */
function gofmt(dir: string): string {
  const r = spawnSync('gofmt', ['-l', 'bqtypes'], { cwd: dir, encoding: 'utf8' });
  if (r.error) throw new Error(`gofmt is needed for the Go types tests: apt-get install golang-go (${r.error.message})`);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout === '' ? '' : `${r.stdout}${spawnSync('gofmt', ['-d', 'bqtypes'], { cwd: dir, encoding: 'utf8' }).stdout.slice(0, 3000)}`;
}

/** A Go module holding the generated file as package bqtypes, and a checker command. */
function goModule(name: string, source: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'bqtypes'), { recursive: true });
  writeFileSync(join(dir, 'go.mod'), 'module example.com/check\n\ngo 1.19\n');
  writeFileSync(join(dir, 'bqtypes', 'bqtypes.go'), source);
  mkdirSync(join(dir, 'cmd', 'check'), { recursive: true });
  // Reads envelopes (one per line), decodes each with DecodeData, prints ok or the error per line
  // (with the argument echo: ok and the decoded value written back with encoding/json).
  writeFileSync(
    join(dir, 'cmd', 'check', 'main.go'),
    `package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"example.com/check/bqtypes"
)

func main() {
	s := bufio.NewScanner(os.Stdin)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		var e bqtypes.Envelope
		if err := json.Unmarshal(s.Bytes(), &e); err != nil {
			fmt.Println("envelope:", err)
			continue
		}
		urn := e.Job
		if urn == "" {
			urn = e.URN
		}
		v, err := bqtypes.DecodeData(urn, e.Data)
		if err != nil {
			fmt.Println("error:", err)
		} else if len(os.Args) > 1 && os.Args[1] == "echo" {
			out, err := json.Marshal(v)
			fmt.Println("ok", string(out), err)
		} else {
			fmt.Println("ok")
		}
	}
}
`,
  );
  return dir;
}

/** `go run ./cmd/check [args]` over envelope lines; its output lines. */
function check(dir: string, lines: string[], args: string[] = []): string[] {
  const r = spawnSync('go', ['run', './cmd/check', ...args], { cwd: dir, env: goEnv(), input: lines.join('\n') + '\n', encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split('\n');
}

function types(args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', ...args], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-go-'));
  console.info(`toolchain: ${go(['version'], work).out.trim()}`);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('types --lang go', { timeout: 180_000 }, () => {
  it('the example registry: gofmt -l is silent and go vet passes; every valid example message decodes; a wrong type, an unknown field of a closed object and a value outside an enum do not', () => {
    const dir = goModule('examples', types(['-r', 'registry.example.json']));
    expect(gofmt(dir)).toBe('');
    const vet = go(['vet', './...'], dir);
    expect(vet.code, vet.out).toBe(0);
    const lines = validExampleLines();
    expect(lines.length).toBeGreaterThan(3);
    const user = { user_id: 'u-1', email: 'a@b.c', locale: 'en' };
    const bad = [
      JSON.stringify({ job: 'urn:babel:orders:created', data: { order_id: 'x', customer_id: 'c', currency: 'EUR', lines: [] } }),
      JSON.stringify({ job: 'urn:babel:orders:created', data: { order_id: 1, customer_id: 'c', currency: 'EUR', lines: [], gift: true } }),
      JSON.stringify({ job: 'urn:nobody:knows', data: {} }),
      JSON.stringify({ job: 'urn:babel:orders:cancelled', data: { order_id: 1, reason: 'lost' } }),
      JSON.stringify({ job: 'urn:babel:orders:created', data: { order_id: 1, customer_id: 'c', currency: 'eur', lines: [] } }),
      JSON.stringify({ job: 'urn:babel:orders:cancelled', data: { order_id: 1, reason: 7 } }),
      // A closed object around an open one (users:registered's addresses) still refuses its own unknown keys.
      JSON.stringify({ job: 'urn:babel:users:registered', data: { ...user, addresses: [{ city: 'Izmir', zip: '35' }], nick: 'n' } }),
    ];
    const out = check(dir, [...lines, ...bad]);
    expect(out.slice(0, lines.length)).toEqual(lines.map(() => 'ok'));
    expect(out.slice(lines.length)).toEqual([
      expect.stringMatching(/^error: json: cannot unmarshal string into Go struct field OrdersCreated\.order_id of type int64$/),
      expect.stringMatching(/^error: json: unknown field "gift"$/),
      'error: no type is generated for URN "urn:nobody:knows"',
      'error: bqtypes: "lost" is not a value of OrdersCancelledReason',
      'error: bqtypes: "eur" is not a value of OrdersCreatedCurrency',
      'error: json: cannot unmarshal number into Go struct field OrdersCancelled.reason of type string',
      'error: json: unknown field "nick"',
    ]);
  });

  it('the example registry: an open object keeps undeclared keys through a decode and an encode; a closed one has no catch-all', () => {
    const src = types(['-r', 'registry.example.json']);
    const dir = goModule('roundtrip', src);
    const payment = { payment_id: 'p-123456', order_id: 7, amount: 9.5, currency: 'TRY' };
    const out = check(
      dir,
      [
        JSON.stringify({ job: 'urn:babel:payments:captured', data: { ...payment, gateway: { id: 'g-1', tries: [1, 2] }, note: null } }),
        JSON.stringify({ job: 'urn:babel:payments:captured', data: payment }),
        JSON.stringify({
          job: 'urn:babel:users:registered',
          data: { user_id: 'u-1', email: 'a@b.c', locale: 'en', addresses: [{ city: 'Izmir', zip: '35' }] },
        }),
      ],
      ['echo'],
    );
    expect(out.map((l) => JSON.parse(l.replace(/^ok (.*) <nil>$/, '$1')) as unknown)).toEqual([
      { ...payment, gateway: { id: 'g-1', tries: [1, 2] }, note: null },
      payment,
      { user_id: 'u-1', email: 'a@b.c', locale: 'en', addresses: [{ city: 'Izmir', zip: '35' }] },
    ]);
    // Only the open structs carry Extra.
    const structs = [...src.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)].map((m) => [
      m[1],
      m[2]!.includes('Extra map[string]json.RawMessage `json:"-"`'),
    ]);
    expect(Object.fromEntries(structs)).toEqual({
      Envelope: false,
      OrdersCreatedLinesItem: false,
      OrdersCreated: false,
      OrdersCancelled: false,
      UsersRegisteredAddressesItem: true,
      UsersRegistered: false,
      PaymentsCaptured: true,
    });
  });

  it('hostile names: gofmt -l is silent, go vet passes, json names are kept, and no schema value escapes its literal', () => {
    const schema = {
      type: 'object',
      description: "line one\n*/ package evil\n\u0000\n  indented\n\n  - item\n+build ignore\n\nA Heading\n\n``quoted''",
      required: ['type'],
      properties: {
        type: { type: 'string' },
        func: { type: 'integer' },
        'a-b': { type: 'string' },
        a_b: { type: 'string' },
        ünï: { type: 'boolean' },
        '9lives': { type: ['string', 'null'] },
        nested: { type: 'object', properties: { 'x.y': { type: 'number' } }, additionalProperties: false },
        list: { type: 'array', items: { type: 'object', properties: { go: { enum: ['"', '\\', '`'] } }, additionalProperties: false } },
        kind: { enum: HOSTILE_ENUM },
        one: { const: 'func' },
      },
      additionalProperties: false,
    };
    // An open object whose properties take the catch-all's and its methods' names, around a closed one.
    const open = {
      type: 'object',
      properties: {
        extra: { type: 'string' },
        Extra: { type: 'integer' },
        MarshalJSON: { type: 'boolean' },
        inner: { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: false },
      },
    };
    // encoding/json refuses these as tag names (a comma, a quote, an emoji: not a letter or digit).
    // ² and Ⅻ are numbers but not decimal digits: encoding/json would ignore such a tag and match the field's Go name.
    const odd = {
      type: 'object',
      properties: {
        'a,b': { type: 'string' },
        'q"uote': { type: 'string' },
        '😀': { type: 'boolean' },
        'x²': { type: 'integer' },
        Ⅻ: { type: 'string' },
      },
    };
    const dir = tempRegistry({
      'urn:x:"; panic("no") //': schema,
      'urn:x:odd': odd,
      'urn:x:type': { type: 'string' },
      'urn:x:Envelope': { type: 'object', properties: { a: { type: 'string' } } },
      'urn:x:open': open,
      'urn:x:kind': { enum: HOSTILE_ENUM },
    });
    const r = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', join(dir, 'registry.json')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const src = r.stdout;
    const mod = goModule('hostile', src);
    expect(gofmt(mod)).toBe('');
    const vet = go(['vet', './...'], mod);
    expect(vet.code, vet.out).toBe(0);
    expect(src).toContain(`= ${goString('urn:x:"; panic("no") //')}`);
    expect(src).not.toMatch(/^package evil/m);
    for (const tag of [
      'json:"type"',
      'json:"func,omitempty"',
      'json:"a-b,omitempty"',
      'json:"a_b,omitempty"',
      'json:"ünï,omitempty"',
      'json:"9lives,omitempty"',
      'json:"x.y,omitempty"',
    ])
      expect(src).toContain(tag);
    // A name no json tag can carry: its field has none, and the struct's own methods read and write it by its exact name.
    expect(src).toMatch(/type Odd struct \{/);
    expect(src).toContain('\tAB *string `json:"-"`');
    expect(src).toContain(`if err := property(rest, ${goString('q"uote')}, &f.QUote); err != nil {`);
    const decode = spawnSync('go', ['run', './cmd/check'], {
      cwd: mod,
      env: goEnv(),
      encoding: 'utf8',
      input:
        [
          JSON.stringify({
            job: 'urn:x:"; panic("no") //',
            data: { type: 't', func: 1, 'a-b': 'x', a_b: 'y', ünï: true, '9lives': null, nested: { 'x.y': 1.5 }, list: [{ go: '`' }] },
          }),
          JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', nested: { 'x.y': 1, z: 1 } } }),
          JSON.stringify({ job: 'urn:x:odd', data: { 'a,b': 'v', 'q"uote': 'w', more: 1 } }),
          // A wrong type under a name no tag can carry is refused, as under any other.
          JSON.stringify({ job: 'urn:x:odd', data: { 'a,b': 7 } }),
          JSON.stringify({ job: 'urn:x:odd', data: { '😀': 'true' } }),
          // encoding/json alone takes a key in another case for a tag's name: a closed struct refuses it.
          JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', TYPE: 'u' } }),
          JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { Type: 't' } }),
          JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', nested: { 'X.Y': 1 } } }),
        ].join('\n') + '\n',
    });
    expect(decode.status, decode.stderr).toBe(0);
    expect(decode.stdout.trim().split('\n')).toEqual([
      'ok',
      'error: json: unknown field "z"',
      'ok',
      'error: bqtypes: property "a,b": json: cannot unmarshal number into Go value of type string',
      'error: bqtypes: property "😀": json: cannot unmarshal string into Go value of type bool',
      'error: json: unknown field "TYPE"',
      'error: json: unknown field "Type"',
      'error: json: unknown field "X.Y"',
    ]);
    for (const v of HOSTILE_ENUM) expect(src).toContain(` = ${goString(v)}\n`);
    const data = { extra: 'e', Extra: 2, MarshalJSON: true, inner: { k: 'v' }, more: [1, '*/'] };
    const echo = check(
      mod,
      [
        ...HOSTILE_ENUM.map((v) => JSON.stringify({ job: 'urn:x:kind', data: v })),
        JSON.stringify({ job: 'urn:x:kind', data: 'a.b' }),
        JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', one: 'func', kind: '\u2028' } }),
        JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', kind: 'Class' } }),
        JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', one: 'fun' } }),
        JSON.stringify({ job: 'urn:x:open', data }),
        JSON.stringify({ job: 'urn:x:open', data: { inner: { k: 'v', z: 1 } } }),
        // An open struct keeps a key in another case than a declared one as its own (in Extra).
        JSON.stringify({ job: 'urn:x:open', data: { MARSHALJSON: 1, marshaljson: 2 } }),
        JSON.stringify({ job: 'urn:x:odd', data: { 'a,b': 'v', 'q"uote': 'w', '😀': false, more: [1] } }),
        JSON.stringify({ job: 'urn:x:odd', data: { 'x²': 2, Ⅻ: '12', X2: 'other' } }),
      ],
      ['echo'],
    );
    expect(echo).toEqual([
      ...HOSTILE_ENUM.map((v) => `ok ${JSON.stringify(v).replace(/\u2028/, '\\u2028')} <nil>`),
      'error: bqtypes: "a.b" is not a value of Kind',
      expect.stringMatching(/^ok \{.*"kind":"\\u2028".*\} <nil>$/),
      expect.stringMatching(/^error: .*"Class" is not a value of /),
      expect.stringMatching(/^error: .*"fun" is not a value of /),
      `ok ${JSON.stringify(Object.fromEntries(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : 1))))} <nil>`,
      'error: json: unknown field "z"',
      'ok {"MARSHALJSON":1,"marshaljson":2} <nil>',
      'ok {"a,b":"v","more":[1],"q\\"uote":"w","😀":false} <nil>',
      'ok {"X2":"other","x²":2,"Ⅻ":"12"} <nil>',
    ]);
  });

  it('docs/types.md shows real output: each of its Go samples is in the generated file', () => {
    const page = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');
    const section = /\n## Go\n([\s\S]*?)\n## /.exec(page)![1]!;
    const samples = [...section.matchAll(/```go\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
    expect(samples.length).toBe(2);
    const src = types(['-r', 'registry.example.json']);
    for (const sample of samples) expect(src).toContain(sample);
  });

  it('--check: the file on disk matches what would be generated, else exit 1', () => {
    const dir = mkdtempSync(join(work, 'check-'));
    const file = join(dir, 'bqtypes.go');
    const write = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', 'registry.example.json', '-o', file], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(write.status, write.stderr).toBe(0);
    const same = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', 'registry.example.json', '-o', file, '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(same.status).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8') + '\n');
    const stale = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', 'registry.example.json', '-o', file, '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(stale.status).toBe(1);
    expect(stale.stderr).toMatch(/is out of date; regenerate it with bqschema types/);
  });
});

/** Enum values that are no identifier, a keyword, empty, a line separator, equal after sanitising, or start with a digit. */
const HOSTILE_ENUM = ['*/', '\u2028', 'class', '', 'a-b', 'a_b', '9lives', 'func', 'Kind'];

function tempRegistry(schemas: Record<string, unknown>): string {
  const dir = mkdtempSync(join(work, 'reg-'));
  writeRegistry(dir, schemas);
  return dir;
}
