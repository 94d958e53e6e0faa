import { describe, expect, test } from 'vitest';
import { assembleAsyncApi, buildAsyncApi, validateAsyncApi } from '../../src/asyncapi/index.js';

// Registry schemas a YAML alias made self-referencing, or nested beyond any stack:
// export-asyncapi reports them as issues, it does not hang or crash.

describe('documents that cannot be written out', () => {
  test('a payload schema that refers to itself is one issue naming the URN, not a crash', async () => {
    const p: Record<string, unknown> = {};
    p.child = { type: 'object', properties: p };
    const doc = buildAsyncApi([{ urn: 'urn:x:cyclic', schema: { type: 'object', properties: p } }]);
    const issues = await validateAsyncApi(doc);
    expect(issues).toEqual([
      {
        pointer: '/channels/urn_x_cyclic/messages/urn_x_cyclic/payload/schema/properties/child/properties',
        message:
          'refers back to /channels/urn_x_cyclic/messages/urn_x_cyclic/payload/schema/properties (a YAML alias cycle?): it has no end, so it cannot be written out',
        urn: 'urn:x:cyclic',
      },
    ]);
  });

  test('a schema reused along two paths is not a cycle', async () => {
    const shared = { type: 'string' };
    const doc = buildAsyncApi([{ urn: 'urn:x:dag', schema: { type: 'object', properties: { a: shared, b: shared } } }]);
    expect(await validateAsyncApi(doc)).toEqual([]);
  });

  test('a schema nested deeper than the validator can follow is one issue', async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 50_000; i++) schema = { type: 'object', properties: { a: schema } };
    const issues = await validateAsyncApi(buildAsyncApi([{ urn: 'urn:x:deep', schema }]));
    expect(issues).toEqual([{ pointer: '', message: 'the document is nested too deeply to be checked against the AsyncAPI schema' }]);
  });
});

describe('keys AsyncAPI tools cannot read ("<<", __proto__, hasOwnProperty, $ref as a name)', () => {
  const unreadable = (entries: Array<{ urn: string; schema: unknown }>) => assembleAsyncApi(entries).issues;

  test('found at any depth, with their document pointers and their places in the schema', () => {
    const entries = [
      { urn: 'urn:m', schema: { properties: { '<<': { type: 'string' }, a: { properties: { '<<': {} } } } } },
      { urn: 'urn:ok', schema: { properties: { a: { type: 'string' } } } },
    ];
    const message =
      'the key "<<" is read as a YAML merge key by AsyncAPI tools, which would merge its value into the enclosing object; rename it';
    expect(unreadable(entries)).toEqual([
      {
        pointer: '/channels/urn_m/messages/urn_m/payload/schema/properties/<<',
        urn: 'urn:m',
        message,
        source: { pointer: '/properties/<<' },
      },
      {
        pointer: '/channels/urn_m/messages/urn_m/payload/schema/properties/a/properties/<<',
        urn: 'urn:m',
        message,
        source: { pointer: '/properties/a/properties/<<' },
      },
    ]);
  });

  test('a schema keyword, a property name and a value are told apart: "$ref" is refused only where it is not a reference', () => {
    const issues = unreadable([
      {
        urn: 'u',
        schema: {
          properties: { $ref: { type: 'string' }, a: { $ref: '#/properties/b' }, b: { default: { $ref: 'x' }, enum: [{ __proto__x: 1 }] } },
        },
      },
    ]);
    expect(issues.map((i) => i.source!.pointer)).toEqual(['/properties/$ref', '/properties/b/default/$ref']);
  });

  test('ends on a self-referencing schema, reporting each key once', () => {
    const p: Record<string, unknown> = { '<<': { type: 'string' } };
    p.child = { type: 'object', properties: p };
    const issues = unreadable([{ urn: 'urn:c', schema: { properties: p } }]);
    // child.properties is p again: the edge back is not followed.
    expect(issues.map((i) => i.pointer)).toEqual(['/channels/urn_c/messages/urn_c/payload/schema/properties/<<']);
  });

  test('a reused (not cyclic) sub-schema is reported on each path; 100k levels do not overflow', () => {
    const shared = { properties: { '<<': {} } };
    expect(unreadable([{ urn: 'u', schema: { properties: { a: shared, b: shared } } }])).toHaveLength(2);
    let deep: Record<string, unknown> = { '<<': 1 };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(unreadable([{ urn: 'u', schema: deep }])).toHaveLength(1);
  });

  test('buildAsyncApi throws where assembleAsyncApi reports: a document with an issue is never returned as if whole', () => {
    expect(() => buildAsyncApi([{ urn: 'u', schema: { properties: { hasOwnProperty: {} } } }])).toThrow(
      /^u: \/properties\/hasOwnProperty: the key "hasOwnProperty" stops AsyncAPI tools/,
    );
  });
});

describe('references that lead nowhere, and long chains of them', () => {
  test('a chain of references back to itself names no schema: refused where each $ref is', () => {
    const issues = assembleAsyncApi([
      {
        urn: 'u',
        schema: {
          properties: { p: { $ref: '#/definitions/a' } },
          definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } },
        },
      },
    ]).issues;
    expect(issues.map((i) => i.source!.pointer)).toEqual(['/properties/p/$ref', '/definitions/a/$ref', '/definitions/b/$ref']);
    for (const i of issues) expect(i.message).toMatch(/leads through references back to itself/);
  });

  test('20,000 definitions each only a reference to the next: every reference goes to the end of the chain, each link followed once', () => {
    const n = 20_000;
    const definitions: Record<string, unknown> = { [`d${n}`]: { type: 'string' } };
    for (let i = 0; i < n; i++) definitions[`d${i}`] = { $ref: `#/definitions/d${i + 1}` };
    // Followed from every link anew, the chains would take n²/2 (200 million) steps: far past the test's time.
    const { document, issues } = assembleAsyncApi([{ urn: 'u', schema: { properties: { p: { $ref: '#/definitions/d0' } }, definitions } }]);
    expect(issues).toEqual([]);
    const schemas = (document.components as { schemas: Record<string, { $ref?: string }> }).schemas;
    expect(schemas['u.d0']).toEqual({ $ref: `#/components/schemas/u.d${n}` });
    expect(schemas[`u.d${n - 1}`]).toEqual({ $ref: `#/components/schemas/u.d${n}` });
  });
});
