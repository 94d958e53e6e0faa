import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { repositoryPath, type Report, type ReportInput, type ReportRule, type ToolInfo } from '../../report/model.js';
import { UsageError } from '../errors.js';
import { clean, makeChalk, type Colours, type Format, type Out } from '../output.js';

const PLAIN = makeChalk(false);

/** The CI formats every gate offers besides its own. */
export type CiFormat = 'sarif' | 'junit';

export const isCiFormat = (f: string): f is CiFormat => f === 'sarif' || f === 'junit';

let cached: string | undefined;

/**
 * The package version, for the SARIF driver and the JUnit suite name: the nearest package.json
 * above this module (it runs from dist/cli/report or, bundled, from dist/cli-bundle).
 */
export function toolVersion(): string {
  if (cached !== undefined) return cached;
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'bqschema') return (cached = pkg.version);
    } catch {
      // not here: one level up
    }
    if (new URL('..', dir).href === dir.href) return (cached = '0.0.0');
  }
}

export { DOCS, docsPage } from '../../report/docs.js';

/** This tool, for a core that builds a Report (it brings its own rules). */
export const about = (): ToolInfo => ({ name: 'bqschema', version: toolVersion(), informationUri: 'https://github.com/babelqueue/bqschema#readme' });

export const tool = (rules: readonly ReportRule[]): ReportInput['tool'] => ({ ...about(), rules });

/** The formats rendered from a gate's Report (src/report): the same findings in each. */
export type ReportFormat = 'github' | 'markdown' | CiFormat;

/** Every format a gate (validate, check, compat, gdpr) writes, each rendered from its Report. */
export type GateFormat = Format | ReportFormat;

/** The formats written whole when the run ends, from every finding kept until then. */
export const isWholeDocument = (f: string): f is Exclude<ReportFormat, 'github'> => f === 'markdown' || isCiFormat(f);

/**
 * The working directory's path from the root of the git repository it is in ('' at the root, or
 * outside any repository): SARIF's URIs, annotations and JUnit's `file` attributes name files from
 * the repository's root, where code scanning, GitHub and test reporters resolve them, whatever
 * directory the command ran in (the Action's `dir`).
 */
export function repositoryBase(cwd: string = process.cwd()): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return relative(dir, cwd).split(sep).join('/');
    if (dirname(dir) === dir) return '';
  }
}

let category: string | undefined;
let base: string | undefined;
/** The registry manifest the command read, as shown: its directory names the default category's scope. */
let manifest: string | undefined;

/** The registry this run reads (src/cli/registry.ts tells it): runs on two registries of one repository get categories of their own. */
export function noteRegistry(shown: string): void {
  manifest ??= shown;
}

/** `--category`: the SARIF run's analysis category (automationDetails.id), checked before anything is written. */
export function setCategory(value: string | undefined): void {
  if (value === undefined) return;
  if (value.trim() === '' || value.trim() !== value || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new UsageError(`--category must be a name without surrounding whitespace or control characters, got ${JSON.stringify(clean(value))}; e.g. --category bqschema/validate/orders`);
  }
  category = value;
}

/**
 * What the CI formats need to know of the run: the working directory's path from the repository's
 * root, and the SARIF category of a command's run: `--category`, else `bqschema/<command>/`, and
 * under it the registry's directory from the repository's root when that is not the root
 * (`bqschema/validate/services/orders/`), so the uploads of one command on two registries (a
 * matrix job each) do not replace each other's alerts.
 */
export function ciContext(): { readonly base: string; categoryFor(command: string): string } {
  const at = (): string => (base ??= repositoryBase());
  return {
    get base() {
      return at();
    },
    categoryFor(command: string): string {
      if (category !== undefined) return category;
      const dir = manifest === undefined ? '' : repositoryPath(dirname(manifest).split(sep).join('/'), at());
      const scope = dir === '.' || dir === '' || dir.startsWith('/') || dir.startsWith('..') || /^[A-Za-z]:/.test(dir) ? '' : `${dir}/`;
      return `bqschema/${command}/${scope}`;
    },
  };
}

/** Renders with the module of the format asked for (each is loaded only when it is used); no final newline. */
export async function renderReport(format: GateFormat, report: Report, c?: Colours, options: { quiet?: boolean } = {}): Promise<string> {
  if (format === 'text') return (await import('../../report/text.js')).renderText(report, c ?? PLAIN, options).replace(/\n$/, '');
  if (format === 'json') return (await import('../../report/json.js')).renderJson(report).replace(/\n$/, '');
  if (format === 'markdown') return (await import('../../report/markdown.js')).renderMarkdown(report).replace(/\n$/, '');
  // What CI reads paths of names them from the repository's root; SARIF names its category.
  const ci = ciContext();
  const located: Report = { ...report, base: ci.base, category: ci.categoryFor(report.command) };
  let text: string;
  if (format === 'github') text = (await import('../../report/github.js')).renderGithub(located);
  else if (format === 'junit') text = (await import('../../report/junit.js')).renderJunit(located);
  else {
    const sarif = await import('../../report/sarif.js');
    text = sarif.renderSarif(located);
    const results = report.findings.filter(sarif.isSarifResult).length;
    if (results > sarif.MAX_RESULTS) process.stderr.write(`bqschema: warning: SARIF: ${results - sarif.MAX_RESULTS} of ${results} results left out: GitHub code scanning accepts at most ${sarif.MAX_RESULTS} per run (the run's notifications say which)\n`);
  }
  return text.replace(/\n$/, '');
}

/** A gate's formatter: renders the view its command computed, in one format (see CHECK_FORMATS, PAIR_FORMATS, …). */
export type ViewFormatter<V> = (view: V, out: Out, c: Colours) => Promise<void>;

/** A gate's formatters, one per format: its view made into one Report, rendered in each. */
export function reportFormats<V>(toReport: (view: V) => Report | Promise<Report>): Record<GateFormat, ViewFormatter<V>> {
  const as = (format: GateFormat): ViewFormatter<V> => async (view, out, c) => out.line(await renderReport(format, await toReport(view), c));
  return { text: as('text'), json: as('json'), github: as('github'), markdown: as('markdown'), sarif: as('sarif'), junit: as('junit') };
}
