import { isUtf8 } from 'node:buffer';

/** A file's bytes that are not UTF-8: the byte offset of the first bad sequence. */
export class EncodingError extends Error {
  override name = 'EncodingError';
  constructor(readonly offset: number) {
    super(`not valid UTF-8 (byte offset ${offset})`);
  }
}

/** The offset of the first byte that does not start or continue a valid UTF-8 sequence. */
export function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let len: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [len, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [len, min] = [3, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [len, min] = [4, 0x10000];
    else return i;
    if (i + len > n) return i;
    let cp = b & (0xff >> (len + 1));
    for (let k = 1; k < len; k++) {
      const c = buf[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += len;
  }
  return -1;
}

/**
 * Decodes UTF-8 strictly: bytes that are not UTF-8 are an EncodingError naming the offset, never
 * silently replaced by U+FFFD (which would then be validated as if it were the sender's text).
 */
export function decodeUtf8(buf: Buffer): string {
  if (!isUtf8(buf)) throw new EncodingError(firstInvalidUtf8(buf));
  return buf.toString('utf8');
}
