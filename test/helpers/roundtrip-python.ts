/*
 * roundTripPython(cases: RoundTripCase[]): Promise<RoundTripResult[]>
 * checkPythonLiterals(cases: RoundTripCase[]): Promise<Array<Array<string | null>>>
 *
 *   import { checkPythonLiterals, roundTripPython } from './helpers/roundtrip-python.js';
 *   import { RawJson, type RoundTripCase, type RoundTripResult } from './helpers/roundtrip-common.js';
 *
 * roundTripPython, for each case, in order: `{ compiled: false, error }` when its module does not
 * pass `mypy --strict`, else `{ compiled: true, outcomes }`, one outcome per data item: the data
 * read by the module's decode_data (json.loads) and written back by its encode_data (json.dumps)
 * (`{ ok: true, text, value }`), or the exception reading raised (`{ ok: false, error }`).
 *
 * checkPythonLiterals, for each case, one entry per data item: null when mypy --strict accepts the
 * data written as a Python literal of the URN's type (`x: bqtypes.OrdersCreated = {...}`), else
 * mypy's error. This is where Python sees a wrong type: json.loads checks none.
 *
 * A batch costs one mypy run (roundTripPython: every module; checkPythonLiterals: every module and
 * a file of literals per case) and, for roundTripPython, one python process. Needs
 * /usr/bin/python3 (3.11) with mypy (python3-mypy); mypy's cache is kept in the system's temporary
 * directory across batches.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePython, pyValue } from '../../src/types/index.js';
import { pythonTypeNames } from '../../src/types/python.js';
import {
  batchDir,
  driverInput,
  entriesOf,
  groupModules,
  jsonText,
  readAnswers,
  type RoundTripCase,
  type RoundTripResult,
} from './roundtrip-common.js';

export { type RoundTripCase, type RoundTripResult } from './roundtrip-common.js';

const PYTHON = process.env.BQ_PYTHON ?? '/usr/bin/python3';

function run(args: string[], cwd: string): { code: number | null; out: string; stdout: string } {
  const r = spawnSync(PYTHON, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: 600_000,
    env: { ...process.env, HOME: cwd, PYTHONDONTWRITEBYTECODE: '1' },
  });
  if (r.error) throw new Error(`${PYTHON} is needed for the Python round trips: apt-get install python3 python3-mypy (${r.error.message})`);
  if (/No module named mypy/.test(r.stderr)) throw new Error('mypy is needed for the Python round trips: apt-get install python3-mypy');
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

/** mypy --strict over `files`: its error lines by file name (empty when it passes). */
function mypy(dir: string, files: string[]): Map<string, string[]> {
  const r = run(
    [
      '-m',
      'mypy',
      '--strict',
      '--no-error-summary',
      '--hide-error-context',
      '--cache-dir',
      join(tmpdir(), 'bq-roundtrip-python-mypy'),
      ...files,
    ],
    dir,
  );
  const errors = new Map<string, string[]>();
  for (const line of r.out.split('\n')) {
    const m = /^([^:\s]+\.py):(\d+): (error|note): /.exec(line);
    if (m === null) continue;
    errors.set(m[1]!, [...(errors.get(m[1]!) ?? []), line]);
  }
  if (r.code !== 0 && errors.size === 0) throw new Error(`mypy failed without naming a file: ${r.out}`);
  return errors;
}

const DRIVER = `import base64
import importlib
import json
import sys

with open(sys.argv[1], encoding="utf-8") as lines:
    for line in lines:
        module, urn, text = line.split()
        try:
            m = importlib.import_module("m" + module)
            data = m.decode_data(json.loads(base64.b64decode(urn)), base64.b64decode(text))
            out = m.encode_data(data)
            print("ok", base64.b64encode(out.encode("utf-8")).decode("ascii"))
        except Exception as e:
            print("error", base64.b64encode(f"{type(e).__name__}: {e}".encode("utf-8", "backslashreplace")).decode("ascii"))
`;

export async function roundTripPython(cases: readonly RoundTripCase[]): Promise<RoundTripResult[]> {
  const { modules, moduleOf } = groupModules(cases, generatePython);
  const { dir, done } = batchDir('bq-rt-python-');
  try {
    modules.forEach((code, i) => writeFileSync(join(dir, `m${i}.py`), code));
    const errors = mypy(
      dir,
      modules.map((_, i) => `m${i}.py`),
    );
    const failed = new Map<number, string>();
    for (const [file, lines] of errors) failed.set(Number(/^m(\d+)\.py$/.exec(file)![1]), lines.join('\n'));
    const compiled = new Set(modules.map((_, i) => i).filter((i) => !failed.has(i)));
    writeFileSync(join(dir, 'input.txt'), driverInput(cases, moduleOf, compiled));
    writeFileSync(join(dir, 'driver.py'), DRIVER);
    const r = run(['driver.py', 'input.txt'], dir);
    if (r.code !== 0) throw new Error(`the Python driver failed: ${r.out}`);
    return readAnswers(cases, moduleOf, failed, r.stdout);
  } finally {
    done();
  }
}

export async function checkPythonLiterals(cases: readonly RoundTripCase[]): Promise<Array<Array<string | null>>> {
  const { modules, moduleOf } = groupModules(cases, generatePython);
  const { dir, done } = batchDir('bq-rt-python-lit-');
  try {
    modules.forEach((code, i) => writeFileSync(join(dir, `m${i}.py`), code));
    const files = cases.map((c, i) => {
      const name = pythonTypeNames(entriesOf(c.registry).map((e) => e.urn)).get(c.urn)!;
      const lines = c.data.map((d, k) => `v${k}: m${moduleOf[i]}.${name} = ${pyValue(JSON.parse(jsonText(d)))}`);
      writeFileSync(join(dir, `l${i}.py`), `import m${moduleOf[i]}\n\n${lines.join('\n')}\n`);
      return `l${i}.py`;
    });
    const errors = mypy(dir, [...modules.map((_, i) => `m${i}.py`), ...files]);
    for (const file of errors.keys())
      if (file.startsWith('m')) throw new Error(`a module does not pass mypy --strict: ${errors.get(file)!.join('\n')}`);
    return cases.map((c, i) => {
      const byLine = new Map<number, string>();
      for (const e of errors.get(`l${i}.py`) ?? []) {
        const line = Number(/^[^:]+:(\d+):/.exec(e)![1]);
        byLine.set(line, [byLine.get(line), e].filter((x) => x !== undefined).join('\n'));
      }
      // Data item k is on line k + 3.
      return c.data.map((_, k) => byLine.get(k + 3) ?? null);
    });
  } finally {
    done();
  }
}
