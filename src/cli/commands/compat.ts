import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { compareSchemas, type Change, type CompatMode } from '../../compat/index.js';
import { isSchemaObject, jsonEqual, readManifest, readRegistryText, RegistryError, SchemaError, schemaPath, type Manifest, type ManifestEntry } from '../../internal.js';
import { CliError, EXIT_GATE, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { GitSnapshot } from '../git.js';
import { githubCommand, makeChalk, Out } from '../output.js';
import { ParseFailure, parseText } from '../parse.js';
import type { Position, SourcePositions } from '../positions.js';
import { registryPath, type RegistryOptions } from '../registry.js';
import { exitWhenStdoutCloses } from '../stdout.js';

export interface CompatCliOptions extends RegistryOptions {
  mode: CompatMode;
  against?: string;
  format: 'text' | 'json' | 'github' | 'markdown';
}

export type UrnStatus = 'unchanged' | 'compatible' | 'breaking' | 'added' | 'removed';

/** One schema document: where it was read (as shown to the user), its text and its parsed value. */
interface Doc {
  name: string;
  text: string;
  schema: unknown;
}

interface Registered extends Doc {
  entry: ManifestEntry;
}

/** What to do about a breaking change. */
type Remedy = { kind: 'new-urn'; urn?: string; next?: string } | { kind: 'deprecate'; urn: string };

export interface UrnReport {
  urn: string;
  status: UrnStatus;
  breaking: boolean;
  changes: Change[];
  remedy?: Remedy;
  /** A removed URN that was `"status": "deprecated"`. */
  deprecated?: boolean;
  /** The schema in the working tree (absent for a removed URN). */
  now?: Registered;
}

/** The registry in the working tree. */
interface Current {
  name: string;
  text: string;
  schemas: Map<string, Registered>;
  /** The manifest's absolute path. */
  abs: string;
}

/** Breaking changes first, each group in the engine's order (by path, then rule). */
const breakingFirst = (changes: Change[]): Change[] => [...changes.filter((c) => c.breaking), ...changes.filter((c) => !c.breaking)];
const noPositions = (): Position | undefined => undefined;
const where = (path: string): string => (path === '' ? '(root)' : path);
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function display(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}

function usage(message: string): never {
  throw new CliError(message, EXIT_USAGE);
}

/** Loads the positions module (and with it the YAML and JSONC parsers) only when a position is wanted. */
async function positionsFor(text: string, name: string): Promise<SourcePositions> {
  const { SourcePositions } = await import('../positions.js');
  return SourcePositions.forFile(text, name);
}

// ---- loading -------------------------------------------------------------------------------------

function parseSchema(text: string, name: string, urn?: string): unknown {
  let value: unknown;
  try {
    value = parseText(text, name);
  } catch (err) {
    if (err instanceof ParseFailure) throw new CliError(urn ? `schema file for ${urn} is malformed: ${err.message}` : err.message, EXIT_USAGE);
    throw err;
  }
  if (typeof value !== 'boolean' && !isSchemaObject(value)) {
    const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
    throw new CliError(`${name}: ${urn ? `the schema of ${urn}` : 'a schema'} must be an object or a boolean, got ${got}`, EXIT_USAGE);
  }
  return value;
}


/** A manifest's entries; a malformed manifest, or one `check` would reject, is `name:line:col: problem`. */
async function manifestEntries(text: string, name: string): Promise<ManifestEntry[]> {
  let value: unknown;
  try {
    value = parseText(text, name);
  } catch (err) {
    if (err instanceof ParseFailure) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
  const { entries, problems } = readManifest(value);
  const problem = problems[0];
  if (problem !== undefined) {
    const { line, col } = (await positionsFor(text, name)).of(problem.pointer);
    throw new CliError(`${name}:${line}:${col}: ${problem.message}`, EXIT_USAGE);
  }
  return entries;
}

async function loadWorkingTree(options: CompatCliOptions): Promise<Current> {
  const abs = resolve(registryPath(options));
  const name = display(abs);
  const text = readRegistryText(abs, 'registry manifest', undefined, name);
  const entries = await manifestEntries(text, name);
  const manifest: Manifest = { file: abs, dir: dirname(abs), entries };
  const schemas = new Map<string, Registered>();
  for (const entry of entries) {
    let file: string;
    try {
      file = schemaPath(manifest, entry, options.allowOutsidePaths);
    } catch (err) {
      if (err instanceof RegistryError) throw new CliError(err.message, EXIT_USAGE);
      throw err;
    }
    const shown = display(file);
    const schemaText = readRegistryText(file, `schema file for ${entry.urn}`, entry.urn, shown);
    schemas.set(entry.urn, { entry, name: shown, text: schemaText, schema: parseSchema(schemaText, shown, entry.urn) });
  }
  return { name, text, schemas, abs };
}

/** A `/`-separated repository path inside `dir` (`''` is the top level). */
function within(dir: string, path: string): boolean {
  return dir === '' || path === dir || path.startsWith(dir + '/');
}

/** The schema path of an entry relative to the repository's top level; undefined when it leaves the repository. */
function repoPath(entry: ManifestEntry, manifestDir: string, top: string): string | undefined {
  let path: string;
  if (isAbsolute(entry.schema)) path = relative(top, entry.schema).split(sep).join('/');
  else path = posix.normalize(posix.join(manifestDir || '.', entry.schema));
  if (path === '..' || path.startsWith('../') || isAbsolute(path)) return undefined;
  return path === '.' ? '' : path;
}

/**
 * The registry as it is in the commit: undefined when the manifest does not exist there. Schema
 * paths obey the working tree's rule: inside the manifest's directory, symlinks resolved, unless
 * `--allow-outside-paths`; and never outside the repository, which git cannot read from.
 */
async function loadAtRef(git: GitSnapshot, manifestPath: string, options: CompatCliOptions): Promise<Map<string, Registered> | undefined> {
  const ref = git.ref;
  const found = await git.lookup(manifestPath);
  const name = `${ref}:${manifestPath}`;
  if (found.kind === 'missing') return undefined;
  if (found.kind !== 'file') throw new CliError(`registry manifest cannot be read at ${ref}: ${manifestPath} is not a file there`, EXIT_USAGE);
  const text = await git.read(found.oid);
  const entries = await manifestEntries(text, name);
  const dir = posix.dirname(manifestPath) === '.' ? '' : posix.dirname(manifestPath);
  const realDir = await git.lookup(dir);
  const realDirPath = realDir.kind === 'directory' ? realDir.path : dir;

  const loaded = await Promise.all(entries.map(async (entry): Promise<Registered> => {
    const subject = `schema file for ${entry.urn} at ${ref}`;
    const outside = (): never => {
      throw new CliError(`${subject} is outside the registry directory: ${entry.schema} (use --allow-outside-paths to permit it)`, EXIT_USAGE);
    };
    const path = repoPath(entry, dir, git.top);
    if (path === undefined) throw new CliError(`${subject} is outside the repository: ${entry.schema}`, EXIT_USAGE);
    if (!options.allowOutsidePaths && !within(dir, path)) outside();
    const target = await git.lookup(path);
    switch (target.kind) {
      case 'missing':
        throw new CliError(`${subject} not found: ${path}`, EXIT_USAGE);
      case 'outside':
        throw new CliError(`${subject} is a symbolic link out of the repository: ${path}`, EXIT_USAGE);
      case 'loop':
        throw new CliError(`${subject} cannot be read: too many symbolic links: ${path}`, EXIT_USAGE);
      case 'directory':
      case 'submodule':
        throw new CliError(`${subject} is a ${target.kind}: ${path}`, EXIT_USAGE);
    }
    if (!options.allowOutsidePaths && !within(realDirPath, target.path)) outside();
    const schemaName = `${ref}:${path}`;
    const schemaText = await git.read(target.oid);
    return { entry, name: schemaName, text: schemaText, schema: parseSchema(schemaText, schemaName, entry.urn) };
  }));
  return new Map(loaded.map((r) => [r.entry.urn, r]));
}

/** The manifest's path inside its repository, as the commit's tree names it. */
function manifestInRepo(abs: string, top: string): string {
  let real: string;
  try {
    real = join(realpathSync(dirname(abs)), basename(abs));
  } catch {
    real = abs;
  }
  const rel = relative(top, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new CliError(`registry manifest is not inside the git repository at ${top}: ${display(abs)}`, EXIT_USAGE);
  }
  return rel.split(sep).join('/');
}

// ---- comparing -----------------------------------------------------------------------------------

function compare(oldSchema: unknown, newSchema: unknown, mode: CompatMode, what: string): { compatible: boolean; changes: Change[] } {
  try {
    return compareSchemas(oldSchema, newSchema, { mode });
  } catch (err) {
    if (err instanceof SchemaError) throw new CliError(`cannot compare ${what}: ${err.message}`, EXIT_USAGE);
    throw err;
  }
}

/** The name to register a breaking schema under: `.v2`, or the next `.vN`, skipping names already taken. */
export function nextUrn(urn: string, taken: ReadonlySet<string>): string {
  const m = /^(.*)\.v(\d+)$/.exec(urn);
  const stem = m ? m[1]! : urn;
  let n = m ? BigInt(m[2]!) + 1n : 2n;
  while (taken.has(`${stem}.v${n}`)) n++;
  return `${stem}.v${n}`;
}

const STATUS_RANK: Record<UrnStatus, number> = { breaking: 0, compatible: 1, added: 2, removed: 3, unchanged: 4 };

/** Each URN of either side, breaking ones first, then by status and URN. */
function compareRegistries(base: Map<string, Registered> | undefined, current: Current, mode: CompatMode): UrnReport[] {
  const taken = new Set([...(base?.keys() ?? []), ...current.schemas.keys()]);
  const reports: UrnReport[] = [];
  for (const [urn, now] of current.schemas) {
    const was = base?.get(urn);
    if (was === undefined) {
      reports.push({ urn, status: 'added', breaking: false, changes: [], now });
    } else if (jsonEqual(was.schema, now.schema)) {
      // The document, not its path: a schema file that moved with the same content is unchanged.
      reports.push({ urn, status: 'unchanged', breaking: false, changes: [], now });
    } else {
      const result = compare(was.schema, now.schema, mode, `the schemas of ${urn}`);
      const breaking = !result.compatible;
      reports.push({
        urn, status: breaking ? 'breaking' : 'compatible', breaking, changes: breakingFirst(result.changes), now,
        ...(breaking ? { remedy: { kind: 'new-urn', urn, next: nextUrn(urn, taken) } as Remedy } : {}),
      });
    }
  }
  for (const [urn, was] of base ?? []) {
    if (current.schemas.has(urn)) continue;
    const deprecated = was.entry.status === 'deprecated';
    reports.push({
      urn, status: 'removed', breaking: !deprecated, changes: [],
      ...(deprecated ? { deprecated } : { remedy: { kind: 'deprecate', urn } as Remedy }),
    });
  }
  return reports.sort((a, b) => Number(b.breaking) - Number(a.breaking) || STATUS_RANK[a.status] - STATUS_RANK[b.status] || byCodeUnits(a.urn, b.urn));
}

// ---- rendering -----------------------------------------------------------------------------------

/** The remedy in words; `code` marks up URNs (markdown puts them in code spans). */
function remedyText(r: Remedy, code: (s: string) => string = (s) => s): string {
  if (r.kind === 'deprecate') {
    return `keep ${code(r.urn)} registered with "status": "deprecated" until its consumers have moved off it, then remove it`;
  }
  if (r.urn === undefined || r.next === undefined) {
    return `mint a new URN for the new schema (the URN with ${code('.v2')} appended, or the next ${code('.vN')}) instead of changing the registered one`;
  }
  return `mint a new URN for the new schema, e.g. ${code(r.next)}, and leave ${code(r.urn)} as it is`;
}

const changeMessage = (c: Change): string => `${where(c.path)}: ${c.message}`;

/** Backslash-escapes what markdown would read as markup; a table cell holds one line. */
function md(s: string): string {
  return s.replace(/[\\`*_[\]<>|~&]/g, (ch) => '\\' + ch).replace(/\r?\n/g, ' ');
}

/** A code span that survives a table cell: `|` escaped, backticks fenced by longer runs. */
function mdCode(s: string): string {
  const body = s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || body.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

function mdChange(c: Change): string {
  return `${c.breaking ? '**breaking**' : 'compatible'} ${mdCode(where(c.path))} ${md(c.message)} (${mdCode(c.rule)})`;
}

/** Where a change is in the NEW schema's source: the keyword, or its nearest ancestor there. */
type Locate = (pointer: string) => Position | undefined;

function githubChange(c: Change, file: string, locate: Locate, prefix: string, remedy: Remedy | undefined): string {
  const pos = locate(c.path);
  const title = `${c.breaking ? 'breaking' : 'compatible'} change (${c.rule})`;
  const tail = c.breaking && remedy ? `. Remedy: ${remedyText(remedy)}` : '';
  return githubCommand(c.breaking ? 'error' : 'notice', { file, line: pos?.line, col: pos?.col, title }, `${prefix}${changeMessage(c)}${tail}`);
}

async function locator(doc: Doc | undefined, wanted: boolean): Promise<Locate> {
  if (!wanted || doc === undefined) return noPositions;
  const positions = await positionsFor(doc.text, doc.name);
  return (pointer) => positions.of(pointer);
}

// ---- two schema files ----------------------------------------------------------------------------

async function compareFiles(oldFile: string, newFile: string, options: CompatCliOptions): Promise<number> {
  const load = (file: string): Doc => {
    const text = readRegistryText(file, 'schema file');
    return { name: file, text, schema: parseSchema(text, file) };
  };
  const older = load(oldFile);
  const newer = load(newFile);
  const result = compare(older.schema, newer.schema, options.mode, `${oldFile} with ${newFile}`);
  const { compatible } = result;
  const changes = breakingFirst(result.changes);
  const code = compatible ? EXIT_OK : EXIT_GATE;
  exitWhenStdoutCloses(() => code);
  const remedy: Remedy | undefined = compatible ? undefined : { kind: 'new-urn' };
  const breaking = changes.filter((c) => c.breaking).length;
  const others = changes.length - breaking;
  const span = `from ${oldFile} to ${newFile}`;
  const summary = compatible
    ? `OK: no breaking change ${span}: ${others} compatible change(s) (${options.mode})`
    : `FAILED: ${breaking} breaking change(s) ${span}, ${others} compatible (${options.mode})`;
  const out = new Out();
  const c = makeChalk();

  if (options.format === 'json') {
    out.line(JSON.stringify({ compatible, mode: options.mode, changes, ...(remedy ? { remedy: remedyText(remedy) } : {}) }, null, 2));
  } else if (options.format === 'github') {
    const locate = await locator(newer, changes.length > 0);
    for (const ch of changes) out.line(githubChange(ch, newFile, locate, '', remedy));
    out.line(summary);
  } else if (options.format === 'markdown') {
    const files = `from ${mdCode(oldFile)} to ${mdCode(newFile)}`;
    const heading = compatible ? `no breaking change ${files}` : `${breaking} breaking change(s) ${files}`;
    out.line(`### bqschema compat: ${heading}`);
    out.line();
    if (changes.length > 0) {
      out.line('| status | path | change |');
      out.line('| --- | --- | --- |');
      for (const ch of changes) {
        out.line(`| ${ch.breaking ? '**breaking**' : 'compatible'} | ${mdCode(where(ch.path))} | ${md(ch.message)} (${mdCode(ch.rule)}) |`);
      }
      out.line();
    } else {
      out.line('No change that affects validation.');
      out.line();
    }
    if (remedy) {
      out.line(`**Remedy:** ${remedyText(remedy, mdCode)}`);
      out.line();
    }
    out.line(`Mode: ${options.mode}. ${breaking} breaking, ${others} compatible change(s).`);
  } else {
    for (const ch of changes) {
      const label = ch.breaking ? c.red('breaking  ') : c.dim('compatible');
      out.line(`${label}  ${where(ch.path)}  ${ch.message}  ${c.dim(`[${ch.rule}]`)}`);
    }
    if (remedy) out.line(`${c.yellow('→')} ${remedyText(remedy)}`);
    if (changes.length > 0) out.line();
    out.line(compatible ? c.green(summary) : c.red(summary));
  }
  await out.flush();
  return code;
}

// ---- the registry against a git ref --------------------------------------------------------------

const MARK: Record<UrnStatus, string> = { breaking: '✗', removed: '-', compatible: '✓', added: '+', unchanged: '=' };
const mark = (r: UrnReport): string => (r.breaking ? '✗' : MARK[r.status]);

async function compareRegistry(ref: string, options: CompatCliOptions): Promise<number> {
  const current = await loadWorkingTree(options);
  const git = await GitSnapshot.open(dirname(current.abs), ref);
  let manifestPath: string;
  let base: Map<string, Registered> | undefined;
  try {
    manifestPath = manifestInRepo(current.abs, git.top);
    base = await loadAtRef(git, manifestPath, options);
  } finally {
    git.close();
  }
  const reports = compareRegistries(base, current, options.mode);
  const compatible = reports.every((r) => !r.breaking);
  const code = compatible ? EXIT_OK : EXIT_GATE;
  exitWhenStdoutCloses(() => code);

  const count = (s: UrnStatus): number => reports.filter((r) => r.status === s).length;
  const summary = { breaking: count('breaking'), compatible: count('compatible'), added: count('added'), removed: count('removed'), unchanged: count('unchanged') };
  const failing = reports.filter((r) => r.breaking).length;
  const commit = git.commit.slice(0, 12);
  const against = `${ref} (${commit})`;
  const counts = `${summary.breaking} breaking, ${summary.compatible} compatible, ${summary.added} added, ${summary.removed} removed, ${summary.unchanged} unchanged`;
  const verdict = compatible
    ? `OK: no breaking change against ${against}: ${counts} (${options.mode})`
    : `FAILED: ${failing} URN(s) break against ${against}: ${counts} (${options.mode})`;
  const absent = base === undefined ? `${manifestPath} does not exist at ${ref}: every URN is added` : undefined;
  const listed = reports.filter((r) => r.status !== 'unchanged');
  const out = new Out();
  const c = makeChalk();

  if (options.format === 'json') {
    const urns = reports.map((r) => ({
      urn: r.urn, status: r.status, breaking: r.breaking, changes: r.changes,
      ...(r.deprecated ? { deprecated: true } : {}),
      ...(r.remedy ? { remedy: remedyText(r.remedy) } : {}),
    }));
    const at = { ref, commit: git.commit, registry: manifestPath, found: base !== undefined };
    out.line(JSON.stringify({ compatible, mode: options.mode, against: at, summary, urns }, null, 2));
  } else if (options.format === 'github') {
    const manifest = await locator({ name: current.name, text: current.text, schema: undefined }, true);
    if (absent) out.line(githubCommand('notice', { file: current.name }, absent));
    for (const r of listed) {
      if (r.status === 'added' || r.status === 'removed') {
        // Both are about the manifest: the new entry, or the list the entry was removed from.
        const pos = manifest(r.status === 'added' ? `/schemas/${r.now!.entry.index}/urn` : '/schemas');
        const what = r.status === 'added' ? 'added' : r.deprecated ? 'removed (it was deprecated)' : 'removed';
        const tail = r.remedy ? `. Remedy: ${remedyText(r.remedy)}` : '';
        out.line(githubCommand(r.breaking ? 'error' : 'notice', { file: current.name, ...pos, title: `URN ${r.status}` }, `${r.urn}: ${what}${tail}`));
        continue;
      }
      const locate = await locator(r.now, r.changes.length > 0);
      for (const ch of r.changes) out.line(githubChange(ch, r.now!.name, locate, `${r.urn}: `, r.remedy));
    }
    out.line(verdict);
  } else if (options.format === 'markdown') {
    const heading = compatible ? 'no breaking change' : `${failing} URN(s) break`;
    out.line(`### bqschema compat: ${heading} against ${mdCode(ref)}`);
    out.line();
    if (absent) {
      out.line(`${mdCode(manifestPath)} does not exist at ${mdCode(ref)}: every URN is added.`);
      out.line();
    }
    if (listed.length > 0) {
      out.line('| URN | status | changes |');
      out.line('| --- | --- | --- |');
      for (const r of listed) {
        const status = r.breaking ? `**${mark(r)} ${r.status}**` : `${mark(r)} ${r.status}${r.deprecated ? ' (deprecated)' : ''}`;
        const lines = r.changes.map(mdChange);
        if (r.status === 'compatible' && lines.length === 0) lines.push('annotations only: no change that affects validation');
        if (r.remedy) lines.push(`**Remedy:** ${remedyText(r.remedy, mdCode)}`);
        out.line(`| ${mdCode(r.urn)} | ${status} | ${lines.join('<br>')} |`);
      }
      out.line();
    } else {
      out.line('No URN changed.');
      out.line();
    }
    out.line(`${counts}; mode ${options.mode}; against ${mdCode(ref)} at ${mdCode(commit)}.`);
  } else {
    if (absent) out.line(c.yellow(absent));
    for (const r of listed) {
      const sign = r.breaking ? c.red(mark(r)) : r.status === 'compatible' ? c.green(mark(r)) : mark(r);
      const file = r.now ? `  ${c.dim(r.now.name)}` : '';
      out.line(`${sign} ${c.bold(r.urn)}  ${r.status}${r.deprecated ? ' (deprecated)' : ''}${file}`);
      for (const ch of r.changes) {
        const label = ch.breaking ? c.red('breaking  ') : c.dim('compatible');
        out.line(`    ${label}  ${where(ch.path)}  ${ch.message}  ${c.dim(`[${ch.rule}]`)}`);
      }
      if (r.status === 'compatible' && r.changes.length === 0) out.line(`    ${c.dim('annotations only: no change that affects validation')}`);
      if (r.remedy) out.line(`    ${c.yellow('→')} ${remedyText(r.remedy)}`);
    }
    if (listed.length > 0 || absent) out.line();
    out.line(compatible ? c.green(verdict) : c.red(verdict));
  }
  await out.flush();
  return code;
}

/** `bqschema compat OLD NEW`, or `bqschema compat --against REF` for the whole registry. */
export async function run(oldFile: string | undefined, newFile: string | undefined, options: CompatCliOptions): Promise<number> {
  if (options.against !== undefined) {
    if (oldFile !== undefined) usage('give either two schema files (OLD NEW) or --against REF for the registry, not both');
    return compareRegistry(options.against, options);
  }
  if (oldFile === undefined) usage('compat needs two schema files (OLD NEW), or --against REF to compare the registry with a git ref');
  if (newFile === undefined) usage(`compat needs the new schema file too: bqschema compat ${oldFile} NEW`);
  return compareFiles(oldFile, newFile, options);
}
