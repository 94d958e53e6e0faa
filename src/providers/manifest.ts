import { readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { isSchemaObject } from '../validator/index.js';

/** One `{urn, schema, owner?, status?, description?}` entry of registry.json. */
export interface ManifestEntry {
  urn: string;
  /** The schema file as written in the manifest, relative to the manifest's directory. */
  schema: string;
  owner?: string;
  status?: string;
  description?: string;
  /** Position in the manifest's `schemas` array. */
  index: number;
}

export interface Manifest {
  /** Absolute path of the manifest file. */
  file: string;
  /** Absolute directory the schema paths are relative to. */
  dir: string;
  entries: ManifestEntry[];
}

export interface ManifestProblem {
  /** JSON Pointer into the manifest (`/schemas/2/urn`). */
  pointer: string;
  urn?: string;
  message: string;
}

export type RegistryErrorKind = 'manifest' | 'outside' | 'missing' | 'unreadable' | 'malformed';

/** A registry file that cannot be used: the message names the file (and the URN when there is one). */
export class RegistryError extends Error {
  override name = 'RegistryError';
  constructor(
    readonly kind: RegistryErrorKind,
    readonly file: string,
    message: string,
    readonly urn?: string,
  ) {
    super(message);
  }
}

/** Parses a file's text; throws with a positioned message when it is malformed. */
export type ParseText = (text: string, file: string) => unknown;

/** The library's parser: JSON, with a UTF-8 BOM accepted. The CLI passes one that also reads JSONC and YAML. */
export const parseJsonText: ParseText = (text) => JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

const OPTIONAL_STRINGS = ['owner', 'status', 'description'] as const;

/**
 * Reads a parsed manifest without throwing: the well-formed entries and every problem (what
 * `bqschema check` reports). Entries with an empty or duplicate URN are reported and left out.
 */
export function readManifest(value: unknown): { entries: ManifestEntry[]; problems: ManifestProblem[] } {
  const problems: ManifestProblem[] = [];
  const entries: ManifestEntry[] = [];
  if (!isSchemaObject(value)) {
    problems.push({ pointer: '', message: 'the manifest must be a JSON object with a "schemas" array' });
    return { entries, problems };
  }
  const list = Object.prototype.hasOwnProperty.call(value, 'schemas') ? value.schemas : undefined;
  if (!Array.isArray(list)) {
    problems.push({ pointer: '/schemas', message: 'the manifest has no "schemas" array' });
    return { entries, problems };
  }
  const seen = new Map<string, number>();
  list.forEach((raw, index) => {
    const at = `/schemas/${index}`;
    if (!isSchemaObject(raw)) {
      problems.push({ pointer: at, message: `entry ${index} is not an object` });
      return;
    }
    const urn = raw.urn;
    const schema = raw.schema;
    let ok = true;
    if (typeof urn !== 'string' || urn.trim() === '') {
      problems.push({ pointer: `${at}/urn`, message: `entry ${index} has ${typeof urn === 'string' ? 'an empty' : 'no'} "urn"` });
      ok = false;
    }
    const name = typeof urn === 'string' && urn.trim() !== '' ? urn : undefined;
    if (typeof schema !== 'string' || schema.trim() === '') {
      problems.push({
        pointer: `${at}/schema`,
        urn: name,
        message: `entry ${index}${name ? ` (${name})` : ''} has ${typeof schema === 'string' ? 'an empty' : 'no'} "schema" path`,
      });
      ok = false;
    }
    for (const key of OPTIONAL_STRINGS) {
      if (Object.prototype.hasOwnProperty.call(raw, key) && typeof raw[key] !== 'string') {
        problems.push({ pointer: `${at}/${key}`, urn: name, message: `entry ${index}: "${key}" must be a string` });
      }
    }
    if (name !== undefined) {
      const first = seen.get(name);
      if (first !== undefined) {
        problems.push({ pointer: `${at}/urn`, urn: name, message: `URN ${name} is registered twice (entries ${first} and ${index})` });
        ok = false;
      } else seen.set(name, index);
    }
    if (!ok) return;
    const entry: ManifestEntry = { urn: name!, schema: schema as string, index };
    for (const key of OPTIONAL_STRINGS) if (typeof raw[key] === 'string') entry[key] = raw[key] as string;
    entries.push(entry);
  });
  return { entries, problems };
}

/**
 * Reads a registry file (manifest or schema) as UTF-8; a missing, directory or unreadable file is a
 * RegistryError whose message says `<what> not found: <shown>`. `shown` defaults to the path.
 */
export function readRegistryText(file: string, what: string, urn?: string, shown: string = file): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RegistryError('missing', file, `${what} not found: ${shown}`, urn);
    if (code === 'EISDIR') throw new RegistryError('unreadable', file, `${what} is a directory: ${shown}`, urn);
    throw new RegistryError('unreadable', file, `${what} cannot be read: ${shown}: ${(err as Error).message}`, urn);
  }
}

/** Reads and checks a manifest file; throws RegistryError on the first problem. */
export function loadManifest(file: string, parse: ParseText = parseJsonText): Manifest {
  const abs = resolve(file);
  const text = readRegistryText(abs, 'registry manifest');
  let value: unknown;
  try {
    value = parse(text, abs);
  } catch (err) {
    throw new RegistryError('manifest', abs, `${(err as Error).message.startsWith(abs) ? '' : abs + ': '}${(err as Error).message}`);
  }
  const { entries, problems } = readManifest(value);
  if (problems.length > 0) throw new RegistryError('manifest', abs, `${abs}: ${problems[0]!.message}`);
  return { file: abs, dir: dirname(abs), entries };
}

function inside(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The absolute path of an entry's schema file. A path that resolves outside the manifest's
 * directory, lexically or through a symlink, is refused unless `allowOutside`: it is never read.
 */
export function schemaPath(manifest: Manifest, entry: ManifestEntry, allowOutside = false): string {
  const target = resolve(manifest.dir, entry.schema);
  if (allowOutside) return target;
  const refuse = (): never => {
    throw new RegistryError(
      'outside',
      target,
      `schema file for ${entry.urn} is outside the registry directory: ${entry.schema} (use --allow-outside-paths to permit it)`,
      entry.urn,
    );
  };
  if (!inside(manifest.dir, target)) refuse();
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return target; // missing: reported when it is read
  }
  if (!inside(realpathSync(manifest.dir), real)) refuse();
  return target;
}

/** Loads an entry's schema document; errors name the URN and the file. */
export function loadSchemaFile(
  manifest: Manifest,
  entry: ManifestEntry,
  options: { parse?: ParseText; allowOutside?: boolean } = {},
): unknown {
  const file = schemaPath(manifest, entry, options.allowOutside);
  const text = readRegistryText(file, `schema file for ${entry.urn}`, entry.urn);
  try {
    return (options.parse ?? parseJsonText)(text, file);
  } catch (err) {
    const msg = (err as Error).message;
    throw new RegistryError('malformed', file, `schema file for ${entry.urn} is malformed: ${msg.startsWith(file) ? msg : `${file}: ${msg}`}`, entry.urn);
  }
}
