import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import YAML from 'yaml';
import type { TypesEntry } from '../../src/types/index.js';
import { ROOT } from './tsc.js';

/** The example registry's entries with their schemas parsed (JSON, JSONC or YAML by extension). */
export function exampleEntries(): TypesEntry[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'registry.example.json'), 'utf8')) as {
    schemas: Array<{ urn: string; schema: string; owner?: string; status?: string; description?: string }>;
  };
  return manifest.schemas.map(({ urn, schema: file, owner, status, description }) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    let schema: unknown;
    if (/\.ya?ml$/.test(file)) schema = YAML.parse(text);
    else if (file.endsWith('.jsonc')) {
      const errors: ParseError[] = [];
      schema = parseJsonc(text, errors, { allowTrailingComma: true });
      if (errors.length > 0) throw new Error(`${file}: not valid JSONC`);
    } else schema = JSON.parse(text);
    const entry: TypesEntry = { urn, schema };
    if (owner !== undefined) entry.owner = owner;
    if (status !== undefined) entry.status = status;
    if (description !== undefined) entry.description = description;
    return entry;
  });
}

/** Every valid example message (examples/messages/valid, NDJSON lines included), each as one line of JSON. */
export function validExampleLines(): string[] {
  const valid = join(ROOT, 'examples', 'messages', 'valid');
  const lines: string[] = [];
  for (const f of readdirSync(valid).sort()) {
    const text = readFileSync(join(valid, f), 'utf8');
    if (f.endsWith('.ndjson')) lines.push(...text.split('\n').filter((l) => l.trim() !== ''));
    else lines.push(JSON.stringify(JSON.parse(text)));
  }
  return lines;
}

/** Writes a registry into `dir`: one schema file per URN (s0.json, s1.json, …) and registry.json; returns the manifest's path. */
export function writeRegistry(dir: string, schemas: Record<string, unknown>): string {
  const entries = Object.entries(schemas).map(([urn, schema], i) => {
    writeFileSync(join(dir, `s${i}.json`), JSON.stringify(schema));
    return { urn, schema: `s${i}.json`, owner: 'o' };
  });
  writeFileSync(join(dir, 'registry.json'), JSON.stringify({ schemas: entries }));
  return join(dir, 'registry.json');
}
