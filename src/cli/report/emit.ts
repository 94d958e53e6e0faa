import { readFileSync } from 'node:fs';
import type { ReportInput, ReportRule } from './findings.js';

/** The CI formats every gate offers besides its own. */
export type CiFormat = 'sarif' | 'junit';

export const isCiFormat = (f: string): f is CiFormat => f === 'sarif' || f === 'junit';

let cached: string | undefined;

/** The package version, for the SARIF driver and the JUnit suite name. */
export function toolVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return cached;
}

export const tool = (rules: readonly ReportRule[]): ReportInput['tool'] => ({
  name: 'bqschema', version: toolVersion(), rules,
});

/** Renders with the module of the format asked for (each is loaded only when it is used). */
export async function renderCi(format: CiFormat, input: ReportInput): Promise<string> {
  if (format === 'sarif') return (await import('./sarif.js')).renderSarif(input);
  return (await import('./junit.js')).renderJunit(input);
}
