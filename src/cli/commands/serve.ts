import type { AddressInfo } from 'node:net';
import { CompatNameError, parseCompatLevel, parseCompatPolicy } from '../../compat/index.js';
import {
  buildSnapshot,
  createServer,
  MAX_BODY_BYTES,
  MAX_CONNECTIONS,
  MAX_PENDING_BYTES,
  type RequestLog,
  type Snapshot,
} from '../../serve/index.js';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildCatalog, catalogHandler, catalogServices, type CatalogEntry } from '../../catalog/index.js';
import { RegistryNotFoundError, type Registry } from '../../registry/index.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { clean } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';

export interface ServeOptions extends RegistryCliOptions {
  host: string;
  port: string;
  /** backward, forward, full or none, in any case. */
  compatibility: string;
  /** bqschema or confluent, in any case. */
  policy?: string;
  allowKeyword?: string[];
  verbose?: boolean;
  /** Also answer `GET /catalog` with the registry's HTML catalog. */
  catalog?: boolean;
  maxConnections?: string;
  maxPendingBytes?: string;
  /** Each distinct schema of a URN in git history is a version (read at start and at each reload). */
  history?: boolean;
}

const say = (line: string): void => {
  process.stderr.write(`bqschema serve: ${clean(line)}\n`);
};

function parsePort(raw: string): number {
  const port = /^[0-9]{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(raw)}`);
  return port;
}

/** A whole number from `min` up, or the default when the option is not given. */
function parseCount(raw: string | undefined, fallback: number, min: number, option: string, what: string): number {
  if (raw === undefined) return fallback;
  const n = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(Number.isSafeInteger(n) && n >= min)) throw new UsageError(`${option} must be ${what}, got ${JSON.stringify(raw)}`);
  return n;
}

/**
 * `--history`: each URN's earlier schemas from git, oldest first, none equal to today's (which is
 * the last version). No git, no repository, a shallow clone: a one-line error, never fewer versions.
 */
async function earlierSchemas(registry: Registry, allowOutsidePaths: boolean | undefined): Promise<(urn: string) => unknown[]> {
  const { readHistory } = await import('../../registry/versions.js');
  const { canonicalKey } = await import('../../validator/index.js');
  const history = await readHistory({
    manifestPath: registry.manifest.path,
    parseOptions: registry.parseOptions,
    ...(allowOutsidePaths ? { allowOutsidePaths } : {}),
  });
  for (const u of history.unreadable)
    say(`warning: ${u.urn || 'the manifest'} at ${u.commit.slice(0, 12)} (${u.path}) cannot be read, not a version: ${u.message}`);
  return (urn) => {
    let now: string | undefined;
    try {
      now = canonicalKey(registry.document(urn).value);
    } catch {
      now = undefined;
    }
    return (history.versions.get(urn) ?? []).filter((v) => v.key !== now).map((v) => v.value);
  };
}

/** Reads the manifest and every schema file now; a manifest that cannot be used throws (a RegistryError). */
async function load(options: ServeOptions): Promise<{ snapshot: Snapshot; registry: Registry }> {
  // Served as DirProvider reads it: a malformed keyword is a logged warning, not a broken subject, so
  // an HttpProvider client gets the runtime's verdicts; `check` is the gate that fails on it.
  const registry = openRegistry(options, { strict: false, onWarning: (_w, message) => say(`warning: ${message}`) });
  const earlier = options.history ? await earlierSchemas(registry, options.allowOutsidePaths) : undefined;
  const built = buildSnapshot({
    urns: () => registry.urns(),
    schemaFor: (urn) => registry.compiled(urn),
    idFor: (urn) => registry.entry(urn)?.id,
    ...(earlier ? { earlier } : {}),
  });
  if (!options.catalog) return { snapshot: built, registry };
  const entries: CatalogEntry[] = [];
  for (const e of registry.entries) {
    let schema: unknown;
    try {
      schema = registry.document(e.urn).value;
    } catch {
      continue; // answered as a broken subject by the API; the catalog shows what loads
    }
    entries.push({
      urn: e.urn,
      schema,
      file: registry.fileFromRoot(e.urn),
      owner: e.owner,
      status: e.status,
      description: e.description,
      producers: e.producers,
      consumers: e.consumers,
    });
  }
  const page = catalogHandler(buildCatalog({ entries, services: catalogServices(registry) }));
  const catalog = { headers: page.headers, body: Buffer.from(page.body, 'utf8') };
  return { snapshot: Object.freeze({ ...built, catalog }), registry };
}

/** Size and modification time of every file a registry was read from (missing files included). */
function fingerprint(registry: Registry): string {
  const paths = [registry.manifest.path];
  for (const urn of registry.urns()) {
    try {
      paths.push(registry.file(urn).path);
    } catch {
      // an outside path: never read, nothing to watch
    }
  }
  return paths
    .map((p) => {
      try {
        const st = statSync(p);
        return `${p}\0${st.size}\0${st.mtimeMs}`;
      } catch {
        return `${p}\0-`;
      }
    })
    .join('\n');
}

/** How long the files must stay unchanged around a reload before it is served. */
const SETTLE_MS = 250;
/** How long a reload waits for files that keep changing before it gives up. */
const SETTLE_LIMIT_MS = 10_000;

/**
 * Loads the registry once its files have settled: read, wait, and check that no file's size or
 * modification time changed in the meantime; otherwise read again. An editor that writes a file in
 * several steps (each one still valid YAML) is never served half-way.
 */
async function settledLoad(options: ServeOptions): Promise<Snapshot> {
  const started = Date.now();
  for (;;) {
    const before = fingerprint(openRegistry(options));
    const { snapshot, registry } = await load(options);
    await sleep(SETTLE_MS);
    if (fingerprint(registry) === before) return snapshot;
    if (Date.now() - started > SETTLE_LIMIT_MS) throw new Error(`the registry's files kept changing for ${SETTLE_LIMIT_MS / 1000} s`);
  }
}

function urlHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

function listenProblem(err: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host}:${port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the port is already in use`;
    case 'EACCES':
      return `cannot listen on ${where}: permission denied`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: the address is not available on this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${where}: unknown host`;
    default:
      return `cannot listen on ${where}: ${err.message}`;
  }
}

function logRequest(entry: RequestLog): void {
  process.stderr.write(`${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms${entry.aborted ? ' (aborted)' : ''}\n`);
}

/**
 * Serves the registry until SIGTERM or SIGINT (then exits 0 once in-flight requests are answered).
 * SIGHUP reloads the manifest found at start: the new snapshot replaces the old one only when the
 * manifest and every schema load.
 */
export async function run(options: ServeOptions): Promise<number> {
  const port = parsePort(options.port);
  const maxConnections = parseCount(options.maxConnections, MAX_CONNECTIONS, 1, '--max-connections', 'a positive integer');
  const maxPendingBytes = parseCount(
    options.maxPendingBytes,
    MAX_PENDING_BYTES,
    MAX_BODY_BYTES,
    '--max-pending-bytes',
    `a number of bytes from ${MAX_BODY_BYTES} (the largest request body, 1 MiB) up`,
  );
  let level: string;
  let policy: string;
  try {
    level = parseCompatLevel(options.compatibility ?? 'BACKWARD').toUpperCase();
    policy = parseCompatPolicy(options.policy ?? 'bqschema');
  } catch (err) {
    if (err instanceof CompatNameError) throw new UsageError(err.message);
    throw err;
  }
  const { snapshot, registry } = await load(options);
  // Discovery runs once, here: every reload reads the manifest found now, so one moved away (or
  // replaced by a directory) fails the reload instead of switching to a parent directory's registry.
  const reloadOptions: ServeOptions = { ...options, registry: registry.manifest.path };
  const manifestShown = registry.manifest.shown;
  for (const b of snapshot.broken) say(`warning: ${b.name} is answered with error 50001: ${b.error}`);
  const api = createServer(snapshot, {
    compatibility: level,
    policy,
    maxConnections,
    maxPendingBytes,
    allowKeywords: options.allowKeyword ?? [],
    onRequest: options.verbose ? logRequest : undefined,
  });
  if (options.verbose) api.server.on('drop', () => say(`connection refused: ${maxConnections} connections are open (--max-connections)`));
  let address: AddressInfo;
  try {
    address = await api.listen(port, options.host);
  } catch (err) {
    throw new UsageError(listenProblem(err as NodeJS.ErrnoException, options.host, port));
  }
  const closed = new Promise<number>((resolve) => {
    // One reload at a time; signals that arrive meanwhile ask for one more.
    let reloading = false;
    let again = false;
    const reload = (): void => {
      if (reloading) {
        again = true;
        return;
      }
      reloading = true;
      void reloadOnce().finally(() => {
        reloading = false;
        if (again) {
          again = false;
          reload();
        }
      });
    };
    const reloadOnce = async (): Promise<void> => {
      let next: Snapshot;
      try {
        next = await settledLoad(reloadOptions);
      } catch (err) {
        // The not-found message would name --registry as the path's origin; it is the start's manifest.
        const problem =
          err instanceof RegistryNotFoundError
            ? `registry manifest not found: ${manifestShown} (serve reads the manifest it started with: put it back, or restart serve to use another)`
            : (err as Error).message;
        say(`reload failed, still serving the previous registry: ${problem}`);
        return;
      }
      if (stopped) return;
      const first = next.broken[0];
      if (first !== undefined) {
        const more = next.broken.length > 1 ? ` (and ${next.broken.length - 1} more)` : '';
        say(`reload failed, still serving the previous registry: ${first.name}: ${first.error}${more}`);
        return;
      }
      api.replace(next);
      say(`reloaded (${next.subjects.length} subjects)`);
    };
    let stopped = false;
    const stop = (signal: NodeJS.Signals): void => {
      stopped = true;
      // A second signal gets Node's default handling: it ends the process at once.
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      process.off('SIGHUP', reload);
      const done = api.close();
      say(`${signal}: closing`); // after close(): the port no longer accepts connections
      done.then(
        () => resolve(EXIT_OK),
        () => resolve(EXIT_OK),
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.on('SIGHUP', reload);
  });
  // Printed once the signal handlers are in place: whoever waits for this line may signal at once.
  const versions = options.history
    ? `, ${[...snapshot.bySubject.values()].reduce((n, e) => n + (e.ok ? e.versions.length : 1), 0)} versions from git history`
    : '';
  say(`listening on http://${urlHost(address)}:${address.port} (${snapshot.subjects.length} subjects${versions})`);
  return closed;
}
