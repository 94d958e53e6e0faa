import { CATALOG_CSP_HEADER } from './assets.js';

export interface CatalogResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The response for serve's read-only `/catalog`: the built page under the same policy, as a header. */
export function catalogHandler(html: string): CatalogResponse {
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(Buffer.byteLength(html, 'utf8')),
      'content-security-policy': CATALOG_CSP_HEADER,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    },
    body: html,
  };
}
