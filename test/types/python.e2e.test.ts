// Python: `bqschema types --lang python`, proven by mypy --strict (Debian's python3-mypy,
// installed by .ci/run; run as /usr/bin/python3 -m mypy): the module passes for the example
// registry and a registry of hostile names; every valid example message's data, written as a
// Python literal, type-checks as its URN's TypedDict, and one missing a required key or carrying a
// wrong type does not; decode_data parses with the stdlib json module. A missing mypy fails the
// test naming the package.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRegistry } from '../helpers/example-registry.js';
import { generatePython, pyString, pyValue } from '../../src/types/index.js';
import { checkPythonLiterals, roundTripPython } from '../helpers/roundtrip-python.js';
import { readEnvelope } from '../../src/index.js';
import { pythonTypeNames } from '../../src/types/python.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'bqschema.js');
const PYTHON = '/usr/bin/python3';
let work = '';

function mypy(dir: string, files: string[]): { code: number | null; out: string } {
  const r = spawnSync(PYTHON, ['-m', 'mypy', '--strict', '--no-incremental', '--cache-dir', join(work, 'mypy-cache'), ...files], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, HOME: work },
  });
  if (r.error || /No module named mypy/.test(r.stderr))
    throw new Error(`mypy is needed for the Python types tests: apt-get install python3-mypy (${r.error?.message ?? r.stderr.trim()})`);
  return { code: r.status, out: r.stdout + r.stderr };
}

function generate(registry: string): string {
  const r = spawnSync(process.execPath, [BIN, 'types', '--lang', 'python', '-r', registry], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** Enum values that are no identifier, a keyword, empty, a line separator, equal after sanitising, or start with a digit. */
const HOSTILE_ENUM = ['*/', '\u2028', 'class', '', 'a-b', 'a_b', '9lives', '"""', '\\'];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-py-'));
  const v = spawnSync(PYTHON, ['-m', 'mypy', '--version'], { encoding: 'utf8' });
  console.info(`toolchain: ${spawnSync(PYTHON, ['--version'], { encoding: 'utf8' }).stdout.trim()}, ${(v.stdout || v.stderr).trim()}`);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('types --lang python', { timeout: 180_000 }, () => {
  it('the example registry: mypy --strict passes; every valid example message type-checks, a missing key and a wrong type do not; decode_data parses', () => {
    const dir = join(work, 'examples');
    mkdirSync(dir);
    writeFileSync(join(dir, 'bqtypes.py'), generate('registry.example.json'));
    const manifest = JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8')) as { schemas: Array<{ urn: string }> };
    const names = pythonTypeNames(manifest.schemas.map((s) => s.urn));
    const valid = join(ROOT, 'examples', 'messages', 'valid');
    const messages: Array<{ urn: string; data: unknown }> = [];
    for (const f of readdirSync(valid)) {
      const text = readFileSync(join(valid, f), 'utf8');
      for (const line of f.endsWith('.ndjson') ? text.split('\n').filter((l) => l.trim() !== '') : [text]) {
        const e = readEnvelope(JSON.parse(line));
        messages.push({ urn: e.urn, data: e.data });
      }
    }
    expect(messages.length).toBeGreaterThan(3);
    const good = messages.map((m, i) => `m${i}: bqtypes.${names.get(m.urn)} = ${pyValue(m.data)}`).join('\n');
    writeFileSync(join(dir, 'good.py'), `import bqtypes\n\n${good}\n`);
    expect(mypy(dir, ['bqtypes.py', 'good.py'])).toMatchObject({ code: 0 });
    // A required key missing, and a wrong type: mypy sees both.
    writeFileSync(
      join(dir, 'bad.py'),
      `import bqtypes\n\nmissing: bqtypes.OrdersCancelled = {"reason": "out_of_stock"}\nwrong: bqtypes.OrdersCancelled = {"order_id": "7", "reason": "out_of_stock"}\nnot_listed: bqtypes.OrdersCancelled = {"order_id": 7, "reason": "lost"}\n`,
    );
    const bad = mypy(dir, ['bad.py']);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/bad\.py:3: error: Missing key "order_id" for TypedDict "OrdersCancelled"/);
    expect(bad.out).toMatch(/bad\.py:4: error: Incompatible types \(expression has type "str", TypedDict item "order_id" has type "int"\)/);
    expect(bad.out).toMatch(/bad\.py:5: error: Incompatible types \(expression has type "Literal\['lost'\]"/);
    // decode_data at run time: json.loads, then the value typed by its URN; an unknown URN raises.
    const run = spawnSync(
      PYTHON,
      [
        '-c',
        `import bqtypes\nprint(bqtypes.decode_data(bqtypes.URN_ORDERS_CANCELLED, '{"order_id": 7, "reason": "out_of_stock"}'))\ntry:\n    bqtypes.decode_data("urn:nope", "{}")\nexcept KeyError as e:\n    print("KeyError", e)`,
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(run.stdout).toBe("{'order_id': 7, 'reason': 'out_of_stock'}\nKeyError \"no type is generated for URN 'urn:nope'\"\n");
  });

  it('hostile names: mypy --strict passes, keys that are not identifiers keep their JSON names, no value escapes its literal', () => {
    const dir = mkdtempSync(join(work, 'hostile-'));
    const schemas: Record<string, unknown> = {
      'urn:x:"""; import os #': {
        type: 'object',
        description: 'a\n"""\nimport os\u0000',
        required: ['class'],
        properties: {
          class: { type: 'string' },
          'a-b': { type: 'integer' },
          '😀': { type: 'boolean' },
          'x"y': { enum: ['"""', '\\', 1, null, true] },
          def: { type: ['string', 'null'] },
        },
      },
      'urn:x:none': {
        type: 'object',
        properties: { self: { type: 'array', items: { type: 'object', properties: { lambda: { type: 'number' } } } } },
      },
      'urn:x:Envelope': { type: 'string' },
      'urn:x:kind': { type: 'object', required: ['k'], properties: { k: { enum: HOSTILE_ENUM } } },
    };
    writeRegistry(dir, schemas);
    const src = generate(join(dir, 'registry.json'));
    writeFileSync(join(dir, 'bqtypes.py'), src);
    const checked = mypy(dir, ['bqtypes.py']);
    expect(checked, checked.out).toMatchObject({ code: 0 });
    expect(src).toContain(`: Final = ${pyString('urn:x:"""; import os #')}`);
    // The module's statements, as Python parses them: the hostile texts stay inside their literals and docstrings.
    const statements = spawnSync(
      PYTHON,
      [
        '-c',
        'import ast, sys\nfor s in ast.parse(open(sys.argv[1], encoding="utf-8").read()).body:\n    print(type(s).__name__, getattr(s, "names", [None])[0].name if isinstance(s, (ast.Import, ast.ImportFrom)) else "")',
        'bqtypes.py',
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(statements.stdout.split('\n').filter((l) => l.startsWith('Import'))).toEqual([
      'ImportFrom annotations',
      'Import json',
      'ImportFrom Final',
    ]);
    for (const key of ['"class"', '"a-b"', '"😀"', '"x\\"y"', '"def"', '"lambda"']) expect(src).toContain(`    ${key}: `);
    // Every hostile enum value type-checks as the Literal; another value does not.
    const kind = pythonTypeNames(Object.keys(schemas)).get('urn:x:kind')!;
    const uses = [...HOSTILE_ENUM, 'a.b'].map((v, i) => `k${i}: bqtypes.${kind} = {"k": ${pyString(v)}}`);
    writeFileSync(join(dir, 'kinds.py'), `import bqtypes\n\n${uses.join('\n')}\n`);
    const kinds = mypy(dir, ['kinds.py']);
    expect(kinds.code).toBe(1);
    expect(kinds.out.match(/^kinds\.py:\d+: error/gm)).toEqual([`kinds.py:${HOSTILE_ENUM.length + 3}: error`]);
  });

  it('docs/types.md shows real output: its Python sample is in the generated module', () => {
    const page = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');
    const sample = /## Python[\s\S]*?```python\n([\s\S]*?)\n```/.exec(page)![1]!;
    expect(generate('registry.example.json')).toContain(sample);
  });

  it('docs/types.md shows real output: the comparison with quicktype is the module generated from the schema it shows', () => {
    const page = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');
    const section = /\n## Next to quicktype\n([\s\S]*?)\n## /.exec(page)![1]!;
    const schema = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section)![1]!) as unknown;
    const sample = /```python\n([\s\S]*?)\n```/.exec(section)![1]!;
    expect(generatePython([{ urn: 'urn:shop:orders:placed', schema }])).toContain(sample);
  });

  it('--check works for python', () => {
    const dir = mkdtempSync(join(work, 'check-'));
    const file = join(dir, 'bqtypes.py');
    const args = ['types', '--lang', 'python', '-r', 'registry.example.json', '-o', file];
    expect(spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT }).status).toBe(0);
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace('order_id', 'order'));
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(1);
  });

  it('a schema without root type is its object type, keys that cannot be attributes use the functional form, names stay readable (mypy --strict passes)', async () => {
    const registry = {
      // No root `type`: only properties and required, a common way to write it.
      'urn:x:noroot': {
        required: ['a'],
        properties: { a: { type: 'string' }, o: { type: ['object', 'null'], properties: { n: { type: 'integer' } } } },
      },
      // `__token` would be mangled in a class body, `str` would hide the type of `s`.
      'urn:x:mangled': { type: 'object', properties: { __token: { type: 'string' }, str: { type: 'integer' }, s: { type: 'string' } } },
      'urn:x:café': {
        type: 'object',
        properties: {
          名前: { type: 'object', properties: { x: { type: 'boolean' } } },
          '😀': { type: 'object', properties: { y: { type: 'boolean' } } },
        },
      },
      'urn:x:Literal': { type: 'object', properties: { Literal: { enum: ['a'] }, b: { enum: ['b'] } } },
    };
    const src = generatePython(Object.entries(registry).map(([urn, schema]) => ({ urn, schema })));
    expect(src).toContain('class Noroot(TypedDict):\n    """The data of urn:x:noroot.\n');
    expect(src).toMatch(/^Mangled = TypedDict\("Mangled", \{\n    "__token": NotRequired\[str\],\n    "str": NotRequired\[int\],/m);
    expect(src).toContain('Cafe = TypedDict("Cafe", {\n    "名前": NotRequired[Cafe名前],');
    expect(src).toContain('class Cafe名前(TypedDict):');
    expect(src).toContain('class CafeU1F600(TypedDict):');
    // `Literal` as a key would hide the Literal its own annotation uses.
    expect(src).toContain('Literal_2 = TypedDict("Literal_2", {\n    "Literal": NotRequired[Literal["a"]],');
    const [result] = await roundTripPython([
      {
        registry,
        urn: 'urn:x:noroot',
        data: [
          { a: 'x', o: null },
          { a: 'y', o: { n: 1 }, extra: [1] },
        ],
      },
    ]);
    expect(result).toEqual({
      compiled: true,
      outcomes: [
        expect.objectContaining({ ok: true, value: { a: 'x', o: null } }),
        expect.objectContaining({ ok: true, value: { a: 'y', o: { n: 1 }, extra: [1] } }),
      ],
    });
    // A wrong type is mypy's to see: the data as a literal of the URN's type.
    const checked = await checkPythonLiterals([{ registry, urn: 'urn:x:noroot', data: [{ a: 'x' }, { a: 1 }, { o: null }] }]);
    expect(checked[0]!.map((e) => (e === null ? null : /error: (.*?)  \[/.exec(e)![1]))).toEqual([
      null,
      'Incompatible types (expression has type "int", TypedDict item "a" has type "str")',
      'Missing key "a" for TypedDict "Noroot"',
    ]);
  });

  it('decode_data reads integers written 1.0 or 1e2 as int, encode_data keeps null apart from absent; docstrings carry the URN and the constraints', () => {
    const dir = mkdtempSync(join(work, 'numbers-'));
    const registry = {
      'urn:x:n': {
        type: 'object',
        required: ['n'],
        properties: {
          n: { type: 'integer', minimum: 1, description: 'How many.' },
          f: { type: 'number' },
          z: { type: ['string', 'null'], 'x-gdpr-sensitive': 'email' },
        },
      },
    };
    writeFileSync(join(dir, 'bqtypes.py'), generatePython(Object.entries(registry).map(([urn, schema]) => ({ urn, schema }))));
    const script = [
      'import ast, bqtypes, inspect',
      'for text in [\'{"n": 1.0}\', \'{"n": 1e2, "f": 2.5}\', \'{"n": 3, "z": null}\', \'{"n": 4}\']:',
      '    d = bqtypes.decode_data(bqtypes.URN_N, text)',
      '    print(type(d["n"]).__name__, bqtypes.encode_data(d))',
      'tree = ast.parse(open("bqtypes.py", encoding="utf-8").read())',
      'cls = next(s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == "N")',
      'print(ast.get_docstring(cls).splitlines()[0])',
      'print([inspect.cleandoc(s.value.value) for s in cls.body[1:] if isinstance(s, ast.Expr)])',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script], { cwd: dir, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      'int {"n": 1}',
      'int {"n": 100, "f": 2.5}',
      'int {"n": 3, "z": null}',
      'int {"n": 4}',
      'The data of urn:x:n.',
      "['How many.\\n\\nChecked at run time only: minimum 1.', 'Sensitive (x-gdpr-sensitive): email.']",
      '',
    ]);
  });
});
