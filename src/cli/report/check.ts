import type { CheckVerdict } from '../../check/index.js';
import { checkReport } from '../../check/report.js';
import { checkJsonView } from '../../check/view-json.js';
import { checkTextView } from '../../check/view-text.js';
import { about, reportFormats, type GateFormat, type ViewFormatter } from './emit.js';

/* check's formats: every one renders the Report src/check/report.ts makes of its verdict, text and JSON laid out by its views. */

export const CHECK_FORMATS: Record<GateFormat, ViewFormatter<CheckVerdict>> = reportFormats((v: CheckVerdict) => checkReport(v, about()), {
  text: checkTextView,
  json: checkJsonView,
});
