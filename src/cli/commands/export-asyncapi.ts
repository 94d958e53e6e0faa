import { dirname, relative, resolve, sep } from 'node:path';
import {
  assembleAsyncApi,
  originOf,
  validateAsyncApi,
  type AsyncApiIssue,
  type CatalogEntry,
  type Origin,
  type SchemaFile,
  type SchemaFiles,
} from '../../asyncapi/index.js';
// yaml is loaded on first use (the registry's lazy loader): a JSON export never pays for it.
import { didYouMean, ParseFailure, parseText, RegistryError, SourcePositions, yaml, type Registry } from '../../registry/index.js';
import { pointerLabel } from '../../validator/index.js';
import { claimDocument, emitDocument } from '../document.js';
import { EXIT_GATE, UsageError } from '../errors.js';
import { clean } from '../output.js';
import { protectFile } from '../protect.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';

export interface ExportOptions extends RegistryCliOptions {
  output?: string;
  title?: string;
  docVersion?: string;
  docFormat?: 'json' | 'yaml';
  /** One service's document: what it sends and reads. */
  service?: string;
  /** Count each schema's distinct versions in git (`x-bqschema-versions`). */
  versions?: boolean;
}

/** Every registered schema; one that cannot be loaded is a RegistryError (one line, exit 1). */
function catalog(registry: Registry, versions?: (urn: string) => number | undefined): CatalogEntry[] {
  return registry.entries.map((entry) => {
    // The registry is strict: a malformed keyword is refused here, not published as if enforced.
    registry.compiled(entry.urn);
    const out: CatalogEntry = { urn: entry.urn, schema: registry.document(entry.urn).value, file: registry.file(entry.urn).path };
    if (entry.owner !== undefined) out.owner = entry.owner;
    if (entry.status !== undefined) out.status = entry.status;
    if (entry.description !== undefined) out.description = entry.description;
    if (entry.producers !== undefined) out.producers = entry.producers;
    if (entry.consumers !== undefined) out.consumers = entry.consumers;
    if (entry.deprecated !== undefined) out.deprecated = entry.deprecated;
    const count = versions?.(entry.urn);
    if (count !== undefined) out.versions = count;
    return out;
  });
}

/** A schema file a `$ref` named, as read: its text places a problem in it. */
interface ReadFile {
  shown: string;
  text: string;
  positions?: SourcePositions;
}

/**
 * The registry's files as `$ref`s name them: relative to the file holding the reference, within
 * the registry's directory (unless --allow-outside-paths), read and parsed as schema files are. A
 * registered schema's file is its URN's document. Each file read is an input of this run: never
 * the output.
 */
function registryFiles(registry: Registry, read: Map<string, ReadFile>): SchemaFiles {
  const root = dirname(registry.manifest.path);
  const registered = new Map<string, string>(registry.entries.map((e) => [registry.file(e.urn).path, e.urn]));
  const named = (abs: string): string => relative(root, abs).split(sep).join('/');
  return {
    load(from: string, path: string): SchemaFile {
      const abs = resolve(dirname(from), path);
      const urn = registered.get(abs);
      if (urn !== undefined) return { file: abs, name: named(abs), value: registry.document(urn).value };
      const rel = relative(root, abs);
      let shown: string;
      let text: string;
      try {
        const file = registry.source.locate({ urn: '', schema: rel, index: -1 });
        shown = file.shown;
        text = registry.source.read(file, 'the file');
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err;
        if (err.kind === 'outside')
          throw new Error(`${named(abs)} is outside the registry directory (use --allow-outside-paths to permit it)`);
        throw new Error(err.message);
      }
      protectFile(abs, `a schema file a $ref names (${shown})`);
      let value: unknown;
      try {
        value = parseText(text, shown, undefined, registry.parseOptions);
      } catch (err) {
        if (err instanceof ParseFailure) throw new Error(`${err.message}`);
        throw err;
      }
      read.set(abs, { shown, text });
      return { file: abs, name: named(abs), value };
    },
  };
}

/** `file:line:col` of a place in a schema source, for the URN files and the files `$ref`s named. */
function sourceSite(
  registry: Registry,
  read: Map<string, ReadFile>,
  file: string | undefined,
  urn: string | undefined,
  pointer: string,
): string | undefined {
  if (file !== undefined) {
    const other = read.get(file);
    if (other !== undefined) {
      other.positions ??= SourcePositions.forFile(other.text, other.shown);
      const { line, col } = other.positions.of(pointer);
      return `${other.shown}:${line}:${col}`;
    }
  }
  if (urn === undefined || !registry.has(urn)) return undefined;
  const doc = registry.document(urn);
  if (file !== undefined && file !== doc.file.path) {
    // A registered schema another one refers to.
    const owner = registry.entries.find((e) => registry.file(e.urn).path === file);
    if (owner === undefined) return undefined;
    return sourceSite(registry, read, undefined, owner.urn, pointer);
  }
  const { line, col } = registry.schemaPosition(doc, pointer);
  return `${doc.file.shown}:${line}:${col}`;
}

/**
 * One line per issue: a problem inside a schema names its file, line and column and the pointer
 * there (found through the document's origins for a problem the AsyncAPI check found).
 */
function describeIssue(issue: AsyncApiIssue, registry: Registry, origins: readonly Origin[], read: Map<string, ReadFile>): string {
  const origin = originOf(issue.pointer, origins);
  const from = issue.source ?? origin;
  const urn = issue.urn ?? origin?.urn;
  const site = from === undefined ? undefined : sourceSite(registry, read, from.file, urn, from.pointer);
  if (site !== undefined) return `${site}: ${urn === undefined ? '' : urn + ': '}${pointerLabel(from!.pointer)}: ${issue.message}`;
  return `${urn === undefined ? '' : urn + ': '}${pointerLabel(issue.pointer)}: ${issue.message}`;
}

const TOO_DEEP = /nested too deeply/;

/**
 * A document too deep to check is one issue at its root, naming no schema: each entry is then
 * checked alone (only on this failure path) so the issue names the URN and its schema file.
 */
async function nameTooDeep(
  issues: AsyncApiIssue[],
  entries: CatalogEntry[],
  registry: Registry,
  files: SchemaFiles,
  options: ExportOptions,
): Promise<AsyncApiIssue[]> {
  const i = issues.findIndex((x) => x.pointer === '' && x.urn === undefined && TOO_DEEP.test(x.message));
  if (i < 0) return issues;
  const named: AsyncApiIssue[] = [];
  for (const entry of entries) {
    const alone = await validateAsyncApi(assembleAsyncApi([entry], { title: options.title, version: options.docVersion, files }).document);
    if (alone.some((x) => x.pointer === '' && TOO_DEEP.test(x.message))) {
      named.push({
        urn: entry.urn,
        pointer: '',
        message: `the schema (schema file ${registry.file(entry.urn).shown}) is nested too deeply to be checked against the AsyncAPI schema`,
      });
    }
  }
  return named.length === 0 ? issues : [...issues.slice(0, i), ...named, ...issues.slice(i + 1)];
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
    const YAML = yaml();
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
  const YAML = yaml();
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
      throw new Error(`the YAML rendering does not read back as the document under YAML ${version}; use --format json`);
    }
  }
  return text;
}

/** The document in each format --format offers, picked by name. */
const DOCUMENT_FORMATS: Record<'json' | 'yaml', (doc: unknown) => string> = {
  json: (doc) => JSON.stringify(doc, null, 2) + '\n',
  yaml: toYaml,
};

export async function run(options: ExportOptions): Promise<number> {
  const registry = openRegistry(options);
  // Checked before the document is built: a file this run reads is never the output.
  claimDocument(options);
  // git is read only when asked: a count that moves with every commit is no default of a published document.
  const versionCount = options.versions === true ? (await import('../../registry/history.js')).versionCount : undefined;
  const entries = catalog(registry, versionCount === undefined ? undefined : (urn) => versionCount(registry, urn));
  const read = new Map<string, ReadFile>();
  const files = registryFiles(registry, read);
  const applications = registry.services.map(({ name, team, contact, repository }) => ({
    name,
    ...(team === undefined ? {} : { team }),
    ...(contact === undefined ? {} : { contact }),
    ...(repository === undefined ? {} : { repository }),
  }));
  if (options.service !== undefined && !applications.some((a) => a.name === options.service)) {
    const names = applications.map((a) => a.name);
    throw new UsageError(
      `--service: no service ${JSON.stringify(options.service.slice(0, 60))} in ${registry.manifest.shown}${didYouMean(options.service, names)}${names.length === 0 ? '; the manifest declares no "services"' : ''}`,
    );
  }
  const {
    document: doc,
    issues: bundling,
    origins,
  } = assembleAsyncApi(entries, {
    title: options.title,
    version: options.docVersion,
    files,
    applications,
    ...(options.service === undefined ? {} : { service: options.service }),
  });
  // Our own output is gated like any other: a document AsyncAPI tools would misread, or that is
  // invalid, is never written. References that cannot be bundled come first: checking a document
  // that still holds them would only repeat them.
  const issues = bundling.length > 0 ? bundling : await nameTooDeep(await validateAsyncApi(doc), entries, registry, files, options);
  if (issues.length > 0) {
    const lines = issues.map((issue) => clean(describeIssue(issue, registry, origins, read)));
    if (lines.length === 1) {
      process.stderr.write(`bqschema: ${lines[0]}; the AsyncAPI document was not written\n`);
    } else {
      for (const line of lines) process.stderr.write(`bqschema: ${line}\n`);
      process.stderr.write(`bqschema: the AsyncAPI document has ${lines.length} problems; nothing was written\n`);
    }
    return EXIT_GATE;
  }
  const output = options.output;
  const format = options.docFormat ?? (output !== undefined && /\.ya?ml$/i.test(output) ? 'yaml' : 'json');
  const text = DOCUMENT_FORMATS[format](doc);
  const n = Object.keys(doc.channels as object).length; // a service's document has its own URNs only
  const components = (doc.components as { schemas?: object } | undefined)?.schemas;
  const shared = components === undefined ? 0 : Object.keys(components).length;
  const more = shared === 0 ? '' : `, ${shared} shared schema${shared === 1 ? '' : 's'} in components`;
  return emitDocument(text, { output }, { holds: `AsyncAPI 3.0.0, ${format.toUpperCase()}, ${n} channel${n === 1 ? '' : 's'}${more}` });
}
