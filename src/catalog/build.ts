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
  /** The services that write this URN's messages (the manifest's `producers`). */
  producers?: readonly string[];
  /** The services that read them (the manifest's `consumers`). */
  consumers?: readonly string[];
}

/** A service as its page shows it: the manifest's `services` entry and the URNs it produces and consumes. */
export interface CatalogService {
  name: string;
  team?: string;
  contact?: string;
  repository?: string;
  /** False for a name a URN lists that the manifest's `services` does not declare (check reports it). */
  declared: boolean;
  produces: readonly string[];
  consumes: readonly string[];
}

type CompatVerdict = 'added' | 'compatible' | 'breaking' | 'unchanged';

/** A compat rule that fired between two consecutive versions, and the directions it breaks. */
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
  /** A page per service and the map of producers, URNs and consumers; none when empty. */
  services?: readonly CatalogService[];
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
    (p) =>
      html`<li><code>${p.path === '' ? '(the whole payload)' : p.path}</code> <span class="badge pii">PII${p.category === '' ? '' : ` · ${p.category}`}</span></li>`,
  )}</ul>`;
}

function notices(p: Prepared): SafeHtml {
  const parts: SafeHtml[] = [];
  if (p.entry.status === 'deprecated') {
    const d = p.entry.deprecated ?? {};
    const ask = p.entry.owner !== undefined ? html`ask ${p.entry.owner}` : 'ask its owner';
    const dates = [
      d.since === undefined ? '' : `since ${d.since}`,
      d.sunset === undefined ? '' : `sunset ${d.sunset}: it may be removed from that day`,
    ]
      .filter((x) => x !== '')
      .join('; ');
    const instead =
      d.replacement === undefined
        ? html`${ask} what replaces it`
        : html`use <a href="${fragment(anchorId(d.replacement))}"><code>${d.replacement}</code></a> instead`;
    parts.push(
      html`<div class="notice warn" data-bq="deprecation"><strong>Deprecated${dates === '' ? '' : ` (${dates})`}:</strong> do not start producing or consuming this event; ${instead}.${d.reason === undefined ? '' : html` Why: ${d.reason}.`}</div>`,
    );
  }
  if (p.problem !== undefined) {
    parts.push(html`<div class="notice bad"><strong>This schema cannot be read:</strong> ${p.problem}. Its fields are not shown.</div>`);
  }
  const v = p.view;
  if (v !== undefined && v.malformed.length > 0) {
    parts.push(
      html`<div class="notice bad"><strong>${plural(v.malformed.length, 'malformed keyword')}</strong> (no effect on validation; <code>bqschema check</code> fails on them):<ul>${v.malformed.map(
        (m) => html`<li><code>${pointerLabel(m.pointer)}</code> <code>${m.keyword}</code>: ${m.message}</li>`,
      )}</ul></div>`,
    );
  }
  // `deprecated` is documentation (its field's badge says it), not a constraint left unenforced.
  const unsupported = v?.unsupported.filter((w) => w.keyword !== 'deprecated') ?? [];
  if (unsupported.length > 0) {
    parts.push(
      html`<div class="notice warn"><strong>${plural(unsupported.length, 'keyword')} not enforced</strong> by the validator (outside the supported subset):<ul>${unsupported.map(
        (w) => html`<li><code>${pointerLabel(w.pointer)}</code> <code>${w.keyword}</code></li>`,
      )}</ul></div>`,
    );
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
    out.push(
      example(
        html`Example message ${i + 1}${isEnvelope ? ' (its data)' : ''}`,
        maskedMessage(msg, schema),
        isEnvelope ? verdictOf(p, msg.data) : undefined,
      ),
    );
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

function section(p: Prepared, hist: readonly HistoryEntry[] | undefined, links: Links): SafeHtml {
  const { entry, id, view } = p;
  const file = entry.file !== undefined ? html`<div><dt>Schema file</dt><dd><code>${entry.file}</code></dd></div>` : '';
  const peers =
    links.services.size === 0
      ? ''
      : html`<div><dt>Produced by</dt><dd>${serviceLinks(entry.producers ?? [], links, 'no producer')}</dd></div><div><dt>Consumed by</dt><dd>${serviceLinks(entry.consumers ?? [], links, 'no consumer')}</dd></div>`;
  return html`<section class="event" id="${id}" data-bq-event>
<h2><a href="${fragment(id)}">${entry.urn}</a></h2>
${entry.description !== undefined ? html`<p class="desc">${entry.description}</p>` : ''}
<dl class="facts"><div><dt>Owner</dt><dd>${entry.owner ?? html`<span class="empty">none</span>`}</dd></div><div><dt>Status</dt><dd>${entry.status !== undefined ? html`<span class="badge ${statusClass(entry.status)}">${entry.status}</span>` : html`<span class="empty">none</span>`}</dd></div>${file}${peers}</dl>
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

/** Where each URN's and each service's section is, for the links between them. */
interface Links {
  /** A URN to the id of its (first) section. */
  urns: ReadonlyMap<string, string>;
  /** A service name to the id of its section. */
  services: ReadonlyMap<string, string>;
}

function urnLink(urn: string, links: Links, cls = ''): SafeHtml {
  const id = links.urns.get(urn);
  return id === undefined
    ? html`<code>${urn}</code>`
    : html`<a${cls === '' ? '' : html` class="${cls}"`} href="${fragment(id)}"><code>${urn}</code></a>`;
}

function serviceLink(name: string, links: Links, cls = ''): SafeHtml {
  const id = links.services.get(name);
  return id === undefined
    ? html`<span>${name}</span>`
    : html`<a${cls === '' ? '' : html` class="${cls}"`} href="${fragment(id)}">${name}</a>`;
}

function serviceLinks(names: readonly string[], links: Links, none: string): SafeHtml {
  return names.length === 0
    ? html`<span class="empty">${none}</span>`
    : join(
        names.map((n) => serviceLink(n, links)),
        ', ',
      );
}

/** A service's page: its team, contact and repository (as text: every link of the catalog stays inside it), what it produces and consumes, and the personal data of those URNs. */
function serviceSection(s: CatalogService, id: string, links: Links, piiOf: (urn: string) => FieldsView['pii']): SafeHtml {
  const fact = (label: string, value: SafeHtml | string | undefined): SafeHtml =>
    html`<div><dt>${label}</dt><dd>${value ?? html`<span class="empty">none</span>`}</dd></div>`;
  const urnList = (urns: readonly string[], none: string): SafeHtml =>
    urns.length === 0
      ? html`<p class="empty">${none}</p>`
      : html`<ul class="urn-list">${urns.map((u) => html`<li>${urnLink(u, links)}</li>`)}</ul>`;
  const handled = [...new Set([...s.produces, ...s.consumes])].sort(byCodeUnits);
  const pii = handled.flatMap((urn) =>
    piiOf(urn).map(
      (f) =>
        html`<li>${urnLink(urn, links)} <code>${f.path === '' ? '(the whole payload)' : f.path}</code> <span class="badge pii">PII${f.category === '' ? '' : ` · ${f.category}`}</span></li>`,
    ),
  );
  const undeclared = s.declared
    ? ''
    : html`<div class="notice warn"><strong>Not declared:</strong> a URN lists this service, but the manifest's <code>services</code> has no entry for it (<code>bqschema check</code> reports it); declare it with its team and contact.</div>`;
  return html`<section class="event service" id="${id}" data-bq-service>
<h2><a href="${fragment(id)}">${s.name}</a> <span class="badge">service</span></h2>
${undeclared}
<dl class="facts">${fact('Team', s.team)}${fact('Contact', s.contact)}${fact('Repository', s.repository === undefined ? undefined : html`<code>${s.repository}</code>`)}</dl>
<h3>Produces</h3>
${urnList(s.produces, 'Produces no event.')}
<h3>Consumes</h3>
${urnList(s.consumes, 'Consumes no event.')}
<h3>Personal data it handles</h3>
${pii.length === 0 ? html`<p class="empty">none marked</p>` : html`<ul class="pii-list">${pii}</ul>`}
</section>
`;
}

/** The map: per URN with a producer or a consumer, its producers, the URN and its consumers, every node a link. */
function serviceMap(services: readonly CatalogService[], prepared: readonly Prepared[], id: string, links: Links): SafeHtml {
  const nodes = (names: readonly string[], none: string): SafeHtml =>
    names.length === 0
      ? html`<span class="empty">${none}</span>`
      : html`<ul class="nodes">${names.map((n) => html`<li>${serviceLink(n, links, 'node')}</li>`)}</ul>`;
  const seen = new Set<string>();
  const rows = prepared.flatMap((p) => {
    const { urn, producers = [], consumers = [] } = p.entry;
    if (seen.has(urn) || producers.length + consumers.length === 0) return [];
    seen.add(urn);
    return [
      html`<li class="flow-row"><div class="flow-from"><span class="sr">Produced by:</span> ${nodes(producers, 'no producer')}</div><span class="arrow" aria-hidden="true">→</span><div class="flow-urn"><span class="sr">Event:</span> ${urnLink(urn, links, 'node urn-node')}</div><span class="arrow" aria-hidden="true">→</span><div class="flow-to"><span class="sr">Consumed by:</span> ${nodes(consumers, 'no consumer')}</div></li>`,
    ];
  });
  const idle = services.filter((s) => s.produces.length + s.consumes.length === 0);
  return html`<section class="event service-map" id="${id}" data-bq="map">
<h2><a href="${fragment(id)}">Services map</a></h2>
<p class="desc">Who writes and who reads each event: producers → event → consumers. ${plural(services.length, 'service')}, ${plural(rows.length, 'event')} with a producer or a consumer.</p>
${rows.length === 0 ? html`<p class="empty">No event names a producer or a consumer.</p>` : html`<div class="flow-head" aria-hidden="true"><span>Producers</span><span></span><span>Event</span><span></span><span>Consumers</span></div><ol class="flow">${rows}</ol>`}
${
  idle.length === 0
    ? ''
    : html`<p>Services that produce and consume nothing: ${join(
        idle.map((s) => serviceLink(s.name, links, 'node')),
        ' ',
      )}</p>`
}
</section>
`;
}

function navItem(p: Prepared): SafeHtml {
  const { entry, id, view } = p;
  const status = entry.status === 'deprecated' ? html`<span class="badge st-deprecated">deprecated</span>` : (entry.status ?? 'no status');
  const meta = html`${entry.owner ?? 'no owner'} · ${status}`;
  const pii = view !== undefined && view.pii.length > 0 ? html` <span class="badge pii">PII</span>` : '';
  return html`<li data-bq-item><a href="${fragment(id)}"><span class="urn">${entry.urn}</span><span class="meta">${meta}${pii}</span></a></li>`;
}

function searchText(p: Prepared): string {
  const e = p.entry;
  const schema = e.schema;
  const title = isSchemaObject(schema) && hasOwn(schema, 'title') && typeof schema.title === 'string' ? schema.title : '';
  const words = [
    e.urn,
    e.owner ?? '',
    e.status ?? '',
    e.description ?? '',
    title,
    ...(p.view?.names ?? []),
    ...(p.view?.pii.map((x) => x.category) ?? []),
  ];
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
  const uniqueId = (base: string): string => {
    let id = base;
    for (let n = 2; used.has(id); n++) {
      id = `${base}~${n}`;
      if (taken.has(id)) id = base; // keep counting
    }
    used.add(id);
    return id;
  };
  const prepared = sorted.map((entry) => prepare(entry, uniqueId(anchorId(entry.urn))));
  // Services and the map come after every URN, so a URN keeps its own id whatever a service is named.
  // A name given twice (the manifest reader refuses it) gets one page.
  const services = (input.services ?? []).filter((s, i, all) => all.findIndex((t) => t.name === s.name) === i);
  const serviceIds = new Map(services.map((s) => [s.name, uniqueId(anchorId(`service:${s.name}`))]));
  const mapId = services.length === 0 ? '' : uniqueId('services-map');
  const navId = services.length === 0 ? '' : uniqueId('services-nav');
  const urnIds = new Map<string, string>();
  for (const p of prepared) if (!urnIds.has(p.entry.urn)) urnIds.set(p.entry.urn, p.id);
  const links: Links = { urns: urnIds, services: serviceIds };
  const piiByUrn = new Map<string, FieldsView['pii']>();
  for (const p of prepared) if (!piiByUrn.has(p.entry.urn)) piiByUrn.set(p.entry.urn, p.view?.pii ?? []);
  const piiOf = (urn: string): FieldsView['pii'] => piiByUrn.get(urn) ?? [];
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
<header class="masthead"><h1>${title}</h1><p>${plural(n, 'event')} · ${plural(owners.length, 'owner')} · ${withPii} with personal data${services.length === 0 ? '' : html` · ${plural(services.length, 'service')}`}</p></header>
<div class="layout">
<nav class="side" aria-label="Events">
<div class="filters" data-bq="filters" hidden>
<label><span>Search <kbd>/</kbd></span><input type="search" data-bq="q" placeholder="URN, field, owner, PII category" autocomplete="off" spellcheck="false"></label>
<label>Owner<select data-bq="owner">${options(
    owners,
    'All owners',
    'No owner',
    sorted.some((e) => e.owner === undefined),
  )}</select></label>
<label>Status<select data-bq="status">${options(
    statuses,
    'All statuses',
    'No status',
    sorted.some((e) => e.status === undefined),
  )}</select></label>
<label>Personal data<select data-bq="pii"><option value="">Any</option><option value="yes">Carries personal data</option><option value="no">No personal data</option></select></label>
<p class="count" data-bq="count" aria-live="polite">${plural(n, 'event')}</p>
</div>
<noscript><p class="count">Search and filters need JavaScript; every event is listed here and below.</p></noscript>
<ul class="urns">${prepared.map(navItem)}</ul>
<p class="empty" data-bq="none" hidden>No event matches.</p>
${
  services.length === 0
    ? ''
    : html`<h2 class="nav-head" id="${navId}">Services</h2>
<ul class="svcs" aria-labelledby="${navId}"><li><a href="${fragment(mapId)}">Map: producers → events → consumers</a></li>${[...serviceIds].map(([name, id]) => html`<li><a href="${fragment(id)}">${name}</a></li>`)}</ul>`
}
</nav>
<main>
${prepared.map((p) => section(p, input.history?.get(p.entry.urn), links))}
${services.length === 0 ? '' : html`${serviceMap(services, prepared, mapId, links)}${services.map((s) => serviceSection(s, serviceIds.get(s.name)!, links, piiOf))}`}
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
