import { readFileSync } from 'node:fs';

// The suite and contract data ship in the package's conformance/ folder (a copy of test/vendor/
// conformance, checked equal by test/conformance/kit-data.e2e.test.ts). From dist/conformance/ and from
// src/conformance/ alike it is two levels up.
const DATA = new URL('../../conformance/', import.meta.url);

export interface VerdictCase {
  /** Case id: `<group>/<description>` for contract cases, the suite's id for manifest cases. */
  id: string;
  schema: unknown;
  data: unknown;
  valid: boolean;
}

interface WarningCase {
  name: string;
  schema: unknown;
  expect: Array<{ pointer: string; keyword: string }>;
}

interface EnvelopeCase {
  name: string;
  /** The exact envelope text (JSON). */
  envelope_json: string;
  expect: { urn?: string; error?: string };
  warns: boolean;
}

export interface ContractCases {
  validation: Array<{
    name: string;
    schema: unknown;
    tests: Array<{ description: string; data?: unknown; data_json?: string; valid: boolean }>;
  }>;
  warnings: WarningCase[];
  envelopes: EnvelopeCase[];
}

/** The suite's manifest: `sections` maps each section to its scope; each section is a block. */
export interface SuiteManifest {
  conformance_version: string;
  sections: Record<string, string>;
  [section: string]: unknown;
}

const cache = new Map<string, unknown>();
function load(name: string): unknown {
  if (!cache.has(name)) cache.set(name, JSON.parse(readFileSync(new URL(name, DATA), 'utf8')));
  return cache.get(name);
}

export function contractCases(): ContractCases {
  return load('contract-cases.json') as ContractCases;
}

export function suiteManifest(): SuiteManifest {
  return load('manifest.json') as SuiteManifest;
}

export function conformanceVersion(): string {
  return readFileSync(new URL('CONFORMANCE_VERSION', DATA), 'utf8').trim();
}

/** Every contract validation test, data taken from `data_json` when present (1.0, -0, lone surrogates). */
export function contractVerdicts(): VerdictCase[] {
  const out: VerdictCase[] = [];
  for (const group of contractCases().validation) {
    for (const t of group.tests) {
      const data = t.data_json !== undefined ? JSON.parse(t.data_json) : t.data;
      out.push({ id: `${group.name}/${t.description}`, schema: group.schema, data, valid: t.valid });
    }
  }
  return out;
}

/** Case ids by the suite's rule: the case's name, or `<section>#<0-based index>` when unnamed. */
export function caseId(section: string, c: { name?: unknown }, index: number): string {
  return typeof c.name === 'string' ? c.name : `${section}#${index}`;
}

/** The payload-schema sections of the manifest (`{schema, cases: [{name, data, valid}]}`), as verdict cases. */
export function manifestVerdicts(): Array<{ section: string; cases: VerdictCase[] }> {
  const manifest = suiteManifest();
  const out: Array<{ section: string; cases: VerdictCase[] }> = [];
  for (const section of Object.keys(manifest.sections)) {
    const block = Object.prototype.hasOwnProperty.call(manifest, section)
      ? (manifest[section] as { schema?: unknown; cases?: unknown })
      : undefined;
    if (!isVerdictBlock(block)) continue;
    out.push({
      section,
      cases: block.cases.map((c, i) => ({ id: caseId(section, c, i), schema: block.schema, data: c.data, valid: c.valid })),
    });
  }
  return out;
}

/** A block this package knows how to run: a schema and cases of `{data, valid}`. */
export function isVerdictBlock(
  block: unknown,
): block is { schema: unknown; cases: Array<{ name?: string; data: unknown; valid: boolean }> } {
  if (typeof block !== 'object' || block === null) return false;
  const b = block as { schema?: unknown; cases?: unknown };
  return (
    Object.prototype.hasOwnProperty.call(b, 'schema') &&
    Array.isArray(b.cases) &&
    b.cases.every(
      (c: unknown) => typeof c === 'object' && c !== null && typeof (c as { valid?: unknown }).valid === 'boolean' && 'data' in c,
    )
  );
}
