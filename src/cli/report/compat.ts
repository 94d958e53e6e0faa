import { rulesMarkdown, type CompatLevel, type CompatPolicy, type CompatRule } from '../../compat/index.js';
import { pairReport, registryReport } from '../../compat/report.js';
import type { PairVerdict, RegistryVerdict } from '../../compat/verdict.js';
import { pairJsonView, registryJsonView } from '../../compat/view-json.js';
import { pairMarkdown, registryMarkdown } from '../../compat/view-markdown.js';
import { pairTextView, registryTextView } from '../../compat/view-text.js';
import type { GateFormat } from '../../report/formats.js';
import type { Out } from '../output.js';
import { about, reportFormats, type ViewFormatter } from './emit.js';

/*
 * compat's formats. The command computes its verdict (PairVerdict for two schema files,
 * RegistryVerdict for --against) and renders it with the formatter of the format asked for
 * (PAIR_FORMATS, REGISTRY_FORMATS): the command never switches on the format itself. Every format
 * renders the Report src/compat/report.ts builds; text, JSON and the pull-request markdown are laid
 * out by compat's views (src/compat/view-*.ts).
 */

export type CompatFormat = GateFormat;

export interface Settings {
  level: CompatLevel;
  policy: CompatPolicy;
  format: CompatFormat;
  allowKeywords: ReadonlySet<string>;
}

export const PAIR_FORMATS: Record<CompatFormat, ViewFormatter<PairVerdict>> = reportFormats((v: PairVerdict) => pairReport(v, about()), {
  text: pairTextView,
  json: pairJsonView,
  markdown: pairMarkdown,
});

export const REGISTRY_FORMATS: Record<CompatFormat, ViewFormatter<RegistryVerdict>> = reportFormats(
  (v: RegistryVerdict) => registryReport(v, about()),
  {
    text: registryTextView,
    json: registryJsonView,
    markdown: registryMarkdown,
  },
);

// ---- --list-rules ---------------------------------------------------------------------------------

const BREAKS_WORDS = { backward: 'backward', forward: 'forward', both: 'backward and forward', never: 'never' } as const;

/** The rules' table, in the formats --list-rules offers (the others are a usage error). */
export const RULES_FORMATS: Partial<Record<CompatFormat, (rules: readonly CompatRule[], out: Out) => void>> = {
  json: (rules, out) => out.line(JSON.stringify({ rules }, null, 2)),
  markdown: (_rules, out) => out.line(rulesMarkdown().replace(/\n$/, '')),
  text: (rules, out) => {
    for (const r of rules) {
      out.line(`${r.id}`);
      out.line(`    ${r.description}`);
      out.line(`    breaks: ${BREAKS_WORDS[r.breaks]} (bqschema), ${BREAKS_WORDS[r.confluentBreaks]} (confluent)`);
      out.line(`    confluent: ${r.confluent ?? '—'}`);
      if (r.note !== '') out.line(`    note: ${r.note}`);
    }
  },
};
