import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

/**
 * One schema and one datum of the validator's differential tests. `text` is the data as JSON text
 * (the contract's data_json keeps 1.0, -0 and lone surrogates); `valid`, where a case says it.
 */
export interface Pair {
  what: string;
  schema: unknown;
  data: unknown;
  text?: string;
  valid?: boolean;
}

/** Every contract validation case: the shared ones (test/vendor/conformance) and ours. */
export function contractPairs(): Pair[] {
  const out: Pair[] = [];
  const contract = JSON.parse(readFileSync(join(ROOT, 'test', 'vendor', 'conformance', 'contract-cases.json'), 'utf8')) as {
    validation: Array<{
      name: string;
      schema: unknown;
      tests: Array<{ description: string; data?: unknown; data_json?: string; valid: boolean }>;
    }>;
  };
  for (const c of contract.validation) {
    for (const t of c.tests) {
      const text = t.data_json ?? JSON.stringify(t.data);
      out.push({ what: `contract: ${c.name}: ${t.description}`, schema: c.schema, data: JSON.parse(text), text, valid: t.valid });
    }
  }
  const ours = JSON.parse(readFileSync(join(ROOT, 'test', 'conformance', 'bqschema-cases.json'), 'utf8')) as {
    unknown: Array<{ name: string; schema: unknown; tests: Array<{ data: unknown; valid: boolean }> }>;
  };
  for (const c of ours.unknown)
    c.tests.forEach((t, i) =>
      out.push({ what: `bqschema: ${c.name} #${i}`, schema: c.schema, data: t.data, text: JSON.stringify(t.data), valid: t.valid }),
    );
  return out;
}

/** Every JSON-Schema-Test-Suite draft-07 case, out-of-scope groups too (a validator must ignore the same keywords). */
export function suitePairs(): Pair[] {
  const dir = join(ROOT, 'test', 'vendor', 'json-schema-test-suite', 'draft7');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
  const out: Pair[] = [];
  for (const f of files) {
    const groups = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Array<{
      description: string;
      schema: unknown;
      tests: Array<{ description: string; data: unknown }>;
    }>;
    for (const g of groups)
      for (const t of g.tests)
        out.push({ what: `suite ${f}: ${g.description}: ${t.description}`, schema: g.schema, data: t.data, text: JSON.stringify(t.data) });
  }
  return out;
}
