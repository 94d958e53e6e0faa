import type { CheckVerdict } from '../../check/index.js';
import { checkReport } from '../../check/report.js';
import { about, reportFormats, type GateFormat, type ViewFormatter } from './emit.js';

/* check's formats: every one renders the Report src/check/report.ts makes of its verdict. */

export const CHECK_FORMATS: Record<GateFormat, ViewFormatter<CheckVerdict>> = reportFormats((v: CheckVerdict) => checkReport(v, about()));
