import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  check,
  checkAsync,
  DirProvider,
  InvalidPayloadError,
  MapProvider,
  typed,
  validate,
  validateEnvelope,
  wrap,
  type Deprecation,
} from '../../src/index.js';
import { removeTempTrees, tempTree } from '../helpers/cli.js';

// The runtime guard's opt-in `onDeprecated`: told of each message whose URN the registry deprecates,
// before it is judged, and never changing a verdict.

afterAll(removeTempTrees);

const OLD = 'urn:t:orders:placed';
const BARE = 'urn:t:orders:legacy';
const NEW = 'urn:t:orders:placed.v2';
const DEP: Deprecation = { since: '2026-01-31', sunset: '2026-06-30', replacement: NEW, reason: 'split by region' };

const provider = new DirProvider(
  join(
    tempTree({
      'registry.json': JSON.stringify({
        schemas: [
          { urn: OLD, schema: 'o.json', deprecated: DEP },
          { urn: BARE, schema: 'o.json', status: 'deprecated' },
          { urn: NEW, schema: 'o.json' },
        ],
      }),
      'o.json': '{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}',
    }),
    'registry.json',
  ),
);

function recorder(): { seen: Array<[string, Deprecation]>; onDeprecated: (urn: string, d: Deprecation) => void } {
  const seen: Array<[string, Deprecation]> = [];
  return { seen, onDeprecated: (urn, d) => seen.push([urn, d]) };
}

describe('onDeprecated', () => {
  it('DirProvider answers the manifest: the dates, {} for the status alone, undefined for an active URN', () => {
    expect(provider.deprecation(OLD)).toEqual(DEP);
    expect(provider.deprecation(BARE)).toEqual({});
    expect(provider.deprecation(NEW)).toBeUndefined();
    expect(provider.deprecation('urn:t:unknown')).toBeUndefined();
  });

  it('check, validate and validateEnvelope call it for a deprecated URN only, valid data or not, and their verdicts are unchanged', () => {
    const r = recorder();
    expect(check(provider, OLD, { id: 1 }, r)).toEqual([]);
    expect(check(provider, OLD, { id: 'x' }, r)).toEqual(check(provider, OLD, { id: 'x' }));
    expect(check(provider, OLD, { id: 'x' }, r)).toHaveLength(1);
    expect(check(provider, NEW, { id: 1 }, r)).toEqual([]);
    expect(() => validate(provider, BARE, {}, r)).toThrow(InvalidPayloadError);
    expect(validateEnvelope(provider, { job: OLD, data: { id: 2 } }, r).urn).toBe(OLD);
    expect(r.seen).toEqual([
      [OLD, DEP],
      [OLD, DEP],
      [OLD, DEP],
      [BARE, {}],
      [OLD, DEP],
    ]);
  });

  it('wrap and checkAsync call it before the handler; a provider without deprecation() and no callback cost nothing', async () => {
    const r = recorder();
    const order: string[] = [];
    const handle = wrap(
      provider,
      async (e) => {
        order.push(`handler ${String(e.job)}`);
        return 1;
      },
      { onDeprecated: (urn) => order.push(`deprecated ${urn}`) },
    );
    await handle({ job: OLD, data: { id: 1 } });
    await handle({ job: NEW, data: { id: 1 } });
    await expect(handle({ job: OLD, data: {} })).rejects.toThrow(InvalidPayloadError);
    expect(order).toEqual([`deprecated ${OLD}`, `handler ${OLD}`, `handler ${NEW}`, `deprecated ${OLD}`]);
    expect(await checkAsync(provider, OLD, { id: 1 }, r)).toEqual([]);
    expect(r.seen).toEqual([[OLD, DEP]]);
    const map = new MapProvider({ [OLD]: { type: 'object' } });
    expect(check(map, OLD, {}, r)).toEqual([]);
    expect(r.seen).toHaveLength(1);
  });

  it('typed passes it to check and validate; a value that is not a function is a TypeError at start-up', () => {
    const r = recorder();
    const t = typed<{ [OLD]: { id: number } }>(provider, { onDeprecated: r.onDeprecated });
    t.check(OLD, { id: 1 });
    t.validate(OLD, { id: 1 });
    expect(r.seen).toEqual([
      [OLD, DEP],
      [OLD, DEP],
    ]);
    expect(() => wrap(provider, async () => 1, { onDeprecated: 'log' as never })).toThrow(
      /^onDeprecated must be a function \(urn, deprecation\) => void, got string$/,
    );
    expect(() => check(provider, OLD, {}, { onDeprecated: null as never })).toThrow(TypeError);
  });
});
