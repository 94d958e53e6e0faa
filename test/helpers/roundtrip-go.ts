/*
 * roundTripGo(cases: RoundTripCase[]): Promise<RoundTripResult[]>
 *
 *   import { roundTripGo } from './helpers/roundtrip-go.js';
 *   import { RawJson, type RoundTripCase, type RoundTripResult } from './helpers/roundtrip-common.js';
 *
 * For each case, in order: `{ compiled: false, error }` when its module is not gofmt-clean or does
 * not pass `go vet`, else `{ compiled: true, outcomes }`, one outcome per data item: the data read
 * by the module's DecodeData (encoding/json) and written back by json.Marshal (`{ ok: true, text,
 * value }`), or the error reading refused it with (`{ ok: false, error }`).
 *
 * A batch costs one gofmt, one go vet and one go build (more only when a module fails: it is left
 * out and the rest built again) and one run of the driver. `go` must be on PATH (golang-go).
 * Go's build cache is kept in the system's temporary directory across batches and runs, and a
 * batch's directory is named for its modules, so a batch seen before is vetted and built from it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateGo } from '../../src/types/index.js';
import {
  compileLeavingOut,
  driverInput,
  groupModules,
  readAnswers,
  stableBatchDir,
  type RoundTripCase,
  type RoundTripResult,
} from './roundtrip-common.js';

export { type RoundTripCase, type RoundTripResult } from './roundtrip-common.js';

function goEnv(): NodeJS.ProcessEnv {
  const cache = join(tmpdir(), 'bq-roundtrip-go');
  return {
    ...process.env,
    HOME: cache,
    GOCACHE: join(cache, 'build'),
    GOPATH: join(cache, 'path'),
    GOFLAGS: '-mod=mod',
    GO111MODULE: 'on',
    CGO_ENABLED: '0',
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
  };
}

function run(cmd: string, args: string[], cwd: string, input?: string): { code: number | null; out: string; stdout: string } {
  const r = spawnSync(cmd, args, { cwd, env: goEnv(), encoding: 'utf8', input, maxBuffer: 1 << 30, timeout: 600_000 });
  if (r.error) throw new Error(`${cmd} is needed for the Go round trips: apt-get install golang-go (${r.error.message})`);
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

function driver(modules: readonly number[]): string {
  return `package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
${modules.map((m) => `\n\tm${m} "example.com/rt/m${m}"`).join('')}
)

var decoders = map[int]func(string, []byte) (any, error){
${modules.map((m) => `\t${m}: m${m}.DecodeData,\n`).join('')}}

func answer(w *bufio.Writer, tag, text string) {
	fmt.Fprintf(w, "%s %s\\n", tag, base64.StdEncoding.EncodeToString([]byte(text)))
}

func main() {
	r := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for {
		line, err := r.ReadString('\\n')
		if err == io.EOF {
			return
		}
		parts := strings.Split(strings.TrimSuffix(line, "\\n"), " ")
		m, _ := strconv.Atoi(parts[0])
		urnJSON, _ := base64.StdEncoding.DecodeString(parts[1])
		data, _ := base64.StdEncoding.DecodeString(parts[2])
		var urn string
		if err := json.Unmarshal(urnJSON, &urn); err != nil {
			answer(w, "error", "the URN: "+err.Error())
			continue
		}
		v, err := decoders[m](urn, data)
		if err != nil {
			answer(w, "error", err.Error())
			continue
		}
		out, err := json.Marshal(v)
		if err != nil {
			answer(w, "error", "writing: "+err.Error())
			continue
		}
		answer(w, "ok", string(out))
	}
}
`;
}

/** The module indices a go tool's output names (`m3/bqtypes.go:…`, `example.com/rt/m3`), with the lines naming each. */
function blame(out: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const line of out.split('\n')) {
    const m = /(?:^|[\s/])m(\d+)\/bqtypes\.go:|example\.com\/rt\/m(\d+)\b/.exec(line);
    if (m === null) continue;
    const i = Number(m[1] ?? m[2]);
    found.set(i, `${found.get(i) ?? ''}${line}\n`);
  }
  return found;
}

/**
 * The modules of `dir` (m0/bqtypes.go …) that gofmt would rewrite, each with the start of what
 * `gofmt -d` would change; a file gofmt cannot parse is blamed with gofmt's message.
 */
function notGofmtClean(dir: string, count: number): Map<number, string> {
  const files = [...Array(count).keys()].map((i) => `m${i}/bqtypes.go`);
  const fmt = run('gofmt', ['-l', ...files], dir);
  // A file it cannot parse: `m3/bqtypes.go:12:3: expected …`.
  const found = new Map<number, string>();
  for (const [i, e] of blame(fmt.out)) found.set(i, `gofmt -l: ${e.trim()}`);
  // A file it would rewrite: its name alone, one a line.
  for (const line of fmt.stdout.split('\n')) {
    const m = /^m(\d+)\/bqtypes\.go$/.exec(line.trim());
    if (m === null || found.has(Number(m[1]))) continue;
    const diff = run('gofmt', ['-d', line.trim()], dir).stdout.split('\n').slice(0, 40).join('\n');
    found.set(Number(m[1]), `not gofmt-clean (gofmt -l names it); gofmt -d:\n${diff}`);
  }
  if (fmt.code !== 0 && found.size === 0) throw new Error(`gofmt failed: ${fmt.out.slice(0, 4000)}`);
  return found;
}

export async function roundTripGo(cases: readonly RoundTripCase[]): Promise<RoundTripResult[]> {
  const { modules, moduleOf } = groupModules(cases, generateGo);
  // The same path for the same modules: Go's build cache keys on the package directory too.
  const { dir, done } = stableBatchDir('bq-rt-go-', modules.join('\0'));
  try {
    writeFileSync(join(dir, 'go.mod'), 'module example.com/rt\n\ngo 1.19\n');
    modules.forEach((code, i) => {
      mkdirSync(join(dir, `m${i}`));
      writeFileSync(join(dir, `m${i}`, 'bqtypes.go'), code);
    });
    mkdirSync(join(dir, 'driver'));
    const unformatted = modules.length === 0 ? new Map<number, string>() : notGofmtClean(dir, modules.length);
    const { compiled, failed } = compileLeavingOut(modules.length, (left) => {
      const ok = left.filter((m) => !unformatted.has(m));
      const blamed = new Map<number, string>();
      for (const m of left) if (unformatted.has(m)) blamed.set(m, unformatted.get(m)!);
      if (blamed.size > 0) return blamed;
      writeFileSync(join(dir, 'driver', 'main.go'), driver(ok));
      const vet = run('go', ['vet', ...ok.map((m) => `./m${m}`), './driver'], dir);
      if (vet.code !== 0) {
        const b = blame(vet.out);
        return b.size > 0 ? b : { all: `go vet: ${vet.out}` };
      }
      const build = run('go', ['build', '-o', 'drv', './driver'], dir);
      if (build.code !== 0) {
        const b = blame(build.out);
        return b.size > 0 ? b : { all: `go build: ${build.out}` };
      }
      return new Map();
    });
    let stdout = '';
    if (compiled.size > 0) {
      const r = run(join(dir, 'drv'), [], dir, driverInput(cases, moduleOf, compiled));
      if (r.code !== 0) throw new Error(`the Go driver failed: ${r.out.slice(0, 4000)}`);
      stdout = r.stdout;
    }
    return readAnswers(cases, moduleOf, failed, stdout);
  } finally {
    done();
  }
}
