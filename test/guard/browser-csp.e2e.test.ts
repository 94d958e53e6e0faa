// The library where eval is forbidden, in a real browser. Debian's headless
// Chromium (driven by playwright-core) loads a page served with `Content-Security-Policy:
// script-src 'self'` (no 'unsafe-eval'); the page imports the browser build (dist/browser.js, as
// ES modules straight from dist/: its graph has only relative imports) and a standalone module
// `bqschema compile` would write, and runs every contract validation case through `check`,
// `compile` and the standalone validators. Their verdicts must be the contract's, and their
// violations those compile() gives in Node with generated code. Negative control: on that page
// `new Function` really is refused (and the CSP reports it), while on the same page served
// without the policy it runs. The page also reads a schema through HttpProvider (fetch, Basic
// credentials, an unknown subject, a redirect that must fail static).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/validator/index.js';
import { standaloneModule } from '../../src/compile/module.js';
import { ROOT } from '../helpers/cli.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.js';
import { contractPairs } from '../helpers/validator-cases.js';

const CSP = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'";
const DIST = join(ROOT, 'dist');
const HTTP_SCHEMA = { type: 'object', required: ['order_id'], properties: { order_id: { type: 'integer' } } };

/** One contract case as the page gets it: its schema's URN (one per distinct schema) and data as JSON text. */
interface PageCase {
  urn: string;
  schema: unknown;
  text: string;
  valid: boolean;
  what: string;
}
interface Answer {
  checkViolations?: unknown[];
  isValid?: boolean;
  violations?: unknown[];
  standaloneValid?: boolean;
  standaloneViolations?: unknown[];
  error?: string;
}
interface Http {
  invalid?: unknown[];
  valid?: unknown[];
  absent?: unknown[];
  redirect?: string;
}
interface Report {
  http: Http;
  evalRefused: boolean;
  evalError: string;
  cspViolations: string[];
  answers: Answer[];
  warned: string[];
  hasProcess: boolean;
}

// What the page runs: a module script, so 'self' allows it; everything else it loads is /dist/… or JSON.
const PAGE_SCRIPT = `
const report = { http: {}, evalRefused: false, evalError: '', cspViolations: [], answers: [], warned: [], hasProcess: typeof process !== 'undefined' };
document.addEventListener('securitypolicyviolation', (e) => report.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
try {
  new Function('return 1')();
} catch (e) {
  report.evalRefused = true;
  report.evalError = e.name + ': ' + e.message;
}
try {
  const { check, compile, MapProvider } = await import('/dist/browser.js');
  const { validators } = await import('/validators.js');
  const cases = await (await fetch('/cases.json')).json();
  const providers = new Map();
  for (const c of cases) {
    try {
      let provider = providers.get(c.urn);
      if (provider === undefined) providers.set(c.urn, (provider = new MapProvider({ [c.urn]: c.schema }, { onWarning: () => {} })));
      const compiled = compile(c.schema, { onWarning: () => {} });
      const data = JSON.parse(c.text);
      const standalone = validators.get(c.urn);
      report.answers.push({
        checkViolations: check(provider, c.urn, data), isValid: compiled.isValid(data), violations: compiled.validate(data),
        standaloneValid: standalone.isValid(data), standaloneViolations: standalone.validate(data),
      });
    } catch (e) {
      report.answers.push({ error: String(e) });
    }
  }
  // HttpProvider over fetch: Basic credentials from the URL (non-ASCII, so UTF-8 then base64), a
  // schema, an unknown subject, and a redirect, which a browser answers as 'opaqueredirect'.
  const { HttpProvider, checkAsync } = await import('/dist/browser.js');
  const at = new URL('/registry', location.href);
  at.username = 'bq';
  at.password = 'p\u00e4ss';
  const http = new HttpProvider(at.href, { onWarning: () => {} });
  report.http.invalid = await checkAsync(http, 'urn:http:order', { order_id: 'x' });
  report.http.valid = await checkAsync(http, 'urn:http:order', { order_id: 1 });
  report.http.absent = await checkAsync(http, 'urn:http:none', { anything: true });
  try {
    await checkAsync(new HttpProvider(new URL('/redirect', location.href).href), 'urn:http:order', {});
    report.http.redirect = 'accepted';
  } catch (e) {
    report.http.redirect = e.name + ': ' + e.message;
  }
  // No onWarning and no process.emitWarning: the warning goes to console.warn.
  const warn = console.warn;
  console.warn = (...args) => report.warned.push(args.join(' '));
  compile({ type: 'string', format: 'email' });
  console.warn = warn;
} catch (e) {
  report.error = String(e && e.stack || e);
}
window.__report = report;
`;

const page = (title: string): string =>
  `<!DOCTYPE html><meta charset="utf-8"><title>${title}</title><script type="module" src="/page.js"></script>`;

let server: Server;
let base = '';
let context: BrowserContext | undefined;
let profile = '';
const cases: PageCase[] = [];
const served: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: this test needs Debian's Chromium (apt-get install chromium; .ci/run installs it)`);
  }
  if (!existsSync(join(DIST, 'browser.js'))) throw new Error('dist/browser.js is missing: run npm run build');
  const urns = new Map<string, string>();
  for (const p of contractPairs()) {
    const key = JSON.stringify(p.schema);
    let urn = urns.get(key);
    if (urn === undefined) urns.set(key, (urn = `urn:contract:${urns.size}`));
    cases.push({ urn, schema: p.schema, text: p.text ?? JSON.stringify(p.data), valid: p.valid!, what: p.what });
  }
  const schemas = [...urns].map(([key, urn]) => ({ urn, schema: JSON.parse(key) as unknown }));
  // The module bqschema compile writes, importing its runtime by the path the page serves it at.
  const validators = standaloneModule(schemas, { runtime: '/dist/standalone/index.js' });
  const casesJson = JSON.stringify(cases.map(({ urn, schema, text }) => ({ urn, schema, text })));

  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    served.push(url.pathname);
    const send = (type: string, body: string | Buffer, headers: Record<string, string> = {}): void => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    if (req.method !== 'GET') return void res.writeHead(405).end();
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    if (url.pathname === '/csp.html') return send('text/html; charset=utf-8', page('csp'), { 'content-security-policy': CSP });
    if (url.pathname === '/open.html') return send('text/html; charset=utf-8', page('no policy'));
    if (url.pathname === '/page.js') return send('text/javascript', PAGE_SCRIPT);
    if (url.pathname === '/validators.js') return send('text/javascript', validators);
    if (url.pathname === '/cases.json') return send('application/json', casesJson);
    // A Confluent-style registry for HttpProvider: one subject, behind Basic credentials.
    if (url.pathname.startsWith('/registry/')) {
      if (req.headers.authorization !== `Basic ${Buffer.from('bq:p\u00e4ss', 'utf8').toString('base64')}`)
        return void res.writeHead(401).end();
      if (url.pathname === '/registry/subjects/urn%3Ahttp%3Aorder/versions/latest') {
        return send(
          'application/json',
          JSON.stringify({ subject: 'urn:http:order', version: 1, id: 1, schema: JSON.stringify(HTTP_SCHEMA) }),
        );
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error_code: 40401, message: 'Subject not found' }));
    }
    if (url.pathname.startsWith('/redirect/')) return void res.writeHead(302, { location: '/registry/subjects/x/versions/latest' }).end();
    // The build, as ES modules: only .js files under dist/.
    const file = resolve(DIST, '.' + decodeURIComponent(url.pathname.replace(/^\/dist/, '')));
    if (url.pathname.startsWith('/dist/') && file.startsWith(DIST + sep) && file.endsWith('.js') && existsSync(file)) {
      return send('text/javascript', readFileSync(file));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  profile = mkdtempSync(join(tmpdir(), 'bq-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function load(path: string): Promise<{ report: Report & { error?: string }; errors: string[] }> {
  const tab = await context!.newPage();
  const errors: string[] = [];
  tab.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  tab.on('console', (m) => {
    // The refused `new Function` is the one error the policy must log.
    // So is the 404 of the unknown subject the page asks HttpProvider for (a missing module would fail the import instead).
    if (
      m.type() === 'error' &&
      !/Refused to evaluate a string as JavaScript because 'unsafe-eval'|status of 404 \(Not Found\)/.test(m.text())
    )
      errors.push(m.text());
  });
  await tab.goto(base + path);
  await tab.waitForFunction(() => (window as unknown as { __report?: unknown }).__report !== undefined, undefined, { timeout: 60_000 });
  const report = await tab.evaluate(() => (window as unknown as { __report: Report }).__report);
  await tab.close();
  return { report, errors };
}

describe('the browser build in headless Chromium', { timeout: 120_000 }, () => {
  it("under script-src 'self' (no 'unsafe-eval'): new Function is refused, and check, compile and the standalone validators give every contract verdict", async () => {
    const { report, errors } = await load('/csp.html');
    expect(report.error).toBeUndefined();
    expect(errors).toEqual([]);
    // The negative control: code generation really is refused on this page, by its policy.
    expect(report.evalRefused).toBe(true);
    expect(report.evalError).toMatch(/^EvalError: /);
    expect(report.cspViolations.some((v) => v.startsWith('script-src') && v.endsWith('eval'))).toBe(true);
    expect(report.hasProcess).toBe(false);

    expect(cases.length).toBeGreaterThan(100);
    expect(report.answers).toHaveLength(cases.length);
    cases.forEach((c, i) => {
      const a = report.answers[i]!;
      expect(a.error, c.what).toBeUndefined();
      const expected = compile(c.schema, { onWarning: () => {} }).validate(JSON.parse(c.text));
      expect(a.checkViolations!.length === 0, `check: ${c.what}`).toBe(c.valid);
      expect(a.isValid, `compile: ${c.what}`).toBe(c.valid);
      expect(a.standaloneValid, `standalone: ${c.what}`).toBe(c.valid);
      expect(a.checkViolations, c.what).toEqual(expected);
      expect(a.violations, c.what).toEqual(expected);
      expect(a.standaloneViolations, c.what).toEqual(expected);
    });
    // Valid and invalid cases both: a page that judged everything one way would fail above.
    expect(new Set(cases.map((c) => c.valid))).toEqual(new Set([true, false]));

    // HttpProvider in the page: the registry's schema is enforced, an unknown subject is not validated
    // (opt-in per URN), and a redirect fails static, as in Node.
    const expected = compile(HTTP_SCHEMA).validate({ order_id: 'x' });
    expect(expected.length).toBeGreaterThan(0);
    expect(report.http.invalid).toEqual(expected);
    expect(report.http.valid).toEqual([]);
    expect(report.http.absent).toEqual([]);
    expect(report.http.redirect).toMatch(/^RegistryError: .*redirect/);
    expect(served).toContain('/registry/subjects/urn%3Ahttp%3Aorder/versions/latest');
    expect(served).toContain('/registry/subjects/urn%3Ahttp%3Anone/versions/latest');

    expect(report.warned).toHaveLength(1);
    expect(report.warned[0]).toMatch(/^BABELQUEUE_UNSUPPORTED_SCHEMA_KEYWORD: .*"format"/);
    expect(served).toContain('/dist/browser.js');
    expect(served).toContain('/dist/standalone/index.js');
  });

  it("the same page without the policy runs new Function (so the refusal above is the policy's)", async () => {
    const { report, errors } = await load('/open.html');
    expect(report.error).toBeUndefined();
    expect(errors).toEqual([]);
    expect(report.evalRefused).toBe(false);
    expect(report.cspViolations).toEqual([]);
    expect(report.answers.filter((a) => a.error !== undefined)).toEqual([]);
  });
});
