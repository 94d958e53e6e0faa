import type { Report } from './model.js';

/*
 * The JSON format: any Report as one document, `ok` and `summary` first (the Report's verdict and
 * counts, the same in every format), then the command's own fields and its list of units
 * (Report.json). validate streams its document instead (jsonOpen, jsonItem, jsonClose): its
 * results come as the messages are judged, so its summary and verdict come last.
 */

export function renderJson(report: Pick<Report, 'ok' | 'summary' | 'units' | 'json' | 'findings'>): string {
  const j = report.json;
  const doc: Record<string, unknown> = { ok: report.ok, summary: report.summary };
  // Own properties only: a key named __proto__ is a field like any other.
  const put = (k: string, v: unknown): void => {
    if (k !== 'ok' && k !== 'summary') Object.defineProperty(doc, k, { value: v, enumerable: true, writable: true, configurable: true });
  };
  if (j === undefined) {
    // A Report that names no fields of its own: its units and findings as the model has them.
    doc.units = report.units.map(({ text: _t, data: _d, ...u }) => u);
    doc.findings = report.findings.map(({ text: _t, ...f }) => f);
  } else {
    for (const [k, v] of Object.entries(j.fields ?? {})) put(k, v);
    if (j.units !== undefined) put(j.units, report.units.filter((u) => u.data !== undefined).map((u) => u.data));
    for (const [k, v] of Object.entries(j.after ?? {})) put(k, v);
  }
  return JSON.stringify(doc, null, 2);
}

/** The streamed document's opening, up to its list of units. */
export const jsonOpen = (key: string): string => `{${JSON.stringify(key)}:[`;

/** One unit's entry in the streamed list: compact, a comma before all but the first. */
export const jsonItem = (data: unknown, first: boolean): string => (first ? '' : ',') + JSON.stringify(data);

/** The streamed document's end: the summary and the verdict. */
export const jsonClose = (report: Pick<Report, 'ok' | 'summary'>): string => `],"summary":${JSON.stringify(report.summary)},"ok":${report.ok}}`;
