import type { Report } from './model.js';
import type { JsonView } from './json.js';
import type { MarkdownDocument } from './markdown.js';
import type { TextView, Tones } from './text.js';

/*
 * The output formats, one row each: every place that names them derives from this table (the
 * gates' --format and --report choices and help, each gate's formatters, the CI context, validate's
 * whole-document formats, the docs tables test/docs/formats-table.e2e.test.ts holds to it). Adding a format
 * is one renderer file in src/report and one row here (docs/ARCHITECTURE.md, "Adding an output
 * format"). A renderer module is loaded only when its format is asked for: the CLI's startup reads
 * this table, never a renderer.
 */

/** How a command lays out the formats it words its own way (src/<command>/view-*.ts); the others need nothing of it. */
export interface FormatViews<FS = unknown, US = unknown> {
  text?: TextView<FS, US>;
  json?: JsonView<US>;
  markdown?: MarkdownDocument;
}

/** What a renderer may need of the run besides the Report. */
interface RenderContext {
  /** The terminal's styles (identity functions off a terminal, and in report files). */
  colours: Tones;
  /** --quiet: text leaves out the passing units with nothing said. */
  quiet?: boolean;
  /** Said on stderr: what a format had to leave out (SARIF's cap on results). */
  warn(message: string): void;
}

type Render = (report: Report, views: FormatViews, context: RenderContext) => string;

export interface OutputFormat {
  /** What --format and --report name it. */
  readonly name: string;
  /** The extension a file of it takes (`--report sarif=bq.sarif`). */
  readonly extension: string;
  /** What it is for, in a few words: the docs table and help say it. */
  readonly description: string;
  /** The renderer's module, for the docs table. */
  readonly renderer: string;
  /**
   * Written as the run goes, line by line (validate may judge on several threads); a format that
   * does not stream is a whole document, written when the run ends (validate runs on one thread and
   * keeps what it needs: its own SARIF and JUnit writers spool their pieces, any other renders every
   * finding kept until then).
   */
  readonly streams: boolean;
  /**
   * Read by a tool that resolves paths from the repository's root (GitHub, code scanning, test
   * reporters): the Report names its files from there (`base`) and, for SARIF, its analysis category.
   */
  readonly located: boolean;
  /**
   * A CI tool's results document (code scanning's, a test reporter's): it reports a gate's verdict,
   * so a run that judges nothing (gdpr's inventory) has none.
   */
  readonly ci: boolean;
  /** Its renderer, loaded on first use. */
  readonly load: () => Promise<Render>;
}

export const OUTPUT_FORMATS = [
  {
    name: 'text',
    extension: 'txt',
    description: 'lines for a terminal or a CI log, in colour on a terminal',
    renderer: 'src/report/text.ts',
    streams: true,
    located: false,
    ci: false,
    load: async () => {
      const { renderText } = await import('./text.js');
      return (r, v, ctx) => renderText(r, ctx.colours, { quiet: ctx.quiet }, v.text);
    },
  },
  {
    name: 'json',
    extension: 'json',
    description: "one JSON document: ok, summary and the command's own fields (schemas/output/)",
    renderer: 'src/report/json.ts',
    streams: true,
    located: false,
    ci: false,
    load: async () => {
      const { renderJson } = await import('./json.js');
      return (r, v) => renderJson(r, v.json);
    },
  },
  {
    name: 'github',
    extension: 'log',
    description: 'GitHub Actions workflow commands: an annotation per finding',
    renderer: 'src/report/github.ts',
    streams: true,
    located: true,
    ci: false,
    load: async () => (await import('./github.js')).renderGithub,
  },
  {
    name: 'markdown',
    extension: 'md',
    description: 'a job summary or pull-request comment',
    renderer: 'src/report/markdown.ts',
    streams: false,
    located: false,
    ci: false,
    load: async () => {
      const { renderMarkdown } = await import('./markdown.js');
      return (r, v) => renderMarkdown(r, v.markdown);
    },
  },
  {
    name: 'sarif',
    extension: 'sarif',
    description: 'SARIF 2.1.0 for GitHub code scanning',
    renderer: 'src/report/sarif.ts',
    streams: false,
    located: true,
    ci: true,
    load: async () => {
      const sarif = await import('./sarif.js');
      return (r, _v, ctx) => {
        const results = r.findings.filter(sarif.isSarifResult).length;
        const cap = sarif.resultsCap();
        if (results > cap)
          ctx.warn(
            `SARIF: ${results - cap} of ${results} results left out: GitHub code scanning accepts at most ${cap} per run (the run's notifications say which)`,
          );
        return sarif.renderSarif(r);
      };
    },
  },
  {
    name: 'junit',
    extension: 'xml',
    description: 'JUnit XML for test reporters: a test case per unit',
    renderer: 'src/report/junit.ts',
    streams: false,
    located: true,
    ci: true,
    load: async () => (await import('./junit.js')).renderJunit,
  },
] as const satisfies readonly OutputFormat[];

/** Every format a gate (validate, check, compat, gdpr) writes, each rendered from its Report. */
export type GateFormat = (typeof OUTPUT_FORMATS)[number]['name'];

/** The formats' names, in the table's order: --format's and --report's choices. */
export const FORMAT_NAMES: readonly GateFormat[] = OUTPUT_FORMATS.map((f) => f.name);

const BY_NAME = new Map<string, OutputFormat>(OUTPUT_FORMATS.map((f) => [f.name, f]));

/** A format's row; undefined for a name that is none. */
export const outputFormat = (name: string): OutputFormat | undefined => BY_NAME.get(name);

/** The CI tools' results documents (SARIF, JUnit). */
export type CiFormat = Extract<(typeof OUTPUT_FORMATS)[number], { ci: true }>['name'];

export const isCiFormat = (f: string): f is CiFormat => outputFormat(f)?.ci === true;

/** The formats written whole when the run ends (validate runs them on one thread). */
export const isWholeDocument = (f: string): boolean => outputFormat(f)?.streams === false;
