// SARIF and JUnit written as they go (src/report/sarif.ts SarifStream, src/report/junit.ts
// JunitStream, src/cli/spool.ts Spool) give the very bytes the whole-document renderers give, and
// validate's formatter hands its sink bounded chunks, never one string of the whole run.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Out, coloursFor, type Sink } from '../../src/cli/output.js';
import { Spool } from '../../src/cli/spool.js';
import { Formatter } from '../../src/cli/validate/formatter.js';
import type { Result } from '../../src/validate/judge.js';
import { JunitStream, renderJunit } from '../../src/report/junit.js';
import type { Outcome, ReportFinding, ReportInput, ReportUnit } from '../../src/report/model.js';
import { isSarifResult, renderSarif, SarifStream } from '../../src/report/sarif.js';
import { readJunit, readSarif } from '../helpers/ci-formats.js';

// The house pattern: a fixed seed in `npm test`; BQ_STREAM_SEED / BQ_STREAM_RUNS to look further.
const SEED = Number(process.env.BQ_STREAM_SEED ?? 35);
const RUNS = Number(process.env.BQ_STREAM_RUNS ?? 300);

const text = fc.string({
  unit: fc.constantFrom('a', 'é', '中', '😀', '"', '\\', '<', '&', '\n', ' ', '/', ':'),
  minLength: 0,
  maxLength: 8,
});
const file = fc.constantFrom('a.json', 'b c.ndjson', 'dir/é.json', '');
const finding = (units: number): fc.Arbitrary<ReportFinding> =>
  fc.record(
    {
      rule: fc.constantFrom('invalid-data', 'no-schema', 'unreadable-input'),
      level: fc.constantFrom<ReportFinding['level']>('error', 'warning', 'note'),
      message: text,
      location: fc.option(
        fc.record({
          file,
          line: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
          col: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
          pointer: fc.option(
            text.map((t) => `/${t}`),
            { nil: undefined },
          ),
        }),
        { nil: undefined },
      ),
      urn: fc.option(
        text.map((t) => `urn:${t}`),
        { nil: undefined },
      ),
      unit: fc.option(
        fc.nat(units).map((n) => `u${n}`),
        { nil: undefined },
      ),
    },
    { requiredKeys: ['rule', 'level', 'message'] },
  );
const units = fc
  .array(
    fc.record({
      file: fc.option(file, { nil: undefined }),
      outcome: fc.constantFrom<Outcome>('pass', 'fail', 'skip', 'error'),
      timeMs: fc.option(fc.double({ min: 0, max: 50, noNaN: true }), { nil: undefined }),
    }),
    { maxLength: 8 },
  )
  .map((us) => us.map((u, i): ReportUnit => ({ id: `u${i}`, ...u })));
const input: fc.Arbitrary<ReportInput> = units.chain((us) =>
  fc.record(
    {
      tool: fc.constant({
        name: 'bqschema',
        version: '1.2.3',
        rules: [{ id: 'invalid-data', description: 'd', help: 'h', helpUri: 'https://x/y' }],
      }),
      findings: fc.array(finding(us.length), { maxLength: 12 }),
      units: fc.option(fc.constant(us), { nil: undefined }),
      command: fc.option(fc.constantFrom('validate', 'check'), { nil: undefined }),
      ok: fc.boolean(),
      summary: fc.option(fc.record({ messages: fc.nat(), valid: fc.nat() }), { nil: undefined }),
      timeMs: fc.option(fc.double({ min: 0, max: 500, noNaN: true }), { nil: undefined }),
    },
    { requiredKeys: ['tool', 'findings'] },
  ),
);

describe('SarifStream', () => {
  it('its head, results and tail are the bytes renderSarif gives, laid out as JSON.stringify lays the log out', () => {
    fc.assert(
      fc.property(input, (r) => {
        const whole = renderSarif(r);
        // Canonical: the text is its own value pretty-printed, so the spliced pieces are well placed.
        expect(whole).toBe(JSON.stringify(JSON.parse(whole), null, 2) + '\n');
        // Streamed with every rule declared up front (as validate declares its own).
        const rules = [
          ...r.tool.rules!,
          ...['no-schema', 'unreadable-input'].map((id) => ({
            id,
            description: id,
            help: 'See the documentation.',
            helpUri: 'https://github.com/babelqueue/bqschema#readme',
          })),
        ];
        const declared = { ...r, tool: { ...r.tool, rules } };
        const s = new SarifStream(declared.tool, undefined, { command: r.command });
        let streamed = s.head();
        // A finding about a file is a result; one about no file a notification, said at the end.
        for (const f of r.findings) if (isSarifResult(f)) streamed += s.result(f);
        streamed += s.tail({ ...r, notes: r.findings.filter((f) => !isSarifResult(f)) });
        expect(streamed).toBe(renderSarif(declared));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('a finding citing a rule the head did not declare is a programming error, not a result without its rule', () => {
    const s = new SarifStream({ name: 't', version: '1', rules: [] });
    s.head();
    expect(() => s.result({ rule: 'nope', level: 'error', message: 'm' })).toThrow(/not declared/);
  });
});

describe('JunitStream through a Spool', () => {
  it('gives the bytes renderJunit gives, held in memory or in a temporary file', () => {
    fc.assert(
      fc.property(input, fc.constantFrom(0, 64, 1 << 20), (r, memory) => {
        if (r.units === undefined) return; // units made from findings: renderJunit's own business
        const byUnit = new Map<string, ReportFinding[]>();
        const run: ReportFinding[] = [];
        for (const f of r.findings) (f.unit === undefined ? run : (byUnit.get(f.unit) ?? byUnit.set(f.unit, []).get(f.unit)!)).push(f);
        if (run.some((f) => f.level === 'error')) return; // a run-level error is one more unit, added by renderJunit
        const stream = new JunitStream(r.tool, r.command, true);
        const spool = new Spool(memory);
        try {
          for (const u of r.units) {
            const { suite, xml } = stream.add(u, byUnit.get(u.id) ?? []);
            spool.add(suite, xml);
          }
          if (memory === 0) expect(spool.onDisk).toBe(r.units.length > 0);
          if (memory === 1 << 20) expect(spool.onDisk).toBe(false);
          const pieces = [...stream.document((suite) => spool.read(suite), run, r.timeMs)];
          expect(pieces.join('')).toBe(renderJunit(r));
        } finally {
          spool.close();
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('Spool', () => {
  const mine = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith(`bqschema-spool-${process.pid}-`));

  it('reads back each key in order, in memory and on disk alike, characters split across reads included', () => {
    // Pieces of two to four bytes a character, a key's pieces between another's, and one piece
    // longer than a read (1 MiB), whose characters straddle the read's end.
    const pieces: Array<[string, string]> = [];
    for (let i = 0; i < 3000; i++) pieces.push([`k${i % 7}`, `${i}:é中😀${'x'.repeat(i % 13)}\n`]);
    pieces.push(['k3', '😀'.repeat(300_000) + 'é'.repeat(100_001)]);
    const read = (memory: number): Map<string, string> => {
      const s = new Spool(memory);
      for (const [k, t] of pieces) s.add(k, t);
      expect(s.onDisk).toBe(memory < 1 << 30);
      // The temporary file has no name left behind: unlinked as soon as it was opened (POSIX).
      if (process.platform !== 'win32') expect(mine()).toEqual([]);
      const out = new Map<string, string>();
      for (let k = 0; k < 7; k++) out.set(`k${k}`, [...s.read(`k${k}`)].join(''));
      expect([...s.read('none')]).toEqual([]);
      s.close();
      return out;
    };
    const want = new Map<string, string>();
    for (const [k, t] of pieces) want.set(k, (want.get(k) ?? '') + t);
    expect(read(1 << 30)).toEqual(want);
    expect(read(100)).toEqual(want);
    expect(read(0)).toEqual(want);
    expect(mine()).toEqual([]);
  });
});

/** A sink that keeps each chunk it is handed, as stdout would receive them. */
function fakeSink(): Sink & { chunks: string[] } {
  const chunks: string[] = [];
  return { chunks, write: (c: string) => (chunks.push(c), true), once: () => undefined };
}

/** An invalid message of NDJSON line `line`, with three violations. */
function invalid(line: number): Result {
  const v = (k: string) => ({
    instancePath: `/${k}`,
    schemaPath: `/properties/${k}/type`,
    keyword: 'type',
    message: `must be string, got number ${line}`,
    at: `/data/${k}`,
  });
  return {
    file: 'big.ndjson',
    line,
    urn: 'urn:babel:orders:created',
    status: 'invalid',
    violations: [v('a'), v('b'), v('c')],
    warnings: undefined,
    error: undefined,
    errorLine: undefined,
    col: undefined,
    suggestion: undefined,
  };
}

describe("validate's formatter writes SARIF and JUnit in bounded chunks", () => {
  for (const format of ['sarif', 'junit'] as const) {
    it(`${format}: 20,000 messages reach the sink in many chunks of at most 64 KiB and one message, never as one string`, async () => {
      const sink = fakeSink();
      const out = new Out(sink);
      const f = new Formatter({ format } as never, coloursFor(false), undefined, out);
      await f.begin();
      const n = 20_000;
      for (let i = 1; i <= n; i++)
        if (f.add(i % 2 === 0 ? { ...invalid(i), status: 'valid', violations: undefined } : invalid(i), undefined)) await out.flush();
      await f.finish(false, 1);
      await out.flush();
      const whole = sink.chunks.join('');
      const longest = Math.max(...sink.chunks.map((c) => c.length));
      expect(sink.chunks.length).toBeGreaterThan(50);
      // A flush follows the message that passed 64 KiB (JUnit's end: a read of the spool, 1 MiB at most).
      expect(longest).toBeLessThan(format === 'sarif' ? 65536 + 4096 : 65536 + (1 << 20));
      expect(whole.length).toBeGreaterThan(20 * 65536);
      if (format === 'sarif') {
        const run = readSarif(whole).runs[0]!;
        // 30,000 results: code scanning takes at most 25,000 a run; the rest are counted.
        expect(run.results).toHaveLength(25_000);
        const props = (run as unknown as { properties: { summary: { messages: number; invalid: number }; omittedResults: unknown } })
          .properties;
        expect(props.summary).toMatchObject({ messages: n, invalid: n / 2 });
        expect(props.omittedResults).toEqual({ total: 5000, error: 5000, warning: 0, note: 0 });
      } else {
        const doc = readJunit(whole).testsuites;
        expect([doc.tests, doc.failures, doc.errors]).toEqual([`${n}`, `${n / 2}`, '0']);
        expect(doc.testsuite![0]!.testcase).toHaveLength(n);
      }
    });
  }
});
