import { readFileSync } from 'node:fs';
import type { Report, ReportInput, ReportRule, ToolInfo } from '../../report/model.js';
import { makeChalk, type Colours, type Format, type Out } from '../output.js';

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

/** Renders with the module of the format asked for (each is loaded only when it is used); no final newline. */
export async function renderReport(format: GateFormat, report: Report, c?: Colours, options: { quiet?: boolean } = {}): Promise<string> {
  const text = format === 'text' ? (await import('../../report/text.js')).renderText(report, c ?? PLAIN, options)
    : format === 'json' ? (await import('../../report/json.js')).renderJson(report)
    : format === 'github' ? (await import('../../report/github.js')).renderGithub(report)
    : format === 'markdown' ? (await import('../../report/markdown.js')).renderMarkdown(report)
    : format === 'sarif' ? (await import('../../report/sarif.js')).renderSarif(report)
    : (await import('../../report/junit.js')).renderJunit(report);
  return text.replace(/\n$/, '');
}

/** A gate's formatter: renders the view its command computed, in one format (see CHECK_FORMATS, PAIR_FORMATS, …). */
export type ViewFormatter<V> = (view: V, out: Out, c: Colours) => Promise<void>;

/** A gate's formatters, one per format: its view made into one Report, rendered in each. */
export function reportFormats<V>(toReport: (view: V) => Report | Promise<Report>): Record<GateFormat, ViewFormatter<V>> {
  const as = (format: GateFormat): ViewFormatter<V> => async (view, out, c) => out.line(await renderReport(format, await toReport(view), c));
  return { text: as('text'), json: as('json'), github: as('github'), markdown: as('markdown'), sarif: as('sarif'), junit: as('junit') };
}
