import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { OUTPUT_FORMATS, outputFormat, type FormatViews, type GateFormat } from '../../report/formats.js';
import { repositoryPath, type Report, type ReportInput, type ReportRule, type ToolInfo } from '../../report/model.js';
import { UsageError } from '../errors.js';
import { clean, coloursFor, type Colours, type Out } from '../output.js';

const PLAIN = coloursFor(false);

export { isCiFormat, isWholeDocument, type GateFormat } from '../../report/formats.js';

let cached: string | undefined;

/**
 * The package version, for the SARIF driver and the JUnit suite name: the nearest package.json
 * above this module (it runs from dist/cli/report or, bundled, from dist/cli-bundle).
 */
function toolVersion(): string {
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

export { DOCS } from '../../report/docs.js';

/** This tool, for a core that builds a Report (it brings its own rules). */
export const about = (): ToolInfo => ({
  name: 'bqschema',
  version: toolVersion(),
  informationUri: 'https://github.com/babelqueue/bqschema#readme',
});

export const tool = (rules: readonly ReportRule[]): ReportInput['tool'] => ({ ...about(), rules });

/**
 * The working directory's path from the root of the git repository it is in ('' at the root, or
 * outside any repository): SARIF's URIs, annotations and JUnit's `file` attributes name files from
 * the repository's root, where code scanning, GitHub and test reporters resolve them, whatever
 * directory the command ran in (the Action's `dir`).
 */
function repositoryBase(cwd: string = process.cwd()): string {
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
    throw new UsageError(
      `--category must be a name without surrounding whitespace or control characters, got ${JSON.stringify(clean(value))}; e.g. --category bqschema/validate/orders`,
    );
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

/**
 * Renders with the renderer of the format asked for (the formats table: each is loaded only when it
 * is used), laid out by the command's views where it has them; no final newline.
 */
export async function renderReport<FS, US>(
  format: GateFormat,
  report: Report<FS, US>,
  c?: Colours,
  options: { quiet?: boolean } = {},
  views: FormatViews<FS, US> = {},
): Promise<string> {
  const row = outputFormat(format)!;
  const render = await row.load();
  let located: Report<FS, US> = report;
  if (row.located) {
    // What CI reads paths of names them from the repository's root; SARIF names its category.
    const ci = ciContext();
    located = { ...report, base: ci.base, category: ci.categoryFor(report.command) };
  }
  const warn = (message: string): void => void process.stderr.write(`bqschema: warning: ${message}\n`);
  return render(located as Report, views as FormatViews, { colours: c ?? PLAIN, quiet: options.quiet, warn }).replace(/\n$/, '');
}

/** A gate's formatter: renders the view its command computed, in one format (see CHECK_FORMATS, PAIR_FORMATS, …). */
export type ViewFormatter<V> = (view: V, out: Out, c: Colours) => Promise<void>;

/**
 * How a command lays out the formats it words its own way, from its verdict and the Report built of
 * it (src/<command>/view-*.ts); each is called only when its format is rendered.
 */
type CommandViews<V, FS, US> = { [K in keyof FormatViews<FS, US>]?: (verdict: V, report: Report<FS, US>) => FormatViews<FS, US>[K] };

/** A gate's formatters, one per format of the table: its verdict made into one Report, rendered in each. */
export function reportFormats<V, FS, US>(
  toReport: (verdict: V) => Report<FS, US> | Promise<Report<FS, US>>,
  views: CommandViews<V, FS, US> = {},
): Record<GateFormat, ViewFormatter<V>> {
  const as =
    (format: GateFormat): ViewFormatter<V> =>
    async (verdict, out, c) => {
      const report = await toReport(verdict);
      const make = Object.hasOwn(views, format)
        ? (views as Record<string, (verdict: V, report: Report<FS, US>) => unknown>)[format]
        : undefined;
      const own = (make === undefined ? {} : { [format]: make(verdict, report) }) as FormatViews<FS, US>;
      out.line(await renderReport(format, report, c, {}, own));
    };
  return Object.fromEntries(OUTPUT_FORMATS.map((f) => [f.name, as(f.name)])) as Record<GateFormat, ViewFormatter<V>>;
}
