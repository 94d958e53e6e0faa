import type { Report, ReportUnit } from './model.js';

/*
 * The JSON format: any Report as one document, `ok` and `summary` first (the Report's verdict and
 * counts, the same in every format), then the command's own fields and its list of units (its
 * JsonView: src/<command>/view-json.ts; each command's shape is a published contract,
 * schemas/output/<command>.json). validate streams its document instead (jsonOpen, jsonItem, jsonClose): its
 * results come as the messages are judged, so its summary and verdict come last.
 */

/**
 * The command's own fields in its JSON output (each command's schema in schemas/output/ names
 * them): written after `ok` and `summary`, which are the Report's.
 */
export interface JsonView<US = unknown> {
  /** The fields, in order. */
  fields?: Readonly<Record<string, unknown>>;
  /** The key of the list of the units' entries (validate's `results`, gdpr's `urns`), written after the fields. */
  units?: string;
  /** A unit's entry in that list; undefined: the unit is not listed. */
  unit?(u: ReportUnit<US>): unknown;
  /** Fields after that list. */
  after?: Readonly<Record<string, unknown>>;
}

export function renderJson<US>(report: Pick<Report<unknown, US>, 'ok' | 'summary' | 'units' | 'findings'>, j?: JsonView<US>): string {
  const doc: Record<string, unknown> = { ok: report.ok, summary: report.summary };
  // Own properties only: a key named __proto__ is a field like any other.
  const put = (k: string, v: unknown): void => {
    if (k !== 'ok' && k !== 'summary') Object.defineProperty(doc, k, { value: v, enumerable: true, writable: true, configurable: true });
  };
  if (j === undefined) {
    // A Report that names no fields of its own: its units and findings as the model has them.
    doc.units = report.units.map(({ subject: _s, ...u }) => u);
    doc.findings = report.findings.map(({ subject: _s, ...f }) => f);
  } else {
    for (const [k, v] of Object.entries(j.fields ?? {})) put(k, v);
    if (j.units !== undefined) {
      const entries: unknown[] = [];
      for (const u of report.units) {
        const entry = j.unit?.(u);
        if (entry !== undefined) entries.push(entry);
      }
      put(j.units, entries);
    }
    for (const [k, v] of Object.entries(j.after ?? {})) put(k, v);
  }
  return JSON.stringify(doc, null, 2);
}

/** The streamed document's opening, up to its list of units. */
export const jsonOpen = (key: string): string => `{${JSON.stringify(key)}:[`;

/** One unit's entry in the streamed list: compact, a comma before all but the first. */
export const jsonItem = (data: unknown, first: boolean): string => (first ? '' : ',') + JSON.stringify(data);

/** The streamed document's end: the summary and the verdict. */
export const jsonClose = (report: Pick<Report, 'ok' | 'summary'>): string =>
  `],"summary":${JSON.stringify(report.summary)},"ok":${report.ok}}`;
