import { describe, expect, it } from 'vitest';
import { ConformanceError, providerScenarios, runProviderSuite, SCENARIOS, type ProviderFactory } from '../../src/conformance/index.js';
import { MapProvider } from '../../src/index.js';
import { dirFactory, lazyAsync, mapFactory, nullFactory, silentFactory } from '../helpers/conformance-kit.js';

const ALL = Object.values(SCENARIOS);
const CORE = ALL.filter((s) => s !== SCENARIOS.reload);

// The kit as a test-runner user sees it: one test per scenario.
describe('providerScenarios(MapProvider)', () => {
  for (const s of providerScenarios(mapFactory)) {
    if (s.unclaimed) it.skip(`${s.name} (${s.unclaimed})`, () => {});
    else it(s.name, () => s.run());
  }
});

describe('runProviderSuite passes conforming providers', () => {
  it('MapProvider: every core scenario ran, reload reported as unclaimed', async () => {
    const report = await runProviderSuite(mapFactory);
    expect(report.passed).toEqual(CORE);
    expect(report.unclaimed).toEqual([{ name: SCENARIOS.reload, reason: 'the provider does not claim reload' }]);
  });
  it('DirProvider over a temp directory', async () => {
    expect((await runProviderSuite(dirFactory)).passed).toEqual(CORE);
  });
  it('a lazy asynchronous provider, reload claimed', async () => {
    const report = await runProviderSuite((f) => lazyAsync(f), { async: true, reload: true });
    expect(report.passed).toEqual(ALL);
    expect(report.unclaimed).toEqual([]);
  });
});

async function failure(factory: ProviderFactory, capabilities = {}): Promise<ConformanceError> {
  const err = await runProviderSuite(factory, capabilities).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConformanceError);
  return err as ConformanceError;
}

describe('broken providers fail with the right scenario named', () => {
  it('one that caches a failed load', async () => {
    const err = await failure((f) => lazyAsync(f, { cacheFailures: true }), { async: true });
    expect(err.scenario).toBe(SCENARIOS.failure);
    expect(err.urn).toBe('urn:kit:broken');
    expect(err.message).toMatch(/retry after the schema was fixed failed: the failure was cached/);
  });
  it('one that answers null for a registered URN', async () => {
    const err = await failure(nullFactory);
    expect(err.scenario).toBe(SCENARIOS.registered);
    expect(err.message).toMatch(/expected a compiled schema, got null/);
    // and the verdict scenario, run on its own, names the first case whose verdict is wrong
    const verdicts = providerScenarios(nullFactory).find((s) => s.name === SCENARIOS.verdicts)!;
    await expect(verdicts.run()).rejects.toThrow(/case "valid-no-order-id"|case ".*": expected invalid; check returned 0 violation/);
  });
  it('one that loses warnings', async () => {
    const err = await failure(silentFactory);
    expect(err.scenario).toBe(SCENARIOS.warnings);
    expect(err.message).toContain('expected warnings [["","pattern","unsupported"]], got []');
  });
  it('one that loads a URN once per lookup', async () => {
    // Each load registers the schema again, so its warnings repeat: the warnings scenario sees it first.
    const factory: ProviderFactory = (f) => lazyAsync(f, { noSharing: true });
    const err = await failure(factory, { async: true });
    expect(err.scenario).toBe(SCENARIOS.warnings);
    expect(err.message).toContain(
      'expected warnings [["","pattern","unsupported"]], got [["","pattern","unsupported"], ["","pattern","unsupported"]]',
    );
    const concurrent = providerScenarios(factory, { async: true }).find((s) => s.name === SCENARIOS.concurrent)!;
    await expect(concurrent.run()).rejects.toThrow(/answered 100 distinct schemas: it was loaded 100 times/);
  });
  it('one that answers a promise without claiming async', async () => {
    const err = await failure((f) => lazyAsync(f));
    expect(err.scenario).toBe(SCENARIOS.unknown);
    expect(err.message).toMatch(/does not claim async/);
  });
  it('one that throws for an unknown URN', async () => {
    const err = await failure((f) => {
      const inner = mapFactory(f) as MapProvider;
      return {
        schemaFor: (urn: string) => {
          if (!inner.has(urn)) throw new Error('no such subject');
          return inner.schemaFor(urn);
        },
      };
    });
    expect(err.scenario).toBe(SCENARIOS.unknown);
    expect(err.message).toMatch(/threw "no such subject"; expected none/);
  });
  it('one that confuses prototype names with registered URNs', async () => {
    const err = await failure(({ registry, onWarning }) => {
      const plain: Record<string, unknown> = {};
      for (const urn of Object.keys(registry)) plain[urn] = JSON.parse(registry[urn]!); // `__proto__` is lost here
      return new MapProvider(plain, { onWarning });
    });
    expect(err.scenario).toBe(SCENARIOS.registered);
    expect(err.urn).toBe('__proto__');
  });
  it('one whose lookups hang', async () => {
    const err = await runProviderSuite(() => ({ schemaFor: () => new Promise(() => {}) }), { async: true }, { timeoutMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConformanceError);
    expect((err as ConformanceError).message).toMatch(/did not answer within 50 ms/);
  });
  it('one that does not pick up a change although it claims reload', async () => {
    const err = await failure(
      (f) => ({ provider: MapProvider.fromJson(f.registry as Record<string, string>, { onWarning: f.onWarning }), update: () => {} }),
      { reload: true },
    );
    expect(err.scenario).toBe(SCENARIOS.reload);
  });
});

it('MapProvider.fromJson keeps a __proto__ URN as an ordinary key', () => {
  const p = MapProvider.fromJson(JSON.parse('{"__proto__": "{\\"required\\": [\\"a\\"]}"}'));
  expect(p.urns()).toEqual(['__proto__']);
  expect(p.schemaFor('__proto__')!.isValid({})).toBe(false);
  expect(Object.getPrototypeOf(p)).toBe(MapProvider.prototype);
});
