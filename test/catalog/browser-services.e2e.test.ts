// The catalog's service pages and its map of producers → events → consumers in a real browser
// (Debian's headless Chromium driven by playwright-core, as browser.e2e.test.ts drives the URN pages).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, type CatalogService } from '../../src/catalog/index.js';
import { exampleEntries, exampleServices, HOSTILE, ROOT } from '../helpers/catalog-example.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test/artifacts');
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`catalog services browser test skipped: ${CHROMIUM} is not installed (.ci/run installs Debian's chromium package)`);

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

describe.skipIf(!hasChromium)(`catalog services in headless Chromium (skipped only when ${CHROMIUM} is missing)`, () => {
  let browser: Browser;
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
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
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
