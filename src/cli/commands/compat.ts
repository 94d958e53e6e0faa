import { CompatNameError, parseCompatLevel, parseCompatPolicy, listRules, type SchemaProblem } from '../../compat/index.js';
import { pairGate, registryGate } from '../../compat/gate.js';
import {
  loadRegistryAtRef,
  readSchemaFile,
  RegistryError,
  RegistryNotFoundError,
  type History,
  type Registry,
  type SchemaDocument,
} from '../../registry/index.js';
import { EXIT_GATE, EXIT_OK, UsageError } from '../errors.js';
import { Out } from '../output.js';
import { openRegistry, registryLimits, type RegistryCliOptions } from '../registry.js';
import { PAIR_FORMATS, REGISTRY_FORMATS, RULES_FORMATS, type CompatFormat, type Settings } from '../report/compat.js';
import { setCategory } from '../report/emit.js';
import { checkReportTargets, renderEverywhere, type ReportTarget } from '../reports.js';
import { protectFile, protectInputs } from '../protect.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { clock, corpusDocuments, exceptionsPath, loadExceptions } from './compat-load.js';

/*
 * compat: loads the two schema files (or the registry at a git ref), the exceptions file and the
 * corpus's reader, computes the verdict with one call of src/compat's gate (pairGate,
 * registryGate: rules, exceptions, corpus), and renders its Report with ../report/compat.ts.
 */
export interface CompatCliOptions extends RegistryCliOptions {
  /** --category: the SARIF run's analysis category (automationDetails.id). */
  category?: string;
  /** A compatibility level in any case: backward, forward, full or none. */
  compatibility: string;
  /** `--mode`: the deprecated name of `--compatibility`, which commander refuses beside it. */
  mode?: string;
  /** bqschema (default) or confluent, in any case. */
  policy?: string;
  against?: string;
  /** With --against: the manifest's path at the ref (from the repository's top level). */
  againstRegistry?: string;
  /** With --against: no registry at the ref is a new one (every URN added), not an error. */
  allowNewRegistry?: boolean;
  format: CompatFormat;
  corpus?: string[];
  /** Two-file mode: the URN the schemas are registered under (which corpus messages apply; exceptions). */
  urn?: string;
  exceptions?: string;
  /** Unknown keywords used on purpose: the new schema may introduce them (docs/contract.md §14). */
  allowKeyword?: string[];
  listRules?: boolean;
  /** --report <format>=<file>, repeatable. */
  report?: ReportTarget[];
  /** Each changed URN's new schema against every earlier version in the window too (git history). */
  transitive?: boolean;
  /** The window's start (implies --transitive): a ref, e.g. the last release's tag. */
  since?: string;
  /** With --against: the pull-request comment mentions the teams of the services the failing changes reach. */
  mention?: boolean;
}

function usage(message: string): never {
  throw new UsageError(message);
}

function settings(options: CompatCliOptions): Settings {
  try {
    return {
      level: parseCompatLevel(options.mode ?? options.compatibility ?? 'backward'),
      policy: parseCompatPolicy(options.policy ?? 'bqschema'),
      format: options.format,
      allowKeywords: new Set(options.allowKeyword ?? []),
    };
  } catch (err) {
    if (err instanceof CompatNameError) usage(err.message);
    throw err;
  }
}

// ---- two schema files ----------------------------------------------------------------------------

async function compareFiles(oldFile: string, newFile: string, options: CompatCliOptions, s: Settings): Promise<number> {
  const load = (file: string, side: 'old' | 'new'): SchemaDocument | SchemaProblem => {
    try {
      return readSchemaFile(file, undefined, registryLimits());
    } catch (err) {
      if (err instanceof RegistryError) return { side, message: err.message };
      throw err;
    }
  };
  if (options.exceptions !== undefined && options.urn === undefined) {
    usage('--exceptions with two schema files needs --urn: exceptions are scoped to a URN');
  }
  if ((options.corpus?.length ?? 0) > 0 && options.urn === undefined) {
    // A corpus holds the messages of many URNs; judged against one schema, most would fail.
    usage('--corpus with two schema files needs --urn <urn>: only messages whose identity is that URN are checked against the new schema');
  }
  protectFile(oldFile, `the old schema file (${oldFile})`);
  protectFile(newFile, `the new schema file (${newFile})`);
  if (options.exceptions !== undefined) protectFile(options.exceptions, `the exceptions file (${options.exceptions})`);
  protectInputs(options.corpus, 'a corpus file', 'a corpus directory');
  checkReportTargets(options.report);
  const older = load(oldFile, 'old');
  const newer = load(newFile, 'new');
  const exceptions = options.exceptions !== undefined ? await loadExceptions(options.exceptions, options.exceptions) : undefined;
  const corpus = corpusDocuments(options.corpus);
  const verdict = await pairGate({
    ...s,
    oldFile,
    newFile,
    urn: options.urn,
    older,
    newer,
    exceptions,
    corpus,
    now: clock(),
  });
  const code = verdict.compatible ? EXIT_OK : EXIT_GATE;
  exitWhenStdoutCloses(() => code);
  await renderEverywhere(s.format, options.report, (format, out, c) => PAIR_FORMATS[format](verdict, out, c));
  return code;
}

// ---- the registry against a git ref --------------------------------------------------------------

/** `--transitive`: the window's start (`--since`, else the base compared with; none: the whole history). */
interface Transitive {
  since?: string;
  /** `since` is --against's ref: the window starts where the branch left it (their merge base). */
  fromBase: boolean;
}

/** The git history of the window `--transitive` / `--since` names: each URN's earlier versions. */
async function loadHistory(current: Registry, t: Transitive, allowOutsidePaths: boolean | undefined): Promise<History> {
  // Loaded with --transitive alone: most runs compare with one ref.
  const { readHistory } = await import('../../registry/versions.js');
  return readHistory({
    manifestPath: current.manifest.path,
    ...(t.since === undefined ? {} : { since: t.since, sinceBase: t.fromBase }),
    ...(allowOutsidePaths ? { allowOutsidePaths } : {}),
    parseOptions: current.parseOptions,
  });
}

async function compareRegistry(ref: string, options: CompatCliOptions, s: Settings, transitive?: Transitive): Promise<number> {
  if (options.urn !== undefined) usage('--urn applies to two schema files; with --against every changed URN is checked');
  const current = openRegistry(options);
  // Found as openRegistry found it, so discovery at the ref starts where it started in the working tree.
  const at = await loadRegistryAtRef(ref, {
    registry: options.registry,
    named: options.againstRegistry,
    urns: current.urns(),
    allowOutsidePaths: options.allowOutsidePaths,
    strict: true,
    strictUnknown: false,
  });
  if (at.registry === undefined && !options.allowNewRegistry) {
    // Comparing with nothing would call every URN added, and pass whatever changed.
    throw new RegistryNotFoundError(
      at.workingPath,
      `no registry found at ${ref} (${at.commit.slice(0, 12)}) for ${current.manifest.shown}: ${at.looked}; ` +
        `name the manifest it had there with --against-registry <path>, or pass --allow-new-registry if this change creates the registry`,
    );
  }
  const base = at.registry?.requireUsable();
  const exceptionsFile = exceptionsPath(options.exceptions, current.manifest.path);
  if (exceptionsFile !== undefined) protectFile(exceptionsFile.path, `the exceptions file (${exceptionsFile.shown})`);
  protectInputs(options.corpus, 'a corpus file', 'a corpus directory');
  checkReportTargets(options.report);
  const exceptions = exceptionsFile !== undefined ? await loadExceptions(exceptionsFile.path, exceptionsFile.shown) : undefined;
  const corpus = corpusDocuments(options.corpus);
  const history = transitive ? await loadHistory(current, transitive, options.allowOutsidePaths) : undefined;
  const verdict = await registryGate({
    ...s,
    base,
    current,
    exceptions,
    corpus,
    history,
    now: clock(),
    against: {
      ref,
      commit: at.commit,
      registry: at.manifestPath,
      found: base !== undefined,
      ...(at.foundBy === undefined ? {} : { foundBy: at.foundBy }),
    },
    working: at.workingPath,
    looked: at.looked,
    ...(options.mention ? { mention: true } : {}),
  });
  const code = verdict.compatible ? EXIT_OK : EXIT_GATE;
  exitWhenStdoutCloses(() => code);
  await renderEverywhere(s.format, options.report, (format, out, c) => REGISTRY_FORMATS[format](verdict, out, c));
  return code;
}

// ---- the rules -----------------------------------------------------------------------------------

async function printRules(format: CompatFormat): Promise<number> {
  const render = RULES_FORMATS[format];
  if (render === undefined) usage(`--list-rules prints text, json or markdown, not ${format}`);
  const out = new Out();
  render(listRules(), out);
  await out.flush();
  return EXIT_OK;
}

/** `bqschema compat OLD NEW`, or `bqschema compat --against REF` for the whole registry. */
export async function run(oldFile: string | undefined, newFile: string | undefined, options: CompatCliOptions): Promise<number> {
  if (options.listRules) {
    if (oldFile !== undefined || options.against !== undefined) usage('--list-rules takes no schema files and no --against');
    if (options.report !== undefined) usage('--report applies to a comparison, not to --list-rules');
    return printRules(options.format);
  }
  setCategory(options.category);
  const s = settings(options);
  if (options.against === undefined && (options.againstRegistry !== undefined || options.allowNewRegistry || options.mention)) {
    const name =
      options.againstRegistry !== undefined ? '--against-registry' : options.allowNewRegistry ? '--allow-new-registry' : '--mention';
    usage(`${name} applies to --against REF (the registry compared with a git ref)`);
  }
  const transitive = options.transitive === true || options.since !== undefined;
  if (transitive) {
    if (oldFile !== undefined)
      usage(
        `${options.since !== undefined ? '--since' : '--transitive'} reads the registry's git history: give it without schema files (with --against REF, or alone for every version in history)`,
      );
    // Alone: the working tree against HEAD, and against every earlier version in history.
    const ref = options.against ?? 'HEAD';
    const since = options.since ?? options.against;
    return compareRegistry(ref, options, s, { ...(since === undefined ? {} : { since }), fromBase: options.since === undefined });
  }
  if (options.against !== undefined) {
    if (oldFile !== undefined) usage('give either two schema files (OLD NEW) or --against REF for the registry, not both');
    return compareRegistry(options.against, options, s);
  }
  if (oldFile === undefined && (options.corpus?.length ?? 0) > 0) {
    usage(
      'compat needs two schema files (OLD NEW) or --against REF; --corpus takes every path after it, so give the schema files before --corpus',
    );
  }
  if (oldFile === undefined) usage('compat needs two schema files (OLD NEW), or --against REF to compare the registry with a git ref');
  if (newFile === undefined) usage(`compat needs the new schema file too: bqschema compat ${oldFile} NEW`);
  return compareFiles(oldFile, newFile, options, s);
}
