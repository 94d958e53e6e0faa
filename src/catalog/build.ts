import { compile, hasOwn, isSchemaObject, pointerLabel, SchemaError, type Violation } from '../validator/index.js';
import { CATALOG_CSP, SCRIPT_HTML, STYLE_HTML } from './assets.js';
import { fieldsView, type FieldsView } from './fields.js';
import { anchorId, fragment, html, join, jsonScript, type SafeHtml } from './html.js';
import { maskAnnotations, maskMessage } from '../validator/mask.js';
import { prettyJson, unshowable } from './values.js';
import type { Deprecation } from '../registry/deprecation.js';

export interface CatalogEntry {
  urn: string;
  owner?: string;
  status?: string;
  /** The manifest's deprecation of the URN (since, sunset, replacement, reason). */
  deprecated?: Deprecation;
  description?: string;
  /** The parsed schema document. */
  schema: unknown;
  /** The schema file, as it should be shown. */
  file?: string;
  /** Example messages of this URN (envelopes; an object with `data` has its data validated). */
  examples?: readonly unknown[];
}

type CompatVerdict = 'added' | 'compatible' | 'breaking' | 'unchanged';

/** A compat rule that fired between two consecutive versions, and the modes it breaks. */
export interface RuleChange {
  rule: string;
  /** Where in the schema (a JSON pointer). */
  path: string;
  message: string;
  /** Whether the change breaks backward (old data, new schema) and forward (new data, old schema) compatibility. */
  backward: boolean;
  forward: boolean;
}

/** One commit that touched a URN's schema, with the compat verdict of that change. */
export interface HistoryEntry {
  commit: string;
  date: string;
  /** The commit's author. */
  author?: string;
  subject: string;
  /** The backward verdict. */
  verdict: CompatVerdict;
  /** Problems that kept the versions from being compared, and other notes. */
  changes?: readonly string[];
  /** Every rule that fired from the previous version, breaking or not. */
  rules?: readonly RuleChange[];
  /** Whether the URN was deprecated at this version (its deprecation's `since` on or before the commit's date). */
  deprecated?: boolean;
}

export interface CatalogInput {
  title?: string;
  entries: readonly CatalogEntry[];
  /** Per URN, newest first as given. */
  history?: ReadonlyMap<string, readonly HistoryEntry[]>;
}

const VERDICTS: ReadonlySet<string> = new Set(['added', 'compatible', 'breaking', 'unchanged']);
const MAX_VIOLATIONS = 20;
// Violations counted for the "N more" line: a message can break its schema millions of times.
const COUNTED_VIOLATIONS = 1000;
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const plural = (n: number, one: string, many = one + 's'): string => `${n} ${n === 1 ? one : many}`;

interface Prepared {
  entry: CatalogEntry;
  id: string;
  /** The schema as shown: its example values masked where it marks personal data. */
  shown: unknown;
  view: FieldsView | undefined;
  /** Why the schema could not be read. */
  problem: string | undefined;
  validate: ((data: unknown, limit?: number) => Violation[]) | undefined;
}

function prepare(entry: CatalogEntry, id: string): Prepared {
  let view: FieldsView | undefined;
  let problem: string | undefined;
  let validate: ((data: unknown, limit?: number) => Violation[]) | undefined;
  // Personal data is shown masked, as `gdpr --mask` prints it: example values in the schema here,
  // example messages where they are shown (src/validator/mask.ts).
  const shown = maskAnnotations(entry.schema);
  try {
    view = fieldsView(shown);
    validate = compile(entry.schema, { onWarning: () => {} }).validate;
  } catch (err) {
    if (!(err instanceof SchemaError)) throw err;
    problem = err.message;
  }
  return { entry, id, shown, view, problem, validate };
}

function statusClass(status: string | undefined): string {
  return status === 'active' ? 'st-active' : status === 'deprecated' ? 'st-deprecated' : 'st-other';
}

function piiSummary(view: FieldsView | undefined): SafeHtml {
  if (view === undefined || view.pii.length === 0) return html`<span class="empty">none marked</span>`;
  return html`<ul class="pii-list">${view.pii.map(
    (p) => html`<li><code>${p.path === '' ? '(the whole payload)' : p.path}</code> <span class="badge pii">PII${p.category === '' ? '' : ` · ${p.category}`}</span></li>`,
  )}</ul>`;
}

function notices(p: Prepared): SafeHtml {
  const parts: SafeHtml[] = [];
  if (p.entry.status === 'deprecated') {
    const d = p.entry.deprecated ?? {};
    const ask = p.entry.owner !== undefined ? html`ask ${p.entry.owner}` : 'ask its owner';
    const dates = [d.since === undefined ? '' : `since ${d.since}`, d.sunset === undefined ? '' : `sunset ${d.sunset}: it may be removed from that day`].filter((x) => x !== '').join('; ');
    const instead = d.replacement === undefined ? html`${ask} what replaces it`
      : html`use <a href="${fragment(anchorId(d.replacement))}"><code>${d.replacement}</code></a> instead`;
    parts.push(html`<div class="notice warn" data-bq="deprecation"><strong>Deprecated${dates === '' ? '' : ` (${dates})`}:</strong> do not start producing or consuming this event; ${instead}.${d.reason === undefined ? '' : html` Why: ${d.reason}.`}</div>`);
  }
  if (p.problem !== undefined) {
    parts.push(html`<div class="notice bad"><strong>This schema cannot be read:</strong> ${p.problem}. Its fields are not shown.</div>`);
  }
  const v = p.view;
  if (v !== undefined && v.malformed.length > 0) {
    parts.push(html`<div class="notice bad"><strong>${plural(v.malformed.length, 'malformed keyword')}</strong> (no effect on validation; <code>bqschema check</code> fails on them):<ul>${v.malformed.map(
      (m) => html`<li><code>${pointerLabel(m.pointer)}</code> <code>${m.keyword}</code>: ${m.message}</li>`,
    )}</ul></div>`);
  }
  // `deprecated` is documentation (its field's badge says it), not a constraint left unenforced.
  const unsupported = v?.unsupported.filter((w) => w.keyword !== 'deprecated') ?? [];
  if (unsupported.length > 0) {
    parts.push(html`<div class="notice warn"><strong>${plural(unsupported.length, 'keyword')} not enforced</strong> by the validator (outside the supported subset):<ul>${unsupported.map(
      (w) => html`<li><code>${pointerLabel(w.pointer)}</code> <code>${w.keyword}</code></li>`,
    )}</ul></div>`);
  }
  return join(parts);
}

/** The badge and, when invalid, the violations of one example, validated as the validator would. */
function verdictOf(p: Prepared, data: unknown): { badge: SafeHtml; list: SafeHtml } {
  if (p.validate === undefined) return { badge: html``, list: html`` };
  const violations = p.validate(data, COUNTED_VIOLATIONS + 1);
  if (violations.length === 0) return { badge: html` <span class="badge valid">valid</span>`, list: html`` };
  const shown = violations.slice(0, MAX_VIOLATIONS);
  const uncounted = violations.length > COUNTED_VIOLATIONS;
  const more = Math.min(violations.length, COUNTED_VIOLATIONS) - shown.length;
  const list = html`<ul class="violations">${shown.map(
    (v) => html`<li><code>${pointerLabel(v.instancePath)}</code> ${v.message}</li>`,
  )}${more > 0 ? html`<li>${uncounted ? 'over ' : ''}${plural(more, 'more violation')}</li>` : ''}</ul>`;
  return { badge: html` <span class="badge invalid">invalid</span>`, list };
}

function example(label: SafeHtml, value: unknown, verdict: { badge: SafeHtml; list: SafeHtml } | undefined): SafeHtml {
  return html`<div class="example"><p>${label}${verdict?.badge}</p>${verdict?.list}<pre>${prettyJson(value)}</pre></div>`;
}

/** An example message as shown: masked against its schema, as `gdpr --mask` prints it (never unmasked). */
function maskedMessage(msg: unknown, schema: unknown): unknown {
  if (unshowable(msg) !== undefined) return msg; // prettyJson says why instead of showing it
  try {
    return maskMessage(msg, schema);
  } catch (err) {
    if (err instanceof TypeError) return '***'; // a toJSON that throws, a value that contains itself
    throw err;
  }
}

function examples(p: Prepared): SafeHtml {
  const out: SafeHtml[] = [];
  const schema = p.entry.schema;
  const list = (s: unknown): unknown[] => (isSchemaObject(s) && hasOwn(s, 'examples') && Array.isArray(s.examples) ? s.examples : []);
  // Validated as written; shown as masked (`shown`'s examples are the same values, masked).
  const masked = list(p.shown);
  list(schema).forEach((ex, i) => out.push(example(html`From the schema (<code>examples[${i}]</code>)`, masked[i], verdictOf(p, ex))));
  (p.entry.examples ?? []).forEach((msg, i) => {
    const isEnvelope = isSchemaObject(msg) && hasOwn(msg, 'data');
    out.push(example(html`Example message ${i + 1}${isEnvelope ? ' (its data)' : ''}`, maskedMessage(msg, schema), isEnvelope ? verdictOf(p, msg.data) : undefined));
  });
  return out.length === 0 ? html`<p class="empty">No examples.</p>` : html`<div class="examples">${out}</div>`;
}

/** What a rule's change breaks, in words and as a badge class. */
function breaks(r: RuleChange): { text: string; cls: string } {
  if (r.backward && r.forward) return { text: 'breaks backward and forward', cls: 'v-breaking' };
  if (r.backward) return { text: 'breaks backward', cls: 'v-breaking' };
  if (r.forward) return { text: 'breaks forward', cls: 'v-breaking' };
  return { text: 'compatible', cls: 'v-compatible' };
}

function history(entries: readonly HistoryEntry[]): SafeHtml {
  if (entries.length === 0) return html`<p class="empty">No recorded changes.</p>`;
  const authors = entries.some((h) => h.author !== undefined);
  const rows = entries.map((h) => {
    const cls = VERDICTS.has(h.verdict) ? `v-${h.verdict}` : 'v-other';
    const rules = (h.rules ?? []).map((r) => {
      const b = breaks(r);
      return html`<li><span class="badge ${b.cls}">${b.text}</span> <code>${r.rule}</code> <code>${pointerLabel(r.path)}</code>: ${r.message}</li>`;
    });
    const notes = (h.changes ?? []).map((c) => html`<li>${c}</li>`);
    const list = rules.length + notes.length > 0 ? html`<ul>${notes}${rules}</ul>` : '';
    const state = h.deprecated === true ? html` <span class="badge st-deprecated">deprecated</span>` : '';
    const author = authors ? html`<td>${h.author ?? ''}</td>` : '';
    return html`<tr><td class="nw">${h.date}</td><td class="nw"><code title="${h.commit}">${h.commit.slice(0, 12)}</code></td>${author}<td class="nw"><span class="badge ${cls}">${h.verdict}</span>${state}</td><td>${h.subject}${list}</td></tr>`;
  });
  return html`<table><thead><tr><th>Date</th><th>Commit</th>${authors ? html`<th>Author</th>` : ''}<th>Compat</th><th>Change</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function section(p: Prepared, hist: readonly HistoryEntry[] | undefined): SafeHtml {
  const { entry, id, view } = p;
  const file = entry.file !== undefined ? html`<div><dt>Schema file</dt><dd><code>${entry.file}</code></dd></div>` : '';
  return html`<section class="event" id="${id}" data-bq-event>
<h2><a href="${fragment(id)}">${entry.urn}</a></h2>
${entry.description !== undefined ? html`<p class="desc">${entry.description}</p>` : ''}
<dl class="facts"><div><dt>Owner</dt><dd>${entry.owner ?? html`<span class="empty">none</span>`}</dd></div><div><dt>Status</dt><dd>${entry.status !== undefined ? html`<span class="badge ${statusClass(entry.status)}">${entry.status}</span>` : html`<span class="empty">none</span>`}</dd></div>${file}</dl>
${notices(p)}
<h3>Personal data</h3>
${piiSummary(view)}
<h3>Fields</h3>
${view !== undefined ? view.tree : html`<p class="empty">Not available.</p>`}
<h3>Examples</h3>
${examples(p)}
${hist !== undefined ? html`<h3>Compat history</h3>${history(hist)}` : ''}
<details><summary>Schema source</summary>${p.shown === entry.schema ? '' : html`<p class="dim">Example values (<code>examples</code>, <code>default</code>) are masked where the schema marks personal data.</p>`}<pre>${prettyJson(p.shown)}</pre></details>
</section>
`;
}

function navItem(p: Prepared): SafeHtml {
  const { entry, id, view } = p;
  const status = entry.status === 'deprecated' ? html`<span class="badge st-deprecated">deprecated</span>` : entry.status ?? 'no status';
  const meta = html`${entry.owner ?? 'no owner'} · ${status}`;
  const pii = view !== undefined && view.pii.length > 0 ? html` <span class="badge pii">PII</span>` : '';
  return html`<li data-bq-item><a href="${fragment(id)}"><span class="urn">${entry.urn}</span><span class="meta">${meta}${pii}</span></a></li>`;
}

function searchText(p: Prepared): string {
  const e = p.entry;
  const schema = e.schema;
  const title = isSchemaObject(schema) && hasOwn(schema, 'title') && typeof schema.title === 'string' ? schema.title : '';
  const words = [e.urn, e.owner ?? '', e.status ?? '', e.description ?? '', title, ...(p.view?.names ?? []), ...(p.view?.pii.map((x) => x.category) ?? [])];
  return words.join(' ').toLowerCase();
}

function options(values: readonly string[], allLabel: string, noneLabel: string, anyMissing: boolean): SafeHtml {
  return html`<option value="">${allLabel}</option>${values.map((v, i) => html`<option value="${i}">${v}</option>`)}${anyMissing ? html`<option value="-1">${noneLabel}</option>` : ''}`;
}

/** The catalog as one self-contained HTML document. Deterministic: same input, same bytes. */
export function buildCatalog(input: CatalogInput): string {
  const title = input.title ?? 'Event catalog';
  // Sorted by URN so the list reads alphabetically; the sort is stable, so duplicates keep their order.
  const sorted = [...input.entries].sort((a, b) => byCodeUnits(a.urn, b.urn));
  // A repeated URN (check reports it) still gets an id of its own, one no other URN has.
  const taken = new Set(sorted.map((e) => anchorId(e.urn)));
  const used = new Set<string>();
  const prepared = sorted.map((entry) => {
    const base = anchorId(entry.urn);
    let id = base;
    for (let n = 2; used.has(id); n++) {
      id = `${base}~${n}`;
      if (taken.has(id)) id = base; // keep counting
    }
    used.add(id);
    return prepare(entry, id);
  });
  const owners = [...new Set(sorted.flatMap((e) => (e.owner === undefined ? [] : [e.owner])))].sort(byCodeUnits);
  const statuses = [...new Set(sorted.flatMap((e) => (e.status === undefined ? [] : [e.status])))].sort(byCodeUnits);
  const withPii = prepared.filter((p) => p.view !== undefined && p.view.pii.length > 0).length;
  const index = {
    events: prepared.map((p) => ({
      o: p.entry.owner === undefined ? -1 : owners.indexOf(p.entry.owner),
      s: p.entry.status === undefined ? -1 : statuses.indexOf(p.entry.status),
      p: p.view !== undefined && p.view.pii.length > 0,
      t: searchText(p),
    })),
  };
  const n = prepared.length;
  const doc = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CATALOG_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="bqschema catalog">
<title>${title}</title>
<style>${STYLE_HTML}</style>
</head>
<body>
<header class="masthead"><h1>${title}</h1><p>${plural(n, 'event')} · ${plural(owners.length, 'owner')} · ${withPii} with personal data</p></header>
<div class="layout">
<nav class="side" aria-label="Events">
<div class="filters" data-bq="filters" hidden>
<label><span>Search <kbd>/</kbd></span><input type="search" data-bq="q" placeholder="URN, field, owner, PII category" autocomplete="off" spellcheck="false"></label>
<label>Owner<select data-bq="owner">${options(owners, 'All owners', 'No owner', sorted.some((e) => e.owner === undefined))}</select></label>
<label>Status<select data-bq="status">${options(statuses, 'All statuses', 'No status', sorted.some((e) => e.status === undefined))}</select></label>
<label>Personal data<select data-bq="pii"><option value="">Any</option><option value="yes">Carries personal data</option><option value="no">No personal data</option></select></label>
<p class="count" data-bq="count" aria-live="polite">${plural(n, 'event')}</p>
</div>
<noscript><p class="count">Search and filters need JavaScript; every event is listed here and below.</p></noscript>
<ul class="urns">${prepared.map(navItem)}</ul>
<p class="empty" data-bq="none" hidden>No event matches.</p>
</nav>
<main>
${prepared.map((p) => section(p, input.history?.get(p.entry.urn)))}
</main>
</div>
<footer>Generated by <code>bqschema catalog</code>. Types, bounds and required fields are read as the bqschema validator enforces them; keywords marked “not enforced” are ignored at validation time.</footer>
<script type="application/json" data-bq="index">${jsonScript(index)}</script>
<script>${SCRIPT_HTML}</script>
</body>
</html>
`;
  return doc.text;
}
