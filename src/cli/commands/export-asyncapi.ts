import { buildAsyncApi, catalogKeys, mergeKeyIssues, validateAsyncApi, type AsyncApiIssue, type CatalogEntry } from '../../asyncapi/index.js';
// yaml is loaded on first use (the registry's lazy loader): a JSON export never pays for it.
import { yaml, type Registry } from '../../registry/index.js';
import { escapePointerToken, pointerLabel } from '../../validator/index.js';
import { EXIT_GATE, EXIT_OK } from '../errors.js';
import { clean, printDocument } from '../output.js';
import { openRegistry, type RegistryCliOptions } from '../registry.js';
import { claimTarget, writeFileAtomic } from '../write.js';

export interface ExportOptions extends RegistryCliOptions {
  output?: string;
  title?: string;
  docVersion?: string;
  docFormat?: 'json' | 'yaml';
}

/** Every registered schema; one that cannot be loaded is a RegistryError (one line, exit 1). */
function catalog(registry: Registry): CatalogEntry[] {
  return registry.entries.map((entry) => {
    // The registry is strict: a malformed keyword is refused here, not published as if enforced.
    registry.compiled(entry.urn);
    const out: CatalogEntry = { urn: entry.urn, schema: registry.document(entry.urn).value };
    if (entry.owner !== undefined) out.owner = entry.owner;
    if (entry.status !== undefined) out.status = entry.status;
    if (entry.description !== undefined) out.description = entry.description;
    return out;
  });
}

/** One line per issue; a problem inside a payload schema also names the schema file and its pointer there. */
function describeIssue(issue: AsyncApiIssue, registry: Registry, keys: Map<string, string>): string {
  let where = '';
  const key = issue.urn === undefined ? undefined : keys.get(issue.urn);
  if (key !== undefined && issue.urn !== undefined && registry.has(issue.urn)) {
    const k = escapePointerToken(key);
    const payload = `/channels/${k}/messages/${k}/payload/schema`;
    if (issue.pointer === payload || issue.pointer.startsWith(payload + '/')) {
      const inFile = pointerLabel(issue.pointer.slice(payload.length));
      where = ` (schema file ${registry.file(issue.urn).shown} at ${inFile})`;
    }
  }
  return `${issue.urn === undefined ? '' : issue.urn + ': '}${pointerLabel(issue.pointer)}: ${issue.message}${where}`;
}

const TOO_DEEP = /nested too deeply/;

/**
 * A document too deep to check is one issue at its root, naming no schema: each entry is then
 * checked alone (only on this failure path) so the issue names the URN and its schema file.
 */
async function nameTooDeep(issues: AsyncApiIssue[], entries: CatalogEntry[], registry: Registry, options: ExportOptions): Promise<AsyncApiIssue[]> {
  const i = issues.findIndex((x) => x.pointer === '' && x.urn === undefined && TOO_DEEP.test(x.message));
  if (i < 0) return issues;
  const named: AsyncApiIssue[] = [];
  for (const entry of entries) {
    const alone = await validateAsyncApi(buildAsyncApi([entry], { title: options.title, version: options.docVersion }));
    if (alone.some((x) => x.pointer === '' && TOO_DEEP.test(x.message))) {
      named.push({ urn: entry.urn, pointer: '', message: `the schema (schema file ${registry.file(entry.urn).shown}) is nested too deeply to be checked against the AsyncAPI schema` });
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
const DOCUMENT_FORMATS: Record<'json' | 'yaml', (doc: unknown) => string> = { json: (doc) => JSON.stringify(doc, null, 2) + '\n', yaml: toYaml };

export async function run(options: ExportOptions): Promise<number> {
  const registry = openRegistry(options);
  // Checked before the document is built: a file this run reads is never the output.
  if (options.output !== undefined) claimTarget(options.output, '-o');
  const entries = catalog(registry);
  const doc = buildAsyncApi(entries, { title: options.title, version: options.docVersion });
  // Our own output is gated like any other: an invalid document is never written.
  const keys = catalogKeys(entries.map((e) => e.urn));
  const issues = [...(await nameTooDeep(await validateAsyncApi(doc), entries, registry, options)), ...mergeKeyIssues(entries)];
  if (issues.length > 0) {
    for (const issue of issues) {
      process.stderr.write(`bqschema: ${clean(describeIssue(issue, registry, keys))}\n`);
    }
    process.stderr.write(`bqschema: the AsyncAPI document is invalid (${issues.length} problem(s)); nothing was written\n`);
    return EXIT_GATE;
  }
  const output = options.output;
  const format = options.docFormat ?? (output !== undefined && /\.ya?ml$/i.test(output) ? 'yaml' : 'json');
  const text = DOCUMENT_FORMATS[format](doc);
  if (output === undefined) return printDocument(text);
  writeFileAtomic(output, text);
  const n = entries.length;
  process.stdout.write(`Wrote ${output}: AsyncAPI 3.0.0, ${format.toUpperCase()}, ${n} channel${n === 1 ? '' : 's'}\n`);
  return EXIT_OK;
}
