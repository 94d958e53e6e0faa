import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/validator/index.js';
import { numberLiteral } from '../../src/validator/codegen.js';

/*
 * docs/contract.md §13: ±Infinity in a schema is a number (JSON 1e400, YAML .inf) and equals only
 * itself; in data, NaN and ±Infinity are not JSON numbers and fail `type: number`/`integer`.
 */

const quiet = { onWarning: () => {} };
const c = (schema: unknown) => compile(schema, quiet);

/** Asserts isValid and validate agree with `valid` for each value. */
function verdicts(schema: unknown, cases: Array<[unknown, boolean]>): void {
  const s = c(schema);
  for (const [v, valid] of cases) {
    expect(s.isValid(v), `${JSON.stringify(schema)} on ${String(v)}`).toBe(valid);
    expect(s.validate(v).length === 0, `validate ${JSON.stringify(schema)} on ${String(v)}`).toBe(valid);
  }
}

describe('non-finite numbers in schemas', () => {
  it('{"const": 1e400} accepts Infinity and rejects null (no false green)', () => {
    const schema = JSON.parse('{"const": 1e400}');
    expect(schema.const).toBe(Infinity);
    verdicts(schema, [
      [Infinity, true],
      [null, false],
      [-Infinity, false],
      [1.7976931348623157e308, false],
      ['Infinity', false],
    ]);
  });

  it('{"const": -1e400} accepts only -Infinity', () => {
    verdicts(JSON.parse('{"const": -1e400}'), [
      [-Infinity, true],
      [null, false],
      [Infinity, false],
      [-1e308, false],
    ]);
  });

  it('enum: [1e309] accepts Infinity and rejects null, inline and as a set', () => {
    verdicts(JSON.parse('{"enum": [1e309]}'), [
      [Infinity, true],
      [null, false],
      [-Infinity, false],
    ]);
    // More primitives than are inlined: the Set lookup path.
    const many = JSON.parse('{"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, "a", -1e309]}');
    verdicts(many, [
      [-Infinity, true],
      [null, false],
      [Infinity, false],
      [9, true],
      [10, false],
    ]);
  });

  it('infinities inside enum and const objects and arrays', () => {
    verdicts(JSON.parse('{"const": {"a": [1e400]}}'), [
      [{ a: [Infinity] }, true],
      [{ a: [null] }, false],
      [{ a: [-Infinity] }, false],
    ]);
    verdicts(JSON.parse('{"enum": [{"a": -1e400}, [1e400]]}'), [
      [{ a: -Infinity }, true],
      [[Infinity], true],
      [{ a: null }, false],
      [[null], false],
    ]);
  });

  it('minimum Infinity is compared literally: no finite number reaches it', () => {
    verdicts({ minimum: Infinity }, [
      [1.7976931348623157e308, false],
      [0, false],
      [-1, false],
      [Infinity, true],
      ['x', true],
    ]);
    verdicts(JSON.parse('{"type": "object", "properties": {"n": {"minimum": 1e400}}}'), [
      [{ n: 1e308 }, false],
      [{ n: 'x' }, true],
      [{}, true],
    ]);
  });

  it('minimum -Infinity admits every number', () => {
    verdicts({ minimum: -Infinity }, [
      [-1.7976931348623157e308, true],
      [-Infinity, true],
      [0, true],
    ]);
    verdicts({ type: 'number', minimum: -Infinity }, [
      [-1e308, true],
      [0, true],
    ]);
  });

  it('const -0 and 0 are the same value', () => {
    verdicts({ const: -0 }, [
      [0, true],
      [-0, true],
      [null, false],
    ]);
    verdicts({ enum: [0] }, [[-0, true]]);
  });
});

describe('non-finite numbers in data', () => {
  const bad = [NaN, Infinity, -Infinity];

  it.each(['number', 'integer'])('fail type %s, in isValid and validate, at any depth', (type) => {
    verdicts({ type }, [...bad.map((v): [unknown, boolean] => [v, false]), [1, true], [0, true]]);
    verdicts({ type: [type, 'null'] }, [...bad.map((v): [unknown, boolean] => [v, false]), [null, true], [2, true]]);
    verdicts({ items: { type } }, [
      [[1, Infinity], false],
      [[1, 2], true],
    ]);
    // Deep enough that the check moves into a function of its own.
    let schema: unknown = { type };
    let ok: unknown = 1;
    let ko: unknown = NaN;
    for (let i = 0; i < 40; i++) {
      schema = { properties: { x: schema } };
      ok = { x: ok };
      ko = { x: ko };
    }
    verdicts(schema, [
      [ok, true],
      [ko, false],
    ]);
  });

  it('the type violation names the value it got', () => {
    expect(c({ type: 'number' }).validate(-Infinity)).toEqual([
      { instancePath: '', schemaPath: '/type', keyword: 'type', message: 'must be number, got -Infinity' },
    ]);
    expect(c({ type: 'integer' }).validate(NaN)[0]!.message).toBe('must be integer, got NaN');
  });

  it('number keywords still apply by the value being a JS number, with one type or several', () => {
    const one = c({ type: 'number', minimum: 0 })
      .validate(-Infinity)
      .map((v) => v.keyword);
    const two = c({ type: ['number', 'string'], minimum: 0 })
      .validate(-Infinity)
      .map((v) => v.keyword);
    expect(one).toEqual(['type', 'minimum']);
    expect(two).toEqual(one);
  });
});

describe('numberLiteral', () => {
  it('evaluates back to the same number for every double but NaN (-0 as 0)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (v) => {
        const back = new Function(`return ${numberLiteral(v)};`)() as number;
        expect(Object.is(back, v === 0 ? 0 : v)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    expect(numberLiteral(Infinity)).toBe('Infinity');
    expect(numberLiteral(-Infinity)).toBe('(-Infinity)');
    expect(numberLiteral(-0)).toBe('0');
    expect(() => numberLiteral(NaN)).toThrow();
  });
});
