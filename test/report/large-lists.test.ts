// Lists whose length comes from input (a schema's warnings, a unit's findings, a description's
// lines, a path's tokens) are never spread into a call's arguments: past ~120,000 elements
// `push(...list)` or `Math.max(...list)` throws a bare RangeError ("Maximum call stack size
// exceeded"). Each case here is longer than that and fails with the spread back in place.
import { afterAll, describe, expect, it } from 'vitest';
import { inventoryReport } from '../../src/gdpr/report.js';
import { inventoryTextView } from '../../src/gdpr/view-text.js';
import { DirProvider, MapProvider } from '../../src/index.js';
import { mdCode } from '../../src/report/markdown.js';
import type { Report, ReportFinding } from '../../src/report/model.js';
import { renderText, type Tones } from '../../src/report/text.js';
import { generateTypes } from '../../src/types/generate.js';
import { pointerLabel } from '../../src/validator/index.js';
import { removeTempTrees, tempTree } from '../helpers/cli.js';

afterAll(removeTempTrees);

/** More than any call takes as arguments on node's default stack. */
const MANY = 200_000;
const PLAIN: Tones = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s };

// Twenty unsupported keywords per property: 10,000 properties give 200,000 warnings and compile in
// well under a second (200,000 properties would take seconds to compile).
const UNSUPPORTED = [
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'minProperties',
  'maxProperties',
  'dependencies',
  'propertyNames',
  'contains',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
];
function manyWarnings(): object {
  const properties: Record<string, object> = {};
  for (let i = 0; i < MANY / UNSUPPORTED.length; i++) {
    const p: Record<string, unknown> = { type: 'string' };
    for (const k of UNSUPPORTED)
      p[k] =
        k === 'pattern' || k === 'format'
          ? 'x'
          : k === 'uniqueItems'
            ? true
            : k === 'dependencies' || k === 'propertyNames' || k === 'contains' || k === 'if' || k === 'then' || k === 'else'
              ? {}
              : k === 'allOf' || k === 'anyOf' || k === 'oneOf'
                ? [{}]
                : 1;
    properties[`f${i}`] = p;
  }
  return { type: 'object', properties };
}

describe('200,000 schema warnings', () => {
  it('MapProvider keeps every one', () => {
    const p = new MapProvider({ 'urn:babel:w:w': manyWarnings() }, { onWarning: () => undefined });
    expect(p.warnings.length).toBe(MANY);
    expect(p.warnings[MANY - 1]).toMatchObject({ kind: 'unsupported', keyword: 'oneOf', urn: 'urn:babel:w:w' });
  });

  it('DirProvider keeps every one', () => {
    const dir = tempTree({
      'registry.json': JSON.stringify({ schemas: [{ urn: 'urn:babel:w:w', schema: 'w.json', owner: 'o', status: 'active' }] }),
      'w.json': JSON.stringify(manyWarnings()),
    });
    const p = new DirProvider(`${dir}/registry.json`, { onWarning: () => undefined });
    expect(p.schemaFor('urn:babel:w:w')).toBeDefined();
    expect(p.warnings.length).toBe(MANY);
  });
});

describe('a unit with 200,000 findings', () => {
  it('renders as text, every finding a line under its unit', () => {
    const findings: ReportFinding[] = Array.from({ length: MANY }, (_, i) => ({
      rule: 'unsupported-keyword',
      level: 'warning',
      message: `w${i}`,
      unit: 'u',
      location: { file: 'f.json', line: i + 1 },
    }));
    const report: Report = {
      tool: { name: 'bqschema', version: '0' },
      command: 'check',
      ok: true,
      summary: { urns: 1 },
      summaryLine: 'OK: 1 URN',
      units: [{ id: 'u', file: 'f.json', outcome: 'pass' }],
      findings,
    };
    const lines = renderText(report, PLAIN).split('\n');
    expect(lines.length).toBe(1 + MANY + 3); // heading, findings, blank line, summary, final newline
    expect(lines[MANY]).toBe(`    warning  w${MANY - 1}`); // in its unit's file: no place repeated
    expect(lines.at(-2)).toBe('OK: 1 URN');
  });
});

describe('other lists from input', () => {
  it('a code span around 200,000 runs of backticks is fenced by a longer run', () => {
    const body = Array.from({ length: MANY }, (_, i) => '`'.repeat(1 + (i % 3))).join('x');
    const span = mdCode(body, false);
    expect(span.startsWith('```` ')).toBe(true);
    expect(span.endsWith(' ````')).toBe(true);
  });

  it("gdpr's inventory pads 200,000 fields of one URN to the longest", () => {
    const fields = Array.from({ length: MANY }, (_, i) => ({ path: `/f${i}`, category: 'email' }));
    const report = inventoryReport(
      { urns: [{ urn: 'urn:a:b', file: 'a.json', fields }], summary: { urns: 1, fields: MANY, errors: 0 }, summaryLine: 'x' },
      { name: 'bqschema', version: '0' },
    );
    const notes = inventoryTextView.unit!(report.units[0]!)!.notes!;
    expect(notes.length).toBe(MANY);
    expect(notes[0]![0]).toBe(pointerLabel('/f0').padEnd(pointerLabel(`/f${MANY - 1}`).length));
  });

  it('types: a description of 200,000 lines is a JSDoc block of as many lines', () => {
    const description = Array.from({ length: MANY }, (_, i) => `line ${i}`).join('\n');
    const out = generateTypes([{ urn: 'urn:a:b', schema: { type: 'object', description } }]);
    expect(out).toContain(` * line ${MANY - 1}\n`);
  });
});
