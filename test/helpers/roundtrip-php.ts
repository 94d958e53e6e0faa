/*
 * roundTripPhp(cases: RoundTripCase[], options?: { assoc?: boolean }): Promise<RoundTripResult[]>
 *
 *   import { roundTripPhp } from './helpers/roundtrip-php.js';
 *   import { RawJson, type RoundTripCase, type RoundTripResult } from './helpers/roundtrip-common.js';
 *
 * For each case, in order: `{ compiled: false, error }` when its file does not compile (a parse or
 * compile error, or a warning or deprecation while PHP loads it), else `{ compiled: true, outcomes }`,
 * one outcome per data item: the data read by `json_decode($json)` and the module's
 * `Urns::decode` (each class's `fromArray`), and written back by `json_encode` (each class's
 * `jsonSerialize`) (`{ ok: true, text, value }`), or what reading threw (`{ ok: false, error }`:
 * TypeError, ValueError, ...; a warning is an error too). `assoc: true` decodes with
 * `json_decode($json, true)` instead.
 *
 * A batch costs one PHP process that loads every module (each in a namespace of its own) and
 * reads every message; a module that stops PHP while it loads (a fatal compile error) is left out
 * and the process started again. Needs php 8.2 (php-cli).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePhp } from '../../src/types/index.js';
import { batchDir, driverInput, groupModules, readAnswers, type RoundTripCase, type RoundTripResult } from './roundtrip-common.js';

export { type RoundTripCase, type RoundTripResult } from './roundtrip-common.js';

function run(args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('php', ['-n', '-d', 'display_errors=stderr', '-d', 'error_reporting=-1', ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: 600_000,
  });
  if (r.error) throw new Error(`php is needed for the PHP round trips: apt-get install php-cli (${r.error.message})`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Each module in a namespace of its own, so that one process loads them all. */
const inNamespace = (code: string, i: number): string => code.replace(/^namespace BqTypes;$/m, `namespace BqTypes\\M${i};`);

const driver = (assoc: boolean): string => `<?php
declare(strict_types=1);

// Any warning or notice is an error: generated code must not raise one.
set_error_handler(static function (int $no, string $message, string $file, int $line): bool {
    throw new \\ErrorException($message, 0, $no, $file, $line);
});

$modules = array_map('intval', array_filter(explode(',', $argv[2]), 'strlen'));
foreach ($modules as $m) {
    echo "load $m\\n";
    try {
        require __DIR__ . "/m$m.php";
        echo "loaded $m\\n";
    } catch (\\Throwable $e) {
        echo "failed $m ", base64_encode(get_class($e) . ': ' . $e->getMessage() . ' (line ' . $e->getLine() . ')'), "\\n";
    }
}
echo "ready\\n";
$in = fopen($argv[1], 'r');
while (($line = fgets($in)) !== false) {
    [$m, $urn, $text] = explode(' ', rtrim($line, "\\n"));
    $urns = "BqTypes\\\\M$m\\\\Urns";
    try {
        $data = json_decode(base64_decode($text), ${assoc ? 'true' : 'false'}, 2147483646, JSON_THROW_ON_ERROR);
        $value = $urns::decode(json_decode(base64_decode($urn), false, 512, JSON_THROW_ON_ERROR), $data);
        echo 'ok ', base64_encode(json_encode($value, JSON_THROW_ON_ERROR | JSON_PRESERVE_ZERO_FRACTION)), "\\n";
    } catch (\\Throwable $e) {
        echo 'error ', base64_encode(get_class($e) . ': ' . $e->getMessage()), "\\n";
    }
}
`;

export async function roundTripPhp(cases: readonly RoundTripCase[], options: { assoc?: boolean } = {}): Promise<RoundTripResult[]> {
  const { modules, moduleOf } = groupModules(cases, generatePhp);
  const { dir, done } = batchDir('bq-rt-php-');
  try {
    modules.forEach((code, i) => writeFileSync(join(dir, `m${i}.php`), inNamespace(code, i)));
    writeFileSync(join(dir, 'driver.php'), driver(options.assoc === true));
    const failed = new Map<number, string>();
    for (;;) {
      const compiled = new Set(modules.map((_, i) => i).filter((i) => !failed.has(i)));
      writeFileSync(join(dir, 'input.txt'), driverInput(cases, moduleOf, compiled));
      const r = run(['driver.php', 'input.txt', [...compiled].join(',')], dir);
      const lines = r.stdout.split('\n');
      const ready = lines.indexOf('ready');
      // A module whose loading threw is left out of the answers; one that stopped PHP (a fatal
      // compile error) is the last one it started loading: leave it out and start again.
      const thrown = new Map<number, string>();
      for (const l of lines.slice(0, ready === -1 ? lines.length : ready)) {
        const m = /^failed (\d+) (.*)$/.exec(l);
        if (m) thrown.set(Number(m[1]), Buffer.from(m[2]!, 'base64').toString('utf8'));
      }
      if (ready === -1) {
        const loading = lines.filter((l) => l.startsWith('load ')).pop();
        if (loading === undefined) throw new Error(`the PHP driver failed: ${r.stdout}${r.stderr}`);
        failed.set(Number(loading.slice(5)), r.stderr.trim() || r.stdout.trim());
        for (const [m, e] of thrown) failed.set(m, e);
        continue;
      }
      if (thrown.size > 0) {
        for (const [m, e] of thrown) failed.set(m, e);
        continue;
      }
      if (r.code !== 0) throw new Error(`the PHP driver failed: ${r.stderr}`);
      return readAnswers(cases, moduleOf, failed, lines.slice(ready + 1).join('\n'));
    }
  } finally {
    done();
  }
}
