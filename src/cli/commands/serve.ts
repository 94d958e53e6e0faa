import type { AddressInfo } from 'node:net';
import { buildSnapshot, createServer, type CompatibilityLevel, type RequestLog, type Snapshot } from '../../serve/index.js';
import { CliError, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { CliRegistry, type RegistryOptions } from '../registry.js';

export interface ServeOptions extends RegistryOptions {
  host: string;
  port: string;
  compatibility: CompatibilityLevel;
  verbose?: boolean;
}

const say = (line: string): void => {
  process.stderr.write(`bqschema serve: ${line}\n`);
};

function parsePort(raw: string): number {
  const port = /^[0-9]{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new CliError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`, EXIT_USAGE);
  return port;
}

/** Reads the manifest and every schema file now; a manifest that cannot be read throws (a CliError). */
function load(options: ServeOptions): Snapshot {
  return buildSnapshot(new CliRegistry(options).provider);
}

function urlHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

function listenProblem(err: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host}:${port}`;
  switch (err.code) {
    case 'EADDRINUSE': return `cannot listen on ${where}: the port is already in use`;
    case 'EACCES': return `cannot listen on ${where}: permission denied`;
    case 'EADDRNOTAVAIL': return `cannot listen on ${where}: the address is not available on this machine`;
    case 'ENOTFOUND': case 'EAI_AGAIN': return `cannot listen on ${where}: unknown host`;
    default: return `cannot listen on ${where}: ${err.message}`;
  }
}

function logRequest(entry: RequestLog): void {
  process.stderr.write(`${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms${entry.aborted ? ' (aborted)' : ''}\n`);
}

/**
 * Serves the registry until SIGTERM or SIGINT (then exits 0 once in-flight requests are answered).
 * SIGHUP reloads: the new snapshot replaces the old one only when the manifest and every schema load.
 */
export async function run(options: ServeOptions): Promise<number> {
  const port = parsePort(options.port);
  const snapshot = load(options);
  for (const b of snapshot.broken) say(`warning: ${b.name} is answered with error 50001: ${b.error}`);
  const api = createServer(snapshot, { compatibility: options.compatibility, onRequest: options.verbose ? logRequest : undefined });
  let address: AddressInfo;
  try {
    address = await api.listen(port, options.host);
  } catch (err) {
    throw new CliError(listenProblem(err as NodeJS.ErrnoException, options.host, port), EXIT_USAGE);
  }
  const closed = new Promise<number>((resolve) => {
    const reload = (): void => {
      let next: Snapshot;
      try {
        next = load(options);
      } catch (err) {
        say(`reload failed, still serving the previous registry: ${(err as Error).message}`);
        return;
      }
      const first = next.broken[0];
      if (first !== undefined) {
        const more = next.broken.length > 1 ? ` (and ${next.broken.length - 1} more)` : '';
        say(`reload failed, still serving the previous registry: ${first.name}: ${first.error}${more}`);
        return;
      }
      api.replace(next);
      say(`reloaded (${next.subjects.length} subjects)`);
    };
    const stop = (signal: NodeJS.Signals): void => {
      // A second signal gets Node's default handling: it ends the process at once.
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      process.off('SIGHUP', reload);
      const done = api.close();
      say(`${signal}: closing`); // after close(): the port no longer accepts connections
      done.then(() => resolve(EXIT_OK), () => resolve(EXIT_OK));
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.on('SIGHUP', reload);
  });
  // Printed once the signal handlers are in place: whoever waits for this line may signal at once.
  say(`listening on http://${urlHost(address)}:${address.port} (${snapshot.subjects.length} subjects)`);
  return closed;
}
