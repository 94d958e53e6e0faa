import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { realpathSync } from 'node:fs';
import {
  compile,
  isSchemaObject,
  joinPointer,
  lintSchema,
  parseSchema,
  reportWarnings,
  SchemaError,
  type CompiledSchema,
  type SchemaWarning,
} from '../validator/index.js';
import { RegistryError } from './errors.js';
import { readManifest, type FoundBy, type ManifestEntry, type ManifestIssue } from './manifest.js';
import type { ServiceEntry } from './service-entries.js';
import { ParseFailure, parseText, type ParseOptions } from './parse.js';
import { SourcePositions, type Position, type Span } from './positions.js';
import { EncodingError } from './text.js';
import { display, MemorySource, readRegularFile, WorkingTree, type FileRef, type Source, type WorkingTreeOptions } from './source.js';

export interface RegistryOptions {
  /**
   * A supported keyword with the wrong shape (docs/contract.md §8) makes the URN's schema unusable
   * (`compiled` throws a RegistryError of kind `invalid-schema`). Every gate of the CLI sets it.
   */
  strict?: boolean;
  /**
   * With `strict`, whether an unknown keyword (docs/contract.md §14, a typo such as `requried`)
   * also makes the schema unusable, as a strict provider wants (default: `true`). The CLI's gates
   * set it `false`: `check` and `compat` report unknown keywords themselves, `validate` warns.
   */
  strictUnknown?: boolean;
  /** Receives each unsupported-keyword warning when a schema is compiled (default: process.emitWarning). */
  onWarning?: (warning: SchemaWarning, message: string) => void;
  /**
   * The most values YAML aliases may add to one registry file (default
   * DEFAULT_MAX_YAML_EXPANSION); a file past it is refused, naming the limit.
   */
  maxYamlExpansion?: number;
}

/**
 * How a registry file (the manifest, a schema) is parsed: a key repeated in one object is an
 * error naming both places, never a silent last-wins; YAML aliases within the limit.
 */
function registryParseOptions(options: { maxYamlExpansion?: number }): ParseOptions {
  return { uniqueKeys: true, ...(options.maxYamlExpansion === undefined ? {} : { maxYamlExpansion: options.maxYamlExpansion }) };
}

/** One schema file, read and parsed. */
export interface SchemaDocument {
  readonly urn: string;
  readonly file: FileRef;
  readonly text: string;
  /** The parsed value: an object or a boolean. */
  readonly value: unknown;
}

/** A manifest problem with its place in the manifest. */
export interface LocatedIssue extends ManifestIssue {
  line: number;
  col: number;
}

/**
 * A registry: its manifest read once, each schema file read, parsed and compiled once on first use
 * (a failure is not remembered, so a fixed file loads on the next call). Per-URN problems are
 * thrown as RegistryErrors by `document`/`compiled` and never stop the others.
 */
export class Registry {
  readonly entries: readonly ManifestEntry[];
  /** The manifest's `services`, in its order (src/registry/service-entries.ts). */
  readonly services: readonly ServiceEntry[];
  /** Every manifest problem (`check` reports them all; other commands refuse a fatal one). */
  readonly issues: readonly LocatedIssue[];
  readonly manifestText: string;
  private readonly byUrn = new Map<string, ManifestEntry>();
  private readonly docs = new Map<string, SchemaDocument>();
  private readonly schemas = new Map<string, CompiledSchema>();
  private positions: SourcePositions | undefined;
  private readonly schemaPositions = new WeakMap<SchemaDocument, SourcePositions>();
  /** How its files are parsed (history reads a schema's past versions the same way). */
  readonly parseOptions: ParseOptions;
  /** The manifest's own `unenforced`: keywords acknowledged for every URN. */
  private readonly unenforced: ReadonlySet<string>;

  /** Reads the manifest; one that cannot be read or parsed is a RegistryError (kind `not-found`/`manifest`). */
  constructor(
    readonly source: Source,
    private readonly options: RegistryOptions = {},
  ) {
    const file = source.manifest;
    this.parseOptions = registryParseOptions(options);
    this.manifestText = source.read(file, 'registry manifest');
    let value: unknown;
    try {
      value = parseText(this.manifestText, file.shown, undefined, this.parseOptions);
    } catch (err) {
      if (err instanceof ParseFailure)
        throw new RegistryError('manifest', file.path, err.message, undefined, { line: err.line, col: err.col });
      throw err;
    }
    const { entries, issues, unenforced, services } = readManifest(value);
    this.unenforced = new Set(unenforced);
    this.entries = entries;
    this.services = services;
    this.issues = issues.map((p) => ({ ...p, ...this.manifestPosition(p.pointer) }));
    for (const entry of entries) this.byUrn.set(entry.urn, entry);
  }

  /** The registry on disk at `manifestPath`. */
  static workingTree(manifestPath: string, options: RegistryOptions & WorkingTreeOptions = {}): Registry {
    return new Registry(new WorkingTree(manifestPath, options), options);
  }

  get manifest(): FileRef {
    return this.source.manifest;
  }

  /** Where a pointer into the manifest stands in its text. */
  manifestPosition(pointer: string): Position {
    this.positions ??= SourcePositions.forFile(this.manifestText, this.source.manifest.shown);
    return this.positions.of(pointer);
  }

  /** Throws the first fatal manifest problem, as `file:line:col: problem`: the commands other than `check` refuse such a manifest. */
  requireUsable(): this {
    const fatal = this.issues.find((p) => p.fatal);
    if (fatal !== undefined) {
      const file = this.source.manifest;
      throw new RegistryError('manifest', file.path, `${file.shown}:${fatal.line}:${fatal.col}: ${fatal.message}`, fatal.urn, fatal);
    }
    return this;
  }

  /**
   * Whether the manifest acknowledges an unsupported keyword for a URN (its `unenforced`, or its
   * entry's): reviewed, it still is not enforced, and warns no more (`check --format json` keeps it).
   */
  acknowledges(urn: string, keyword: string): boolean {
    return this.unenforced.has(keyword) || this.byUrn.get(urn)?.unenforced?.includes(keyword) === true;
  }

  urns(): string[] {
    return this.entries.map((e) => e.urn);
  }

  entry(urn: string): ManifestEntry | undefined {
    return this.byUrn.get(urn);
  }

  /**
   * Where a URN's schema problem (`document`'s or `compiled`'s RegistryError) is fixed, as shown to
   * the user: a file that is missing or outside the registry directory at its manifest entry's
   * "schema" path (a place in a file that does not exist helps nobody), else the schema file, at the
   * problem's position where known.
   */
  problemSite(urn: string, err: RegistryError): { file: string; line?: number; col?: number; pointer: string } {
    const entry = this.byUrn.get(urn);
    if (entry !== undefined && (err.kind === 'missing' || err.kind === 'outside')) {
      const pointer = `/schemas/${entry.index}/schema`;
      return { file: this.source.manifest.shown, pointer, ...this.manifestPosition(pointer) };
    }
    let file: string;
    try {
      file = this.file(urn).shown; // as every other path is shown: from the working directory
    } catch (e) {
      if (!(e instanceof RegistryError)) throw e;
      file = entry?.schema ?? this.source.manifest.shown; // refused before it is located: the manifest's own words
    }
    return { file, pointer: '', ...err.position };
  }

  has(urn: string): boolean {
    return this.byUrn.has(urn);
  }

  /** An entry's schema file, without reading it (the outside-path rule applies). */
  file(urn: string): FileRef {
    return this.source.locate(this.known(urn));
  }

  /**
   * An entry's schema file relative to the manifest's directory, `/`-separated: what a published
   * page (the catalog) shows, so an absolute --registry does not put the build machine's paths in it.
   */
  fileFromRoot(urn: string): string {
    const file = this.file(urn).path;
    const manifest = this.manifest.path;
    if (!isAbsolute(manifest)) return posix.relative(posix.dirname(manifest), file); // at a git ref: repository paths
    const rel = relative(dirname(manifest), file);
    return sep === '/' ? rel : rel.split(sep).join('/');
  }

  /** The URN's schema document, read and parsed; a RegistryError names the URN and the file. */
  document(urn: string): SchemaDocument {
    const cached = this.docs.get(urn);
    if (cached !== undefined) return cached;
    const entry = this.known(urn);
    const file = this.source.locate(entry);
    const what = `schema file for ${urn}`;
    const text = this.source.read(file, what, urn);
    let value: unknown;
    try {
      value = parseText(text, file.shown, undefined, this.parseOptions);
    } catch (err) {
      if (err instanceof ParseFailure) {
        throw new RegistryError('malformed', file.path, `${what} is malformed: ${err.message}`, urn, { line: err.line, col: err.col });
      }
      throw err;
    }
    if (typeof value !== 'boolean' && !isSchemaObject(value)) {
      const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
      throw new RegistryError(
        'malformed',
        file.path,
        `${what} is malformed: ${file.shown}: a schema must be an object or a boolean, got ${got}`,
        urn,
        { line: 1, col: 1 },
      );
    }
    const doc: SchemaDocument = { urn, file, text, value };
    this.docs.set(urn, doc);
    return doc;
  }

  /**
   * The URN's compiled schema; `undefined` when the URN is not registered. A schema that cannot be
   * loaded or compiled (or, with `strict`, has a malformed or unknown keyword) is a RegistryError.
   */
  compiled(urn: string): CompiledSchema | undefined {
    const cached = this.schemas.get(urn);
    if (cached !== undefined) return cached;
    if (!this.byUrn.has(urn)) return undefined;
    const doc = this.document(urn);
    // A schema the validator cannot read at all (nested past the stack, not JSON) is a registry error.
    const unusable = (err: unknown): never => {
      if (err instanceof SchemaError)
        throw new RegistryError('malformed', doc.file.path, `schema for ${urn} (${doc.file.shown}): ${err.message}`, urn);
      throw err;
    };
    if (this.options.strict) {
      let issues: ReturnType<typeof lintSchema> = [];
      try {
        issues = lintSchema(doc.value);
      } catch (err) {
        unusable(err);
      }
      const first = issues[0];
      if (first !== undefined) {
        const at = first.pointer === '' ? 'the schema root' : first.pointer;
        const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
        const position = this.schemaPosition(
          doc,
          first.keyword ? `${first.pointer}/${first.keyword.replace(/~/g, '~0').replace(/\//g, '~1')}` : first.pointer,
        );
        throw new RegistryError(
          'invalid-schema',
          doc.file.path,
          `schema for ${urn} has a malformed keyword "${first.keyword}" at ${at}: ${first.message}${more}, at ${doc.file.shown}:${position.line}:${position.col}; it would not be enforced`,
          urn,
          position,
        );
      }
    }
    if (this.options.strict && this.options.strictUnknown !== false) {
      let unknown: SchemaWarning[] = [];
      try {
        unknown = parseSchema(doc.value).warnings.filter((w) => w.kind === 'unknown');
      } catch (err) {
        unusable(err);
      }
      const first = unknown[0];
      if (first !== undefined) {
        const at = first.pointer === '' ? 'the schema root' : first.pointer;
        const hint = first.suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(first.suggestion)}?)`;
        const more = unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : '';
        const position = this.schemaPosition(doc, joinPointer(first.pointer, first.keyword));
        throw new RegistryError(
          'invalid-schema',
          doc.file.path,
          `schema for ${urn} has an unknown keyword ${JSON.stringify(first.keyword)} at ${at}${hint}${more}, at ${doc.file.shown}:${position.line}:${position.col}; no JSON Schema draft defines it, so it would not be enforced`,
          urn,
          position,
        );
      }
    }
    let compiled: CompiledSchema | undefined;
    try {
      // An unsupported keyword the manifest acknowledges for this URN is reviewed: it warns no more.
      const onWarning = this.options.onWarning;
      compiled = compile(doc.value, {
        urn,
        onWarning: (w, message) => {
          if (w.kind === 'unsupported' && this.acknowledges(urn, w.keyword)) return;
          if (onWarning) onWarning(w, message);
          else reportWarnings([w], {});
        },
      });
    } catch (err) {
      unusable(err);
    }
    this.schemas.set(urn, compiled!);
    return compiled;
  }

  /** The error that makes a URN's schema unusable, or undefined when it compiles. */
  problemOf(urn: string): RegistryError | undefined {
    try {
      this.compiled(urn);
      return undefined;
    } catch (err) {
      if (err instanceof RegistryError) return err;
      throw err;
    }
  }

  /** Where a pointer into a URN's schema stands in its file (one index per document, however many lookups). */
  schemaPosition(doc: SchemaDocument, pointer: string): Position {
    return this.schemaPositionsOf(doc).of(pointer);
  }

  /** Where the value a pointer names in a URN's schema starts and ends (SARIF's region). */
  schemaSpan(doc: SchemaDocument, pointer: string): Span {
    return this.schemaPositionsOf(doc).span(pointer);
  }

  private schemaPositionsOf(doc: SchemaDocument): SourcePositions {
    let positions = this.schemaPositions.get(doc);
    if (positions === undefined) this.schemaPositions.set(doc, (positions = SourcePositions.forFile(doc.text, doc.file.shown)));
    return positions;
  }

  private known(urn: string): ManifestEntry {
    const entry = this.byUrn.get(urn);
    if (entry === undefined)
      throw new RegistryError('missing', this.source.manifest.path, `${urn} is not registered in ${this.source.manifest.shown}`, urn);
    return entry;
  }
}

/** A `/`-separated repository path inside `dir` (`''` is the top level). */
function within(dir: string, path: string): boolean {
  return dir === '' || path === dir || path.startsWith(dir + '/');
}

/** The manifest's path inside its repository, as the commit's tree names it. */
function manifestInRepo(abs: string, shown: string, top: string): string {
  let real: string;
  try {
    real = join(realpathSync(dirname(abs)), basename(abs));
  } catch {
    real = abs;
  }
  const rel = relative(top, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new RegistryError('git', abs, `registry manifest is not inside the git repository at ${top}: ${shown}`);
  }
  return rel.split(sep).join('/');
}

/** The registry at a git ref: what it found there, and the commit. */
export interface RegistryAtRef {
  /** Undefined when no manifest was found in that commit (`looked` says where it was looked for). */
  registry: Registry | undefined;
  ref: string;
  commit: string;
  /** The manifest's path in the repository at the ref; the working manifest's when none was found. */
  manifestPath: string;
  /** The working manifest's path in the repository. */
  workingPath: string;
  /** How the manifest at the ref was found, when it was. */
  foundBy?: FoundBy;
  /** When none was found: where it was looked for, in words. */
  looked?: string;
}

/** Where to look for the manifest at the ref, besides the working manifest's own path. */
export interface AtRefOptions extends RegistryOptions, WorkingTreeOptions {
  /** `--against-registry`: the manifest's path at the ref (from the repository's top level, or absolute); nothing else is tried. */
  named?: string;
  /** The directory the working tree's discovery started from (default: the manifest's directory). */
  start?: string;
  /** The URNs the working manifest registers (default: read from it), what a moved manifest is recognised by. */
  urns?: Iterable<string>;
}

/** The URNs a manifest on disk registers, or none when it cannot be read. */
function urnsOf(here: WorkingTree, options: RegistryOptions): string[] {
  try {
    return new Registry(here, options).urns();
  } catch (err) {
    if (err instanceof RegistryError) return [];
    throw err;
  }
}

/** A working-tree directory as a repository path ('' for the top level), or undefined when outside it. */
function dirInRepo(dir: string, top: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    real = dir;
  }
  const rel = relative(top, real);
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/**
 * The registry as it is in the commit `ref` names, for the manifest that is at `manifestPath` in the
 * working tree: at the same path, or where it was before it moved (`findManifestAtRef`). Every file
 * is read through one `git cat-file --batch`; schema paths obey the working tree's rule (inside
 * the manifest's directory, symlinks resolved, unless `allowOutsidePaths`) and never leave the
 * repository, which git cannot read from.
 */
export async function registryAtRef(manifestPath: string, ref: string, options: AtRefOptions = {}): Promise<RegistryAtRef> {
  const here = new WorkingTree(manifestPath, options);
  // git (and child_process) load only when a ref is read: most commands never do.
  const { GitSnapshot } = await import('./git.js');
  const { findManifestAtRef } = await import('./at-ref.js');
  const git = await GitSnapshot.open(here.dir, ref);
  try {
    const workingPath = manifestInRepo(here.manifest.path, here.manifest.shown, git.top);
    const start = dirInRepo(options.start ?? here.dir, git.top) ?? posix.dirname(workingPath).replace(/^\.$/, '');
    const urnsAt = async (path: string): Promise<string[] | undefined> => {
      const file = await git.lookup(path);
      if (file.kind !== 'file') return undefined;
      try {
        return readManifest(parseText(await git.read(file.oid), path)).entries.map((e) => e.urn);
      } catch (err) {
        if (err instanceof EncodingError || err instanceof ParseFailure) return undefined;
        throw err;
      }
    };
    const base = await findManifestAtRef(git, {
      path: workingPath,
      start,
      named: options.named,
      urns: new Set(options.urns ?? urnsOf(here, options)),
      urnsAt,
    });
    if (!base.found) return { ref, commit: git.commit, manifestPath: workingPath, workingPath, registry: undefined, looked: base.looked };
    const path = base.path;
    const at = { ref, commit: git.commit, manifestPath: path, workingPath, foundBy: base.foundBy };
    const found = await git.lookup(path);
    const manifest: FileRef = { path, shown: `${ref}:${path}` };
    if (found.kind !== 'file')
      throw new RegistryError('manifest', path, `registry manifest cannot be read at ${ref}: ${path} is not a file there`);
    let text: string;
    try {
      text = await git.read(found.oid);
    } catch (err) {
      if (err instanceof EncodingError) throw new RegistryError('manifest', path, `registry manifest at ${ref} is ${err.message}: ${path}`);
      throw err;
    }
    const files = new Map<string, string>([[path, text]]);
    const located = new Map<string, FileRef | RegistryError>();
    const label = `${ref} (${git.commit.slice(0, 12)})`;
    // The manifest first, to learn the entries; the schema files are then read in one batch.
    const probe = new Registry(new MemorySource(label, manifest, files, located), options);
    const dir = posix.dirname(path) === '.' ? '' : posix.dirname(path);
    const realDir = await git.lookup(dir);
    const realDirPath = realDir.kind === 'directory' ? realDir.path : dir;
    await Promise.all(
      probe.entries.map(async (entry) => {
        const subject = `schema file for ${entry.urn} at ${ref}`;
        const fail = (kind: 'outside' | 'missing' | 'unreadable' | 'malformed', message: string): void => {
          located.set(entry.urn, new RegistryError(kind, entry.schema, `${subject} ${message}`, entry.urn));
        };
        const outside = `is outside the registry directory: ${entry.schema} (use --allow-outside-paths to permit it)`;
        let repoPath: string;
        if (isAbsolute(entry.schema)) repoPath = relative(git.top, entry.schema).split(sep).join('/');
        else repoPath = posix.normalize(posix.join(dir || '.', entry.schema));
        if (repoPath === '..' || repoPath.startsWith('../') || isAbsolute(repoPath))
          return fail('outside', `is outside the repository: ${entry.schema}`);
        if (!options.allowOutsidePaths && !within(dir, repoPath)) return fail('outside', outside);
        const target = await git.lookup(repoPath);
        switch (target.kind) {
          case 'missing':
            return fail('missing', `not found: ${repoPath}`);
          case 'outside':
            return fail('outside', `is a symbolic link out of the repository: ${repoPath}`);
          case 'loop':
            return fail('unreadable', `cannot be read: too many symbolic links: ${repoPath}`);
          case 'directory':
          case 'submodule':
            return fail('unreadable', `is a ${target.kind}: ${repoPath}`);
        }
        if (!options.allowOutsidePaths && !within(realDirPath, target.path)) return fail('outside', outside);
        try {
          files.set(target.path, await git.read(target.oid));
        } catch (err) {
          if (err instanceof EncodingError) return fail('malformed', `is ${err.message}: ${target.path}`);
          throw err;
        }
        located.set(entry.urn, { path: target.path, shown: `${ref}:${target.path}` });
        return undefined;
      }),
    );
    return { ...at, registry: new Registry(new MemorySource(label, manifest, files, located), options) };
  } finally {
    git.close();
  }
}

/** A schema file named directly (not through a manifest), read and parsed like a registry's. */
export function readSchemaFile(path: string, cwd: string = process.cwd(), options: { maxYamlExpansion?: number } = {}): SchemaDocument {
  const abs = resolve(cwd, path);
  const file: FileRef = { path: abs, shown: display(abs, cwd) };
  const text = readRegularFile(abs, file.shown, 'schema file');
  let value: unknown;
  try {
    value = parseText(text, file.shown, undefined, registryParseOptions(options));
  } catch (err) {
    if (err instanceof ParseFailure)
      throw new RegistryError('malformed', abs, `schema file is malformed: ${err.message}`, undefined, { line: err.line, col: err.col });
    throw err;
  }
  if (typeof value !== 'boolean' && !isSchemaObject(value)) {
    const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
    throw new RegistryError('malformed', abs, `${file.shown}: a schema must be an object or a boolean, got ${got}`, undefined, {
      line: 1,
      col: 1,
    });
  }
  return { urn: '', file, text, value };
}
