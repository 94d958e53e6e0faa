// Java: `bqschema types --lang java`, proven by javac 17 (openjdk-17-jdk-headless) and
// Jackson 2 (libjackson2-databind-java), both installed by .ci/run: the file compiles for the
// example registry and a registry of hostile names; a program builds records of the example types,
// reads typeOf by URN and switches over the sealed interface; an enum reads its JSON values back
// with fromJson and refuses any other at run time; one that passes a wrong type does not compile.
// A missing javac or Jackson fails the test naming the package. Round trips through Jackson:
// test/types/roundtrip-go-java-csharp.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeRegistry } from '../helpers/example-registry.js';
import { javaString } from '../../src/types/index.js';
import { jacksonClasspath } from '../helpers/roundtrip-java.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'bqschema.js');
let work = '';
let cp = '';

function run(cmd: string, args: string[], cwd: string): { code: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, HOME: work } });
  if (r.error) throw new Error(`${cmd} is needed for the Java types tests: apt-get install openjdk-17-jdk-headless (${r.error.message})`);
  return { code: r.status, out: r.stdout + r.stderr };
}

function generate(registry: string): string {
  const r = spawnSync(process.execPath, [BIN, 'types', '--lang', 'java', '-r', registry], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** Enum values that are no identifier, a keyword, empty, a line separator, a \\u escape, equal after sanitising, or start with a digit. */
const HOSTILE_ENUM = ['*/', '\u2028', 'class', '', 'a-b', 'a_b', 'A_B', '9lives', '\\u0022', 'json', 'VALUES'];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-java-'));
  cp = jacksonClasspath();
  console.info(`toolchain: ${run('javac', ['-version'], work).out.trim()}`);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('types --lang java', { timeout: 180_000 }, () => {
  it('the example registry compiles; its records, enums, typeOf and the sealed interface work; a wrong type does not compile', () => {
    const dir = mkdtempSync(join(work, 'examples-'));
    writeFileSync(join(dir, 'BqTypes.java'), generate('registry.example.json'));
    writeFileSync(
      join(dir, 'Check.java'),
      `public class Check {
    static String describe(BqTypes.Data d) {
        return switch (d) {
            case BqTypes.OrdersCancelled c -> "cancelled " + c.orderId() + " " + c.reason().json;
            default -> "other";
        };
    }
    public static void main(String[] args) {
        var c = new BqTypes.OrdersCancelled(1050L, BqTypes.OrdersCancelledReason.PAYMENT_FAILED, "card declined");
        System.out.println(describe(c));
        System.out.println(BqTypes.typeOf(BqTypes.URN_ORDERS_CANCELLED) == BqTypes.OrdersCancelled.class);
        System.out.println(BqTypes.typeOf("urn:nobody") == null);
        System.out.println(BqTypes.OrdersCancelled.JSON_NAMES);
        System.out.println(BqTypes.OrdersCancelledReason.fromJson("out_of_stock") == BqTypes.OrdersCancelledReason.OUT_OF_STOCK);
        for (String v : new String[] {"lost", "OUT_OF_STOCK", null}) {
            try {
                System.out.println("accepted " + BqTypes.OrdersCancelledReason.fromJson(v));
            } catch (IllegalArgumentException e) {
                System.out.println(e.getMessage());
            }
        }
    }
}
`,
    );
    const javac = run('javac', ['--release', '17', '--enable-preview', '-cp', cp, '-d', 'out', 'BqTypes.java', 'Check.java'], dir);
    expect(javac.code, javac.out).toBe(0);
    const java = run('java', ['--enable-preview', '-cp', `out:${cp}`, 'Check'], dir);
    expect(
      java.out
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('Note:')),
    ).toEqual([
      'cancelled 1050 payment_failed',
      'true',
      'true',
      '[order_id, reason, note]',
      'true',
      'not a value of OrdersCancelledReason: lost',
      'not a value of OrdersCancelledReason: OUT_OF_STOCK',
      'not a value of OrdersCancelledReason: null',
    ]);
    writeFileSync(
      join(dir, 'Bad.java'),
      'public class Bad { Object o = new BqTypes.OrdersCancelled("x", BqTypes.OrdersCancelledReason.OUT_OF_STOCK, null); }\n',
    );
    const bad = run('javac', ['--release', '17', '-d', 'out', '-cp', `out:${cp}`, 'Bad.java'], dir);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/incompatible types: String cannot be converted to long/);
  });

  it('hostile names compile, keep their JSON names, and no schema value escapes its literal or comment', () => {
    const dir = mkdtempSync(join(work, 'hostile-'));
    const schemas: Record<string, unknown> = {
      'urn:x:"; } class Evil { //\u00e9': {
        type: 'object',
        description: 'ends here \\u000a class Evil {} and */',
        required: ['class'],
        properties: {
          class: { type: 'string', description: 'a \\u000a class Evil {} \\u002a/ and \\\\u000a' },
          'a-b': { type: 'integer' },
          a_b: { type: 'number' },
          '😀': { type: 'boolean' },
          record: { enum: ['"', '\\u0022', 'é', ''] },
          nested: { type: 'object', properties: { 'x y': { type: 'array', items: { type: 'string' } } } },
        },
      },
      'urn:x:Data': { type: 'string' },
      'urn:x:BqTypes': { type: 'object', properties: { int: { type: ['integer', 'null'] } } },
      'urn:x:kind': { enum: HOSTILE_ENUM },
    };
    writeRegistry(dir, schemas);
    const src = generate(join(dir, 'registry.json'));
    writeFileSync(join(dir, 'BqTypes.java'), src);
    // Every hostile value reads back as its own constant, whose json is the value; another is refused.
    writeFileSync(
      join(dir, 'Values.java'),
      `public class Values {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        for (String v : new String[] {${HOSTILE_ENUM.map(javaString).join(', ')}}) {
            out.append(BqTypes.KindValue.fromJson(v).json.equals(v) ? "y" : "n");
        }
        try {
            BqTypes.KindValue.fromJson("a.b");
        } catch (IllegalArgumentException e) {
            out.append("!");
        }
        System.out.println(out + " " + BqTypes.KindValue.values().length);
    }
}
`,
    );
    const javac = run('javac', ['--release', '17', '-cp', cp, '-d', 'out', 'BqTypes.java', 'Values.java'], dir);
    expect(javac.code, javac.out).toBe(0);
    expect(run('java', ['-cp', `out:${cp}`, 'Values'], dir).out.trim()).toBe(
      `${HOSTILE_ENUM.map(() => 'y').join('')}! ${HOSTILE_ENUM.length}`,
    );
    expect(src).not.toMatch(/^\s*class Evil/m);
    expect(src).toContain(javaString('urn:x:"; } class Evil { //\u00e9'));
    for (const k of ['class', 'a-b', 'a_b', '😀', 'record', 'x y'])
      expect(src).toMatch(new RegExp(`@JsonProperty\\((?:value = )?${javaString(k).replace(/[()+]/g, '\\$&')}[,)]`));
    // A \u escape in a description is defused (Java reads \u escapes before comments): its backslash an HTML entity.
    expect(src).toContain('a &#92;u000a class Evil {} &#92;u002a/ and &#92;&#92;u000a');
    expect(src).toContain('ends here &#92;u000a class Evil {} and &#42;/');
  });

  it('docs/types.md shows real output: each of its Java samples is in the generated file', () => {
    const page = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');
    const section = /\n## Java\n([\s\S]*?)\n## /.exec(page)![1]!;
    // The samples are indented as in the file; the usage lines are not.
    const samples = [...section.matchAll(/```java\n([\s\S]*?)\n```/g)].map((m) => m[1]!).filter((s) => s.startsWith('    '));
    expect(samples.length).toBe(2);
    const src = generate('registry.example.json');
    for (const sample of samples) expect(src).toContain(sample);
  });

  it('--check works for java', () => {
    const dir = mkdtempSync(join(work, 'check-'));
    const file = join(dir, 'BqTypes.java');
    const args = ['types', '--lang', 'java', '-r', 'registry.example.json', '-o', file];
    expect(spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT }).status).toBe(0);
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8') + ' ');
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(1);
  });
});
