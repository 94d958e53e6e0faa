import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import YAML from 'yaml';
import { buildAsyncApi, catalogKeys, validateAsyncApi, type AsyncApiIssue, type CatalogEntry } from '../../asyncapi/index.js';
import { escapePointerToken, joinPointer, schemaPath, type Manifest } from '../../internal.js';
import { CliError, EXIT_GATE, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { Out } from '../output.js';
import { asCliError, CliRegistry, type RegistryOptions } from '../registry.js';
import { exitWhenStdoutCloses } from '../stdout.js';

export interface ExportOptions extends RegistryOptions {
  output?: string;
  title?: string;
  docVersion?: string;
  format?: 'json' | 'yaml';
}

function display(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}

function catalog(registry: CliRegistry): CatalogEntry[] {
  return registry.manifest.entries.map((entry) => {
    let schema: unknown;
    try {
      schema = registry.loadDocument(entry);
    } catch (err) {
      asCliError(err);
    }
    const out: CatalogEntry = { urn: entry.urn, schema };
    if (entry.owner !== undefined) out.owner = entry.owner;
    if (entry.status !== undefined) out.status = entry.status;
    if (entry.description !== undefined) out.description = entry.description;
    return out;
  });
}

/** One line per issue; a problem inside a payload schema also names the schema file and its pointer there. */
function describeIssue(issue: AsyncApiIssue, manifest: Manifest, keys: Map<string, string>, allowOutside: boolean | undefined): string {
  let where = '';
  const key = issue.urn === undefined ? undefined : keys.get(issue.urn);
  const entry = manifest.entries.find((e) => e.urn === issue.urn);
  if (key !== undefined && entry !== undefined) {
    const k = escapePointerToken(key);
    const payload = `/channels/${k}/messages/${k}/payload/schema`;
    if (issue.pointer === payload || issue.pointer.startsWith(payload + '/')) {
      const inFile = issue.pointer.slice(payload.length) || '(root)';
      where = ` (schema file ${display(schemaPath(manifest, entry, allowOutside))} at ${inFile})`;
    }
  }
  return `${issue.urn === undefined ? '' : issue.urn + ': '}${issue.pointer || '(root)'}: ${issue.message}${where}`;
}

/**
 * `<<` keys in the payload schemas. @asyncapi/parser reads every document, JSON included, as YAML
 * with merge keys, so a property named `<<` would be merged into the enclosing object: the catalog
 * would silently show another schema. The spec schema cannot see this, so it is checked here.
 */
function mergeKeyIssues(entries: readonly CatalogEntry[], keys: Map<string, string>): AsyncApiIssue[] {
  const issues: AsyncApiIssue[] = [];
  for (const { urn, schema } of entries) {
    const k = escapePointerToken(keys.get(urn)!);
    const stack: Array<{ value: unknown; pointer: string }> = [{ value: schema, pointer: `/channels/${k}/messages/${k}/payload/schema` }];
    while (stack.length > 0) {
      const { value, pointer } = stack.pop()!;
      if (typeof value !== 'object' || value === null) continue;
      for (const key of Object.keys(value)) {
        const at = joinPointer(pointer, key);
        if (key === '<<') issues.push({ pointer: at, urn, message: 'the key "<<" is read as a YAML merge key by AsyncAPI tools, which would merge its value into the enclosing object' });
        stack.push({ value: (value as Record<string, unknown>)[key], pointer: at });
      }
    }
  }
  return issues;
}

const plainCache = new Map<string, boolean>();

/**
 * Whether a string may be written as a plain YAML scalar: it must read back as the same string
 * under YAML 1.2 and under YAML 1.1, which still turns `yes`, `on`, `2024-01-01` or `1_000` into
 * booleans, dates and numbers (several AsyncAPI tools read YAML 1.1), and must not be `<<`, the
 * 1.1 merge key.
 */
function plainIsSafe(s: string): boolean {
  let safe = plainCache.get(s);
  if (safe === undefined) {
    try {
      safe = s !== '<<' && YAML.parse(s, { logLevel: 'silent' }) === s && YAML.parse(s, { version: '1.1', logLevel: 'silent' }) === s;
    } catch {
      safe = false;
    }
    plainCache.set(s, safe);
  }
  return safe;
}

/** The YAML rendering; refuses to return text that would not read back as the same JSON. */
export function toYaml(doc: unknown): string {
  // No anchors: a schema that shares an object (a YAML alias in its source) is written out in full, as in JSON.
  const document = new YAML.Document(doc, { aliasDuplicateObjects: false });
  YAML.visit(document, {
    Scalar(_, node) {
      // Multi-line strings are left to the library: a block literal is always a string.
      if (typeof node.value === 'string' && !node.value.includes('\n') && !plainIsSafe(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  const text = document.toString({ lineWidth: 0 });
  const expected = JSON.stringify(doc);
  for (const version of ['1.2', '1.1'] as const) {
    if (JSON.stringify(YAML.parse(text, { version, logLevel: 'silent' })) !== expected) {
      throw new CliError(`internal error: the YAML rendering does not read back as the document under YAML ${version}; use --format json`, EXIT_USAGE);
    }
  }
  return text;
}

/**
 * Writes `text` to `target` atomically: a temporary file in the same directory, fsynced, then
 * renamed over the target. On any failure the temporary file is removed and an existing target is
 * left as it was. An existing target's permissions are kept.
 */
export function writeFileAtomic(target: string, text: string): void {
  const temp = join(dirname(resolve(target)), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let mode: number | undefined;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    mode = undefined; // a new file: the umask decides
  }
  let fd: number | undefined;
  let created = false;
  try {
    fd = openSync(temp, 'wx');
    created = true;
    if (mode !== undefined) fchmodSync(fd, mode);
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already failing: the first error is the one to report
      }
    }
    if (created) {
      try {
        unlinkSync(temp);
      } catch {
        // nothing more can be done; the name says what it is
      }
    }
    throw err;
  }
}

function writeError(target: string, err: unknown): CliError {
  const e = err as NodeJS.ErrnoException;
  const dir = dirname(resolve(target));
  let why: string;
  if (e.code === 'ENOENT') why = `the directory ${display(dir)} does not exist`;
  else if (e.code === 'EISDIR' || e.code === 'ENOTEMPTY') why = 'it is a directory';
  else if (e.code === 'EACCES' || e.code === 'EPERM') why = 'permission denied';
  else if (e.code === 'ENOTDIR') why = 'a part of the path is not a directory';
  else why = e.message;
  return new CliError(`cannot write ${target}: ${why}; nothing was written`, EXIT_USAGE);
}

export async function run(options: ExportOptions): Promise<number> {
  const registry = new CliRegistry(options);
  const entries = catalog(registry);
  const doc = buildAsyncApi(entries, { title: options.title, version: options.docVersion });
  // Our own output is gated like any other: an invalid document is never written.
  const keys = catalogKeys(entries.map((e) => e.urn));
  const issues = [...(await validateAsyncApi(doc)), ...mergeKeyIssues(entries, keys)];
  if (issues.length > 0) {
    for (const issue of issues) {
      process.stderr.write(`bqschema: ${describeIssue(issue, registry.manifest, keys, options.allowOutsidePaths)}\n`);
    }
    process.stderr.write(`bqschema: the AsyncAPI document is invalid (${issues.length} problem(s)); nothing was written\n`);
    return EXIT_GATE;
  }
  const output = options.output;
  const format = options.format ?? (output !== undefined && /\.ya?ml$/i.test(output) ? 'yaml' : 'json');
  const text = format === 'yaml' ? toYaml(doc) : JSON.stringify(doc, null, 2) + '\n';
  if (output === undefined) {
    exitWhenStdoutCloses(() => EXIT_OK);
    const out = new Out();
    out.line(text.slice(0, -1));
    await out.flush();
    return EXIT_OK;
  }
  try {
    writeFileAtomic(output, text);
  } catch (err) {
    throw writeError(output, err);
  }
  const n = entries.length;
  process.stdout.write(`Wrote ${output}: AsyncAPI 3.0.0, ${format.toUpperCase()}, ${n} channel${n === 1 ? '' : 's'}\n`);
  return EXIT_OK;
}
