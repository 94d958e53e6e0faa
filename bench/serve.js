// `bqschema serve` throughput: autocannon against GET /subjects/{subject}/versions/latest on the
// example registry. Target: >= 15,000 req/s with no errors and no non-2xx answers.
//
//   npm run build && node bench/serve.js
//   options: --duration S (10) --connections N (50) --rounds N (1)
//
// The server is the built CLI in its own process; autocannon runs in this one. Both share the
// machine, so the load average is printed: on a busy machine the figure is a floor, not a ceiling.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PATH = '/subjects/urn%3Ababel%3Aorders%3Acreated/versions/latest';
const TARGET_RPS = 15_000;

function parseArgs(argv) {
  const o = { duration: 10, connections: 50, rounds: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const n = Number(argv[++i]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive integer`);
    if (a === '--duration') o.duration = n;
    else if (a === '--connections') o.connections = n;
    else if (a === '--rounds') o.rounds = n;
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

async function startServer() {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'bqschema.js'), 'serve', '--port', '0', '--registry', join(ROOT, 'registry.example.json')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  child.stderr.setEncoding('utf8');
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const m = /listening on http:\/\/\S+:(\d+) /.exec(err);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${err}`)));
  });
  return { child, port };
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const { child, port } = await startServer();
  const url = `http://127.0.0.1:${port}${PATH}`;
  try {
    const probe = await fetch(url);
    const body = await probe.json();
    if (probe.status !== 200 || body.subject !== 'urn:babel:orders:created')
      throw new Error(`unexpected answer ${probe.status}: ${JSON.stringify(body)}`);
    console.log(`bqschema serve on ${url}`);
    console.log(`${os.cpus().length} CPUs, load average before ${loadavg()}`);
    let ok = true;
    for (let round = 1; round <= o.rounds; round++) {
      const r = await autocannon({ url, connections: o.connections, duration: o.duration });
      const rps = r.requests.average;
      const met = rps >= TARGET_RPS && r.errors === 0 && r.timeouts === 0 && r.non2xx === 0;
      ok &&= met;
      console.log(
        `round ${round}: ${Math.round(rps).toLocaleString('en-US')} req/s average (${r.requests.total.toLocaleString('en-US')} requests in ${o.duration} s, ${o.connections} connections), ` +
          `latency p50 ${r.latency.p50} ms p99 ${r.latency.p99} ms, errors ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx}; ` +
          `load average ${loadavg()}; target >= ${TARGET_RPS.toLocaleString('en-US')} req/s, 0 errors, 0 non-2xx: ${met ? 'met' : 'MISSED'}`,
      );
    }
    console.log(`verdict: ${ok ? 'target met' : 'target missed'}`);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

await main();
