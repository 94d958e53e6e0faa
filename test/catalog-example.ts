// Loads the example registry for the catalog tests. The lead's registry layer will do this for the
// CLI; the tests parse JSON, JSONC and YAML themselves for now.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import YAML from 'yaml';
import type { CatalogEntry } from '../src/catalog/index.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

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

/** The envelope's URN as CLARIFICATIONS 11 reads it. */
function urnOf(msg: unknown): string | undefined {
  if (typeof msg !== 'object' || msg === null) return undefined;
  const m = msg as Record<string, unknown>;
  if (!blank(m.job)) return m.job as string;
  if (!blank(m.urn)) return m.urn as string;
  return undefined;
}

export function exampleMessages(): Map<string, unknown[]> {
  const dir = join(ROOT, 'examples/messages');
  const byUrn = new Map<string, unknown[]>();
  for (const name of readdirSync(dir).sort()) {
    const text = readFileSync(join(dir, name), 'utf8');
    const messages = name.endsWith('.ndjson') ? text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)) : [JSON.parse(text)];
    for (const m of messages) {
      const urn = urnOf(m);
      if (urn !== undefined) byUrn.set(urn, [...(byUrn.get(urn) ?? []), m]);
    }
  }
  return byUrn;
}

export function exampleEntries(): CatalogEntry[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8')) as {
    schemas: Array<{ urn: string; schema: string; owner?: string; status?: string; description?: string }>;
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
  }));
}
