import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  anchorId,
  buildCatalog,
  CATALOG_CSP,
  CATALOG_CSP_HEADER,
  catalogHandler,
  escapeHtml,
  fragment,
  html,
  type CatalogEntry,
  type HistoryEntry,
} from '../../src/catalog/index.js';
import { exampleEntries, HOSTILE, hostileEntries } from '../helpers/catalog-example.js';

const build = (entries: CatalogEntry[], history?: Map<string, HistoryEntry[]>): string => buildCatalog({ entries, history });
const one = (schema: unknown, extra: Partial<CatalogEntry> = {}): string => build([{ urn: 'urn:t:x', schema, ...extra }]);
/** The text of the page without tags or entities, roughly as a reader sees it. */
const text = (page: string): string =>
  page
    .replace(/<[^>]*>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

/** Every `<script>`/`<style>` element's opening tag and body. */
function blocks(page: string, tag: 'script' | 'style'): Array<{ open: string; body: string }> {
  const out: Array<{ open: string; body: string }> = [];
  const re = new RegExp(`(<${tag}\\b[^>]*>)([\\s\\S]*?)</${tag}>`, 'gi');
  for (const m of page.matchAll(re)) out.push({ open: m[1]!, body: m[2]! });
  return out;
}

const sha = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

describe('catalog of the example registry', () => {
  const page = buildCatalog({ entries: exampleEntries() });

  it('is one self-contained page under 200 KB, the same bytes every time and in any entry order', () => {
    expect(Buffer.byteLength(page)).toBeLessThan(200 * 1024);
    expect(buildCatalog({ entries: exampleEntries() })).toBe(page);
    expect(buildCatalog({ entries: exampleEntries().reverse() })).toBe(page);
    // Nothing that would fetch: no src, no external link, no CSS url() or @import.
    expect(page).not.toMatch(/\ssrc=|href="(?!#)|url\(|@import|<link\b|<iframe\b|<img\b/i);
  });

  it('allows exactly its own script and style by hash, and nothing to be fetched', () => {
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page);
    expect(meta?.[1]).toBe(escapeHtml(CATALOG_CSP));
    const scripts = blocks(page, 'script');
    expect(scripts.map((s) => s.open)).toEqual(['<script type="application/json" data-bq="index">', '<script>']);
    const styles = blocks(page, 'style');
    expect(styles).toHaveLength(1);
    expect(CATALOG_CSP).toContain(`script-src ${sha(scripts[1]!.body)};`);
    expect(CATALOG_CSP).toContain(`style-src ${sha(styles[0]!.body)};`);
    for (const d of ["default-src 'none'", "img-src 'none'", "connect-src 'none'", "font-src 'none'"]) expect(CATALOG_CSP).toContain(d);
    expect(CATALOG_CSP).not.toContain('unsafe-inline');
    // The policy comes before anything it governs.
    expect(page.indexOf('Content-Security-Policy')).toBeLessThan(page.indexOf('<style>'));
  });

  it('lists every URN once in the nav and once as a section, with a deep link', () => {
    expect(page.match(/<li data-bq-item>/g)).toHaveLength(4);
    expect(page.match(/<section class="event"/g)).toHaveLength(4);
    for (const e of exampleEntries()) {
      expect(page).toContain(`<section class="event" id="${e.urn}" data-bq-event>`);
      expect(page).toContain(`<a href="#${e.urn}">`);
    }
    const index = JSON.parse(blocks(page, 'script')[0]!.body) as { events: Array<{ o: number; s: number; p: boolean; t: string }> };
    expect(index.events.map((e) => e.p)).toEqual([false, false, true, true]); // sorted: orders×2, payments, users
  });

  it('says constraints in words, as the validator reads them', () => {
    const t = text(page);
    expect(t).toContain('sku string required 3 to 32 characters');
    expect(t).toContain('amount number ≥ 0');
    expect(t).toContain('currency required one of "USD", "EUR", "TRY"');
    expect(t).toContain('card_last4 string PII · card exactly 4 characters');
    expect(t).toContain('email string required PII · email at least 3 characters');
    expect(t).toContain('coupon string or null at most 32 characters');
    expect(t).toContain('each item object');
    expect(t).toContain('no other properties');
  });

  it('shows PII per field with categories, unsupported keywords as not enforced, and validated examples', () => {
    const t = text(page);
    expect(t).toContain('addresses[].city PII · address');
    expect(t).toContain('captured_at string format: "date-time" not enforced');
    expect(t).toContain('/properties/captured_at format');
    expect(t).toContain('From the schema ( examples[0] ) valid');
    // invalid/order-created-invalid.json (message 1 of orders:created) breaks four rules; invalid/traffic.ndjson has a bad reason.
    expect(t).toContain(
      'Example message 1 (its data) invalid /order_id must be >= 1, got 0 /currency must be one of "USD", "EUR", "TRY" /lines/1/sku',
    );
    // valid/orders-cancelled.ndjson comes first (two valid messages), then the invalid traffic.
    expect(t).toContain('Example message 4 (its data) invalid /reason must be one of');
    expect(t).toContain('Example message 2 (its data) valid { "job": "urn:babel:orders:created"');
  });
});

describe('fields', () => {
  it('flags malformed keywords, never silently; an infinite minimum is a bound like any other (CLARIFICATIONS 13)', () => {
    const t = text(
      one({
        type: 'object',
        properties: { a: { type: 'strin' }, b: { type: 'string', minLength: '3' }, c: { type: 'number', minimum: Infinity } },
      }),
    );
    expect(t).toContain('malformed unknown type name "strin"; it has no effect');
    expect(t).toContain('minLength malformed must be a finite number, got the string "3"');
    expect(t).toContain('c number ≥ Infinity');
    expect(t).not.toContain('keywords not enforced'); // a malformed keyword is listed once, as malformed
    expect(t).toContain('2 malformed keywords');
  });

  it('reads own properties only; __proto__, constructor are ordinary names', () => {
    const schema = JSON.parse(
      '{"type":"object","required":["__proto__"],"properties":{"__proto__":{"type":"string","minLength":2},"constructor":{"type":"integer"}}}',
    );
    const t = text(one(schema));
    expect(t).toContain('__proto__ string required at least 2 characters');
    expect(t).toContain('constructor integer');
  });

  it('draws deep schemas to a depth cap and reports an unreadable one instead of hanging', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 60; i++) deep = { type: 'object', properties: { [`p${i}`]: deep } };
    expect(text(one(deep))).toContain('1 field nested deeper than 24 levels: see the schema source');
    // Personal data below the drawing cap is still listed, and still counts for the PII filter.
    let marked: Record<string, unknown> = { type: 'string', 'x-gdpr-sensitive': 'email' };
    for (let i = 0; i < 60; i++) marked = { type: 'object', properties: { p: marked } };
    const m = one(marked);
    expect(text(m)).toContain(`${Array(60).fill('p').join('.')} PII · email`);
    expect(m).toContain('"p":true');

    let tooDeep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) tooDeep = { properties: { a: tooDeep } };
    const t = text(one(tooDeep));
    expect(t).toContain(
      'This schema cannot be read: the schema is nested deeper than 512 levels (objects and arrays), the most bqschema reads; flatten it',
    );
    expect(t).toContain('(too large to show: more than 50000 values)'); // the schema source

    const loop: Record<string, unknown> = { type: 'object', properties: {} };
    (loop.properties as Record<string, unknown>).self = loop;
    const started = Date.now();
    const l = text(one(loop, { examples: [{ data: loop }] }));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(l).toContain('This schema cannot be read: the schema contains itself (circular).');
    expect(l).toContain('Example message 1 (its data) (cannot be shown: circular)');

    // Shared sub-schemas (YAML aliases) expand to 2^40 nodes: refused up front, not walked.
    let shared: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) shared = { type: 'object', properties: { a: shared, b: shared } };
    const began = Date.now();
    const b = text(one(shared, { examples: [{ data: shared }] }));
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(b).toContain('This schema cannot be read: the schema has more than 200000 sub-schemas once its shared parts are expanded.');
    expect(b).toContain('(too large to show: more than 50000 values)');
    // Sharing alone is fine: a small shared definition is drawn at each place.
    const address = { type: 'string', 'x-gdpr-sensitive': 'address' };
    expect(text(one({ type: 'object', properties: { home: address, work: address } }))).toContain(
      'home string PII · address work string PII · address',
    );
  });

  it('marks a deprecated URN, and builds an empty registry', () => {
    const page = one(true, { status: 'deprecated', owner: 'orders' });
    expect(page).toContain('<span class="badge st-deprecated">deprecated</span>');
    expect(text(page)).toContain('Deprecated: do not start producing or consuming this event; ask orders what replaces it.');
    expect(text(build([]))).toContain('0 events · 0 owners · 0 with personal data');
  });

  it('caps the number of fields drawn', () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) properties[`f${i}`] = { type: 'string' };
    const t = text(one({ type: 'object', properties }));
    expect(t).toContain('501 more fields not drawn');
  });

  it('renders a given compat history, newest first as given', () => {
    const history = new Map<string, HistoryEntry[]>([
      [
        'urn:t:x',
        [
          {
            commit: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
            date: '2026-11-20',
            subject: 'drop field b',
            verdict: 'breaking',
            changes: ['property "b" was removed'],
          },
          { commit: '0011223344556677889900112233445566778899', date: '2026-10-01', subject: 'first schema', verdict: 'added' },
        ],
      ],
    ]);
    const page = build(
      [
        { urn: 'urn:t:x', schema: true },
        { urn: 'urn:t:y', schema: true },
      ],
      history,
    );
    expect(page.match(/<h3>Compat history<\/h3>/g)).toHaveLength(1); // only the URN with a history
    const t = text(page);
    expect(t).toContain(
      '2026-11-20 a1b2c3d4e5f6 breaking drop field b property "b" was removed 2026-10-01 001122334455 added first schema',
    );
    expect(page).toContain('<span class="badge v-breaking">breaking</span>');
    // A verdict outside the four never becomes a class name.
    const odd = build(
      [{ urn: 'urn:t:x', schema: true }],
      new Map([['urn:t:x', [{ commit: 'c', date: 'd', subject: 's', verdict: 'x" onmouseover="y' as 'added' }]]]),
    );
    expect(odd).toContain('<span class="badge v-other">x&quot; onmouseover=&quot;y</span>');
  });
});

describe('hostile names', () => {
  const entries = hostileEntries();
  const history = new Map(
    entries.map((e) => [e.urn, [{ commit: e.urn, date: e.urn, subject: e.urn, verdict: 'added' as const, changes: [e.urn] }]]),
  );
  const page = buildCatalog({ title: HOSTILE[0], entries, history });

  it('never emits a hostile string unescaped', () => {
    for (const h of HOSTILE.filter((s) => /[<>"'\u2028\u2029\u0000-\u001f\u007f-\u009f]|[\uD800-\uDFFF]/.test(s))) {
      expect(page.includes(h), JSON.stringify(h)).toBe(false);
    }
    expect(page).not.toMatch(/[\u2028\u2029\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
    expect(page).not.toMatch(/<(img|svg)\b/i);
    expect(page).not.toContain('<!--');
    // Exactly our own elements: two scripts, one style, and nothing else opens one.
    expect(page.match(/<script\b/gi)).toHaveLength(2);
    expect(page.match(/<\/script/gi)).toHaveLength(2);
    expect(page.match(/<style\b/gi)).toHaveLength(1);
    expect(page.match(/<\/style/gi)).toHaveLength(1);
    // Every `<` outside the two script bodies opens a well-formed tag of ours, and no attribute is an event handler.
    const outside = page.replace(/(<script\b[^>]*>)[\s\S]*?(<\/script>)/g, '$1$2').replace(/(<style>)[\s\S]*?(<\/style>)/, '$1$2');
    const attributes = new Set<string>();
    for (const m of outside.matchAll(/</g)) {
      const tag = /^<(?:!DOCTYPE html|\/?[a-z][a-z0-9]*((?:\s+[a-z-]+(?:="[^"<>]*")?)*))>/.exec(outside.slice(m.index))!;
      expect(tag, outside.slice(m.index, m.index + 80)).not.toBeNull();
      for (const a of (tag[1] ?? '').matchAll(/\s+([a-z-]+)(?:="[^"]*")?/g)) attributes.add(a[1]!);
    }
    expect([...attributes].sort()).toEqual([
      'aria-label',
      'aria-live',
      'autocomplete',
      'charset',
      'class',
      'content',
      'data-bq',
      'data-bq-event',
      'data-bq-item',
      'hidden',
      'href',
      'http-equiv',
      'id',
      'lang',
      'name',
      'placeholder',
      'spellcheck',
      'title',
      'type',
      'value',
    ]);
  });

  it('keeps the JSON block parseable and exact', () => {
    const body = blocks(page, 'script')[0]!.body;
    expect(body).not.toMatch(/[<>&\u2028\u2029]/);
    const index = JSON.parse(body) as { events: Array<{ t: string }> };
    expect(index.events).toHaveLength(HOSTILE.length);
    expect(index.events.some((e) => e.t.includes('</script><script>window.__pwned=5</script>'))).toBe(true);
  });

  it('gives every URN an id and a link that match, even when it has to be encoded', () => {
    for (const e of entries) {
      const id = anchorId(e.urn);
      expect(page).toContain(` id="${escapeHtml(id)}" data-bq-event`);
      expect(page).toContain(`<a href="${escapeHtml(fragment(id))}">`);
      expect(decodeURIComponent(fragment(id).slice(1))).toBe(id);
    }
    expect(anchorId('urn:a\u0001b\nc\uD800')).toBe('urn:a\\u0001b\\u000Ac\\uD800');
    // A repeated URN still gets its own id, and not one another URN owns.
    const dup = build([
      { urn: 'u', schema: true },
      { urn: 'u', schema: true },
      { urn: 'u~2', schema: true },
    ]);
    expect(dup.match(/ id="[^"]*"/g)).toEqual([' id="u"', ' id="u~3"', ' id="u~2"']);
  });
});

describe('html builder', () => {
  it('escapes every interpolated value and keeps SafeHtml as is', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${`"'&<>`}">${inner}${['<a>', 1, null, undefined, false]}</p>`.text).toBe(
      '<p title="&quot;&#39;&amp;&lt;&gt;"><b>&lt;i&gt;</b>&lt;a&gt;1</p>',
    );
    expect(escapeHtml('a\u2028b\u2029c\u0000d\u0085e\tf\ng')).toBe('a&#x2028;b&#x2029;c\\u0000d\\u0085e\tf\ng');
    expect(escapeHtml('\uD83D\uDE00 \uDE00')).toBe('\uD83D\uDE00 \\uDE00');
  });
});

describe('catalogHandler', () => {
  it('serves the page with the same policy as a header, plus frame-ancestors', () => {
    const page = buildCatalog({ entries: [{ urn: 'urn:t:x', schema: true }] });
    const res = catalogHandler(page);
    expect(res.status).toBe(200);
    expect(res.body).toBe(page);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(page)));
    expect(res.headers['content-security-policy']).toBe(CATALOG_CSP_HEADER);
    expect(CATALOG_CSP_HEADER.startsWith(CATALOG_CSP + '; ')).toBe(true);
    expect(CATALOG_CSP_HEADER).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
