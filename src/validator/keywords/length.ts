import { code, EMPTY, join, type Code, type Path } from '../codegen.js';
import { codePointLength } from '../codepoints.js';
import { joinPointer } from '../pointer.js';
import { describe, lengthBound, type SchemaNode } from '../schema-node.js';
import type { Check, Gen, ParseScope } from './keyword.js';

/*
 * What `minLength` and `maxLength` share: a string's length in code points, counted once for both
 * bounds, with UTF-16 length shortcuts (cp ≤ length ≤ 2·cp). Their check is one, listed under both.
 */

declare module '../schema-node.js' {
  interface SchemaNode {
    /** The bounds as applied (lengthBound). */
    minLength?: number;
    maxLength?: number;
  }
}

/** Reads a bound; a non-finite one is ignored (the contract) and reported (docs/contract.md §8). */
export function parseLength(keyword: 'minLength' | 'maxLength', value: unknown, node: SchemaNode, at: ParseScope): boolean {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    at.bad(keyword, `must be a finite number, got ${describe(value)}`);
    return false;
  }
  node[keyword] = lengthBound(value);
  return true;
}

/** The violations' words before the string's length (the length is said, never the string). */
const minLengthMessage = (lo: number): string => `must be at least ${lo} characters long, got `;
const maxLengthMessage = (hi: number): string => `must be at most ${hi} characters long, got `;

/** A minLength that takes effect (a bound of 0 or less admits every string). */
const lower = (node: SchemaNode): number | undefined => (node.minLength !== undefined && node.minLength > 0 ? node.minLength : undefined);

function lengthCode(g: Gen, node: SchemaNode, d: Code, path: Path): Code {
  const s: Code[] = [];
  const sp = node.pointer;
  // A string whose UTF-16 length lies in both bounds' uncertain ranges, [min, 2·min) and
  // (max, 2·max], would have its code points counted by both checks (and again by a message):
  // there it is counted once. In the fast path that range gets a branch of its own; validate
  // keeps the count in a variable, which also serves its messages. (Measured: a variable in the
  // fast path costs ~2% on the bench's short strings; the branch does not.)
  const lo = lower(node);
  const hi = node.maxLength;
  const both = lo !== undefined && hi !== undefined ? ([Math.max(lo, hi + 1), Math.min(2 * lo, 2 * hi + 1)] as const) : undefined;
  const overlap = both && both[0] < both[1] ? both : undefined;
  let cps = code`L(${d})`;
  if (overlap && g.mode === 'all') {
    const l = g.id('l');
    s.push(code`let ${l}=-1;`);
    cps = code`(${l}<0?(${l}=L(${d})):${l})`;
  }
  if (lo !== undefined) {
    const msg = code`${minLengthMessage(lo)}+${cps}`;
    s.push(
      code`if(${d}.length<${lo}||(${d}.length<${2 * lo}&&${cps}<${lo})){${g.fail(path, joinPointer(sp, 'minLength'), 'minLength', msg)}}`,
    );
  }
  if (hi !== undefined) {
    const m = Math.max(hi, 0);
    const msg = code`${maxLengthMessage(m)}+${cps}`;
    s.push(
      code`if(${d}.length>${m}&&(${d}.length>${2 * m}||${cps}>${m})){${g.fail(path, joinPointer(sp, 'maxLength'), 'maxLength', msg)}}`,
    );
  }
  if (overlap && g.mode === 'valid') {
    const l = g.id('l');
    const checks = join(s);
    s.length = 0;
    s.push(
      code`if(${d}.length>=${overlap[0]}&&${d}.length<${overlap[1]}){const ${l}=L(${d});if(${l}<${lo!}||${l}>${hi!}){${g.fail(path, '', '', EMPTY)}}}else{${checks}}`,
    );
  }
  return join(s);
}

export const lengthCheck: Check = {
  block: 'string',
  applies: (node) => lower(node) !== undefined || node.maxLength !== undefined,
  code: lengthCode,
  run(w, n, d, path, e) {
    const s = d as string;
    const lo = lower(n);
    if (lo !== undefined) {
      if (
        (s.length < lo || (s.length < 2 * lo && codePointLength(s) < lo)) &&
        !w.fail(e, path, joinPointer(n.pointer, 'minLength'), 'minLength', `${minLengthMessage(lo)}${codePointLength(s)}`)
      )
        return false;
    }
    if (n.maxLength !== undefined) {
      const m = Math.max(n.maxLength, 0);
      if (
        s.length > m &&
        (s.length > 2 * m || codePointLength(s) > m) &&
        !w.fail(e, path, joinPointer(n.pointer, 'maxLength'), 'maxLength', `${maxLengthMessage(m)}${codePointLength(s)}`)
      )
        return false;
    }
    return true;
  },
};
