// Issue 25 (Go): `bqschema types --lang go`, proven by Go's own toolchain (golang-go, installed by
// .ci/run): the file passes `go vet` for the example registry and a registry of hostile names;
// every valid example message decodes into the generated types with encoding/json (closed objects
// with DisallowUnknownFields), and a wrong type or an unknown field of a closed object is caught.
// A missing go fails the test naming the package to install.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validExampleLines, writeRegistry } from './helpers/example-registry.js';
import { goString } from '../src/types/index.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'bqschema.js');
let work = '';

function goEnv(): NodeJS.ProcessEnv {
  // A home, cache and module path of the test's own: the checkout's user may have none writable.
  return { ...process.env, HOME: work, GOCACHE: join(work, 'gocache'), GOPATH: join(work, 'gopath'), GOFLAGS: '-mod=mod', GO111MODULE: 'on', CGO_ENABLED: '0' };
}

function go(args: string[], cwd: string): { code: number | null; out: string } {
  const r = spawnSync('go', args, { cwd, env: goEnv(), encoding: 'utf8' });
  if (r.error) throw new Error(`go is needed for the Go types tests: apt-get install golang-go (${r.error.message})`);
  return { code: r.status, out: r.stdout + r.stderr };
}

/** A Go module holding the generated file as package bqtypes, and a checker command. */
function goModule(name: string, source: string): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'bqtypes'), { recursive: true });
  writeFileSync(join(dir, 'go.mod'), 'module example.com/check\n\ngo 1.19\n');
  writeFileSync(join(dir, 'bqtypes', 'bqtypes.go'), source);
  mkdirSync(join(dir, 'cmd', 'check'), { recursive: true });
  // Reads envelopes (one per line), decodes each with DecodeData, prints ok or the error per line.
  writeFileSync(join(dir, 'cmd', 'check', 'main.go'), `package main

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
		if _, err := bqtypes.DecodeData(urn, e.Data); err != nil {
			fmt.Println("error:", err)
		} else {
			fmt.Println("ok")
		}
	}
}
`);
  return dir;
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
  it('the example registry: go vet passes; every valid example message decodes; a wrong type and an unknown field of a closed object do not', () => {
    const dir = goModule('examples', types(['-r', 'registry.example.json']));
    const vet = go(['vet', './...'], dir);
    expect(vet.code, vet.out).toBe(0);
    const lines = validExampleLines();
    expect(lines.length).toBeGreaterThan(3);
    const bad = [
      JSON.stringify({ job: 'urn:babel:orders:created', data: { order_id: 'x', customer_id: 'c', currency: 'EUR', lines: [] } }),
      JSON.stringify({ job: 'urn:babel:orders:created', data: { order_id: 1, customer_id: 'c', currency: 'EUR', lines: [], gift: true } }),
      JSON.stringify({ job: 'urn:nobody:knows', data: {} }),
    ];
    const r = spawnSync('go', ['run', './cmd/check'], { cwd: dir, env: goEnv(), input: [...lines, ...bad].join('\n') + '\n', encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout.trim().split('\n');
    expect(out.slice(0, lines.length)).toEqual(lines.map(() => 'ok'));
    expect(out.slice(lines.length)).toEqual([
      expect.stringMatching(/^error: json: cannot unmarshal string into Go struct field OrdersCreated\.order_id of type int64$/),
      expect.stringMatching(/^error: json: unknown field "gift"$/),
      'error: no type is generated for URN "urn:nobody:knows"',
    ]);
  });

  it('hostile names: go vet passes, json names are kept, and no schema value escapes its literal', () => {
    const schema = {
      type: 'object',
      description: 'line one\n*/ package evil\n\u0000',
      required: ['type'],
      properties: {
        type: { type: 'string' }, func: { type: 'integer' }, 'a-b': { type: 'string' }, a_b: { type: 'string' }, 'ünï': { type: 'boolean' },
        '9lives': { type: ['string', 'null'] }, nested: { type: 'object', properties: { 'x.y': { type: 'number' } }, additionalProperties: false },
        list: { type: 'array', items: { type: 'object', properties: { go: { enum: ['"', '\\', '`'] } }, additionalProperties: false } },
      },
      additionalProperties: false,
    };
    // encoding/json refuses these as tag names (a comma, a quote, an emoji: not a letter or digit).
    const odd = { type: 'object', properties: { 'a,b': { type: 'string' }, 'q"uote': { type: 'string' }, '😀': { type: 'boolean' } } };
    const dir = tempRegistry({
      'urn:x:"; panic("no") //': schema, 'urn:x:odd': odd, 'urn:x:type': { type: 'string' }, 'urn:x:Envelope': { type: 'object', properties: { a: { type: 'string' } } },
    });
    const r = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', join(dir, 'registry.json')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const src = r.stdout;
    const mod = goModule('hostile', src);
    const vet = go(['vet', './...'], mod);
    expect(vet.code, vet.out).toBe(0);
    expect(src).toContain(`= ${goString('urn:x:"; panic("no") //')}`);
    expect(src).not.toMatch(/^package evil/m);
    for (const tag of ['json:"type"', 'json:"func,omitempty"', 'json:"a-b,omitempty"', 'json:"a_b,omitempty"', 'json:"ünï,omitempty"', 'json:"9lives,omitempty"', 'json:"x.y,omitempty"']) expect(src).toContain(tag);
    // A name no json tag can carry: its object is a map, never a struct that would decode the wrong key.
    expect(src).toMatch(/type Odd = map\[string\]any/);
    const decode = spawnSync('go', ['run', './cmd/check'], {
      cwd: mod, env: goEnv(), encoding: 'utf8',
      input: [
        JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', func: 1, 'a-b': 'x', a_b: 'y', 'ünï': true, '9lives': null, nested: { 'x.y': 1.5 }, list: [{ go: '`' }] } }),
        JSON.stringify({ job: 'urn:x:"; panic("no") //', data: { type: 't', nested: { 'x.y': 1, z: 1 } } }),
        JSON.stringify({ job: 'urn:x:odd', data: { 'a,b': 'v', 'q"uote': 'w', more: 1 } }),
      ].join('\n') + '\n',
    });
    expect(decode.status, decode.stderr).toBe(0);
    expect(decode.stdout.trim().split('\n')).toEqual(['ok', 'error: json: unknown field "z"', 'ok']);
  });

  it('docs/types.md shows real output: its Go sample is in the generated file', () => {
    const page = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');
    const sample = /## Go[\s\S]*?```go\n([\s\S]*?)\n```/.exec(page)![1]!;
    expect(types(['-r', 'registry.example.json'])).toContain(sample);
  });

  it('--check: the file on disk matches what would be generated, else exit 1', () => {
    const dir = mkdtempSync(join(work, 'check-'));
    const file = join(dir, 'bqtypes.go');
    const write = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', 'registry.example.json', '-o', file], { cwd: ROOT, encoding: 'utf8' });
    expect(write.status, write.stderr).toBe(0);
    const same = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', 'registry.example.json', '-o', file, '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(same.status).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8') + '\n');
    const stale = spawnSync(process.execPath, [BIN, 'types', '--lang', 'go', '-r', 'registry.example.json', '-o', file, '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(stale.status).toBe(1);
    expect(stale.stderr).toMatch(/is out of date; regenerate it with bqschema types/);
  });
});

function tempRegistry(schemas: Record<string, unknown>): string {
  const dir = mkdtempSync(join(work, 'reg-'));
  writeRegistry(dir, schemas);
  return dir;
}
