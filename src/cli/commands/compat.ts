import {
  CompatNameError, parseCompatLevel, parseCompatPolicy, listRules, schemaFingerprint,
  type Change, type SchemaProblem, type UrnReport, weighExceptions,
} from '../../compat/index.js';
import { compareRegistries, comparePair } from '../../compat/registry.js';
import { dayOf, loadRegistryAtRef, readSchemaFile, RegistryError, RegistryNotFoundError, type SchemaDocument } from '../../registry/index.js';
import { compile, SchemaError, type CompiledSchema } from '../../validator/index.js';
import { EXIT_GATE, EXIT_OK, UsageError } from '../errors.js';
import { Out } from '../output.js';
import { openRegistry, registryLimits, type RegistryCliOptions } from '../registry.js';
import { exceptRows, pairVerdict, registryVerdict, type Doc, type Row, type Verdicts } from '../../compat/report.js';
import { PAIR_FORMATS, REGISTRY_FORMATS, RULES_FORMATS, type CompatFormat, type Settings } from '../report/compat.js';
import { setCategory } from '../report/emit.js';
import { checkReportTargets, renderEverywhere, type ReportTarget } from '../reports.js';
import { protectFile, protectInputs } from '../protect.js';
import { exitWhenStdoutCloses } from '../stdout.js';
import { checkCorpus, clock, exceptionsPath, loadExceptions } from './compat-load.js';

/*
 * compat: loads the two schema files (or the registry at a git ref), computes the verdict with
 * src/compat (rules, exceptions, corpus), and renders its Report with ../report/compat.ts.
 */
export interface CompatCliOptions extends RegistryCliOptions {
  /** --category: the SARIF run's analysis category (automationDetails.id). */
  category?: string;
  /** A compatibility level in any case: backward, forward, full or none. */
  mode: string;
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
}

function usage(message: string): never {
  throw new UsageError(message);
}

function settings(options: CompatCliOptions): Settings {
  try {
    return {
      level: parseCompatLevel(options.mode ?? 'backward'), policy: parseCompatPolicy(options.policy ?? 'bqschema'), format: options.format,
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
  const unread = [older, newer].filter((d): d is SchemaProblem => 'side' in d);
  const result = unread.length > 0
    ? { compatible: false, changes: [] as Change[], problems: unread, rollout: undefined }
    : comparePair((older as SchemaDocument).value, (newer as SchemaDocument).value, s.level, { policy: s.policy, allowKeywords: s.allowKeywords });
  const { problems, changes, rollout } = result;

  const v: Verdicts = {};
  if (options.exceptions !== undefined) {
    const loaded = await loadExceptions(options.exceptions, options.exceptions);
    const urn = options.urn!;
    const fingerprints = new Map<string, string>('side' in older ? [] : [[urn, schemaFingerprint(older.value)]]);
    v.exceptions = weighExceptions(loaded, new Map([[urn, changes]]), fingerprints, clock());
  }
  if (options.corpus !== undefined && options.corpus.length > 0) {
    let schema: CompiledSchema | undefined;
    if (!('side' in newer)) {
      try {
        schema = compile(newer.value, { onWarning: () => {} });
      } catch (err) {
        if (!(err instanceof SchemaError)) throw err;
      }
    }
    if (schema !== undefined) {
      const key = options.urn!;
      const target = { key, schema };
      v.corpus = await checkCorpus(options.corpus, (urn) => (urn === key ? target : undefined), [key]);
    }
  }

  const newDoc = 'side' in newer ? undefined : { name: newer.file.shown, text: newer.text };
  const verdict = pairVerdict({ oldFile, newFile, urn: options.urn, v, changes, problems, rollout, newDoc, mode: s.level, policy: s.policy });
  const code = verdict.compatible ? EXIT_OK : EXIT_GATE;
  exitWhenStdoutCloses(() => code);
  await renderEverywhere(s.format, options.report, (format, out, c) => PAIR_FORMATS[format](verdict, out, c));
  return code;
}

// ---- the registry against a git ref --------------------------------------------------------------

async function compareRegistry(ref: string, options: CompatCliOptions, s: Settings): Promise<number> {
  if (options.urn !== undefined) usage('--urn applies to two schema files; with --against every changed URN is checked');
  const current = openRegistry(options);
  // Found as openRegistry found it, so discovery at the ref starts where it started in the working tree.
  const at = await loadRegistryAtRef(ref, {
    registry: options.registry, named: options.againstRegistry, urns: current.urns(),
    allowOutsidePaths: options.allowOutsidePaths, strict: true, strictUnknown: false,
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
  const manifestPath = at.manifestPath;
  const exceptionsFile = exceptionsPath(options.exceptions, current.manifest.path);
  if (exceptionsFile !== undefined) protectFile(exceptionsFile.path, `the exceptions file (${exceptionsFile.shown})`);
  protectInputs(options.corpus, 'a corpus file', 'a corpus directory');
  checkReportTargets(options.report);
  const rows: Row[] = compareRegistries(base, current, s.level, { policy: s.policy, fingerprints: exceptionsFile !== undefined, allowKeywords: s.allowKeywords, today: dayOf(clock().getTime()) });

  const v: Verdicts = {};
  if (exceptionsFile !== undefined) {
    const loaded = await loadExceptions(exceptionsFile.path, exceptionsFile.shown);
    const findings = new Map(rows.filter((r) => r.changes.length > 0).map((r) => [r.urn, r.changes] as const));
    const fingerprints = new Map(rows.filter((r) => r.baseline !== undefined).map((r) => [r.urn, r.baseline!] as const));
    v.exceptions = weighExceptions(loaded, findings, fingerprints, clock());
    exceptRows(rows, v);
  }
  const changed = rows.filter((r) => r.status === 'compatible' || r.status === 'breaking');
  if (options.corpus !== undefined && options.corpus.length > 0) {
    const schemas = new Map<string, { key: string; schema: CompiledSchema }>();
    const wanted = new Set(changed.map((r) => r.urn));
    v.corpus = await checkCorpus(options.corpus, (urn) => {
      if (!wanted.has(urn)) return undefined;
      let t = schemas.get(urn);
      if (t === undefined) {
        t = { key: urn, schema: current.compiled(urn)! };
        schemas.set(urn, t);
      }
      return t;
    }, changed.map((r) => r.urn));
    const byUrn = new Map(v.corpus.urns.map((u) => [u.urn, u]));
    for (const r of changed) r.corpus = byUrn.get(r.urn);
  }

  const docOf = (r: UrnReport): Doc | undefined => {
    if (r.file === undefined) return undefined;
    try {
      const d = current.document(r.urn);
      return { name: d.file.shown, text: d.text };
    } catch {
      return undefined;
    }
  };
  const verdict = registryVerdict({
    rows, v, manifestName: current.manifest.shown, manifestText: current.manifestText, docOf, mode: s.level, policy: s.policy,
    against: { ref, commit: at.commit, registry: manifestPath, found: base !== undefined, ...(at.foundBy === undefined ? {} : { foundBy: at.foundBy }) },
    working: at.workingPath, looked: at.looked,
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
  if (options.against === undefined && (options.againstRegistry !== undefined || options.allowNewRegistry)) {
    usage(`${options.againstRegistry !== undefined ? '--against-registry' : '--allow-new-registry'} applies to --against REF (the registry compared with a git ref)`);
  }
  if (options.against !== undefined) {
    if (oldFile !== undefined) usage('give either two schema files (OLD NEW) or --against REF for the registry, not both');
    return compareRegistry(options.against, options, s);
  }
  if (oldFile === undefined && (options.corpus?.length ?? 0) > 0) {
    usage('compat needs two schema files (OLD NEW) or --against REF; --corpus takes every path after it, so give the schema files before --corpus');
  }
  if (oldFile === undefined) usage('compat needs two schema files (OLD NEW), or --against REF to compare the registry with a git ref');
  if (newFile === undefined) usage(`compat needs the new schema file too: bqschema compat ${oldFile} NEW`);
  return compareFiles(oldFile, newFile, options, s);
}
