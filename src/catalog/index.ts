export { buildCatalog } from './build.js';
export type { CatalogEntry, CatalogService, HistoryEntry } from './build.js';
export { catalogHandler } from './handler.js';
export { CATALOG_CSP, CATALOG_CSP_HEADER } from './assets.js';
export { escapeHtml, html, anchorId, fragment } from './html.js';
export { catalogEntries, catalogServices, historyEntries, type CatalogRegistry } from './entries.js';
