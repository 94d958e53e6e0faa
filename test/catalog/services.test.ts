// The catalog's services: the roster it maps from a registry, each service's page and the map of producers → events → consumers.
import { describe, expect, it } from 'vitest';
import {
  anchorId,
  buildCatalog,
  catalogEntries,
  catalogServices,
  fragment,
  type CatalogEntry,
  type CatalogService,
} from '../../src/catalog/index.js';
import { Registry } from '../../src/registry/index.js';
import { serviceRoster } from '../../src/services/index.js';
import { exampleEntries, exampleServices, HOSTILE, ROOT } from '../helpers/catalog-example.js';
import { join } from 'node:path';

/** The element with this id: from its opening tag to the next `</section>`. */
function sectionOf(page: string, id: string): string {
  const at = page.indexOf(`id="${id}"`);
  expect(at, `no element with id ${id}`).toBeGreaterThan(-1);
  return page.slice(page.lastIndexOf('<', at), page.indexOf('</section>', at));
}
/** Every href of a piece of the page, fragments decoded as a browser compares them with ids. */
const unescape = (s: string): string =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#x2028;/g, '\u2028')
    .replace(/&#x2029;/g, '\u2029')
    .replace(/&amp;/g, '&');
const targets = (html: string): string[] => [...html.matchAll(/href="#([^"]*)"/g)].map((m) => decodeURIComponent(unescape(m[1]!)));
const ids = (page: string): string[] => [...page.matchAll(/\sid="([^"]*)"/g)].map((m) => unescape(m[1]!));

describe('catalogServices: the roster the catalog maps', () => {
  it('lists the declared services in the manifest order, then names only URNs list, with what each produces and consumes in URN order', () => {
    const services = catalogServices({
      services: [
        { name: 'orders', team: '@acme/orders', contact: 'o@acme.example', repository: 'https://git.example/orders' },
        { name: 'idle' },
      ],
      entries: [
        { urn: 'urn:a', producers: ['orders'], consumers: ['ghost', 'orders'] },
        { urn: 'urn:b', consumers: ['ghost'] },
        { urn: 'urn:c' },
      ],
    });
    expect(services).toEqual([
      {
        name: 'orders',
        team: '@acme/orders',
        contact: 'o@acme.example',
        repository: 'https://git.example/orders',
        declared: true,
        produces: ['urn:a'],
        consumes: ['urn:a'],
      },
      { name: 'idle', declared: true, produces: [], consumes: [] },
      { name: 'ghost', declared: false, produces: [], consumes: ['urn:a', 'urn:b'] },
    ]);
  });

  it("is bqschema services' roster for the example registry (the same services, the same URNs)", () => {
    const registry = Registry.workingTree(join(ROOT, 'registry.example.json'));
    const roster = serviceRoster(registry).map((v) => ({ name: v.name, produces: v.produces, consumes: v.consumes }));
    expect(exampleServices().map((s) => ({ name: s.name, produces: s.produces, consumes: s.consumes }))).toEqual(roster);
    expect(roster.map((s) => s.name)).toEqual(['orders', 'billing', 'shipping', 'identity', 'mailer']);
  });

  it("catalogEntries carries each URN's producers and consumers and the services; none when the manifest names none", () => {
    const registry = {
      entries: [{ urn: 'urn:a', producers: ['p'], consumers: ['c'] }],
      services: [{ name: 'p', team: '@t/p' }],
      document: () => ({ type: 'object' }),
      file: () => 'a.json',
    };
    const { entries, services } = catalogEntries(registry);
    expect(entries[0]).toMatchObject({ urn: 'urn:a', producers: ['p'], consumers: ['c'] });
    expect(services.map((s) => [s.name, s.declared])).toEqual([
      ['p', true],
      ['c', false],
    ]);
    expect(catalogEntries({ entries: [{ urn: 'urn:a' }], document: () => ({}), file: () => 'a.json' }).services).toEqual([]);
  });
});

describe('the catalog of the example registry with its services', () => {
  const entries = exampleEntries();
  const services = exampleServices();
  const page = buildCatalog({ entries, services });

  it('has a page per service with its team, contact, repository, what it produces and consumes (links to their sections) and the personal data of those URNs', () => {
    const billing = sectionOf(page, 'service:billing');
    expect(billing).toContain('@babel-example/payments');
    expect(billing).toContain('billing@babel.example');
    expect(billing).toContain('https://github.com/babel-example/billing');
    const produces = billing.slice(billing.indexOf('<h3>Produces</h3>'), billing.indexOf('<h3>Consumes</h3>'));
    const consumes = billing.slice(billing.indexOf('<h3>Consumes</h3>'), billing.indexOf('<h3>Personal data'));
    expect(targets(produces)).toEqual(['urn:babel:payments:captured']);
    expect(targets(consumes)).toEqual(['urn:babel:orders:created', 'urn:babel:orders:cancelled']);
    // Its personal data: the PII of the URN sections it links to, each field once per URN.
    const pii = billing.slice(billing.indexOf('<h3>Personal data'));
    for (const urn of ['urn:babel:payments:captured', 'urn:babel:orders:created', 'urn:babel:orders:cancelled']) {
      const urnPii = sectionOf(page, urn).match(/<ul class="pii-list">[\s\S]*?<\/ul>/)?.[0] ?? '';
      for (const m of urnPii.matchAll(/<code>([^<]*)<\/code>/g))
        expect(pii).toContain(`<a href="${fragment(urn)}"><code>${urn}</code></a> <code>${m[1]}</code>`);
    }
    expect(pii).toContain('badge pii');
    // mailer handles users:registered, which carries e-mail addresses.
    expect(sectionOf(page, 'service:mailer')).toMatch(/urn:babel:users:registered<\/code><\/a> <code>[^<]*email/);
  });

  it('maps producers → event → consumers: a row per URN, every node a link to its section', () => {
    const map = sectionOf(page, 'services-map');
    const rows = map.split('<li class="flow-row">').slice(1);
    expect(rows).toHaveLength(4);
    for (const e of entries) {
      const row = rows.find((r) => r.includes(`<code>${e.urn}</code>`))!;
      const [from, urn, to] = ['flow-from', 'flow-urn', 'flow-to'].map((c) => row.slice(row.indexOf(`class="${c}"`)).split('</div>')[0]!);
      expect(targets(from!)).toEqual((e.producers ?? []).map((n) => `service:${n}`));
      expect(targets(urn!)).toEqual([e.urn]);
      expect(targets(to!)).toEqual((e.consumers ?? []).map((n) => `service:${n}`));
    }
    // Every link of the page lands on an element of the page, and no two elements share an id.
    const all = ids(page);
    expect(new Set(all).size).toBe(all.length);
    for (const t of targets(page)) expect(all).toContain(t);
  });

  it("names each URN's producers and consumers in its section, and the side list links every service and the map", () => {
    const created = sectionOf(page, 'urn:babel:orders:created');
    expect(created).toMatch(/<dt>Produced by<\/dt><dd><a href="#service:orders">orders<\/a><\/dd>/);
    expect(created).toMatch(
      /<dt>Consumed by<\/dt><dd><a href="#service:billing">billing<\/a>, <a href="#service:shipping">shipping<\/a><\/dd>/,
    );
    const nav = page.slice(page.indexOf('<ul class="svcs"'), page.indexOf('</nav>'));
    expect(targets(nav)).toEqual(['services-map', ...services.map((s) => `service:${s.name}`)]);
    expect(page).toMatch(/4 events · [^<]* · 5 services<\/p>/);
  });

  it('stays the catalog it was without services, and the same bytes every time', () => {
    const plain = buildCatalog({ entries });
    expect(plain).not.toMatch(/data-bq-service|services-map|Produced by/);
    expect(buildCatalog({ entries: exampleEntries(), services: exampleServices() })).toBe(page);
    // Only links inside the page: a repository is shown, not fetched or linked.
    expect(page).not.toMatch(/href="(?!#)|\ssrc=/);
  });
});

describe('hostile service names', () => {
  // Names a URN lists reach the catalog as written (check reports them); declared ones may carry any team or contact.
  const hostile: CatalogService[] = HOSTILE.map((h, i) => ({
    name: h,
    team: h,
    contact: h,
    repository: h,
    declared: i % 2 === 0,
    produces: ['urn:x'],
    consumes: i === 0 ? [h] : [],
  }));
  const long = 'n'.repeat(5000);
  const entries: CatalogEntry[] = [
    { urn: 'urn:x', schema: { type: 'object' }, producers: HOSTILE, consumers: [long] },
    // A URN spelled like a service's id keeps its own anchor; the service takes another.
    { urn: 'service:urn-twin', schema: { type: 'object' }, producers: ['urn-twin'] },
  ];
  const page = buildCatalog({
    entries,
    services: [
      ...hostile,
      { name: long, declared: false, produces: [], consumes: ['urn:x'] },
      { name: 'urn-twin', declared: true, produces: ['service:urn-twin'], consumes: [] },
    ],
  });

  it('are text: no markup, no script, no control character reaches the page raw', () => {
    const body = page.slice(page.indexOf('<body>'), page.indexOf('<script type="application/json"'));
    expect(body).not.toMatch(/<script>window|<img|<svg|<!--/);
    expect(body).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(body).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(body).toContain('ctl\\u0000\\u0001\\u007F\\u0085end');
  });

  it('each get one page whose links land on it, and a URN keeps its own anchor whatever a service is called', () => {
    const all = ids(page);
    expect(new Set(all).size).toBe(all.length);
    for (const t of targets(page)) expect(all).toContain(t);
    expect(page.match(/data-bq-service/g)).toHaveLength(HOSTILE.length + 2);
    for (const h of [...HOSTILE, long]) expect(all).toContain(anchorId(`service:${h}`));
    expect(sectionOf(page, 'service:urn-twin')).toContain('data-bq-event');
    expect(all).toContain('service:urn-twin~2');
    expect(sectionOf(page, 'service:urn-twin~2')).toContain('data-bq-service');
  });
});
