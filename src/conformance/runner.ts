import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ParseFailure, parseText } from '../registry/parse.js';
import { caseId, conformanceVersion, contractCases, isVerdictBlock, suiteManifest, type SuiteManifest } from './data.js';

/** What an implementation says about itself in answer to `hello`. */
export interface ImplementationInfo {
  sdk: string;
  version: string;
  /** Every transport/binding the implementation carries: their sections are in scope. */
  bindings: string[];
}

/**
 * An implementation under test, spoken to one request at a time. `fields` are raw JSON texts
 * (spliced verbatim into the request, so `1.0`, `-0` and lone surrogates reach the implementation
 * as written). Rejects with ImplementationError when it cannot answer at all.
 */
export interface Implementation {
  hello(): Promise<ImplementationInfo>;
  request(op: 'validate' | 'warnings' | 'envelope', fields: Record<string, string>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The implementation could not answer (it exited, hung, or broke the protocol). */
export class ImplementationError extends Error {
  override name = 'ImplementationError';
}

/** The suite would run none of its cases for this implementation: nothing in it is in the implementation's scope. */
export class SuiteError extends Error {
  override name = 'SuiteError';
}

interface CaseResult {
  status: 'pass' | 'fail' | 'skip';
  reason?: string;
}

/** results.json, exactly as the suite's results.schema.json describes it. */
interface Results {
  sdk: string;
  version: string;
  conformance_version: string;
  generated_at: string;
  bindings: string[];
  sections: Record<string, Record<string, CaseResult>>;
}

export interface ConformanceRun {
  results: Results;
  /** The sections run, in order (the keys of `results.sections`). */
  ran: string[];
  /** The manifest's sections not run, and why (out of scope, or not known to this runner). */
  notRun: Array<{ section: string; scope: string; reason: string }>;
  failed: Array<{ section: string; id: string; reason: string }>;
  total: number;
}

/** A suite to run: its manifest and version, by default the copy this package ships. */
export interface Suite {
  manifest: SuiteManifest;
  version: string;
}

/** Sections this runner knows how to run (payload-schema verdicts), by name as the suite asks. */
const RUNNABLE_SECTIONS = ['payload_schema', 'payload_schema_unicode'] as const;
/** The contract's own cases, reported as sections of their own after the suite's. */
const CONTRACT_SECTIONS = ['contract_validation', 'contract_warnings', 'contract_envelopes'] as const;

/**
 * Reads a suite: a directory holding manifest.json and CONFORMANCE_VERSION, or its manifest.json
 * itself. Throws a one-line Error, naming the file and what to do, when the suite cannot be read or
 * would run none of its cases: a missing, unreadable or malformed manifest, no `sections` map, a
 * section this runner runs whose block has no `{schema, cases}` or no case, or no such section at
 * all. Sections this runner does not know (a newer suite) are allowed; they are reported as not run.
 */
export function loadSuite(path?: string): Suite {
  if (path === undefined) return { manifest: suiteManifest(), version: conformanceVersion() };
  const fix = "give --suite the directory holding the suite's manifest.json and CONFORMANCE_VERSION, or that manifest.json";
  let dir = path;
  let file = join(path, 'manifest.json');
  try {
    if (!statSync(path).isDirectory()) {
      dir = dirname(path);
      file = path;
    }
  } catch (err) {
    throw new Error(`${path}: cannot read the suite (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); ${fix}`);
  }
  const read = (name: string, at: string): string => {
    try {
      if (statSync(at).isDirectory()) throw Object.assign(new Error('a directory'), { code: 'EISDIR' });
      return readFileSync(at, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new Error(`${at}: cannot read the suite's ${name} (${code === 'EISDIR' ? 'it is a directory' : code}); ${fix}`);
    }
  };
  let value: unknown;
  try {
    value = parseText(read('manifest', file), file, 'json');
  } catch (err) {
    if (err instanceof ParseFailure) throw new Error(`${err.message}; the suite's manifest must be JSON`);
    throw err;
  }
  const bad = (problem: string): Error => new Error(`${file}: ${problem}, so the suite would run none of its cases; fix the manifest`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('the manifest is not a JSON object');
  const manifest = value as SuiteManifest;
  const sections: unknown = has(manifest, 'sections') ? manifest.sections : undefined;
  if (typeof sections !== 'object' || sections === null || Array.isArray(sections))
    throw bad('the manifest has no "sections" map (section name to scope)');
  const names = Object.keys(sections);
  const odd = names.find((s) => typeof (sections as Record<string, unknown>)[s] !== 'string');
  if (odd !== undefined) throw bad(`the scope of section ${json(odd)} is not a string`);
  const runnable = names.filter((s) => (RUNNABLE_SECTIONS as readonly string[]).includes(s));
  if (runnable.length === 0) throw bad(`the manifest names no section this runner runs (${RUNNABLE_SECTIONS.join(', ')})`);
  for (const s of runnable) {
    const block = has(manifest, s) ? manifest[s] : undefined;
    if (!isVerdictBlock(block))
      throw bad(`section ${json(s)} has no block of the {schema, cases: [{data, valid}]} shape this runner reads`);
    if (block.cases.length === 0) throw bad(`section ${json(s)} has no cases`);
  }
  const version = read('CONFORMANCE_VERSION', join(dir, 'CONFORMANCE_VERSION')).trim();
  if (version === '') throw new Error(`${join(dir, 'CONFORMANCE_VERSION')}: the suite's version is empty; ${fix}`);
  if (manifest.conformance_version !== undefined && manifest.conformance_version !== version) {
    throw new Error(
      `${file} says conformance_version ${String(manifest.conformance_version)}, ${join(dir, 'CONFORMANCE_VERSION')} says ${version}: the two must be one suite's`,
    );
  }
  return { manifest, version };
}

const json = (v: unknown): string => JSON.stringify(v);
const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function sameWarnings(got: unknown, expected: Array<{ pointer: string; keyword: string }>): string | undefined {
  if (
    !Array.isArray(got) ||
    !got.every((w) => typeof w === 'object' && w !== null && typeof w.pointer === 'string' && typeof w.keyword === 'string')
  ) {
    return `"warnings" must be an array of {pointer, keyword}, got ${json(got)?.slice(0, 200)}`;
  }
  const key = (w: { pointer: string; keyword: string }): string => json([w.pointer, w.keyword]);
  const a = got.map(key).sort();
  const b = expected.map(key).sort();
  return json(a) === json(b)
    ? undefined
    : `expected warnings ${json(expected)}, got ${json(got.map((w) => ({ pointer: w.pointer, keyword: w.keyword })))}`;
}

/**
 * Runs every in-scope section of the suite the runner knows, then the contract's cases, through the
 * implementation. A section whose scope the implementation does not carry, or that this runner
 * does not know (a newer suite), is not run and is reported with the reason; that alone never
 * fails the run. Cases are never skipped: an implementation that cannot answer fails them.
 */
export async function runConformance(
  impl: Implementation,
  suite: Suite = loadSuite(),
  now: () => Date = () => new Date(),
): Promise<ConformanceRun> {
  const info = await impl.hello();
  const carried = new Set(['core', ...info.bindings]);
  // A run whose suite sections are all out of scope would pass on the contract's cases alone.
  const runnable = Object.keys(suite.manifest.sections).filter((s) => (RUNNABLE_SECTIONS as readonly string[]).includes(s));
  if (runnable.length > 0 && !runnable.some((s) => carried.has(String(suite.manifest.sections[s])))) {
    const scopes = runnable.map((s) => `${s}: scope ${String(suite.manifest.sections[s])}`).join(', ');
    throw new SuiteError(
      `the suite's sections this runner runs (${scopes}) are all out of the implementation's scope (bindings: ${info.bindings.length > 0 ? info.bindings.join(', ') : 'none'}), so it would run none of the suite's cases; give a suite with a section in scope, or have the adapter's hello name the binding`,
    );
  }
  // Null-prototype maps: a section or case named `__proto__` is an ordinary key.
  const table = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;
  const sections = table<Record<string, CaseResult>>();
  const run: ConformanceRun = {
    results: {
      sdk: info.sdk,
      version: info.version,
      conformance_version: suite.version,
      generated_at: '',
      bindings: [...new Set(info.bindings)],
      sections,
    },
    ran: [],
    notRun: [],
    failed: [],
    total: 0,
  };
  let dead: string | undefined;

  async function one(
    section: string,
    id: string,
    op: 'validate' | 'warnings' | 'envelope',
    fields: Record<string, string>,
    judge: (answer: Record<string, unknown>) => string | undefined,
  ): Promise<void> {
    const results = (sections[section] ??= table<CaseResult>());
    let reason: string | undefined;
    if (has(results, id)) reason = `the section has two cases with id ${json(id)}`;
    else if (dead !== undefined) reason = `not answered: ${dead}`;
    else {
      try {
        const answer = await impl.request(op, fields);
        reason = typeof answer.failure === 'string' ? `the implementation failed: ${answer.failure}` : judge(answer);
      } catch (err) {
        if (!(err instanceof ImplementationError)) throw err;
        // This case says what happened; every later one that it was not answered, and why.
        dead = err.message;
        reason = err.message;
      }
    }
    run.total++;
    results[id] = reason === undefined ? { status: 'pass' } : { status: 'fail', reason };
    if (reason !== undefined) run.failed.push({ section, id, reason });
  }

  const verdict =
    (valid: boolean) =>
    (answer: Record<string, unknown>): string | undefined => {
      if (typeof answer.valid !== 'boolean') return `"valid" must be a boolean, got ${json(answer.valid) ?? 'nothing'}`;
      return answer.valid === valid
        ? undefined
        : `expected ${valid ? 'valid' : 'invalid'}, the implementation said ${answer.valid ? 'valid' : 'invalid'}`;
    };

  for (const section of Object.keys(suite.manifest.sections)) {
    const scope = String(suite.manifest.sections[section]);
    if (!carried.has(scope)) {
      run.notRun.push({
        section,
        scope,
        reason: `scope ${scope} is not carried (bindings: ${info.bindings.length > 0 ? info.bindings.join(', ') : 'none'})`,
      });
      continue;
    }
    const block = has(suite.manifest, section) ? suite.manifest[section] : undefined;
    if (!(RUNNABLE_SECTIONS as readonly string[]).includes(section) || !isVerdictBlock(block)) {
      const why = (RUNNABLE_SECTIONS as readonly string[]).includes(section)
        ? 'its block does not have the {schema, cases: [{data, valid}]} shape this runner reads'
        : `this runner does not know it (it runs ${RUNNABLE_SECTIONS.join(', ')}); a newer suite section?`;
      run.notRun.push({ section, scope, reason: `in scope but not run: ${why}` });
      continue;
    }
    run.ran.push(section);
    sections[section] = table<CaseResult>();
    const schema = json(block.schema);
    for (const [i, c] of block.cases.entries()) {
      await one(section, caseId(section, c, i), 'validate', { schema, data: json(c.data) }, verdict(c.valid));
    }
  }

  const contract = contractCases();
  run.ran.push(...CONTRACT_SECTIONS);
  for (const s of CONTRACT_SECTIONS) sections[s] = table<CaseResult>();
  for (const group of contract.validation) {
    const schema = json(group.schema);
    for (const t of group.tests) {
      // data_json is the exact text of an instance a parsed value cannot keep (1.0, -0, a lone surrogate).
      const data = t.data_json ?? json(t.data);
      await one('contract_validation', `${group.name}/${t.description}`, 'validate', { schema, data }, verdict(t.valid));
    }
  }
  for (const c of contract.warnings) {
    await one('contract_warnings', c.name, 'warnings', { schema: json(c.schema) }, (answer) => sameWarnings(answer.warnings, c.expect));
  }
  for (const c of contract.envelopes) {
    await one('contract_envelopes', c.name, 'envelope', { envelope: c.envelope_json }, (answer) => {
      const warned = typeof answer.warnings === 'number' && answer.warnings > 0;
      if (typeof answer.warnings !== 'number') return `"warnings" must be a count, got ${json(answer.warnings) ?? 'nothing'}`;
      if (c.expect.error !== undefined) {
        if (answer.rejected !== c.expect.error)
          return `expected the envelope rejected as ${json(c.expect.error)}, got ${answer.rejected !== undefined ? `rejected as ${json(answer.rejected)}` : `urn ${json(answer.urn)}`}`;
      } else if (answer.urn !== c.expect.urn || answer.rejected !== undefined) {
        return `expected urn ${json(c.expect.urn)}, got ${answer.rejected !== undefined ? `rejected as ${json(answer.rejected)}` : `urn ${json(answer.urn)}`}`;
      }
      return warned === c.warns
        ? undefined
        : `expected ${c.warns ? 'identity warnings' : 'no identity warning'}, got ${String(answer.warnings)}`;
    });
  }
  run.results.generated_at = now().toISOString();
  return run;
}
