import { placeOf, repositoryPath, type FindingLevel, type Report, type ReportFinding } from './model.js';
import { clean } from './text.js';

/*
 * GitHub Actions workflow commands: one annotation per finding of a Report (the same findings,
 * levels, positions and messages as its SARIF), then the summary line. Notes are notices.
 */

/**
 * A GitHub Actions workflow command; property and message values escaped as the runner expects,
 * and control characters from input escaped so they cannot end the command or forge another.
 */
function githubCommand(
  level: 'error' | 'warning' | 'notice',
  props: { file?: string; line?: number; col?: number; title?: string },
  message: string,
): string {
  const esc = (s: string): string => clean(s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
  const escProp = (s: string): string => esc(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const parts: string[] = [];
  if (props.file !== undefined) parts.push(`file=${escProp(props.file)}`);
  if (props.line !== undefined) parts.push(`line=${props.line}`);
  if (props.col !== undefined) parts.push(`col=${props.col}`);
  if (props.title !== undefined) parts.push(`title=${escProp(props.title)}`);
  return `::${level}${parts.length ? ' ' + parts.join(',') : ''}::${esc(message)}`;
}

const LEVEL: Record<FindingLevel, 'error' | 'warning' | 'notice'> = { error: 'error', warning: 'warning', note: 'notice' };

/**
 * One finding as an annotation, at the finding's file, line and column (each only where known):
 * the file from the repository's root (`base`: the working directory's path from it), where
 * GitHub places annotations.
 */
export function githubAnnotation(f: ReportFinding, base?: string): string {
  const at = placeOf(f);
  const where = at === undefined ? {} : { ...at, file: repositoryPath(at.file, base) };
  return githubCommand(LEVEL[f.level], { ...where, title: f.title }, f.message);
}

export function renderGithub(report: Pick<Report, 'findings' | 'summaryLine' | 'base'>): string {
  return [...report.findings.map((f) => githubAnnotation(f, report.base)), clean(report.summaryLine)].join('\n') + '\n';
}
