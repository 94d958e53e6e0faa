// The catalog in a real browser: Debian's headless Chromium driven by playwright-core. One browser
// serves the URN pages and the service pages (each test opens a context of its own): a launch costs
// more CPU than most of the tests it serves.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorId, buildCatalog, type CatalogService } from '../../src/catalog/index.js';
import { exampleEntries, exampleServices, HOSTILE, hostileEntries, ROOT } from '../helpers/catalog-example.js';
import { bq, removeTempTrees, tempTree } from '../helpers/cli.js';
import { serve, stop } from '../helpers/serve.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.js';

const ARTIFACTS = join(ROOT, 'test/artifacts');
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`catalog browser test skipped: ${CHROMIUM} is not installed (.ci/run installs Debian's chromium package)`);

interface Opened {
  page: Page;
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Every request for anything but the page itself (data:, file:, about: are local). */
  network: string[];
}

let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS],
  });
});

afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasChromium)(`catalog in headless Chromium (skipped only when ${CHROMIUM} is missing)`, () => {
  let exampleUrl: string;
  let hostileUrl: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const example = buildCatalog({
      title: 'Example registry',
      entries: exampleEntries(),
      history: new Map([
        [
          'urn:babel:orders:created',
          [
            {
              commit: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
              date: '2026-11-20',
              subject: 'orders: coupon may be null',
              verdict: 'compatible',
              changes: ['coupon: type widened to string or null'],
            },
            { commit: '0011223344556677889900112233445566778899', date: '2026-10-01', subject: 'orders: first schema', verdict: 'added' },
          ],
        ],
      ]),
    });
    expect(Buffer.byteLength(example)).toBeLessThan(200 * 1024);
    writeFileSync(join(ARTIFACTS, 'catalog-example.html'), example);
    writeFileSync(join(ARTIFACTS, 'catalog-hostile.html'), buildCatalog({ title: HOSTILE[0], entries: hostileEntries() }));
    writeFileSync(join(ARTIFACTS, 'plain.html'), '<!DOCTYPE html><title>control</title><p>no policy</p>');
    exampleUrl = pathToFileURL(join(ARTIFACTS, 'catalog-example.html')).href;
    hostileUrl = pathToFileURL(join(ARTIFACTS, 'catalog-hostile.html')).href;
  });

  afterAll(() => {
    removeTempTrees();
  });

  async function open(url: string, options: BrowserContextOptions = {}): Promise<Opened> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    const page = await context.newPage();
    const o: Opened = { page, errors: [], network: [] };
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') o.errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => o.errors.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!/^(data|file|about):/.test(r.url())) o.network.push(r.url());
    });
    await page.goto(url);
    return o;
  }

  async function close(o: Opened): Promise<void> {
    expect(o.errors).toEqual([]);
    expect(o.network).toEqual([]);
    await o.page.context().close();
  }

  const visibleItems = (page: Page): Promise<string[]> =>
    page.$$eval('[data-bq-item]:not([hidden]) .urn', (els) => els.map((e) => e.textContent ?? ''));

  it('lists the URNs, searches, filters and follows deep links', async () => {
    const o = await open(exampleUrl);
    const { page } = o;
    expect(await visibleItems(page)).toEqual([
      'urn:babel:orders:cancelled',
      'urn:babel:orders:created',
      'urn:babel:payments:captured',
      'urn:babel:users:registered',
    ]);
    expect(await page.locator('[data-bq="count"]').textContent()).toBe('4 of 4 events');
    expect(await page.locator('[data-bq="filters"]').isVisible()).toBe(true);

    // `/` focuses the search; a field name finds the event that carries it.
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-bq'))).toBe('q');
    await page.keyboard.type('email');
    expect(await visibleItems(page)).toEqual(['urn:babel:users:registered']);
    expect(await page.locator('[data-bq="count"]').textContent()).toBe('1 of 4 events');
    expect(await page.locator('section[data-bq-event]:visible').count()).toBe(1);
    // ArrowDown moves to the first result, Enter follows it.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => location.hash)).toBe('#urn:babel:users:registered');
    expect(await page.evaluate(() => document.querySelector(':target')?.id)).toBe('urn:babel:users:registered');
    // aria-current follows the hashchange event, which fires after navigation, so wait for it (CI once read it a task too early).
    await expect
      .poll(() => page.$$eval('[aria-current="location"] .urn', (els) => els.map((e) => e.textContent)))
      .toEqual(['urn:babel:users:registered']);

    // A search nothing matches says so.
    await page.fill('[data-bq="q"]', 'no such thing');
    expect(await visibleItems(page)).toEqual([]);
    expect(await page.locator('[data-bq="none"]').isVisible()).toBe(true);
    await page.fill('[data-bq="q"]', '');

    // Filters by owner and by personal data.
    await page.selectOption('[data-bq="owner"]', { label: 'orders' });
    expect(await visibleItems(page)).toEqual(['urn:babel:orders:cancelled', 'urn:babel:orders:created']);
    await page.selectOption('[data-bq="owner"]', { label: 'All owners' });
    await page.selectOption('[data-bq="pii"]', { value: 'yes' });
    expect(await visibleItems(page)).toEqual(['urn:babel:payments:captured', 'urn:babel:users:registered']);

    // A deep link to an event the filters hide clears the filters.
    await page.evaluate(() => {
      location.hash = '#urn:babel:orders:created';
    });
    await page.waitForFunction(() => (document.getElementById('urn:babel:orders:created') as HTMLElement).hidden === false);
    expect(await visibleItems(page)).toHaveLength(4);
    await close(o);
  });

  it('opens a deep link with its PII badges visible', async () => {
    const o = await open(exampleUrl + '#urn:babel:users:registered');
    const section = o.page.locator('section[id="urn:babel:users:registered"]');
    expect(await o.page.evaluate(() => document.querySelector(':target')?.id)).toBe('urn:babel:users:registered');
    const box = await section.boundingBox();
    expect(box!.y).toBeLessThan(50); // scrolled to the top
    const badge = section.locator('.field .badge.pii', { hasText: 'PII · email' });
    await expect.poll(() => badge.isVisible()).toBe(true);
    expect(await section.locator('.field .badge.pii').count()).toBe(6);
    await o.page.screenshot({ path: join(ARTIFACTS, 'catalog-deeplink.png') });
    await close(o);
  });

  it('is reachable by Tab: the search, the three filters, then the event links', async () => {
    const o = await open(exampleUrl);
    const focused = async (): Promise<string> =>
      o.page.evaluate(() => {
        const e = document.activeElement as HTMLElement;
        return e.getAttribute('data-bq') ?? e.getAttribute('href') ?? e.tagName;
      });
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await o.page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual(['q', 'owner', 'status', 'pii', '#urn:babel:orders:cancelled', '#urn:babel:orders:created']);
    await o.page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('#urn:babel:payments:captured');
    await close(o);
  });

  it('is readable without JavaScript', async () => {
    const o = await open(exampleUrl, { javaScriptEnabled: false });
    expect(await o.page.locator('section[data-bq-event]:visible').count()).toBe(4);
    expect(await o.page.locator('[data-bq="filters"]').isVisible()).toBe(false);
    expect(await o.page.locator('noscript').count()).toBe(1);
    expect(await o.page.getByText('3 to 32 characters').first().isVisible()).toBe(true);
    await close(o);
  });

  it('keeps the compat-history headers and verdict badges on one line at 1,400 px (they wrapped mid-word: "Compa t", "adde d")', async () => {
    const long = `/properties/${'shipping_address_line_'.repeat(12)}: type narrowed from string or null to string (type-narrowed)`;
    const verdicts = ['added', 'compatible', 'breaking', 'unchanged'] as const;
    const history = verdicts.map((verdict, i) => ({
      commit: `${i}`.repeat(40),
      date: `2026-11-0${i + 1}`,
      subject: `${'a very long commit subject '.repeat(6)}${i}`,
      verdict,
      changes: [long, long.replace(/_/g, '')],
    }));
    const page = buildCatalog({
      title: 'History',
      entries: exampleEntries(),
      history: new Map(exampleEntries().map((e) => [e.urn, history])),
    });
    writeFileSync(join(ARTIFACTS, 'catalog-history.html'), page);
    for (const width of [1400, 1000]) {
      const o = await open(pathToFileURL(join(ARTIFACTS, 'catalog-history.html')).href, { viewport: { width, height: 900 } });
      // The number of line boxes of each element's text: one means it did not wrap.
      const lines = await o.page.$$eval(
        'section[data-bq-event] table th, section[data-bq-event] table td.nw, section[data-bq-event] table .badge',
        (els) =>
          els.map((el) => {
            // Each text node's line boxes (an inline-block badge adds a box of its own to a range over its cell).
            const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            let most = 0;
            for (let t = walk.nextNode(); t !== null; t = walk.nextNode()) {
              const range = document.createRange();
              range.selectNodeContents(t);
              most = Math.max(most, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size);
            }
            return `${el.textContent ?? ''}:${most}`;
          }),
      );
      expect(lines.length).toBeGreaterThan(4 * 4 * 2); // every event's table: 4 headers, 4 rows of date, commit, verdict
      expect(
        lines.filter((l) => !l.endsWith(':1')),
        `wrapped at ${width} px`,
      ).toEqual([]);
      await close(o);
    }
  });

  it('shows a deprecation (dates, reason, a link to its replacement) and a changelog whose hostile subjects, authors and rule messages stay text', async () => {
    const [orders, ...rest] = exampleEntries();
    const replacement = rest[0]!.urn;
    const entries = [
      { ...orders!, status: 'deprecated', deprecated: { since: '2026-01-31', sunset: '2026-06-30', replacement, reason: HOSTILE[1]! } },
      ...rest,
    ];
    const changelog = HOSTILE.slice(0, 5).map((h, i) => ({
      commit: `${i}`.repeat(40),
      date: `2026-11-0${i + 1}`,
      author: h,
      subject: h,
      verdict: 'compatible' as const,
      deprecated: i < 2,
      rules: [{ rule: 'property-added', path: `/properties/${h}`, message: h, backward: false, forward: i % 2 === 0 }],
    }));
    const page = buildCatalog({ title: 'Changelog', entries, history: new Map([[orders!.urn, changelog]]) });
    writeFileSync(join(ARTIFACTS, 'catalog-changelog.html'), page);
    const o = await open(pathToFileURL(join(ARTIFACTS, 'catalog-changelog.html')).href);
    const section = o.page.locator(`section[id="${anchorId(orders!.urn)}"]`);
    const notice = section.locator('[data-bq="deprecation"]');
    expect(await notice.textContent()).toBe(
      `Deprecated (since 2026-01-31; sunset 2026-06-30: it may be removed from that day): do not start producing or consuming this event; use ${replacement} instead. Why: ${HOSTILE[1]}.`,
    );
    await notice.locator('a').click();
    expect(await o.page.evaluate(() => document.querySelector(':target')?.id)).toBe(anchorId(replacement));
    // Each changelog row: its author, subject and rule as text, the modes it breaks, the deprecation state.
    const rows = await section
      .locator('table tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(rows).toEqual(
      changelog.map((h, i) => [
        h.date,
        h.commit.slice(0, 12),
        h.author,
        `compatible${i < 2 ? ' deprecated' : ''}`,
        `${h.subject}${i % 2 === 0 ? 'breaks forward' : 'compatible'} property-added /properties/${h.author}: ${h.author}`,
      ]),
    );
    expect(await section.locator('table th').allTextContents()).toEqual(['Date', 'Commit', 'Author', 'Compat', 'Change']);
    expect(await o.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await o.page.locator('img, svg').count()).toBe(0);
    await close(o);
  });

  it('follows the dark colour scheme and fits a 360 px phone', async () => {
    const light = await open(exampleUrl);
    const dark = await open(exampleUrl, { colorScheme: 'dark' });
    const bg = (p: Page): Promise<string> => p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await bg(light.page)).toBe('rgb(247, 247, 245)');
    expect(await bg(dark.page)).toBe('rgb(19, 21, 24)');
    await light.page.screenshot({ path: join(ARTIFACTS, 'catalog-light.png') });
    await dark.page.screenshot({ path: join(ARTIFACTS, 'catalog-dark.png') });
    await close(light);
    await close(dark);

    const phone = await open(exampleUrl + '#urn:babel:orders:created', {
      viewport: { width: 360, height: 780 },
      isMobile: true,
      hasTouch: true,
    });
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await phone.page.screenshot({ path: join(ARTIFACTS, 'catalog-phone.png') });
    await close(phone);
  });

  it('enforces its Content-Security-Policy: an injected script does not run, nothing connects', async () => {
    // What a page script could try if escaping ever failed. A plain page is the control: there the
    // same attempts run and reach the network, so the checks below can see a missing policy.
    const attempt = (page: Page): Promise<{ pwned: unknown; fetched: boolean }> =>
      page.evaluate(async () => {
        const s = document.createElement('script');
        s.textContent = 'window.__pwned = "inline"';
        document.body.append(s);
        const img = document.createElement('img');
        img.src = 'http://127.0.0.1:9/x.png';
        document.body.append(img);
        let fetched = true;
        await fetch('http://127.0.0.1:9/').catch(() => {
          fetched = false;
        });
        return { pwned: (window as unknown as { __pwned?: unknown }).__pwned, fetched };
      });
    const control = await open(pathToFileURL(join(ARTIFACTS, 'plain.html')).href);
    expect(await attempt(control.page)).toEqual({ pwned: 'inline', fetched: false });
    expect(control.network).toContain('http://127.0.0.1:9/');
    await control.page.context().close();

    const o = await open(exampleUrl);
    expect(await attempt(o.page)).toEqual({ pwned: undefined, fetched: false });
    expect(o.network).not.toContain('http://127.0.0.1:9/'); // refused before any connection
    const refusals = o.errors.join('\n');
    expect(refusals).toMatch(/Executing inline script violates the following Content Security Policy directive/);
    expect(refusals).toMatch(/Connecting to 'http:\/\/127\.0\.0\.1:9\/' violates the following Content Security Policy directive/);
    expect(refusals).toMatch(
      /Loading the image 'http:\/\/127\.0\.0\.1:9\/x\.png' violates the following Content Security Policy directive/,
    );
    await o.page.context().close();
  });

  it('a catalog the CLI writes, and serve --catalog, from hostile files on disk: URNs, file names, descriptions, enum values and example messages run nothing and show as text', async () => {
    // What a registry on disk can hold: names with markup (no `/`, which a file name cannot hold).
    const bad = [
      '<script>window.__pwned=11</script>',
      '<img src=x onerror="window.__pwned=12">',
      '<!--',
      '--><svg onload=window.__pwned=13>',
    ];
    const files: Record<string, string> = {};
    const schemas = bad.map((b, i) => {
      const file = `s${i}${b.replace(/\//g, '')}.json`;
      files[file] = JSON.stringify({
        type: 'object',
        description: b,
        properties: { [b]: { type: 'string', description: b, enum: [b, `${b}2`] } },
      });
      files[`msgs/m${i}.json`] = JSON.stringify({ job: `urn:t:${b}`, data: { [b]: b } });
      return { urn: `urn:t:${b}`, schema: file, owner: b, description: b };
    });
    files['registry.json'] = JSON.stringify({ schemas });
    const dir = tempTree(files);
    const written = await bq(['catalog', '--no-history', '--title', bad[1]!, '--messages', 'msgs', '-o', 'catalog.html'], { cwd: dir });
    expect(written.code, written.stderr).toBe(0);
    const served = await serve(['--catalog'], { cwd: dir });
    try {
      for (const url of [pathToFileURL(join(dir, 'catalog.html')).href, `http://127.0.0.1:${served.port}/catalog`]) {
        const o = await open(url);
        const { page } = o;
        expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), url).toBeUndefined();
        expect(await page.evaluate(() => document.querySelectorAll('img, svg, iframe, object, embed').length), url).toBe(0);
        expect(await page.evaluate(() => document.querySelectorAll('script').length), url).toBe(2);
        // The --title of the written file (serve's page has its default title).
        expect(await page.title()).toBe(url.startsWith('file:') ? bad[1] : 'Event catalog');
        // Every event is there (a `<!--` of input hid none after it), under its URN as written.
        const headings = await page.$$eval('section h2', (els) => els.map((e) => e.textContent));
        for (const b of bad) expect(headings, url).toContain(`urn:t:${b}`);
        expect(await page.$$eval('section[data-bq-event]', (els) => els.length)).toBe(bad.length);
        // The schema files' names, descriptions and enum values are text on the page.
        const text = await page.evaluate(() => document.body.innerText);
        for (const b of bad) expect(text, url).toContain(b);
        expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), url).toBeUndefined();
        expect(o.errors, url).toEqual([]);
        expect(
          o.network.filter((u) => u !== url),
          url,
        ).toEqual([]);
        await page.context().close();
      }
    } finally {
      await stop(served);
    }
  });

  it('runs nothing from a hostile registry and shows its names as text', async () => {
    const o = await open(hostileUrl);
    const { page } = o;
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.evaluate(() => document.querySelectorAll('script').length)).toBe(2);
    expect(await page.evaluate(() => document.querySelectorAll('img, svg, iframe, object, embed').length)).toBe(0);
    expect(await page.title()).toBe(HOSTILE[0]);
    // The names read as written (those without control characters, which are shown as \uXXXX).
    const headings = await page.$$eval('section h2', (els) => els.map((e) => e.textContent));
    for (const h of HOSTILE.slice(1, 8)) expect(headings).toContain(`urn:${h}`);
    expect(headings).toContain(HOSTILE[0]);
    // Search works on the hostile text, and every link reaches its section.
    await page.fill('[data-bq="q"]', 'urn:</s'); // property names are hostile in every event; the URN prefix is not
    expect(await visibleItems(page)).toEqual(
      ['urn:</script><script>window.__pwned=5</script>', 'urn:</style><script>window.__pwned=4</script>'].sort(),
    );
    await page.fill('[data-bq="q"]', '');
    const urns = hostileEntries()
      .map((e) => e.urn)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const ids = await page.$$eval('section[data-bq-event]', (els) => els.map((e) => e.id));
    expect(ids).toEqual(urns.map(anchorId));
    for (let i = 0; i < ids.length; i++) {
      await page.locator('[data-bq-item] a').nth(i).click();
      expect(await page.evaluate(() => document.querySelector(':target')?.id), urns[i]).toBe(ids[i]);
    }
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    await page.screenshot({ path: join(ARTIFACTS, 'catalog-hostile.png'), fullPage: false });
    // Long names without spaces wrap rather than widen a phone's page.
    await page.setViewportSize({ width: 360, height: 780 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await close(o);
  });
});

const WIDTHS = [360, 1400] as const;

/** Hostile service names, one very long, each producing or consuming the one URN. */
function hostileServices(): CatalogService[] {
  const names = [...HOSTILE, 'x'.repeat(3000), 'WIDE_'.repeat(400)];
  return names.map((name, i) => ({
    name,
    team: name,
    contact: name,
    repository: name,
    declared: i % 2 === 0,
    produces: i % 3 === 0 ? ['urn:h:event'] : [],
    consumes: i % 3 === 0 ? [] : ['urn:h:event'],
  }));
}

// The service pages and the map of producers → events → consumers.
describe.skipIf(!hasChromium)(`catalog services in headless Chromium (skipped only when ${CHROMIUM} is missing)`, () => {
  let exampleUrl: string;
  let hostileUrl: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(
      join(ARTIFACTS, 'catalog-services.html'),
      buildCatalog({ title: 'Example registry', entries: exampleEntries(), services: exampleServices() }),
    );
    const services = hostileServices();
    writeFileSync(
      join(ARTIFACTS, 'catalog-services-hostile.html'),
      buildCatalog({
        title: 'Hostile services',
        entries: [
          {
            urn: 'urn:h:event',
            schema: { type: 'object' },
            producers: services.filter((s) => s.produces.length > 0).map((s) => s.name),
            consumers: services.filter((s) => s.consumes.length > 0).map((s) => s.name),
          },
        ],
        services,
      }),
    );
    exampleUrl = pathToFileURL(join(ARTIFACTS, 'catalog-services.html')).href;
    hostileUrl = pathToFileURL(join(ARTIFACTS, 'catalog-services-hostile.html')).href;
  });

  /** The page at a width, with its console errors and any request that leaves the file. */
  async function open(url: string, width: number): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({
      viewport: { width, height: 800 },
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!/^(data|file|about):/.test(r.url())) problems.push(`request: ${r.url()}`);
    });
    await page.goto(url);
    return { page, problems };
  }

  /** The id of every service's section, as the page has it. */
  const serviceIds = (page: Page): Promise<string[]> => page.$$eval('[data-bq-service]', (els) => els.map((e) => e.id));

  /**
   * Tab through the whole page once: for each stop, where its link points (the id it names), whether it
   * sits in the map, and whether its focus is visible (an outline is drawn).
   */
  async function tabStops(page: Page): Promise<Array<{ target: string; inMap: boolean; outlined: boolean }>> {
    const count = await page.$$eval('a[href], input, select, summary', (els) => els.length);
    const stops: Array<{ target: string; inMap: boolean; outlined: boolean }> = [];
    for (let i = 0; i < count + 2; i++) {
      await page.keyboard.press('Tab');
      stops.push(
        await page.evaluate(() => {
          const e = document.activeElement as HTMLElement;
          const href = e.getAttribute('href');
          let target = '';
          if (href !== null && href.startsWith('#')) {
            try {
              target = decodeURIComponent(href.slice(1));
            } catch {
              target = href;
            }
          }
          const style = getComputedStyle(e);
          return {
            target,
            inMap: e.closest('[data-bq="map"]') !== null,
            outlined: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
          };
        }),
      );
    }
    return stops;
  }

  for (const width of WIDTHS) {
    it(`at ${width} px: the page does not overflow, every service is reachable by Tab (side list and map) with a visible focus`, async () => {
      const { page, problems } = await open(exampleUrl, width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      const ids = await serviceIds(page);
      expect(ids).toEqual(['service:orders', 'service:billing', 'service:shipping', 'service:identity', 'service:mailer']);
      const stops = await tabStops(page);
      for (const id of ids) {
        expect(stops.filter((s) => s.target === id && !s.inMap).length, `${id} from the side list`).toBeGreaterThan(0);
        expect(stops.filter((s) => s.target === id && s.inMap).length, `${id} from the map`).toBeGreaterThan(0);
      }
      // Every event of the map is a stop too, and every stop that is a link shows its focus.
      for (const urn of [
        'urn:babel:orders:created',
        'urn:babel:orders:cancelled',
        'urn:babel:users:registered',
        'urn:babel:payments:captured',
      ]) {
        expect(
          stops.some((s) => s.target === urn && s.inMap),
          urn,
        ).toBe(true);
      }
      expect(stops.filter((s) => s.target !== '' && !s.outlined)).toEqual([]);
      await page.locator('[data-bq="map"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, `catalog-services-map-${width}.png`) });
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it(`at ${width} px: the map's links land on the service's and the event's sections, and a service's links on its events`, async () => {
      const { page, problems } = await open(exampleUrl, width);
      const landed = async (): Promise<{ hash: string; targetId: string | null; inView: boolean }> =>
        page.evaluate(() => {
          const t = document.querySelector(':target');
          const r = t?.getBoundingClientRect();
          return {
            hash: decodeURIComponent(location.hash.slice(1)),
            targetId: t?.id ?? null,
            inView: r !== undefined && r.top >= -1 && r.top < innerHeight,
          };
        });
      // By keyboard: focus the map's "mailer" node and press Enter.
      await page
        .locator('[data-bq="map"] a.node', { hasText: /^mailer$/ })
        .first()
        .focus();
      await page.keyboard.press('Enter');
      expect(await landed()).toEqual({ hash: 'service:mailer', targetId: 'service:mailer', inView: true });
      expect(await page.locator(':target h2').innerText()).toMatch(/^mailer/);
      // From mailer's page to an event it consumes, then to the event's producer.
      await page.locator(':target a', { hasText: 'urn:babel:users:registered' }).first().click();
      expect(await landed()).toEqual({ hash: 'urn:babel:users:registered', targetId: 'urn:babel:users:registered', inView: true });
      await page.locator(':target dd a', { hasText: /^identity$/ }).click();
      expect(await landed()).toEqual({ hash: 'service:identity', targetId: 'service:identity', inView: true });
      // The map's event node lands on the event.
      await page.locator('[data-bq="map"] a.urn-node', { hasText: 'urn:babel:payments:captured' }).click();
      expect(await landed()).toEqual({ hash: 'urn:babel:payments:captured', targetId: 'urn:babel:payments:captured', inView: true });
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it(`at ${width} px: hostile service names run nothing, show as text, fit the page and each get a page reachable by Tab`, async () => {
      const { page, problems } = await open(hostileUrl, width);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await page.locator('img, svg, iframe').count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      const ids = await serviceIds(page);
      expect(ids).toHaveLength(HOSTILE.length + 2);
      const headings = await page.$$eval('[data-bq-service] h2 a', (els) => els.map((e) => e.textContent ?? ''));
      expect(headings).toContain('<script>window.__pwned=1</script>');
      expect(headings).toContain('ctl\\u0000\\u0001\\u007F\\u0085end');
      const stops = await tabStops(page);
      for (const id of ids)
        expect(
          stops.some((s) => s.target === id),
          id.slice(0, 80),
        ).toBe(true);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  }
});
