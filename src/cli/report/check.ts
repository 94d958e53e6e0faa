import type { CheckVerdict } from '../../check/index.js';
import { checkReport } from '../../check/report.js';
import { pointerLabel } from '../../validator/index.js';
import { clean, type Colours, type Out } from '../output.js';
import { about, reportFormats, type GateFormat, type ViewFormatter } from './emit.js';

/*
 * check's formats, each rendering the verdict src/check computed (CHECK_FORMATS): text and json are
 * check's own, the others render its Report (src/check/report.ts).
 */

async function json(verdict: CheckVerdict, out: Out): Promise<void> {
  const { ok, summary, errors, warnings } = verdict;
  out.line(JSON.stringify({ ok, summary, errors, warnings }, null, 2));
}

async function text(verdict: CheckVerdict, out: Out, c: Colours): Promise<void> {
  const { ok, manifestErrors, entries, counts } = verdict;
  for (const i of manifestErrors) out.line(`${c.red('✗ error')}  ${clean(i.file)}${i.pointer ? ' ' + clean(i.pointer) : ''}: ${clean(i.message)}`);
  for (const r of entries) {
    const mark = r.errors.length > 0 ? c.red('✗') : c.green('✓');
    out.line(`${mark} ${c.bold(clean(r.urn))}  ${c.dim(clean(r.file))}`);
    for (const e of r.errors) {
      // An issue in another file (the manifest entry of a missing schema file) says which, and where.
      const other = e.file === r.file ? '' : `${clean(e.file)}${e.line === undefined ? '' : `:${e.line}`} `;
      out.line(`    ${c.red('error')}  ${other}${clean(pointerLabel(e.pointer))}  ${clean(e.message)}`);
    }
    for (const w of r.warnings) {
      const what = w.rule === 'unknown-keyword' ? clean(w.message) : `unsupported keyword "${clean(w.keyword ?? '')}" is not enforced`;
      out.line(`    ${c.yellow('warning')}  ${clean(pointerLabel(w.pointer))}  ${what}`);
    }
  }
  const verdictWord = ok ? c.green('OK') : c.red('FAILED');
  out.line(`\n${verdictWord}: ${counts}`);
}

export const CHECK_FORMATS: Record<GateFormat, ViewFormatter<CheckVerdict>> = { text, json, ...reportFormats((v: CheckVerdict) => checkReport(v, about())) };
