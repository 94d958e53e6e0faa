// `bqschema/babelqueue-node`, a drop-in for the Node SDK's schema module. The
// Node SDK's own test expectations (../shared/peers/cases/node.json, vendored as
// test/vendor/peers/node.json; no SDK code copied) run against it: every case in scope passes.
// The cases where the contract makes our verdict differ from the SDK's are in DIFFERENCES below
// and in docs/babelqueue-node.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as dropIn from '../../src/babelqueue-node/index.js';
import {
  check,
  InvalidPayloadError,
  MapProvider,
  sensitivePaths,
  validate,
  validateSchema,
  wrap,
  type SchemaNode,
} from '../../src/babelqueue-node/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const VENDORED = join(ROOT, 'test', 'vendor', 'peers', 'node.json');
const SHARED = join(ROOT, '..', 'shared', 'peers', 'cases', 'node.json');

interface Step {
  op: 'check' | 'validate' | 'wrap';
  urn?: string;
  data?: Record<string, unknown>;
  valid?: boolean;
  throws?: string;
  envelope?: dropIn.Envelope;
  expect?: string;
  calls?: number;
  error?: string;
}
interface Case {
  id: string;
  kind: string;
  scope?: string;
  reason?: string;
  schema?: SchemaNode;
  data?: unknown;
  valid?: boolean;
  paths?: unknown;
  schemas?: Record<string, string>;
  steps?: Step[];
  call?: string;
  expect?: string;
}
const peers = JSON.parse(readFileSync(VENDORED, 'utf8')) as { cases: Case[] };

describe("the Node SDK's schema-module cases (peers/node.json)", () => {
  it('the vendored copy equals ../shared when that folder exists', () => {
    if (!existsSync(SHARED)) return; // a clone without ../shared runs the vendored copy alone
    expect(readFileSync(VENDORED, 'utf8')).toBe(readFileSync(SHARED, 'utf8'));
  });

  it('holds every kind this module answers for', () => {
    const kinds = new Set(peers.cases.map((c) => c.kind));
    for (const k of ['verdict', 'guard', 'gdpr-paths', 'api']) expect(kinds).toContain(k);
  });

  for (const c of peers.cases) {
    // Runtime field encryption (protect/unprotect) is the SDK's, not the contract's: out of scope, as the case says.
    if (c.kind === 'none') continue;
    it(c.id, async () => {
      if (c.kind === 'verdict') {
        expect(validateSchema(c.schema!, c.data) === null).toBe(c.valid);
      } else if (c.kind === 'gdpr-paths') {
        expect(sensitivePaths(c.schema!)).toEqual(c.paths);
      } else if (c.kind === 'api') {
        // The case that was out of scope for the main entry: the SDK's call form, here in scope.
        expect(c.call).toBe('validateSchema(schema, value)');
        expect(String(validateSchema(c.schema!, c.data))).toBe(c.expect);
      } else if (c.kind === 'guard') {
        const provider = MapProvider.fromJson(c.schemas!);
        let calls = 0;
        const handler = wrap(provider, async () => {
          calls++;
        });
        for (const s of c.steps!) {
          if (s.op === 'check') expect((await check(provider, s.urn!, s.data!)) === null).toBe(s.valid);
          else if (s.op === 'validate') {
            const p = validate(provider, s.urn!, s.data!);
            expect(p).toBeInstanceOf(Promise); // node:assert.rejects needs a rejecting promise
            await expect(p).rejects.toBeInstanceOf(InvalidPayloadError);
          } else {
            if (s.expect === 'rejects') await expect(handler(s.envelope!)).rejects.toBeInstanceOf(InvalidPayloadError);
            else await handler(s.envelope!);
            expect(calls).toBe(s.calls);
          }
        }
      } else throw new Error(`a kind this test does not know: ${c.kind}`);
    });
  }
});

describe("the SDK's shapes", () => {
  it("exports exactly the SDK schema module's names", () => {
    expect(Object.keys(dropIn).sort()).toEqual([
      'InvalidPayloadError',
      'MapProvider',
      'check',
      'sensitivePaths',
      'validate',
      'validateSchema',
      'wrap',
    ]);
  });

  it("violations are the SDK's strings: <path>: <reason>, <root> for the root", async () => {
    const s: SchemaNode = {
      type: 'object',
      required: ['order_id'],
      properties: {
        order_id: { type: 'integer', minimum: 1 },
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string', minLength: 3 } } } },
      },
      additionalProperties: false,
    };
    expect(validateSchema(s, {})).toBe('order_id: missing_required');
    expect(validateSchema(s, { order_id: 'x' })).toBe('order_id: not_an_integer');
    expect(validateSchema(s, { order_id: 0 })).toBe('order_id: below_minimum');
    expect(validateSchema(s, { order_id: 1, extra: 1 })).toBe('extra: additional_not_allowed');
    expect(validateSchema(s, { order_id: 1, lines: [{ sku: 'abc' }, { sku: 'a' }] })).toBe('lines[1].sku: below_min_length');
    expect(validateSchema(s, [])).toBe('<root>: not_an_object');
    expect(validateSchema({ enum: ['a'] }, 'b', 'data')).toBe('data: not_in_enum');
    const p = new MapProvider({ 'urn:t': s });
    await expect(validate(p, 'urn:t', {})).rejects.toThrow(
      'Message data for "urn:t" does not match its URN schema: order_id: missing_required.',
    );
    const err = await validate(p, 'urn:t', {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'InvalidPayloadError', urn: 'urn:t', violation: 'order_id: missing_required' });
    // An async provider, as the SDK allows.
    await expect(check({ schemaFor: async () => s }, 'urn:t', { order_id: 1 })).resolves.toBeNull();
    expect(() => MapProvider.fromJson({ 'urn:x': '[]' })).toThrow('schema: invalid JSON schema for "urn:x"');
  });
});

describe('boolean schemas (docs/contract.md §2): `false` rejects everything, `true` accepts everything', () => {
  const values: unknown[] = [{}, { order_id: 1 }, [], 'x', 0, null, true];

  it('validateSchema: `false` names the root, `true` passes, at the root and below', () => {
    for (const v of values) {
      expect(validateSchema(false, v)).toBe('<root>: not_allowed');
      expect(validateSchema(true, v)).toBeNull();
    }
    expect(validateSchema({ type: 'object', properties: { a: false } }, { a: 1 })).toBe('a: not_allowed');
    expect(validateSchema({ type: 'object', properties: { a: false } }, {})).toBeNull();
    expect(validateSchema({ type: 'array', items: false }, [1])).toBe('[0]: not_allowed');
    expect(validateSchema({ type: 'object', additionalProperties: false }, { b: 1 })).toBe('b: additional_not_allowed');
  });

  it('check, validate and wrap: a `false` schema is a schema, not "no schema" (which is undefined or null only)', async () => {
    for (const provider of [
      new MapProvider({ 'urn:f': false, 'urn:t': true }),
      MapProvider.fromJson({ 'urn:f': 'false', 'urn:t': 'true' }),
      { schemaFor: async (urn: string) => (urn === 'urn:f' ? false : urn === 'urn:t' ? true : undefined) },
    ]) {
      expect(await check(provider, 'urn:f', { order_id: 1 })).toBe('<root>: not_allowed');
      expect(await check(provider, 'urn:f', {})).toBe('<root>: not_allowed');
      expect(await check(provider, 'urn:t', { anything: [1] })).toBeNull();
      expect(await check(provider, 'urn:none', { anything: [1] })).toBeNull();
      await expect(validate(provider, 'urn:f', {})).rejects.toMatchObject({
        name: 'InvalidPayloadError',
        urn: 'urn:f',
        violation: '<root>: not_allowed',
      });
      let calls = 0;
      const handler = wrap(provider, () => {
        calls++;
      });
      await expect(handler({ job: 'urn:f', data: {} })).rejects.toBeInstanceOf(InvalidPayloadError);
      await handler({ job: 'urn:t', data: {} });
      expect(calls).toBe(1);
    }
    // A provider answering null has no schema; one answering something that is not a schema fails, never passes.
    expect(await check({ schemaFor: () => null as unknown as undefined }, 'urn:x', {})).toBeNull();
    for (const bad of [0, '', 'false', Number.NaN]) {
      await expect(check({ schemaFor: () => bad as unknown as SchemaNode }, 'urn:x', {})).rejects.toThrow(
        /a schema must be an object or a boolean/,
      );
    }
  });
});

/**
 * Where the contract makes our verdict differ from the Node SDK's validator (its source, read for
 * this list: it supports one `type` string, ignores maxLength, counts UTF-16 units, compares enum
 * values with JSON.stringify and reads required keys through the prototype). Each: schema, value,
 * our verdict (the SDK's is the opposite).
 */
const DIFFERENCES: Array<[string, SchemaNode, unknown, boolean]> = [
  ['a type union (the SDK ignores a type array)', { type: ['string', 'null'] }, 1, false],
  ['maxLength (the SDK does not enforce it)', { type: 'string', maxLength: 2 }, 'abc', false],
  ['minLength counts code points (the SDK counts UTF-16 units)', { type: 'string', minLength: 2 }, '😀', false],
  ['enum equality ignores key order (the SDK compares JSON text)', { enum: [{ a: 1, b: 2 }] }, { b: 2, a: 1 }, true],
  ["required is an own property (the SDK's `in` sees the prototype)", { type: 'object', required: ['toString'] }, {}, false],
  ['1.0 is an integer (JSON has one number; the SDK agrees here, kept as a guard)', { type: 'integer' }, 1.0, true],
];

describe('verdicts that differ from the Node SDK by contract (docs/babelqueue-node.md)', () => {
  for (const [what, schema, value, valid] of DIFFERENCES) {
    it(what, () => expect(validateSchema(schema, value) === null).toBe(valid));
  }

  it('the docs list every difference', () => {
    const page = readFileSync(join(ROOT, 'docs', 'babelqueue-node.md'), 'utf8');
    for (const [what] of DIFFERENCES.slice(0, 5)) expect(page).toContain(what.slice(0, what.indexOf(' (')));
  });
});
