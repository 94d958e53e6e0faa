// `lines()` (src/cli/inputs.ts) cuts NDJSON by readline's rules along two paths: a chunk's complete
// lines decoded at once, or byte by byte when the chunk is not UTF-8 or may hold a line over the
// limit. This compares both, over random bytes cut into random chunks, with a reference written
// from the rules alone: the documents, line numbers, error offsets and the stop must be the same.
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { lines, wholeText, type Doc } from '../../dist/cli/inputs.js';
import { firstInvalidUtf8 } from '../../dist/registry/index.js';

// Properties run from a fixed seed in `npm test`; BQ_FC_SEED=<seed> draws others (or replays one).
const FC_SEED = Number(process.env.BQ_FC_SEED ?? 38105);

type Seen = { docs: Array<Record<string, unknown>>; stop?: string };

/** The rules, spelled out: \n, \r\n and a lone \r end a line; BOM on line 1; blank lines skipped. */
function reference(bytes: Buffer, limit: number, first = 0): Seen {
  const docs: Seen['docs'] = [];
  let line = first;
  let offset = 0;
  const segments: Buffer[] = [];
  for (let from = 0; ;) {
    const nl = bytes.indexOf(0x0a, from);
    segments.push(bytes.subarray(from, nl === -1 ? bytes.length : nl));
    if (nl === -1) break;
    from = nl + 1;
  }
  const last = segments.length - 1;
  for (let s = 0; s <= last; s++) {
    let seg = segments[s]!;
    if (s === last && seg.length === 0) break; // the stream ended with \n
    if (seg.length > limit)
      return {
        docs,
        stop: `F:${line + 1}: the line is larger than ${limit} bytes (the limit of --max-line-bytes); raise the limit with --max-line-bytes <bytes>, and give node 40 bytes of heap per byte of message (NODE_OPTIONS=--max-old-space-size=<MiB>)`,
      };
    const segStart = offset;
    offset += seg.length + 1;
    let start = segStart;
    if (line === 0 && seg.length >= 3 && seg[0] === 0xef && seg[1] === 0xbb && seg[2] === 0xbf) {
      seg = seg.subarray(3);
      start += 3;
    }
    if (seg.length > 0 && seg[seg.length - 1] === 0x0d) seg = seg.subarray(0, seg.length - 1);
    for (const piece of splitCr(seg)) {
      line++;
      const body = piece.bytes;
      if (body.length > 0) {
        if (!isUtf8(body)) {
          docs.push({ kind: 'error', line, message: `not valid UTF-8 (byte offset ${start + piece.at + firstInvalidUtf8(body)})` });
        } else {
          const text = body.toString('utf8');
          if (!/^[ \t\r\n\f\v]*$/.test(text)) docs.push({ kind: 'doc', line, text });
        }
      }
    }
  }
  return { docs };
}

function splitCr(seg: Buffer): Array<{ bytes: Buffer; at: number }> {
  const out: Array<{ bytes: Buffer; at: number }> = [];
  let from = 0;
  for (let cr = seg.indexOf(0x0d); cr !== -1; cr = seg.indexOf(0x0d, from)) {
    out.push({ bytes: seg.subarray(from, cr), at: from });
    from = cr + 1;
  }
  out.push({ bytes: seg.subarray(from), at: from });
  return out;
}

async function actual(chunks: Buffer[], limit: number, first = 0): Promise<Seen> {
  const docs: Seen['docs'] = [];
  try {
    for await (const batch of lines(chunks, 'F', { maxFileBytes: 1 << 30, maxLineBytes: limit }, { line: first, offset: 0 })) {
      for (const d of batch as Doc[])
        docs.push(d.kind === 'doc' ? { kind: 'doc', line: d.line, text: d.text } : { kind: 'error', line: d.line, message: d.message });
    }
  } catch (err) {
    return { docs, stop: (err as Error).message };
  }
  return { docs };
}

const TOKENS = ['{"a":1}', '{"b":"ğ😀"}', ' ', '\t', 'x', '\n', '\n', '\r', '\r\n', '\ufeff', '[]', 'ü', '😀'].map((t) => Buffer.from(t));
const BAD = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x82]), Buffer.from([0xed, 0xa0, 0x80])];

const stream = fc
  .array(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...TOKENS) }, { weight: 1, arbitrary: fc.constantFrom(...BAD) }), {
    maxLength: 60,
  })
  .map((parts) => Buffer.concat(parts));

/** Cuts bytes at the given points (sorted, deduplicated) into chunks. */
function chunksOf(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) out.push(bytes.subarray(from, c));
    from = Math.max(from, c);
  }
  return out;
}

describe('lines(): both paths agree with the rules', () => {
  it('random bytes, random chunks, random limits', async () => {
    await fc.assert(
      fc.asyncProperty(stream, fc.array(fc.nat(), { maxLength: 12 }), fc.constantFrom(4, 12, 40, 1 << 20), async (bytes, cuts, limit) => {
        expect(await actual(chunksOf(bytes, cuts), limit)).toEqual(reference(bytes, limit));
      }),
      { numRuns: 3000, seed: FC_SEED },
    );
  });

  it('a worker continuing from a line number numbers the same way (no BOM past line 1)', async () => {
    await fc.assert(
      fc.asyncProperty(stream, fc.array(fc.nat(), { maxLength: 6 }), fc.nat({ max: 5 }), async (bytes, cuts, first) => {
        expect(await actual(chunksOf(bytes, cuts), 1 << 20, first)).toEqual(reference(bytes, 1 << 20, first));
      }),
      { numRuns: 1000, seed: FC_SEED },
    );
  });

  it('the fast path is taken for clean chunks, and still finds CRLF, lone CR, a BOM and blank lines', async () => {
    const bytes = Buffer.from('\ufeff{"a":1}\r\n  \n\r{"b":2}\r{"c":3}\n\n{"d":4}');
    expect(await actual([bytes], 1 << 20)).toEqual({
      docs: [
        { kind: 'doc', line: 1, text: '{"a":1}' },
        { kind: 'doc', line: 4, text: '{"b":2}' },
        { kind: 'doc', line: 5, text: '{"c":3}' },
        { kind: 'doc', line: 7, text: '{"d":4}' },
      ],
    });
  });
});

describe('wholeText(): a whole file is an error exactly when its bytes are not UTF-8', () => {
  // It decodes first and checks the bytes only when the text holds U+FFFD: a real U+FFFD must pass.
  it('a real U+FFFD is text; a bad byte next to one is still an error', () => {
    expect(wholeText(Buffer.from('{"a":"\ufffd"}'), 'F')).toEqual({ kind: 'doc', file: 'F', text: '{"a":"\ufffd"}' });
    const bad = Buffer.concat([Buffer.from('{"a":"\ufffd'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(wholeText(bad, 'F')).toEqual({ kind: 'error', file: 'F', message: 'not valid UTF-8 (byte offset 9)' });
  });

  it('random bytes, alone or at the start of a larger buffer (the reader passes its shared buffer and the length read)', () => {
    fc.assert(
      fc.property(stream, fc.uint8Array({ maxLength: 8 }), (bytes, after) => {
        const doc = wholeText(bytes, 'F');
        expect(doc.kind).toBe(isUtf8(bytes) ? 'doc' : 'error');
        if (doc.kind === 'doc') expect(doc.text).toBe(bytes.toString('utf8'));
        else expect(doc.message).toBe(`not valid UTF-8 (byte offset ${firstInvalidUtf8(bytes)})`);
        expect(wholeText(Buffer.concat([bytes, after]), 'F', bytes.length)).toEqual(doc);
      }),
      { numRuns: 3000, seed: FC_SEED },
    );
  });
});
