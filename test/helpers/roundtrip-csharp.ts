/*
 * roundTripCsharp(cases: RoundTripCase[]): Promise<RoundTripResult[]>
 *
 *   import { roundTripCsharp } from './helpers/roundtrip-csharp.js';
 *   import { RawJson, type RoundTripCase, type RoundTripResult } from './helpers/roundtrip-common.js';
 *
 * For each case, in order: `{ compiled: false, error }` when its BqTypes.cs does not compile with
 * mcs (Mono, C# 7) against System.Runtime.Serialization, else `{ compiled: true, outcomes }`, one
 * outcome per data item: the data read by DataContractJsonSerializer into `Urns.TypeOf(urn)` and
 * written back by it (`{ ok: true, text, value }`), or the exception that refused it
 * (`{ ok: false, error }`). It reads with the module's `Urns.Read(urn, stream)` and writes with
 * `Urns.Serializer(type)` when the module has them, else with `new DataContractJsonSerializer(type)`.
 *
 * A batch costs one mcs (more only when a module fails: it is left out and the rest compiled
 * again) and one mono. Needs mcs and mono (mono-mcs) and System.Runtime.Serialization
 * (libmono-system-runtime-serialization4.0-cil).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateCsharp } from '../../src/types/index.js';
import {
  batchDir,
  compileLeavingOut,
  driverInput,
  groupModules,
  readAnswers,
  type RoundTripCase,
  type RoundTripResult,
} from './roundtrip-common.js';

export { type RoundTripCase, type RoundTripResult } from './roundtrip-common.js';

function run(cmd: string, args: string[], cwd: string, input?: string): { code: number | null; out: string; stdout: string } {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    input,
    maxBuffer: 1 << 30,
    timeout: 600_000,
    env: { ...process.env, HOME: cwd },
  });
  if (r.error)
    throw new Error(
      `${cmd} is needed for the C# round trips: apt-get install mono-mcs libmono-system-runtime-serialization4.0-cil (${r.error.message})`,
    );
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

function driver(modules: readonly number[]): string {
  return `using System;
using System.IO;
using System.Reflection;
using System.Runtime.Serialization;
using System.Runtime.Serialization.Json;
using System.Text;

public static class Driver
{
    static Type Urns(int m)
    {
        switch (m)
        {
${modules.map((m) => `            case ${m}: return typeof(M${m}.BqTypes.Urns);\n`).join('')}            default: return null;
        }
    }

    static string Text(string b64)
    {
        return new UTF8Encoding(false, true).GetString(Convert.FromBase64String(b64));
    }

    static void Answer(TextWriter o, string tag, string text)
    {
        // A lone surrogate cannot be UTF-8: it is sent as U+FFFD would be, and the JSON text keeps its escape.
        o.WriteLine(tag + " " + Convert.ToBase64String(new UTF8Encoding(false, false).GetBytes(text)));
    }

    public static void Main()
    {
        var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        var o = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        string line;
        while ((line = input.ReadLine()) != null)
        {
            var p = line.Split(' ');
            var urns = Urns(int.Parse(p[0]));
            try
            {
                string urn;
                using (var u = new MemoryStream(Encoding.UTF8.GetBytes(Text(p[1])))) urn = (string) new DataContractJsonSerializer(typeof(string)).ReadObject(u);
                var type = (Type) urns.GetMethod("TypeOf").Invoke(null, new object[] { urn });
                if (type == null) { Answer(o, "error", "TypeOf gave no class for " + urn); continue; }
                var make = urns.GetMethod("Serializer", new[] { typeof(Type) });
                var s = make != null ? (DataContractJsonSerializer) make.Invoke(null, new object[] { type }) : new DataContractJsonSerializer(type);
                var read = urns.GetMethod("Read", new[] { typeof(string), typeof(Stream) });
                object v;
                using (var ms = new MemoryStream(Encoding.UTF8.GetBytes(Text(p[2]))))
                {
                    v = read != null ? read.Invoke(null, new object[] { urn, ms }) : s.ReadObject(ms);
                }
                var back = new MemoryStream();
                s.WriteObject(back, v);
                Answer(o, "ok", Encoding.UTF8.GetString(back.ToArray()));
            }
            catch (Exception e)
            {
                while (e is TargetInvocationException && e.InnerException != null) e = e.InnerException;
                var msg = e.GetType().Name + ": " + e.Message;
                if (e.InnerException != null) msg += " (" + e.InnerException.GetType().Name + ": " + e.InnerException.Message + ")";
                Answer(o, "error", msg);
            }
        }
        o.Flush();
    }
}
`;
}

/** The module indices mcs's output names (`m3/BqTypes.cs(12,5): error CS…`), with their lines. */
function blame(out: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const line of out.split('\n')) {
    const m = /(?:^|[\s/])m(\d+)\/BqTypes\.cs\(\d+,\d+\): error/.exec(line);
    if (m === null) continue;
    const i = Number(m[1]);
    found.set(i, `${found.get(i) ?? ''}${line}\n`);
  }
  return found;
}

export async function roundTripCsharp(cases: readonly RoundTripCase[]): Promise<RoundTripResult[]> {
  const { modules, moduleOf } = groupModules(cases, generateCsharp);
  const { dir, done } = batchDir('bq-rt-cs-');
  try {
    modules.forEach((code, i) => {
      mkdirSync(join(dir, `m${i}`));
      // Each module in a namespace of its own, so that every BqTypes of the batch compiles at once.
      const renamed = code.replace(/^namespace BqTypes$/m, `namespace M${i}.BqTypes`);
      if (renamed === code) throw new Error(`module ${i} has no "namespace BqTypes" line`);
      writeFileSync(join(dir, `m${i}`, 'BqTypes.cs'), renamed);
    });
    const { compiled, failed } = compileLeavingOut(modules.length, (left) => {
      writeFileSync(join(dir, 'Driver.cs'), driver(left));
      const mcs = run(
        'mcs',
        [
          '-r:System.Runtime.Serialization.dll',
          '-r:System.Xml.dll',
          '-out:driver.exe',
          ...left.map((m) => `m${m}/BqTypes.cs`),
          'Driver.cs',
        ],
        dir,
      );
      if (mcs.code === 0) return new Map();
      const b = blame(mcs.out);
      return b.size > 0 ? b : { all: `mcs: ${mcs.out}` };
    });
    let stdout = '';
    if (compiled.size > 0) {
      const r = run('mono', ['driver.exe'], dir, driverInput(cases, moduleOf, compiled));
      if (r.code !== 0) throw new Error(`the C# driver failed: ${r.out.slice(0, 4000)}`);
      stdout = r.stdout;
    }
    return readAnswers(cases, moduleOf, failed, stdout);
  } finally {
    done();
  }
}
