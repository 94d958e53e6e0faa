/*
 * roundTripJava(cases: RoundTripCase[]): Promise<RoundTripResult[]>
 *
 *   import { roundTripJava } from './helpers/roundtrip-java.js';
 *   import { RawJson, type RoundTripCase, type RoundTripResult } from './helpers/roundtrip-common.js';
 *
 * For each case, in order: `{ compiled: false, error }` when its BqTypes.java does not compile
 * with javac 17 and the Jackson jars, else `{ compiled: true, outcomes }`, one outcome per data
 * item: the data read by Jackson into `BqTypes.typeOf(urn)` and written back
 * (`{ ok: true, text, value }`), or the exception reading refused it with (`{ ok: false, error }`).
 * The mapper is the module's own `BqTypes.mapper()` when it has one, else `new ObjectMapper()`;
 * A case marked `plainMapper` is read with `new ObjectMapper()` instead (its module is compiled
 * again under a package of its own), to show the records' annotations alone are enough for valid
 * data; such cases share the batch's javac and JVM with the others.
 *
 * A batch costs one javac (more only when a module fails: it is left out and the rest compiled
 * again) and one JVM. Needs javac/java 17 (openjdk-17-jdk-headless) and Jackson 2 in
 * /usr/share/java (libjackson2-databind-java), or the jar directory in $BQ_JACKSON_DIR.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateJava } from '../../src/types/index.js';
import {
  batchDir,
  compileLeavingOut,
  driverInput,
  groupModules,
  readAnswers,
  type RoundTripCase,
  type RoundTripResult,
} from './roundtrip-common.js';

export { type RoundTripResult } from './roundtrip-common.js';

/** A case, read with `new ObjectMapper()` instead of the module's own mapper when `plainMapper` is set. */
export interface JavaRoundTripCase extends RoundTripCase {
  plainMapper?: boolean;
}

/** The Jackson jars javac and java need (core, databind, annotations). */
export function jacksonClasspath(): string {
  const dir = process.env.BQ_JACKSON_DIR ?? '/usr/share/java';
  const jars = ['jackson-core.jar', 'jackson-databind.jar', 'jackson-annotations.jar'].map((j) => join(dir, j));
  const missing = jars.filter((j) => !existsSync(j));
  if (missing.length > 0)
    throw new Error(
      `Jackson is needed for the Java round trips: apt-get install libjackson2-databind-java (missing ${missing.join(', ')})`,
    );
  return jars.join(':');
}

/**
 * JVM options for javac and the driver: C1 only. Both runs are short, and the C2 compiler's threads
 * cost more CPU than they save there (javac on a batch of 40 modules: about 6 s of CPU, 2.5 s
 * with C1 only); what javac accepts and what Jackson reads are the same either way.
 */
const JVM = ['-XX:TieredStopAtLevel=1'];

function run(cmd: string, args: string[], cwd: string, input?: string): { code: number | null; out: string; stdout: string } {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    input,
    maxBuffer: 1 << 30,
    timeout: 600_000,
    env: { ...process.env, HOME: cwd },
  });
  if (r.error) throw new Error(`${cmd} is needed for the Java round trips: apt-get install openjdk-17-jdk-headless (${r.error.message})`);
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
}

function driver(modules: readonly number[], plain: ReadonlySet<number>): string {
  return `import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

public class Driver {
    static Class<?> typeOf(int m, String urn) {
        switch (m) {
${modules.map((m) => `            case ${m}: return m${m}.BqTypes.typeOf(urn);\n`).join('')}            default: return null;
        }
    }

    static ObjectMapper mapper(int m) throws Exception {
${
  plain.size === 0
    ? ''
    : `        switch (m) {
${[...plain].map((p) => `            case ${p}:\n`).join('')}                return new ObjectMapper();
            default:
                break;
        }
`
}        try {
            return (ObjectMapper) Class.forName("m" + m + ".BqTypes").getMethod("mapper").invoke(null);
        } catch (NoSuchMethodException e) {
            return new ObjectMapper();
        }
    }

    static String text(String b64) {
        return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    }

    static void answer(PrintStream out, String tag, String text) {
        out.println(tag + " " + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)));
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        ObjectMapper[] mappers = new ObjectMapper[${Math.max(0, ...modules) + 1}];
        String line;
        while ((line = in.readLine()) != null) {
            String[] p = line.split(" ", -1);
            int m = Integer.parseInt(p[0]);
            try {
                if (mappers[m] == null) mappers[m] = mapper(m);
                String urn = new ObjectMapper().readValue(text(p[1]), String.class);
                Class<?> type = typeOf(m, urn);
                if (type == null) {
                    answer(out, "error", "typeOf gave no class for " + urn);
                    continue;
                }
                Object v = mappers[m].readValue(text(p[2]), type);
                // Every character outside ASCII escaped, so a lone surrogate survives the trip as \\\\uXXXX.
                ObjectWriter w = mappers[m].writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);
                answer(out, "ok", w.writeValueAsString(v));
            } catch (Exception e) {
                answer(out, "error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        out.flush();
    }
}
`;
}

/** The module indices javac's output names (`m3/BqTypes.java:12: error: …`), with their lines. */
function blame(out: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const line of out.split('\n')) {
    const m = /(?:^|[\s/])m(\d+)\/BqTypes\.java:\d+: error/.exec(line);
    if (m === null) continue;
    const i = Number(m[1]);
    found.set(i, `${found.get(i) ?? ''}${line}\n`);
  }
  return found;
}

export async function roundTripJava(cases: readonly JavaRoundTripCase[]): Promise<RoundTripResult[]> {
  const { modules, moduleOf } = groupModules(cases, generateJava);
  // A plainMapper case's module, again under another package: the driver reads it with new ObjectMapper().
  const plain = new Set<number>();
  const plainOf = new Map<number, number>();
  cases.forEach((c, i) => {
    if (c.plainMapper !== true) return;
    const m = moduleOf[i]!;
    let p = plainOf.get(m);
    if (p === undefined) {
      p = modules.length;
      modules.push(modules[m]!);
      plainOf.set(m, p);
      plain.add(p);
    }
    moduleOf[i] = p;
  });
  const cp = jacksonClasspath();
  const { dir, done } = batchDir('bq-rt-java-');
  try {
    modules.forEach((code, i) => {
      mkdirSync(join(dir, `m${i}`));
      // Each module in a package of its own, so that every BqTypes of the batch compiles at once.
      writeFileSync(join(dir, `m${i}`, 'BqTypes.java'), `package m${i};\n${code}`);
    });
    const { compiled, failed } = compileLeavingOut(modules.length, (left) => {
      writeFileSync(join(dir, 'Driver.java'), driver(left, plain));
      const javac = run(
        'javac',
        [
          ...JVM.map((o) => `-J${o}`),
          '--release',
          '17',
          '-Xmaxerrs',
          '10000',
          '-encoding',
          'UTF-8',
          '-cp',
          cp,
          '-d',
          'out',
          ...left.map((m) => `m${m}/BqTypes.java`),
          'Driver.java',
        ],
        dir,
      );
      if (javac.code === 0) return new Map();
      const b = blame(javac.out);
      return b.size > 0 ? b : { all: `javac: ${javac.out}` };
    });
    let stdout = '';
    if (compiled.size > 0) {
      const r = run('java', [...JVM, '-cp', `out:${cp}`, 'Driver'], dir, driverInput(cases, moduleOf, compiled));
      if (r.code !== 0) throw new Error(`the Java driver failed: ${r.out.slice(0, 4000)}`);
      stdout = r.stdout;
    }
    return readAnswers(cases, moduleOf, failed, stdout);
  } finally {
    done();
  }
}
