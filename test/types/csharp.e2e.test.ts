// C#: `bqschema types --lang csharp`, proven by Debian's mcs (Mono 6.8, C# 7) with
// System.Runtime.Serialization (both installed by .ci/run): the file compiles for the example
// registry and a registry of hostile names; every valid example message's data reads into its
// URN's class with DataContractJsonSerializer, and a missing required member or a wrong type is an
// exception; an open class keeps undeclared members through a read and a write
// (IExtensibleDataObject), a closed one refuses them; a string enum's constants and IsDefined hold
// its values, and reading refuses another. A missing mcs fails the test naming the package. Round
// trips of many more shapes: test/types/roundtrip-go-java-csharp.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEnvelope } from '../../src/index.js';
import { csString } from '../../src/types/index.js';
import { validExampleLines, writeRegistry } from '../helpers/example-registry.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'bqschema.js');
let work = '';

function tool(cmd: string, args: string[], cwd: string, input?: string): { code: number | null; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', input, env: { ...process.env, HOME: work } });
  if (r.error)
    throw new Error(
      `${cmd} is needed for the C# types tests: apt-get install mono-mcs libmono-system-runtime-serialization4.0-cil (${r.error.message})`,
    );
  return { code: r.status, out: r.stdout + r.stderr };
}

function generate(registry: string): string {
  const r = spawnSync(process.execPath, [BIN, 'types', '--lang', 'csharp', '-r', registry], { cwd: ROOT, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

// Reads `urn<TAB>data JSON` lines; prints ok <class> (with the argument echo: ok and the object
// written back by the serializer), unknown, or the exception's type.
const CHECK = `using System;
using System.IO;
using System.Runtime.Serialization.Json;
using System.Text;

public static class Check
{
    public static void Main(string[] args)
    {
        string line;
        while ((line = Console.ReadLine()) != null)
        {
            var tab = line.IndexOf('\\t');
            var type = BqTypes.Urns.TypeOf(line.Substring(0, tab));
            if (type == null) { Console.WriteLine("unknown"); continue; }
            try
            {
                var s = BqTypes.Urns.Serializer(type);
                using (var ms = new MemoryStream(Encoding.UTF8.GetBytes(line.Substring(tab + 1))))
                {
                    var o = s.ReadObject(ms);
                    if (args.Length > 0 && args[0] == "echo")
                    {
                        var back = new MemoryStream();
                        s.WriteObject(back, o);
                        Console.WriteLine("ok " + Encoding.UTF8.GetString(back.ToArray()));
                    }
                    else Console.WriteLine("ok " + o.GetType().Name);
                }
            }
            catch (Exception e) { Console.WriteLine((e.InnerException ?? e).GetType().Name); }
        }
    }
}
`;

function build(dir: string, out = 'check.exe', main = 'Check.cs'): void {
  const r = tool('mcs', ['-r:System.Runtime.Serialization.dll', '-r:System.Xml.dll', `-out:${out}`, 'BqTypes.cs', main], dir);
  expect(r.code, r.out).toBe(0);
}

/** Enum values that are no identifier, a keyword, empty, a line separator, equal after sanitising, or start with a digit. */
const HOSTILE_ENUM = ['*/', '\u2028', 'class', '', 'a-b', 'a_b', '9lives', 'IsDefined', 'ToString', '"\\'];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-cs-'));
  console.info(`toolchain: ${tool('mcs', ['--version'], work).out.trim()}`);
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('types --lang csharp', { timeout: 180_000 }, () => {
  it('the example registry compiles; every valid example reads into its class; a missing required member and a wrong type do not', () => {
    const dir = mkdtempSync(join(work, 'examples-'));
    writeFileSync(join(dir, 'BqTypes.cs'), generate('registry.example.json'));
    writeFileSync(join(dir, 'Check.cs'), CHECK);
    build(dir);
    const lines = validExampleLines().map((l) => {
      const e = readEnvelope(JSON.parse(l));
      return `${e.urn}\t${JSON.stringify(e.data)}`;
    });
    const bad = [
      'urn:babel:orders:cancelled\t{"reason":"out_of_stock"}',
      'urn:babel:orders:cancelled\t{"order_id":"x","reason":"out_of_stock"}',
      'urn:nobody\t{}',
    ];
    const r = tool('mono', ['check.exe'], dir, [...lines, ...bad].join('\n') + '\n');
    expect(r.code, r.out).toBe(0);
    const out = r.out.trim().split('\n');
    expect(out.slice(0, lines.length).every((l) => l.startsWith('ok '))).toBe(true);
    expect(out.slice(lines.length)).toEqual(['SerializationException', expect.stringMatching(/Exception$/), 'unknown']);
  });

  it('the example registry: an open class keeps undeclared members through a read and a write, a closed one refuses them; enum values are constants', () => {
    const dir = mkdtempSync(join(work, 'extra-'));
    const src = generate('registry.example.json');
    writeFileSync(join(dir, 'BqTypes.cs'), src);
    writeFileSync(join(dir, 'Check.cs'), CHECK);
    build(dir);
    const payment = { payment_id: 'p-123456', order_id: 7, amount: 9.5, currency: 'TRY' };
    const input = [
      `urn:babel:payments:captured\t${JSON.stringify({ ...payment, gateway: { id: 'g-1', tries: [1, 2] }, note: 'n' })}`,
      `urn:babel:users:registered\t${JSON.stringify({ user_id: 'u', email: 'a@b', locale: 'en', addresses: [{ city: 'Izmir', zip: '35' }], nick: 'n' })}`,
      `urn:babel:users:registered\t${JSON.stringify({ user_id: 'u', email: 'a@b', locale: 'en', addresses: [{ city: 'Izmir', zip: '35' }] })}`,
      `urn:babel:orders:cancelled\t${JSON.stringify({ order_id: 1, reason: 'payment_failed', gift: true })}`,
      `urn:babel:orders:cancelled\t${JSON.stringify({ order_id: 1, reason: 'lost' })}`,
    ];
    const r = tool('mono', ['check.exe', 'echo'], dir, input.join('\n') + '\n');
    expect(r.code, r.out).toBe(0);
    const out = r.out.trim().split('\n');
    const echo = (l: string): unknown => JSON.parse(l.replace(/^ok /, ''));
    expect(echo(out[0]!)).toEqual({ ...payment, gateway: { id: 'g-1', tries: [1, 2] }, note: 'n' });
    // users:registered is closed: its nick is refused; its addresses are open: zip is kept.
    expect(out[1]).toBe('SerializationException');
    expect(echo(out[2]!)).toEqual({ user_id: 'u', email: 'a@b', locale: 'en', addresses: [{ city: 'Izmir', zip: '35' }] });
    // orders:cancelled is closed (gift), and its reason a string enum (lost).
    expect(out.slice(3)).toEqual(['SerializationException', 'SerializationException']);
    // Both are IExtensibleDataObject: an open class keeps the members in ExtensionData, a closed one
    // hides them (explicitly implemented) and refuses any after reading.
    const cls = (name: string): string =>
      /public sealed class (\w+)[\s\S]*?\n    \}\n/.exec(src.slice(src.indexOf(`public sealed class ${name} `)))![0];
    expect(cls('PaymentsCaptured')).toMatch(
      /^public sealed class PaymentsCaptured : IData, IExtensibleDataObject\n[\s\S]*public ExtensionDataObject ExtensionData \{ get; set; \}/,
    );
    expect(cls('OrdersCancelled')).toMatch(
      /ExtensionDataObject IExtensibleDataObject\.ExtensionData\n[\s\S]*DataChecks\.Closed\(unknownMembers/,
    );
    writeFileSync(
      join(dir, 'Values.cs'),
      `public static class Values
{
    public static void Main()
    {
        System.Console.WriteLine(BqTypes.OrdersCancelledReason.PaymentFailed + " " + BqTypes.OrdersCancelledReason.IsDefined("out_of_stock") + " " + BqTypes.OrdersCancelledReason.IsDefined("lost"));
    }
}
`,
    );
    build(dir, 'values.exe', 'Values.cs');
    expect(tool('mono', ['values.exe'], dir).out.trim()).toBe('payment_failed True False');
  });

  it('hostile names compile; the JSON names are kept in DataMember; no value escapes its literal or comment', () => {
    const dir = mkdtempSync(join(work, 'hostile-'));
    const schemas: Record<string, unknown> = {
      'urn:x:"; } class Evil { //\u2028x': {
        type: 'object',
        required: ['class'],
        properties: {
          class: { type: 'string', description: 'a\u2028class Evil {}' },
          'a-b': { type: 'integer' },
          aB: { type: 'string' },
          ToString: { type: 'string' },
          Hostile: { type: 'number' },
          'q"\\': { type: ['boolean', 'null'] },
          list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
        },
      },
      'urn:x:Urns': { type: 'string' },
      'urn:x:kind': { enum: HOSTILE_ENUM },
      'urn:x:open': { type: 'object', properties: { ExtensionData: { type: 'string' }, kind: { enum: HOSTILE_ENUM } } },
    };
    writeRegistry(dir, schemas);
    const src = generate(join(dir, 'registry.json'));
    writeFileSync(join(dir, 'BqTypes.cs'), src);
    writeFileSync(join(dir, 'Check.cs'), CHECK);
    build(dir);
    expect(src).not.toMatch(/^\s*class Evil/m);
    expect(src).toContain(csString('urn:x:"; } class Evil { //\u2028x'));
    for (const k of ['class', 'a-b', 'aB', 'ToString', 'Hostile', 'q"\\', 'list'])
      expect(src).toContain(`[DataMember(Name = ${csString(k)}`);
    const urn = 'urn:x:"; } class Evil { //\u2028x';
    const r = tool(
      'mono',
      ['check.exe'],
      dir,
      `${urn}\t${JSON.stringify({ class: 'c', 'a-b': 1, aB: 'b', ToString: 't', Hostile: 1.5, 'q"\\': null, list: [{ k: 'v' }] })}\nurn:x:Urns\t{"value":"s"}\n`,
    );
    expect(r.out.trim().split('\n')).toEqual(['ok ClassEvilX', 'ok Urns_2']);
    for (const v of HOSTILE_ENUM) expect(src).toContain(` = ${csString(v)};\n`);
    const echo = tool(
      'mono',
      ['check.exe', 'echo'],
      dir,
      `urn:x:open\t${JSON.stringify({ ExtensionData: 'e', kind: '\u2028', more: ['*/'] })}\n`,
    );
    expect(JSON.parse(echo.out.trim().replace(/^ok /, ''))).toEqual({ ExtensionData: 'e', kind: '\u2028', more: ['*/'] });
    writeFileSync(
      join(dir, 'Values.cs'),
      `public static class Values
{
    public static void Main()
    {
        foreach (var v in new[] { ${HOSTILE_ENUM.map(csString).join(', ')}, "a.b" }) System.Console.Write(BqTypes.KindValue.IsDefined(v) ? "y" : "n");
        System.Console.WriteLine();
    }
}
`,
    );
    build(dir, 'values.exe', 'Values.cs');
    expect(tool('mono', ['values.exe'], dir).out.trim()).toBe(HOSTILE_ENUM.map(() => 'y').join('') + 'n');
  });

  it('docs/types.md shows real output: each of its C# samples is in the generated file', () => {
    const page = readFileSync(join(ROOT, 'docs', 'types.md'), 'utf8');
    const section = /\n## C#\n([\s\S]*)$/.exec(page)![1]!;
    // The samples are indented as in the file; the usage lines are not.
    const samples = [...section.matchAll(/```csharp\n([\s\S]*?)\n```/g)].map((m) => m[1]!).filter((s) => s.startsWith('    '));
    expect(samples.length).toBe(2);
    const src = generate('registry.example.json');
    for (const sample of samples) expect(src).toContain(sample);
  });

  it('--check works for csharp', () => {
    const dir = mkdtempSync(join(work, 'check-'));
    const file = join(dir, 'BqTypes.cs');
    const args = ['types', '--lang', 'csharp', '-r', 'registry.example.json', '-o', file];
    expect(spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT }).status).toBe(0);
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8') + '\n');
    expect(spawnSync(process.execPath, [BIN, ...args, '--check'], { cwd: ROOT }).status).toBe(1);
  });
});
