// Loads the example registry for the catalog tests. The lead's registry layer will do this for the
// CLI; the tests parse JSON, JSONC and YAML themselves for now.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import YAML from 'yaml';
import { catalogServices, type CatalogEntry, type CatalogService } from '../../src/catalog/index.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function parseSchemaFile(file: string): unknown {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (/\.ya?ml$/.test(file)) return YAML.parse(text);
  if (file.endsWith('.jsonc')) {
    const errors: ParseError[] = [];
    const value = parseJsonc(text, errors, { allowTrailingComma: true });
    if (errors.length > 0) throw new Error(`${file}: JSONC parse error at offset ${errors[0]!.offset}`);
    return value;
  }
  return JSON.parse(text);
}

const blank = (v: unknown): boolean => typeof v !== 'string' || /^[ \t\n\v\f\r]*$/.test(v);

/** The envelope's URN as docs/contract.md §11 reads it. */
function urnOf(msg: unknown): string | undefined {
  if (typeof msg !== 'object' || msg === null) return undefined;
  const m = msg as Record<string, unknown>;
  if (!blank(m.job)) return m.job as string;
  if (!blank(m.urn)) return m.urn as string;
  return undefined;
}

function exampleMessages(): Map<string, unknown[]> {
  // examples/messages holds valid/ and invalid/; ordered by file name, so each URN's messages keep
  // the order the catalog tests name them by (order-created-invalid.json before order-created.json).
  const dir = join(ROOT, 'examples/messages');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(json|ndjson)$/.test(f))
    .sort((a, b) => (basename(a) < basename(b) ? -1 : basename(a) > basename(b) ? 1 : 0));
  const byUrn = new Map<string, unknown[]>();
  for (const name of files) {
    const text = readFileSync(join(dir, name), 'utf8');
    const messages = name.endsWith('.ndjson')
      ? text
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l))
      : [JSON.parse(text)];
    for (const m of messages) {
      const urn = urnOf(m);
      if (urn !== undefined) byUrn.set(urn, [...(byUrn.get(urn) ?? []), m]);
    }
  }
  return byUrn;
}

export function exampleEntries(): CatalogEntry[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8')) as {
    schemas: Array<{
      urn: string;
      schema: string;
      owner?: string;
      status?: string;
      description?: string;
      producers?: string[];
      consumers?: string[];
    }>;
  };
  const messages = exampleMessages();
  return manifest.schemas.map((e) => ({
    urn: e.urn,
    owner: e.owner,
    status: e.status,
    description: e.description,
    schema: parseSchemaFile(e.schema),
    file: e.schema,
    examples: messages.get(e.urn) ?? [],
    ...(e.producers === undefined ? {} : { producers: e.producers }),
    ...(e.consumers === undefined ? {} : { consumers: e.consumers }),
  }));
}

/** The example registry's services, as the catalog lists them (catalogServices over its manifest). */
export function exampleServices(): CatalogService[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8')) as {
    schemas: Array<{ urn: string; producers?: string[]; consumers?: string[] }>;
    services: Array<{ name: string; team?: string; contact?: string; repository?: string }>;
  };
  return catalogServices({ services: manifest.services, entries: manifest.schemas });
}

/** Strings that would run script, break out of an element or confuse a reader if not escaped. */
export const HOSTILE = [
  '<script>window.__pwned=1</script>',
  '"><img src=x onerror="window.__pwned=2">',
  "'><svg onload=window.__pwned=3>",
  '</style><script>window.__pwned=4</script>',
  '</script><script>window.__pwned=5</script>',
  '<!--',
  'line\u2028sep\u2029para',
  'back\\slash "quote" \'apos\' */ ${x}',
  'ctl\u0000\u0001\u007f\u0085end',
  'lone\uD800surrogate',
  '__proto__',
];

/** A registry whose every name, value and message is one of HOSTILE. */
export function hostileEntries(): CatalogEntry[] {
  const properties: Record<string, unknown> = {};
  HOSTILE.forEach((h, i) => {
    properties[h] = { type: 'string', description: h, title: h, enum: [h], default: h, examples: [h], 'x-gdpr-sensitive': h, [h]: h };
    if (i === 0) (properties[h] as Record<string, unknown>).minLength = h; // malformed, message quotes it
  });
  return HOSTILE.map((h, i) => ({
    urn: i === 0 ? h : `urn:${h}`,
    owner: h,
    status: h,
    description: h,
    file: h,
    schema: JSON.parse(JSON.stringify({ title: h, description: h, type: 'object', required: HOSTILE, properties, examples: [{ [h]: h }] })),
    examples: [{ job: h, data: { [h]: h } }, h],
  }));
}
