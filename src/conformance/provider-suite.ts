import { check, checkAsync, InvalidPayloadError, validate, validateAsync, wrap } from '../guard/index.js';
import type { AsyncProvider, Provider } from '../providers/provider.js';
import { compile, isSchemaObject, type CompiledSchema, type SchemaWarning } from '../validator/index.js';
import { contractCases, contractVerdicts, manifestVerdicts, type VerdictCase } from './data.js';

/** What the kit hands a factory: the registry to serve and the warning channel to wire in. */
export interface ProviderFixture {
  /**
   * URN → schema as JSON text. A null-prototype object: `__proto__` and `constructor` are
   * ordinary URNs here, as they must be in the provider.
   */
  readonly registry: Readonly<Record<string, string>>;
  /** Pass it as the provider's `onWarning` option: the kit checks the warnings that reach it. */
  readonly onWarning: (warning: SchemaWarning, message: string) => void;
}

/** A provider with the hooks some scenarios need; a factory may return the bare provider instead. */
export interface ProviderHandle {
  provider: AsyncProvider;
  /** Replaces one URN's schema text where the provider reads it (a file, a served registry). */
  update?(urn: string, text: string): void | Promise<void>;
  /** Asks the provider to look for changes now (a refresh), after `update`. */
  reload?(): void | Promise<void>;
  /** Releases what the factory started (temp directories, servers). */
  close?(): void | Promise<void>;
}

/** Builds a fresh provider for one scenario; throwing is allowed only for a registry it cannot load. */
export type ProviderFactory = (fixture: ProviderFixture) => AsyncProvider | ProviderHandle | Promise<AsyncProvider | ProviderHandle>;

/**
 * What a provider declares. The core scenarios run whatever it declares; a capability scenario for
 * a capability it does not claim is reported as unclaimed, never silently skipped.
 */
export interface ProviderCapabilities {
  /** `schemaFor` may answer with a promise: the kit uses checkAsync/validateAsync. Else every answer must be synchronous. */
  async?: boolean;
  /** A changed schema is picked up after `update` (and `reload`), within the time bound. */
  reload?: boolean;
}

export interface ProviderSuiteOptions {
  /** The longest one lookup may take, in ms (default 2000). */
  timeoutMs?: number;
}

export interface ProviderScenario {
  name: string;
  /** Why it does not run: the capability it checks is not claimed. Report it (e.g. `it.skip`). */
  unclaimed?: string;
  /** Resolves when the provider conforms; rejects with a ConformanceError naming the scenario, URN and expectation. */
  run(): Promise<void>;
}

/** A provider broke the contract: names the scenario, the URN, and what was expected. */
export class ConformanceError extends Error {
  override name = 'ConformanceError';
  constructor(
    readonly scenario: string,
    readonly urn: string | undefined,
    detail: string,
  ) {
    super(`${scenario}${urn === undefined ? '' : ` [${urn}]`}: ${detail}`);
  }
}

export const SCENARIOS = {
  unknown: 'unknown URN is none, never an error',
  registered: 'registered URNs answer their own compiled schema (hostile names included)',
  verdicts: 'contract verdicts through check, validate and wrap',
  warnings: 'warnings once per occurrence, naming the URN, with pointer and keyword',
  failure: 'a load failure names the URN and is not cached',
  concurrent: '100 concurrent lookups agree and load once',
  timely: 'lookups answer within the time bound',
  reload: 'reload: a changed schema is picked up',
} as const;

const UNKNOWN_URNS = ['urn:kit:unknown', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'urn:kit:known ', 'URN:KIT:KNOWN', ''];
const HOSTILE_URNS = ['__proto__', 'constructor', 'toString', 'urn:kit:quote"back\\slash', 'urn:kit:ünïcode\u2028', 'urn:kit:a/b?c#d%2F'];
const MALFORMED = [
  { type: 'integr', required: 'order_id', properties: { a: { minLength: 'x' } } },
  { enum: 'a', pattern: 'x', items: { maxLength: -1.5, format: 'date' } },
];
const BROKEN = 'urn:kit:broken';
const BROKEN_TEXT = '{"type": "object", "required": ["order_id"],';
const FIXED_TEXT = '{"type": "object", "required": ["order_id"]}';

function registryOf(entries: Iterable<readonly [string, string]>): Readonly<Record<string, string>> {
  const registry = Object.create(null) as Record<string, string>;
  for (const [urn, text] of entries) registry[urn] = text;
  return Object.freeze(registry);
}

function shown(answer: unknown): string {
  if (answer === undefined || answer === null) return String(answer);
  if (isCompiled(answer)) return 'a compiled schema';
  return Array.isArray(answer) ? 'an array' : typeof answer;
}

function isCompiled(answer: unknown): answer is CompiledSchema {
  const a = answer as Partial<CompiledSchema> | null | undefined;
  return typeof a === 'object' && a !== null && typeof a.isValid === 'function' && typeof a.validate === 'function';
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What every scenario probes a provider with: the factory and its claims, bounded lookups, verdicts. */
interface Probes {
  factory: ProviderFactory;
  capabilities: ProviderCapabilities;
  timeoutMs: number;
  open(name: string, registry: Readonly<Record<string, string>>, warnings?: SchemaWarning[]): Promise<ProviderHandle>;
  within<T>(name: string, urn: string, what: string, work: PromiseLike<T> | T): Promise<T>;
  lookup(name: string, provider: AsyncProvider, urn: string): Promise<unknown>;
  expectNone(name: string, provider: AsyncProvider, urn: string): Promise<void>;
  expectSchema(name: string, provider: AsyncProvider, urn: string): Promise<CompiledSchema>;
  verdicts(name: string, provider: AsyncProvider, urn: string, c: VerdictCase): Promise<void>;
  using(
    name: string,
    registry: Readonly<Record<string, string>>,
    body: (h: ProviderHandle) => Promise<void>,
    warnings?: SchemaWarning[],
  ): Promise<void>;
}

function probes(factory: ProviderFactory, capabilities: ProviderCapabilities, options: ProviderSuiteOptions): Probes {
  const timeoutMs = options.timeoutMs ?? 2000;
  const isAsync = capabilities.async === true;

  async function open(
    name: string,
    registry: Readonly<Record<string, string>>,
    warnings: SchemaWarning[] = [],
  ): Promise<Required<Pick<ProviderHandle, 'provider'>> & ProviderHandle> {
    let made: AsyncProvider | ProviderHandle;
    try {
      made = await factory({ registry, onWarning: (w) => void warnings.push(w) });
    } catch (err) {
      throw new ConformanceError(name, undefined, `the factory threw on a loadable registry: ${message(err)}`);
    }
    const handle = typeof (made as AsyncProvider).schemaFor === 'function' ? { provider: made as AsyncProvider } : (made as ProviderHandle);
    if (handle.provider === undefined || typeof handle.provider.schemaFor !== 'function') {
      throw new ConformanceError(name, undefined, 'the factory returned neither a provider nor {provider}');
    }
    return handle;
  }

  async function within<T>(name: string, urn: string, what: string, work: PromiseLike<T> | T): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConformanceError(name, urn, `${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve(work), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One lookup: synchronous unless async is claimed, and within the time bound. */
  async function lookup(name: string, provider: AsyncProvider, urn: string): Promise<unknown> {
    const answer = provider.schemaFor(urn);
    if (!isAsync && typeof (answer as { then?: unknown } | null)?.then === 'function') {
      throw new ConformanceError(name, urn, 'answered a promise, but the provider does not claim async (declare {async: true})');
    }
    return within(name, urn, 'the lookup', answer);
  }

  async function expectNone(name: string, provider: AsyncProvider, urn: string): Promise<void> {
    let answer: unknown;
    try {
      answer = await lookup(name, provider, urn);
    } catch (err) {
      if (err instanceof ConformanceError) throw err;
      throw new ConformanceError(name, urn, `threw "${message(err)}"; expected none (undefined or null)`);
    }
    if (answer !== undefined && answer !== null)
      throw new ConformanceError(name, urn, `expected none (undefined or null), got ${shown(answer)}`);
  }

  async function expectSchema(name: string, provider: AsyncProvider, urn: string): Promise<CompiledSchema> {
    let answer: unknown;
    try {
      answer = await lookup(name, provider, urn);
    } catch (err) {
      if (err instanceof ConformanceError) throw err;
      throw new ConformanceError(name, urn, `threw "${message(err)}"; expected its compiled schema`);
    }
    if (!isCompiled(answer)) throw new ConformanceError(name, urn, `expected a compiled schema, got ${shown(answer)}`);
    return answer;
  }

  /** The verdict of one case through check, validate and wrap; throws naming the first disagreement. */
  async function verdicts(name: string, provider: AsyncProvider, urn: string, c: VerdictCase): Promise<void> {
    const fail = (detail: string): never => {
      throw new ConformanceError(name, urn, `case "${c.id}": expected ${c.valid ? 'valid' : 'invalid'}; ${detail}`);
    };
    const guard = async <T>(what: string, work: () => T | Promise<T>): Promise<T> => {
      try {
        return await within(name, urn, what, work());
      } catch (err) {
        if (err instanceof InvalidPayloadError || err instanceof ConformanceError) throw err;
        return fail(`${what} threw ${err instanceof Error ? err.name : 'a non-error'}: ${message(err)}`);
      }
    };
    const violations = await guard('check', () => (isAsync ? checkAsync(provider, urn, c.data) : check(provider as Provider, urn, c.data)));
    if ((violations.length === 0) !== c.valid) fail(`check returned ${violations.length} violation(s)`);
    let threw = false;
    try {
      await guard('validate', () => (isAsync ? validateAsync(provider, urn, c.data) : validate(provider as Provider, urn, c.data)));
    } catch (err) {
      if (!(err instanceof InvalidPayloadError)) throw err;
      threw = true;
    }
    if (threw === c.valid) fail(threw ? 'validate threw InvalidPayloadError' : 'validate did not throw');
    // wrap reads an envelope, whose data is always an object: other data has no envelope form.
    if (!isSchemaObject(c.data)) return;
    let ran = false;
    threw = false;
    try {
      await guard('wrap', () =>
        wrap(provider, () => void (ran = true), { onWarning: () => {} })({ job: urn, data: c.data as Record<string, unknown> }),
      );
    } catch (err) {
      if (!(err instanceof InvalidPayloadError)) throw err;
      threw = true;
    }
    if (ran !== c.valid || threw === c.valid)
      fail(`wrap ${ran ? 'ran' : 'did not run'} the handler${threw ? ' and rejected with InvalidPayloadError' : ''}`);
  }

  async function using(
    name: string,
    registry: Readonly<Record<string, string>>,
    body: (h: ProviderHandle) => Promise<void>,
    warnings?: SchemaWarning[],
  ): Promise<void> {
    const handle = await open(name, registry, warnings);
    try {
      await body(handle);
    } finally {
      await handle.close?.();
    }
  }

  return { factory, capabilities, timeoutMs, open, within, lookup, expectNone, expectSchema, verdicts, using };
}

/** The scenarios, in the order they run: each opens providers through the probes and judges them. */
function scenarios(kit: Probes): ProviderScenario[] {
  const { factory, capabilities, timeoutMs, within, lookup, expectNone, expectSchema, verdicts, using } = kit;
  return [
    {
      name: SCENARIOS.unknown,
      run: () =>
        using(SCENARIOS.unknown, registryOf([['urn:kit:known', '{"type": "object"}']]), async ({ provider }) => {
          for (const urn of UNKNOWN_URNS) await expectNone(SCENARIOS.unknown, provider, urn);
        }),
    },
    {
      name: SCENARIOS.registered,
      run: () => {
        // Each URN requires a property named after its position, so a mix-up between URNs shows.
        const entries = HOSTILE_URNS.map((urn, i) => [urn, JSON.stringify({ type: 'object', required: [`field_${i}`] })] as const);
        return using(SCENARIOS.registered, registryOf(entries), async ({ provider }) => {
          for (const [i, urn] of HOSTILE_URNS.entries()) {
            const schema = await expectSchema(SCENARIOS.registered, provider, urn);
            if (!schema.isValid({ [`field_${i}`]: 1 }) || schema.isValid({ [`field_${(i + 1) % HOSTILE_URNS.length}`]: 1 })) {
              throw new ConformanceError(
                SCENARIOS.registered,
                urn,
                `the answer does not enforce this URN's schema (required: ["field_${i}"])`,
              );
            }
          }
        });
      },
    },
    {
      name: SCENARIOS.verdicts,
      run: () => {
        const groups = [
          ...manifestVerdicts().map((s) => ({ urn: `urn:kit:suite:${s.section}`, cases: s.cases })),
          ...groupBySchema(contractVerdicts()).map((cases, i) => ({ urn: `urn:kit:contract:${i}`, cases })),
        ];
        const registry = registryOf(groups.map((g) => [g.urn, JSON.stringify(g.cases[0]!.schema)] as const));
        return using(SCENARIOS.verdicts, registry, async ({ provider }) => {
          for (const g of groups) for (const c of g.cases) await verdicts(SCENARIOS.verdicts, provider, g.urn, c);
        });
      },
    },
    {
      name: SCENARIOS.warnings,
      run: () => {
        // The contract's cases, plus malformed keyword values (contract rule 8): whatever the
        // validator reports for them (marked malformed) must reach the provider's channel the same way.
        const cases: Array<{ name: string; schema: unknown; expect?: Array<{ pointer: string; keyword: string }>; urn: string }> = [
          ...contractCases().warnings,
          ...MALFORMED.map((schema, i) => ({ name: `malformed ${i}`, schema })),
        ].map((c, i) => ({ ...c, urn: `urn:kit:warning:${i}` }));
        const registry = registryOf(cases.map((c) => [c.urn, JSON.stringify(c.schema)] as const));
        const seen: SchemaWarning[] = [];
        return using(
          SCENARIOS.warnings,
          registry,
          async ({ provider }) => {
            // Twice: a lazy provider warns on first use, and never again for the same schema.
            for (let pass = 0; pass < 2; pass++) for (const c of cases) await expectSchema(SCENARIOS.warnings, provider, c.urn);
            const stray = seen.find((w) => typeof w.urn !== 'string' || !cases.some((c) => c.urn === w.urn));
            if (stray !== undefined)
              throw new ConformanceError(SCENARIOS.warnings, stray.urn, `a warning names no registered URN: ${JSON.stringify(stray)}`);
            for (const c of cases) {
              const got = seen
                .filter((w) => w.urn === c.urn)
                .map(warningKey)
                .sort();
              // The reference: the contract's {pointer, keyword} set, with the kind this package's compile gives.
              const reference = compile(c.schema, { urn: c.urn, onWarning: () => {} })
                .warnings.map(warningKey)
                .sort();
              const contract = c.expect?.map((w) => JSON.stringify([w.pointer, w.keyword])).sort();
              const referencePairs = reference.map((k) => JSON.stringify((JSON.parse(k) as string[]).slice(0, 2))).sort();
              if (contract !== undefined && JSON.stringify(referencePairs) !== JSON.stringify(contract)) {
                throw new Error(`the kit's own compile disagrees with contract case "${c.name}"`);
              }
              if (JSON.stringify(got) !== JSON.stringify(reference)) {
                throw new ConformanceError(
                  SCENARIOS.warnings,
                  c.urn,
                  `case "${c.name}": expected warnings [${reference.join(', ')}], got [${got.join(', ')}]`,
                );
              }
            }
          },
          seen,
        );
      },
    },
    { name: SCENARIOS.failure, run: () => loadFailure() },
    {
      name: SCENARIOS.concurrent,
      run: () =>
        using(SCENARIOS.concurrent, registryOf([['urn:kit:concurrent', FIXED_TEXT]]), async ({ provider }) => {
          const urn = 'urn:kit:concurrent';
          const answers = await within(
            SCENARIOS.concurrent,
            urn,
            '100 concurrent lookups',
            Promise.all(Array.from({ length: 100 }, () => provider.schemaFor(urn))),
          );
          const distinct = new Set(answers);
          const bad = answers.find((a) => !isCompiled(a));
          if (bad !== undefined)
            throw new ConformanceError(SCENARIOS.concurrent, urn, `a lookup answered ${shown(bad)}; expected the compiled schema`);
          if (distinct.size !== 1) {
            throw new ConformanceError(
              SCENARIOS.concurrent,
              urn,
              `100 concurrent lookups answered ${distinct.size} distinct schemas: it was loaded ${distinct.size} times, expected once (share the in-flight load)`,
            );
          }
          const again = await expectSchema(SCENARIOS.concurrent, provider, urn);
          if (again !== answers[0])
            throw new ConformanceError(
              SCENARIOS.concurrent,
              urn,
              'a later lookup answered a different schema object: the load was not cached',
            );
        }),
    },
    {
      name: SCENARIOS.timely,
      run: () =>
        using(SCENARIOS.timely, registryOf([['urn:kit:timely', FIXED_TEXT]]), async ({ provider }) => {
          // `lookup` enforces the bound: first use, cached use, and an unknown URN.
          await expectSchema(SCENARIOS.timely, provider, 'urn:kit:timely');
          await expectSchema(SCENARIOS.timely, provider, 'urn:kit:timely');
          await expectNone(SCENARIOS.timely, provider, 'urn:kit:absent');
        }),
    },
    capabilities.reload === true
      ? { name: SCENARIOS.reload, run: () => reload() }
      : { name: SCENARIOS.reload, unclaimed: 'the provider does not claim reload', run: async () => {} },
  ];

  async function loadFailure(): Promise<void> {
    const name = SCENARIOS.failure;
    const broken = registryOf([
      ['urn:kit:good', FIXED_TEXT],
      [BROKEN, BROKEN_TEXT],
    ]);
    let handle: ProviderHandle;
    try {
      const made = await factory({ registry: broken, onWarning: () => {} });
      handle = typeof (made as AsyncProvider).schemaFor === 'function' ? { provider: made as AsyncProvider } : (made as ProviderHandle);
    } catch (err) {
      // An eager provider refuses the registry at construction: that error must name the URN, and
      // building again from the fixed registry must work (nothing is remembered between builds).
      if (!message(err).includes(BROKEN))
        throw new ConformanceError(name, BROKEN, `building the provider failed without naming the URN: "${message(err)}"`);
      await using(
        name,
        registryOf([
          ['urn:kit:good', FIXED_TEXT],
          [BROKEN, FIXED_TEXT],
        ]),
        async ({ provider }) => {
          await expectSchema(name, provider, BROKEN);
        },
      );
      return;
    }
    try {
      await expectSchema(name, handle.provider, 'urn:kit:good');
      for (let attempt = 1; attempt <= 2; attempt++) {
        let answer: unknown;
        try {
          answer = await lookup(name, handle.provider, BROKEN);
        } catch (err) {
          if (err instanceof ConformanceError) throw err;
          if (!message(err).includes(BROKEN))
            throw new ConformanceError(name, BROKEN, `lookup ${attempt} threw without naming the URN: "${message(err)}"`);
          continue;
        }
        throw new ConformanceError(
          name,
          BROKEN,
          `lookup ${attempt} of a schema that cannot load answered ${shown(answer)}; expected an error naming the URN`,
        );
      }
      if (handle.update === undefined) {
        throw new ConformanceError(
          name,
          BROKEN,
          'the factory gives no update(): the kit cannot show that a retry after a fix succeeds (return {provider, update})',
        );
      }
      // No reload(): a consumer's plain retry must succeed once the schema is fixed.
      await handle.update(BROKEN, FIXED_TEXT);
      let schema: CompiledSchema;
      try {
        schema = await expectSchema(name, handle.provider, BROKEN);
      } catch (err) {
        throw new ConformanceError(name, BROKEN, `the retry after the schema was fixed failed: the failure was cached (${message(err)})`);
      }
      if (schema.isValid({}) || !schema.isValid({ order_id: 1 }))
        throw new ConformanceError(name, BROKEN, 'the retry answered a schema that is not the fixed one');
    } finally {
      await handle.close?.();
    }
  }

  async function reload(): Promise<void> {
    const name = SCENARIOS.reload;
    const urn = 'urn:kit:reload';
    await using(name, registryOf([[urn, FIXED_TEXT]]), async (handle) => {
      const before = await expectSchema(name, handle.provider, urn);
      if (before.isValid({})) throw new ConformanceError(name, urn, 'the first answer is not the registered schema');
      if (handle.update === undefined) throw new ConformanceError(name, urn, 'reload is claimed but the factory gives no update()');
      await handle.update(urn, '{"type": "object"}');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await handle.reload?.();
        const now = await expectSchema(name, handle.provider, urn);
        if (now.isValid({})) return;
        if (Date.now() > deadline) throw new ConformanceError(name, urn, `the changed schema was not picked up within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  }
}

/** Builds the whole suite for one factory. */
export function providerScenarios(
  factory: ProviderFactory,
  capabilities: ProviderCapabilities = {},
  options: ProviderSuiteOptions = {},
): ProviderScenario[] {
  return scenarios(probes(factory, capabilities, options));
}

function warningKey(w: SchemaWarning): string {
  // `kind` (unsupported / malformed) is compared when the validator reports it.
  const kind = (w as SchemaWarning & { kind?: unknown }).kind;
  return JSON.stringify(kind === undefined ? [w.pointer, w.keyword] : [w.pointer, w.keyword, kind]);
}

/** Contract cases grouped by their schema (one URN per group). */
function groupBySchema(cases: VerdictCase[]): VerdictCase[][] {
  const groups = new Map<string, VerdictCase[]>();
  for (const c of cases) {
    const key = JSON.stringify(c.schema);
    let list = groups.get(key);
    if (list === undefined) groups.set(key, (list = []));
    list.push(c);
  }
  return [...groups.values()];
}

export interface ProviderSuiteReport {
  /** The scenarios that ran and passed, in order. */
  passed: string[];
  /** The capability scenarios not run, with why. */
  unclaimed: Array<{ name: string; reason: string }>;
}

/**
 * Runs every scenario in order and throws the first violation (a ConformanceError naming the
 * scenario, the URN and what was expected). Resolves with what ran and what was not claimed.
 */
export async function runProviderSuite(
  factory: ProviderFactory,
  capabilities: ProviderCapabilities = {},
  options: ProviderSuiteOptions = {},
): Promise<ProviderSuiteReport> {
  const report: ProviderSuiteReport = { passed: [], unclaimed: [] };
  for (const s of providerScenarios(factory, capabilities, options)) {
    if (s.unclaimed !== undefined) {
      report.unclaimed.push({ name: s.name, reason: s.unclaimed });
      continue;
    }
    await s.run();
    report.passed.push(s.name);
  }
  return report;
}
