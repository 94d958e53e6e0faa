// One Report rendered in every format, and the formats agree. Random
// Reports (fast-check) go through the text, JSON, github, markdown, SARIF and JUnit renderers of
// src/report; each output is read by its consumer (JSON.parse, the SARIF 2.1.0 schema, an XML
// parser and the JUnit XSD, the runner's workflow-command syntax, a GFM parser) and compared
// finding by finding and count by count.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderGithub } from '../../src/report/github.js';
import { renderJunit } from '../../src/report/junit.js';
import { renderMarkdown, type MarkdownBlock } from '../../src/report/markdown.js';
import { renderJson } from '../../src/report/json.js';
import type { Outcome, Report, ReportFinding, ReportUnit } from '../../src/report/model.js';
import { isSarifResult, renderSarif } from '../../src/report/sarif.js';
import {
  clean,
  renderText,
  type FindingText,
  type Span,
  type TextLine,
  type TextView,
  type Tones,
  type UnitText,
} from '../../src/report/text.js';
import {
  asSarifPlaces,
  junitCases,
  junitCounts,
  liveHtml,
  readBlocks,
  readGithub,
  readJunit,
  readMarkdown,
  readSarif,
  sarifInOrder,
} from '../helpers/ci-formats.js';

// Fixed for reproducible CI runs; FC_SEED=<n> explores other seeds.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 3535) });

// Text that stresses each format's escaping: workflow-command separators, XML markup, URI
// characters, a newline, non-ASCII (no other control characters: those are shown escaped, tested
// in test/report/junit.test.ts and test/check/hostile-inputs.e2e.test.ts).
// Markup too, which must stay text in markdown: a comment's start and end, tags, entities.
const word = fc
  .string({
    unit: fc.constantFrom(
      'a',
      'B',
      '7',
      ' ',
      ':',
      ',',
      '%',
      '=',
      '<',
      '>',
      '&',
      '"',
      "'",
      '#',
      '?',
      'é',
      '中',
      '😀',
      '/',
      '|',
      '`',
      '*',
      '_',
      '\\',
      '[',
      '\n',
      '<!--',
      '-->',
      '<script>',
      '<br>',
      '<img src=x onerror=alert(1)>',
      '&lt;',
      '&#60;',
      '<http://x.y>',
    ),
    minLength: 1,
    maxLength: 12,
  })
  // Markdown folds runs of spaces and trims a cell: words carry single inner spaces only.
  .map((w) => w.replace(/ +/g, ' ').replace(/^ | $/g, 'x'));
const fileName = fc
  .array(fc.string({ unit: fc.constantFrom('a', 'b', 'é', ' ', '%', '#', ',', '-', '.'), minLength: 1, maxLength: 6 }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((segs) => segs.join('/'))
  .filter((f) => !f.split('/').some((s) => s === '.' || s === '..'));
const pos = fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined });
const textLine: fc.Arbitrary<TextLine> = fc.array(
  fc.oneof(word, fc.record({ text: word, tone: fc.constantFrom('bold', 'dim', 'fail', 'warn', 'pass' as const) })),
  { minLength: 1, maxLength: 3 },
);

/*
 * A generated Report whose units and findings carry, as their subject, how a command's text view
 * words them (or nothing: the defaults), and the run's lead and notes: its view (viewOf).
 */
type Generated = Report<FindingText | undefined, UnitText | undefined>;
const runText = new WeakMap<Generated, { lead: readonly TextLine[]; notes: readonly TextLine[] }>();
const viewOf = (r: Generated): TextView<FindingText | undefined, UnitText | undefined> => ({
  ...runText.get(r),
  unit: (u) => u.subject,
  finding: (f) => f.subject,
});

const report: fc.Arbitrary<Generated> = fc
  .record({
    units: fc.uniqueArray(
      fc.record({
        id: word,
        file: fc.option(fileName, { nil: undefined }),
        outcome: fc.constantFrom<Outcome>('pass', 'fail', 'skip', 'error'),
      }),
      { selector: (u) => u.id, maxLength: 8 },
    ),
    findings: fc.array(
      fc.record({
        rule: fc.constantFrom('invalid-data', 'no-schema', 'schema-problem'),
        level: fc.constantFrom<ReportFinding['level']>('error', 'warning', 'note'),
        message: word,
        file: fc.option(fileName, { nil: undefined }),
        line: pos,
        col: pos,
        title: fc.option(word, { nil: undefined }),
        unitIndex: fc.nat(),
        urn: fc.option(
          word.map((w) => `urn:${w}`),
          { nil: undefined },
        ),
        pointer: fc.option(
          fc.array(word, { maxLength: 3 }).map((p) => p.map((x) => `/${x}`).join('')),
          { nil: undefined },
        ),
        evidence: fc.option(
          fc.record(
            {
              witness: fc.record({ payload: fc.jsonValue({ maxDepth: 2 }), validUnder: fc.constantFrom<'old' | 'new'>('old', 'new') }),
              corpus: fc.record({ checked: fc.nat(9), rejected: fc.nat(9) }),
            },
            { requiredKeys: [] },
          ),
          { nil: undefined },
        ),
      }),
      { maxLength: 12 },
    ),
    ok: fc.boolean(),
    summary: word,
    counts: fc.dictionary(
      fc.constantFrom('messages', 'urns', 'changes', 'valid', 'breaking', 'errors', '__proto__', 'constructor'),
      fc.nat(),
    ),
    // How text shows a unit or a finding, where the command words it itself (else the defaults).
    unitTexts: fc.array(
      fc.option(
        fc.record({
          heading: fc.option(textLine, { nil: null }),
          group: fc.option(word, { nil: undefined }),
          notes: fc.array(textLine, { maxLength: 2 }),
        }),
        { nil: undefined },
      ),
      { maxLength: 8 },
    ),
    findingTexts: fc.array(
      fc.option(fc.record({ line: fc.option(textLine, { nil: null }), details: fc.array(textLine, { maxLength: 2 }) }), { nil: undefined }),
      { maxLength: 12 },
    ),
    notes: fc.array(textLine, { maxLength: 2 }),
    lead: fc.array(textLine, { maxLength: 2 }),
  })
  .map(({ units: plain, findings, ok, summary, counts, unitTexts, findingTexts, notes, lead }): Generated => {
    const units = plain.map((u, i): ReportUnit<UnitText | undefined> => (unitTexts[i] === undefined ? u : { ...u, subject: unitTexts[i] }));
    const results = findings.map(
      ({ unitIndex, file, line, col, pointer, urn, evidence, ...f }, i): ReportFinding<FindingText | undefined> => {
        // A finding belongs to a unit, or (when there is none to own it) to the whole run.
        const unit = units.length === 0 ? undefined : units[unitIndex % units.length]!.id;
        // A column only with a line, as every command gives them; a pointer only with a file.
        const location =
          file === undefined
            ? undefined
            : { file, line, ...(line === undefined ? {} : { col }), ...(pointer === undefined ? {} : { pointer }) };
        const text = findingTexts[i];
        return {
          ...f,
          ...(location ? { location } : {}),
          ...(unit === undefined ? {} : { unit }),
          ...(urn === undefined ? {} : { urn }),
          ...(evidence === undefined || Object.keys(evidence).length === 0 ? {} : { evidence }),
          ...(text === undefined ? {} : { subject: text }),
        };
      },
    );
    const r: Generated = {
      tool: { name: 'bqschema', version: '1.0.0', rules: [] },
      command: 'validate',
      ok,
      summary: counts,
      summaryLine: `${ok ? 'OK' : 'FAILED'}: ${summary.replace(/\n/g, 'n')}`,
      findings: results,
      units,
    };
    runText.set(r, { notes, lead });
    return r;
  });

const same = (s: string): string => s;
const PLAIN: Tones = { bold: same, dim: same, red: same, green: same, yellow: same };
const spanText = (s: Span): string => (typeof s === 'string' ? s : s.text);
const lineText = (l: TextLine): string => clean(l.map(spanText).join(''));

/** Whether `want` are lines of `got` in that order, each contained in one (a subsequence). */
function inOrder(got: readonly string[], want: readonly string[]): string | undefined {
  let at = 0;
  for (const w of want) {
    while (at < got.length && !got[at]!.includes(w)) at++;
    if (at === got.length) return w;
    at++;
  }
  return undefined;
}

describe('one Report, every format', () => {
  it('text: the run’s lead lines, each unit under its heading with its findings, their details and its notes, then the run’s findings and notes, then the summary line', () => {
    fc.assert(
      fc.property(report, (r) => {
        const out = renderText(r, PLAIN, {}, viewOf(r)).replace(/\n$/, '').split('\n');
        expect(out.at(-1)).toBe(clean(r.summaryLine));
        const ids = new Set(r.units.map((u) => u.id));
        const run = runText.get(r);
        const want: string[] = (run?.lead ?? []).map(lineText);
        const shown = (f: ReportFinding<FindingText | undefined>): string[] => {
          if (f.subject === undefined) return [clean(f.message)];
          return [...(f.subject.line === null ? [] : [lineText(f.subject.line)]), ...(f.subject.details ?? []).map(lineText)];
        };
        for (const u of r.units) {
          if (u.subject === undefined) want.push(`${clean(u.id)}${u.file === undefined ? '' : `  ${clean(u.file)}`}`);
          else if (u.subject.heading !== null) want.push(lineText(u.subject.heading));
          for (const f of r.findings.filter((x) => x.unit === u.id)) want.push(...shown(f));
          want.push(...(u.subject?.notes ?? []).map(lineText));
        }
        for (const f of r.findings.filter((x) => x.unit === undefined || !ids.has(x.unit))) want.push(...shown(f));
        want.push(...(run?.notes ?? []).map(lineText));
        expect(inOrder(out.slice(0, -1), want)).toBeUndefined();
        // A blank line parts the summary line from what came before it.
        expect(out.length === 1 || out.at(-2) === '').toBe(true);
        // Every line printed is one of the Report's, or a group's header.
        const groups = r.units.flatMap((u) =>
          u.subject?.group === undefined || u.subject.heading === null ? [] : [clean(u.subject.group)],
        );
        expect(out.length - 2).toBeLessThanOrEqual(Math.max(0, want.length + groups.length));
      }),
      { numRuns: 200 },
    );
  });

  it('text: a unit in a group is indented under its header, shown once for consecutive units', () => {
    const unit = (id: string, group: string): ReportUnit<UnitText> => ({
      id,
      outcome: 'fail',
      subject: { heading: [`line ${id}`], group },
    });
    const view: TextView<FindingText, UnitText> = { unit: (u) => u.subject, finding: (f) => f.subject };
    const r: Report<FindingText, UnitText> = {
      tool: { name: 'bqschema', version: '1.0.0' },
      command: 'validate',
      ok: false,
      summary: { messages: 3 },
      summaryLine: 'FAILED: 3 messages',
      units: [unit('1', 'a.ndjson'), unit('2', 'a.ndjson'), unit('3', 'b.ndjson')],
      findings: [
        { rule: 'invalid-data', level: 'error', message: 'bad', unit: '2', subject: { line: ['/x  bad'], details: [['  more']] } },
      ],
    };
    expect(renderText(r, PLAIN, {}, view)).toBe(
      'a.ndjson\n  line 1\n  line 2\n      /x  bad\n        more\nb.ndjson\n  line 3\n\nFAILED: 3 messages\n',
    );
    // --quiet leaves out a passing unit with nothing said, and only that.
    const quiet = renderText(
      { ...r, units: [...r.units, { id: '4', outcome: 'pass', subject: { heading: ['line 4'], group: 'b.ndjson' } }] },
      PLAIN,
      { quiet: true },
      view,
    );
    expect(quiet).not.toContain('line 4');
    expect(quiet).toContain('line 3');
  });

  it('JSON: ok and summary are the Report’s, then its own fields and its units’ entries; without them, its units and findings', () => {
    fc.assert(
      fc.property(
        report,
        fc.dictionary(fc.constantFrom('mode', 'ok', 'summary', '__proto__', 'errors'), fc.jsonValue({ maxDepth: 1 })),
        fc.boolean(),
        (r, fields, withUnits) => {
          const plain = JSON.parse(renderJson(r));
          expect(Object.keys(plain).slice(0, 2)).toEqual(['ok', 'summary']);
          expect(plain.ok).toBe(r.ok);
          expect(plain.summary).toEqual(JSON.parse(JSON.stringify(r.summary)));
          expect(plain.findings.map((f: ReportFinding) => f.message)).toEqual(r.findings.map((f) => f.message));
          expect(plain.units.map((u: ReportUnit) => [u.id, u.outcome])).toEqual(r.units.map((u) => [u.id, u.outcome]));
          // SARIF's run says the same verdict and counts.
          const run = readSarif(renderSarif(r)).runs[0] as { properties?: Record<string, unknown> };
          expect(run.properties!.summary).toEqual(plain.summary);
          // The command's own layout: its fields, and an entry per unit (here its index).
          const entry = new Map(r.units.map((u, i) => [u, { n: i }]));
          const own = JSON.parse(renderJson(r, { fields, ...(withUnits ? { units: 'results', unit: (u) => entry.get(u) } : {}) }));
          expect(own.ok).toBe(r.ok);
          expect(own.summary).toEqual(plain.summary);
          // A field cannot override the verdict, and a key named __proto__ is an own field.
          // (As JSON holds it: -0 is written 0.)
          for (const [k, v] of Object.entries(fields))
            if (k !== 'ok' && k !== 'summary')
              expect(Object.getOwnPropertyDescriptor(own, k)?.value).toEqual(JSON.parse(JSON.stringify(v)));
          if (withUnits) expect(own.results).toEqual(r.units.map((_, i) => ({ n: i })));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('github annotations are the SARIF results, word for word and place for place, and end with the summary line', () => {
    fc.assert(
      fc.property(report, (r) => {
        const gh = readGithub(renderGithub(r));
        // A finding about a file is a result; one about no file a notification of the run (code scanning rejects a result without a location).
        const sarif = sarifInOrder(readSarif(renderSarif(r)).runs[0], r.findings.map(isSarifResult));
        expect(gh.annotations.map(asSarifPlaces)).toEqual(sarif.map((x) => x.said));
        expect(gh.annotations.map((a) => a.title)).toEqual(r.findings.map((f) => f.title));
        expect(gh.summary).toBe(r.summaryLine);
      }),
      { numRuns: 150 },
    );
  });

  it('JUnit has one test case per unit with its outcome, and every finding in its unit’s case', () => {
    fc.assert(
      fc.property(report, (r) => {
        const doc = readJunit(renderJunit(r));
        const tally = (o: Outcome): number => r.units.filter((u) => u.outcome === o).length;
        // Findings no unit owns: an error among them is one more test case, an error.
        const runError = r.findings.some((f) => f.unit === undefined && f.level === 'error') ? 1 : 0;
        expect(junitCounts(doc)).toEqual({
          tests: r.units.length + runError,
          failures: tally('fail'),
          errors: tally('error') + runError,
          skipped: tally('skip'),
        });
        const cases = junitCases(doc);
        for (const u of r.units) {
          const c = cases.find((x) => x.name === u.id)!;
          expect(c, u.id).toBeDefined();
          const text = c.failure?.['#text'] ?? c.error?.['#text'] ?? c.skipped?.['#text'] ?? c['system-out'] ?? '';
          for (const f of r.findings.filter((x) => x.unit === u.id)) expect(text).toContain(f.message);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('markdown: the verdict as its heading, then one table row per finding: where, rule and message, as SARIF has them', () => {
    fc.assert(
      fc.property(report, fc.integer({ min: 1, max: 15 }), (r, max) => {
        const text = renderMarkdown(r, undefined, max);
        // No word of input is markup: the only HTML is the renderer's own <br>.
        expect(liveHtml(text)).toEqual([]);
        const doc = readMarkdown(text);
        expect(doc.heading).toBe(`bqschema ${r.command}: ${r.summaryLine}`);
        const sarif = sarifInOrder(readSarif(renderSarif(r)).runs[0], r.findings.map(isSarifResult)).slice(0, max);
        const at = (x: (typeof sarif)[number]['said']): string =>
          x.file === undefined ? '' : `${x.file}${x.line === undefined ? '' : `:${x.line}`}${x.col === undefined ? '' : `:${x.col}`}`;
        const expected = sarif.map(({ said: x, ruleId }, i) => {
          // SARIF puts a finding about a whole file at its first line; the table says the file only.
          const place = r.findings[i]!.location?.line === undefined ? (x.file ?? '') : at(x);
          return [x.level === 'error' ? 'error' : x.level === 'notice' ? 'note' : 'warning', place, ruleId, x.message];
        });
        expect(doc.rows).toEqual(expected);
        const more = r.findings.length - max;
        expect(doc.paragraphs.some((p) => p.startsWith(`… and ${more} more finding(s)`))).toBe(more > 0);
        if (r.findings.length === 0) expect(doc.paragraphs).toContain('No findings.');
      }),
      { numRuns: 150 },
    );
  });

  it("SARIF keeps what it has no field for in each result's property bag, under the glossary's names: urn, pointer, witness, corpus", () => {
    fc.assert(
      fc.property(report, (r) => {
        const sarif = sarifInOrder(readSarif(renderSarif(r)).runs[0], r.findings.map(isSarifResult));
        expect(sarif).toHaveLength(r.findings.length);
        r.findings.forEach((f, i) => {
          const want = {
            ...(f.urn === undefined ? {} : { urn: f.urn }),
            ...(f.location?.pointer === undefined ? {} : { pointer: f.location.pointer }),
            ...(f.evidence?.witness === undefined ? {} : { witness: f.evidence.witness }),
            ...(f.evidence?.corpus === undefined ? {} : { corpus: f.evidence.corpus }),
          };
          // Read back from the JSON text: what a SARIF reader gets (JSON has no -0, so compare as JSON does).
          expect(sarif[i]!.properties ?? {}).toEqual(JSON.parse(JSON.stringify(want)));
        });
      }),
      { numRuns: 100 },
    );
  });

  it("SARIF carries the run's verdict and summary counts in the run's property bag, as the JSON output has them", () => {
    fc.assert(
      fc.property(report, (r) => {
        const run = readSarif(renderSarif(r)).runs[0] as { properties?: Record<string, unknown> };
        expect(run.properties).toEqual({ command: r.command, ok: r.ok, summary: JSON.parse(JSON.stringify(r.summary)) });
        // Own keys only, whatever they are called: '__proto__' is a count, not a prototype.
        expect(Object.keys(run.properties!.summary as object).sort()).toEqual(Object.keys(r.summary).sort());
      }),
      { numRuns: 100 },
    );
  });

  it("markdown: a Report's own document (compat's pull-request comment) keeps every block, line and cell, whatever the words", () => {
    // A strong span is the command's own label, between spaces (markdown reads `**Remedy:**a` and
    // `a**✗ removed**` as no strong text: the model says so); any other span may be input.
    const label = fc.record({ text: fc.constantFrom('Remedy:', 'breaking', '✗ removed'), tone: fc.constantFrom('bold', 'fail' as const) });
    const span = fc.oneof(
      fc.array(fc.oneof(word, fc.record({ text: word, tone: fc.constantFrom('dim', 'warn', 'pass', 'code' as const) })), {
        minLength: 1,
        maxLength: 1,
      }),
      label.map((l): Span[] => [' ', l, ' ']),
    );
    // A line says something: one of spaces alone is no paragraph or list item to read back.
    const line = fc
      .array(span, { minLength: 1, maxLength: 4 })
      .map((l): TextLine => l.flat())
      .filter((l) => l.some((x) => /\S/.test(typeof x === 'string' ? x : x.text)));
    const lines = fc.array(line, { minLength: 1, maxLength: 3 });
    const block = fc.oneof(
      lines.map((l): MarkdownBlock => ({ lines: l })),
      lines.map((l): MarkdownBlock => ({ items: l })),
      fc
        .array(fc.tuple(lines, fc.array(line, { maxLength: 2 })), { minLength: 1, maxLength: 3 })
        .map((rows): MarkdownBlock => ({ columns: ['what', 'where'], rows })),
    );
    // What a reader sees of a line: its words, escapes undone, a newline in input a space; runs of spaces fold.
    const fold = (s: string): string => s.replace(/\s+/g, ' ').trim();
    const seen = (l: TextLine): string => fold(clean(l.map(spanText).join('').replace(/\r?\n/g, ' ')));
    const seenLines = (ls: readonly TextLine[]): string => ls.map(seen).join('\n');
    fc.assert(
      fc.property(line, fc.array(block, { maxLength: 4 }), (heading, blocks) => {
        const r: Report = {
          tool: { name: 'bqschema', version: '1.0.0' },
          command: 'compat',
          ok: false,
          summary: {},
          summaryLine: 'FAILED: x',
          units: [],
          findings: [],
        };
        const doc = { heading, blocks };
        expect(liveHtml(renderMarkdown(r, doc))).toEqual([]);
        const read = readBlocks(renderMarkdown(r, doc)).map((b) =>
          b.kind === 'list'
            ? { ...b, items: b.items.map(fold) }
            : b.kind === 'table'
              ? { ...b, rows: b.rows.map((row) => row.map((c) => c.split('\n').map(fold).join('\n'))) }
              : { ...b, text: b.text.split('\n').map(fold).join('\n') },
        );
        const want = [
          { kind: 'heading', text: fold(`bqschema compat: ${seen(heading)}`) },
          ...blocks.map((b) =>
            'lines' in b
              ? { kind: 'paragraph', text: seenLines(b.lines) }
              : 'items' in b
                ? { kind: 'list', items: b.items.map(seen) }
                : { kind: 'table', header: [...b.columns], rows: b.rows.map((row) => row.map(seenLines)) },
          ),
        ];
        expect(read).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it("a subject is for the command's views only: no format writes it", () => {
    const MARK = 'subject-never-shown';
    fc.assert(
      fc.property(report, (g) => {
        const r: Report<{ mark: string }, { mark: string }> = {
          ...g,
          findings: g.findings.map(({ subject: _s, ...f }) => ({ ...f, subject: { mark: MARK } })),
          units: g.units.map(({ subject: _s, ...u }) => ({ ...u, subject: { mark: MARK } })),
        };
        for (const out of [renderText(r, PLAIN), renderJson(r), renderGithub(r), renderMarkdown(r), renderSarif(r), renderJunit(r)])
          expect(out).not.toContain(MARK);
      }),
      { numRuns: 60 },
    );
  });

  it('a Report with notes that no unit owns keeps them, and keeps the counts', () => {
    const r: Report = {
      tool: { name: 'bqschema', version: '1.0.0' },
      command: 'compat',
      ok: true,
      summary: { urns: 1, added: 1, errors: 0 },
      summaryLine: 'OK: 1 URN(s)',
      units: [{ id: 'urn:a', file: 'registry.json', outcome: 'pass' }],
      findings: [
        {
          rule: 'registry-absent',
          level: 'note',
          message: 'registry.json does not exist at main: every URN is added',
          location: { file: 'registry.json' },
        },
      ],
    };
    const xml = renderJunit(r);
    expect(junitCounts(readJunit(xml))).toEqual({ tests: 1, failures: 0, errors: 0, skipped: 0 });
    expect(xml).toContain('<system-out>note: registry.json: registry.json does not exist at main: every URN is added</system-out>');
    expect(readGithub(renderGithub(r)).annotations).toEqual([
      { level: 'notice', file: 'registry.json', message: 'registry.json does not exist at main: every URN is added' },
    ]);
  });
});
