import { createHash } from 'node:crypto';
import { SafeHtml } from './html.js';

/*
 * The catalog's only style sheet and script. Both are constants (the data travels in a JSON block),
 * so the Content-Security-Policy can allow exactly these two by hash: an injected <style> or
 * <script> would not run even if escaping failed somewhere.
 */

const STYLE = `
:root{color-scheme:light dark;--bg:#f7f7f5;--fg:#1d1f23;--dim:#5b626d;--line:#dcdfe4;--card:#fff;--accent:#1d5fc4;--code:#eef1f4;
--pii-bg:#fde4e4;--pii-fg:#8f1a1a;--req-bg:#e4eefc;--req-fg:#1a4a93;--warn-bg:#fff1cc;--warn-fg:#6d4a00;--bad-bg:#fbe0de;--bad-fg:#8a1c16;
--ok-bg:#dff3e5;--ok-fg:#1b6231;--mute-bg:#eceef1;--mute-fg:#4a515b}
@media (prefers-color-scheme:dark){:root{--bg:#131518;--fg:#e3e6ea;--dim:#9ba4af;--line:#2d3238;--card:#1b1e22;--accent:#82b1ff;--code:#252a30;
--pii-bg:#4d1f22;--pii-fg:#ffc0c0;--req-bg:#1d3152;--req-fg:#b9d2ff;--warn-bg:#47390f;--warn-fg:#ffdf8a;--bad-bg:#4f1f1c;--bad-fg:#ffb8b0;
--ok-bg:#17402a;--ok-fg:#a6e8bd;--mute-bg:#2b3036;--mute-fg:#c3c9d1}}
*{box-sizing:border-box}
body{margin:0;overflow-wrap:anywhere;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif}
code,pre,.urn{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.88em}
a{color:var(--accent)}
.masthead{padding:14px 20px;border-bottom:1px solid var(--line);background:var(--card)}
.masthead h1{margin:0;font-size:1.35rem;overflow-wrap:anywhere}
.masthead p{margin:2px 0 0;color:var(--dim)}
.layout{display:grid;grid-template-columns:minmax(250px,330px) minmax(0,1fr)}
.side{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:14px}
main{padding:14px 20px;min-width:0;border-left:1px solid var(--line)}
.filters{display:grid;gap:8px;margin-bottom:10px}
.filters label{display:grid;gap:2px;font-size:.82rem;color:var(--dim)}
.filters input,.filters select{font:inherit;font-size:.95rem;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:6px;padding:5px 8px;width:100%}
.count{margin:0;font-size:.82rem;color:var(--dim)}
kbd{font:inherit;font-size:.8em;border:1px solid var(--line);border-radius:4px;padding:0 4px}
.urns{list-style:none;margin:0;padding:0}
.urns a{display:block;padding:6px 8px;border-radius:6px;color:inherit;text-decoration:none}
.urns a:hover,.urns a[aria-current]{background:var(--code)}
.urns a[aria-current] .urn{font-weight:600}
.urns .urn{display:block;overflow-wrap:anywhere;color:var(--accent)}
.urns .meta{display:block;font-size:.8rem;color:var(--dim);overflow-wrap:anywhere}
a:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:2px solid var(--accent);outline-offset:1px}
.event{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin:0 0 16px;scroll-margin-top:8px}
.event:target{border-color:var(--accent);box-shadow:0 0 0 1px var(--accent)}
.event h2{margin:0;font-size:1.12rem;overflow-wrap:anywhere}
.event h2 a{color:inherit;text-decoration:none}
.event h2 a:hover{text-decoration:underline}
.event h3{margin:16px 0 6px;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--dim)}
.desc{margin:4px 0 8px}
.facts{display:flex;flex-wrap:wrap;gap:4px 22px;margin:8px 0}
.facts div{min-width:0}
.facts dt{font-size:.75rem;color:var(--dim)}
.facts dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:.75rem;line-height:1.6;overflow-wrap:anywhere;background:var(--mute-bg);color:var(--mute-fg)}
.badge.pii{background:var(--pii-bg);color:var(--pii-fg);font-weight:600}
.badge.req{background:var(--req-bg);color:var(--req-fg)}
.badge.noenf,.badge.st-deprecated,.badge.v-breaking{background:var(--warn-bg);color:var(--warn-fg)}
.badge.malformed,.badge.invalid{background:var(--bad-bg);color:var(--bad-fg)}
.badge.valid,.badge.st-active,.badge.v-compatible,.badge.v-added{background:var(--ok-bg);color:var(--ok-fg)}
.v-breaking{font-weight:600}
.notice{border-radius:6px;padding:8px 10px;margin:8px 0;font-size:.9rem}
.notice.warn{background:var(--warn-bg);color:var(--warn-fg)}
.notice.bad{background:var(--bad-bg);color:var(--bad-fg)}
.notice ul{margin:4px 0 0;padding-left:18px}
.tree{list-style:none;margin:0;padding-left:16px;border-left:1px solid var(--line)}
.tree.rootlist{padding-left:0;border-left:0}
.field{padding:3px 0 3px 2px}
.row{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:baseline}
.name{font-weight:600;overflow-wrap:anywhere}
.name.meta,.name.root{font-weight:400;font-style:italic;color:var(--dim)}
.type{color:var(--dim);font-size:.85rem}
.rules{margin:0;font-size:.85rem}
.fdesc{margin:0;font-size:.85rem;color:var(--dim);overflow-wrap:anywhere}
.fdesc strong{color:var(--fg)}
.dim{color:var(--dim)}
.notes{list-style:none;margin:2px 0;padding:0;font-size:.85rem}
.notes li{overflow-wrap:anywhere}
.more{color:var(--dim);font-style:italic}
.pii-list{margin:0;padding-left:18px}
.examples{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,340px),1fr));gap:10px}
.example{min-width:0}
.example p{margin:0 0 4px;font-size:.88rem}
.violations{margin:4px 0 0;padding-left:18px;font-size:.85rem;color:var(--bad-fg)}
pre{margin:0;overflow:auto;max-height:18em;background:var(--code);padding:8px 10px;border-radius:6px;font-size:.82rem;line-height:1.4}
table{border-collapse:collapse;width:100%;font-size:.88rem}
th,td{text-align:left;vertical-align:top;padding:4px 8px 4px 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
th{font-weight:600;color:var(--dim);font-size:.78rem}
th,td.nw,td.nw .badge{white-space:nowrap;overflow-wrap:normal}
td ul{margin:2px 0 0;padding-left:16px}
details{margin-top:12px}
summary{cursor:pointer;color:var(--dim);font-size:.88rem}
details pre{margin-top:6px}
.empty{color:var(--dim)}
.nav-head{margin:16px 0 4px;padding:0 8px;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:var(--dim)}
.svcs{list-style:none;margin:0;padding:0}
.svcs a{display:block;padding:4px 8px;border-radius:6px;overflow-wrap:anywhere}
.svcs a:hover{background:var(--code)}
.urn-list{margin:0;padding-left:18px}
.flow{list-style:none;margin:0;padding:0}
.flow-head,.flow-row{display:grid;grid-template-columns:minmax(0,1fr) 1.4em minmax(0,1.3fr) 1.4em minmax(0,1fr);gap:6px;align-items:center}
.flow-head{font-size:.78rem;font-weight:600;color:var(--dim);padding-bottom:4px;border-bottom:1px solid var(--line)}
.flow-row{padding:6px 0;border-bottom:1px solid var(--line)}
.flow-row>div{min-width:0}
.nodes{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:4px}
.node{display:inline-block;max-width:100%;padding:1px 8px;border:1px solid var(--line);border-radius:12px;background:var(--bg);text-decoration:none;overflow-wrap:anywhere}
.node:hover{border-color:var(--accent)}
.urn-node{border-radius:6px}
.arrow{color:var(--dim);text-align:center}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
footer{padding:10px 20px 24px;color:var(--dim);font-size:.8rem}
[hidden]{display:none!important}
@media (max-width:760px){.layout{grid-template-columns:minmax(0,1fr)}.side{position:static;max-height:none;border-bottom:1px solid var(--line)}
main{padding:10px;border-left:0}.masthead{padding:12px}.event{padding:12px}.urns{max-height:40vh;overflow:auto}table,thead,tbody,tr,td{display:block}thead{display:none}td{border:0;padding:0}tr{border-bottom:1px solid var(--line);padding:4px 0}
.svcs{max-height:40vh;overflow:auto}.flow-head{display:none}.flow-row{grid-template-columns:minmax(0,1fr);gap:2px}.arrow{transform:rotate(90deg);width:1.4em}}
`;

const SCRIPT = `
(function () {
  'use strict';
  function q(name) { return document.querySelector('[data-bq="' + name + '"]'); }
  var index = JSON.parse(q('index').textContent);
  var search = q('q'), owner = q('owner'), status = q('status'), pii = q('pii'), count = q('count'), none = q('none');
  var items = document.querySelectorAll('[data-bq-item]');
  var sections = document.querySelectorAll('[data-bq-event]');
  var links = document.querySelectorAll('[data-bq-item] a');
  q('filters').hidden = false;
  function matches(e, words) {
    if (owner.value !== '' && String(e.o) !== owner.value) return false;
    if (status.value !== '' && String(e.s) !== status.value) return false;
    if (pii.value !== '' && (pii.value === 'yes') !== e.p) return false;
    for (var i = 0; i < words.length; i++) if (e.t.indexOf(words[i]) === -1) return false;
    return true;
  }
  function apply() {
    var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    for (var i = 0; i < index.events.length; i++) {
      var ok = matches(index.events[i], words);
      items[i].hidden = !ok;
      sections[i].hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = shown + ' of ' + index.events.length + ' events';
    none.hidden = shown !== 0;
  }
  function visibleLinks() {
    var out = [];
    for (var i = 0; i < links.length; i++) if (!items[i].hidden) out.push(links[i]);
    return out;
  }
  function reveal() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    var target = id === '' ? null : document.getElementById(id);
    for (var i = 0; i < sections.length; i++) {
      if (sections[i] === target) links[i].setAttribute('aria-current', 'location');
      else links[i].removeAttribute('aria-current');
    }
    // A deep link to an event the filters hide: clear the filters rather than show nothing.
    if (target !== null && target.hidden) {
      search.value = ''; owner.value = ''; status.value = ''; pii.value = '';
      apply();
      target.scrollIntoView();
    }
  }
  [search, owner, status, pii].forEach(function (el) { el.addEventListener('input', apply); });
  search.addEventListener('keydown', function (ev) {
    var v = visibleLinks();
    if (ev.key === 'Escape') { search.value = ''; apply(); }
    else if (ev.key === 'ArrowDown' && v.length > 0) { ev.preventDefault(); v[0].focus(); }
    else if (ev.key === 'Enter' && v.length > 0) { ev.preventDefault(); v[0].click(); }
  });
  document.querySelector('.urns').addEventListener('keydown', function (ev) {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    var v = visibleLinks();
    var at = v.indexOf(document.activeElement);
    if (at === -1) return;
    ev.preventDefault();
    if (ev.key === 'ArrowDown') v[Math.min(at + 1, v.length - 1)].focus();
    else if (at === 0) search.focus();
    else v[at - 1].focus();
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key !== '/' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
    ev.preventDefault();
    search.focus();
    search.select();
  });
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();
})();
`;

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The policy of the `<meta>` tag: nothing may be fetched or framed, only the two blocks above run.
 * (`frame-ancestors` is ignored, with a console error, in a meta tag; the HTTP header adds it.)
 */
export const CATALOG_CSP =
  `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; img-src 'none'; font-src 'none'; ` +
  `connect-src 'none'; base-uri 'none'; form-action 'none'`;

/** The policy for serving the catalog over HTTP. */
export const CATALOG_CSP_HEADER = `${CATALOG_CSP}; frame-ancestors 'none'`;

// The two constants are the only markup not built by html``: they must not be able to end their element.
for (const text of [STYLE, SCRIPT]) if (/<\//.test(text)) throw new Error('internal error: an inline asset contains "</"');
export const STYLE_HTML = new SafeHtml(STYLE);
export const SCRIPT_HTML = new SafeHtml(SCRIPT);
