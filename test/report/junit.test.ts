import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { ReportInput } from '../../src/report/model.js';
import { renderJunit, xmlAttr, xmlText } from '../../src/report/junit.js';
import { junitSchemaErrors } from '../helpers/ci-formats.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: true, // decode numeric character references (&#10;) too
  isArray: (name) => name === 'testsuite' || name === 'testcase',
});

interface Case {
  name: string;
  classname: string;
  time?: string;
  file?: string;
  line?: string;
  failure?: { message: string; type: string; '#text': string };
  'system-out'?: string;
}
interface Suite {
  name: string;
  file?: string;
  tests: string;
  failures: string;
  errors: string;
  skipped: string;
  testcase?: Case[];
}
interface Doc {
  testsuites: { name: string; tests: string; failures: string; errors: string; skipped: string; testsuite?: Suite[] };
}

function parse(xml: string): Doc {
  expect(XMLValidator.validate(xml)).toBe(true);
  expect(junitSchemaErrors(xml)).toBe('');
  return parser.parse(xml) as Doc;
}

const INPUT: ReportInput = {
  tool: { name: 'bqschema', version: '0.1.0' },
  findings: [
    { rule: 'type-narrowed', level: 'error', message: 'type narrowed', location: { file: 'schemas/orders.json', line: 12, col: 7 } },
    { rule: 'required-added', level: 'warning', message: 'now required', location: { file: 'schemas/orders.json', line: 3 } },
    { rule: 'BQ_INVALID_ENVELOPE', level: 'error', message: 'no urn', location: { file: 'in.ndjson', line: 4, col: 1 } },
    { rule: 'urn-removed', level: 'note', message: 'removed' },
  ],
  artifacts: ['schemas/orders.json', 'schemas/clean.json', 'in.ndjson'],
};

describe('renderJunit', () => {
  it('testsuites / testsuite per file / testcase per finding, with counts that add up', () => {
    const doc = parse(renderJunit(INPUT));
    const root = doc.testsuites;
    expect(root).toMatchObject({ name: 'bqschema 0.1.0', tests: '5', failures: '2', errors: '0' });
    // Reporters that count from the root read its `skipped` (junit-10.xsd does not declare it).
    expect((root as { skipped?: string }).skipped).toBe('0');
    const suites = root.testsuite!;
    expect(suites.map((s) => s.name)).toEqual(['schemas/orders.json', 'in.ndjson', 'bqschema', 'schemas/clean.json']);
    expect(suites.map((s) => [s.tests, s.failures])).toEqual([
      ['2', '1'],
      ['1', '1'],
      ['1', '0'],
      ['1', '0'],
    ]);
    let cases = 0;
    let failed = 0;
    for (const s of suites) {
      expect(Number(s.tests)).toBe(s.testcase!.length);
      expect(Number(s.failures)).toBe(s.testcase!.filter((c) => c.failure).length);
      cases += s.testcase!.length;
      failed += s.testcase!.filter((c) => c.failure).length;
    }
    expect([cases, failed]).toEqual([5, 2]);
  });

  it("errors are failures; warnings and notes pass with their text; locations are in the name and text, and in each test case's file and line", () => {
    const [orders, ndjson, none, clean] = parse(renderJunit(INPUT)).testsuites.testsuite!;
    const [err, warn] = orders!.testcase!;
    expect(err).toMatchObject({
      name: 'type-narrowed at schemas/orders.json:12:7',
      classname: 'bqschema.type-narrowed',
      time: '0.000',
      file: 'schemas/orders.json',
      line: '12',
    });
    expect(warn).toMatchObject({ file: 'schemas/orders.json', line: '3' });
    expect(err!.failure).toEqual({ message: 'type narrowed', type: 'type-narrowed', '#text': 'schemas/orders.json:12:7: type narrowed' });
    expect(warn!.failure).toBeUndefined();
    expect(warn!['system-out']).toBe('warning: schemas/orders.json:3: now required');
    expect(ndjson!.testcase![0]!.failure!.type).toBe('BQ_INVALID_ENVELOPE');
    expect(none!.testcase![0]).toMatchObject({ name: 'urn-removed', 'system-out': 'note: removed' });
    expect((none as { file?: string }).file).toBeUndefined();
    expect(clean).toMatchObject({ name: 'schemas/clean.json', file: 'schemas/clean.json' });
    expect(clean!.testcase![0]).toMatchObject({ name: 'schemas/clean.json: no findings', file: 'schemas/clean.json', line: '1' });
    expect(none!.testcase![0]!.file).toBeUndefined(); // a finding about no file: no place to give
  });

  it('with units: one test case each, failure / error / skipped by outcome, counts by unit, time in seconds', () => {
    const input: ReportInput = {
      tool: { name: 'bqschema', version: '1' },
      command: 'validate',
      timeMs: 1234,
      units: [
        { id: 'a.json', file: 'a.json', outcome: 'pass', timeMs: 1.5 },
        { id: 'b.json', file: 'b.json', outcome: 'fail', timeMs: 2 },
        { id: 'in.ndjson:1', file: 'in.ndjson', outcome: 'skip' },
        { id: 'in.ndjson:2', file: 'in.ndjson', outcome: 'error' },
      ],
      findings: [
        { rule: 'invalid-data', level: 'error', message: 'one', location: { file: 'b.json', line: 2 }, unit: 'b.json' },
        { rule: 'invalid-data', level: 'error', message: 'two', location: { file: 'b.json', line: 3 }, unit: 'b.json' },
        { rule: 'no-schema', level: 'note', message: 'no schema', location: { file: 'in.ndjson', line: 1 }, unit: 'in.ndjson:1' },
        { rule: 'unreadable-input', level: 'error', message: 'bad JSON', location: { file: 'in.ndjson', line: 2 }, unit: 'in.ndjson:2' },
      ],
    };
    const doc = parse(renderJunit(input)).testsuites;
    expect(doc).toMatchObject({ tests: '4', failures: '1', errors: '1', time: '1.234' });
    const [a, b, nd] = doc.testsuite!;
    expect([a!.tests, b!.tests, nd!.tests, nd!.skipped, nd!.errors]).toEqual(['1', '1', '2', '1', '1']);
    expect(a!.testcase![0]).toMatchObject({ name: 'a.json', classname: 'bqschema.validate', time: '0.002' });
    expect(b!.testcase![0]!.failure).toEqual({ message: 'one', type: 'invalid-data', '#text': 'b.json:2: one\nb.json:3: two' });
    const [skipped, error] = nd!.testcase! as Array<Case & { skipped?: Record<string, string>; error?: Record<string, string> }>;
    expect(skipped!.skipped).toEqual({ message: 'no schema', type: 'no-schema', '#text': 'in.ndjson:1: no schema' });
    expect(error!.error).toEqual({ message: 'bad JSON', type: 'unreadable-input', '#text': 'in.ndjson:2: bad JSON' });
  });

  it('findings no unit owns are one more test case, an error when one is an error: never dropped', () => {
    const doc = parse(
      renderJunit({
        tool: { name: 'bqschema', version: '1' },
        command: 'check',
        units: [{ id: 'urn:a', file: 's.json', outcome: 'pass' }],
        findings: [
          { rule: 'manifest', level: 'error', message: 'entry 2 has an empty "urn"', location: { file: 'registry.json', line: 5 } },
        ],
      }),
    ).testsuites;
    expect(doc).toMatchObject({ tests: '2', failures: '0', errors: '1' });
    expect(doc.testsuite![1]!.testcase![0]).toMatchObject({ name: 'bqschema', error: { message: 'entry 2 has an empty "urn"' } });
  });

  it('hostile text is escaped: the document stays well-formed and reads back', () => {
    const msg = 'a ]]> b <script>alert(1)</script> & "q" \'s\' tab\tnl\ncr\r end';
    const xml = renderJunit({
      tool: { name: 'bq<"&>', version: '1' },
      findings: [{ rule: 'r"]]>', level: 'error', message: msg, location: { file: 'a&b<c>.json', line: 1 } }],
    });
    expect(xml).not.toContain(']]>');
    expect(xml).not.toContain('<script>');
    const s = parse(xml).testsuites.testsuite![0]!;
    expect(s.name).toBe('a&b<c>.json');
    const c = s.testcase![0]!;
    expect(c.failure!.message).toBe(msg);
    expect(c.failure!.type).toBe('r"]]>');
    expect(c.classname).toBe('bq<"&>.r"]]>');
    expect(c.failure!['#text']).toBe(`a&b<c>.json:1: ${msg}`);
  });

  it('characters XML cannot carry are shown as \\u escapes, never emitted raw', () => {
    const msg = 'nul\u0000 ctl\u0001 esc\u001b lone\uD800 fffe\uFFFE ok\u{1F600} ls\u2028';
    const xml = renderJunit({ tool: { name: 't', version: '1' }, findings: [{ rule: 'r', level: 'error', message: msg }] });
    expect(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\uFFFE\uFFFF]/.test(xml)).toBe(false);
    const c = parse(xml).testsuites.testsuite![0]!.testcase![0]!;
    expect(c.failure!.message).toBe('nul\\u0000 ctl\\u0001 esc\\u001B lone\\uD800 fffe\\uFFFE ok\u{1F600} ls\u2028');
  });

  it('escapers: text and attribute forms', () => {
    expect(xmlText('a]]>b&<\r\n')).toBe('a]]&gt;b&amp;&lt;&#13;\n');
    expect(xmlAttr('"\'\t\n\r')).toBe('&quot;&apos;&#9;&#10;&#13;');
  });

  it('no findings and no files: an empty, valid report', () => {
    const xml = renderJunit({ tool: { name: 't', version: '1' }, findings: [] });
    expect(parse(xml).testsuites).toMatchObject({ tests: '0', failures: '0' });
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  });

  it('is deterministic', () => {
    expect(renderJunit(INPUT)).toBe(renderJunit(INPUT));
  });
});
