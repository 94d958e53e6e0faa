import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Bytes held by request bodies still arriving, over every connection (64 bodies at the limit). */
export const MAX_PENDING_BYTES = 64 * MAX_BODY_BYTES;
/** How long a connection being closed after a refused body is still read (and the bytes dropped). */
const LINGER_MS = 2_000;

/** Whether the request announces a body (a GET without one is answered without waiting for its end). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The declared length is over the limit: refuse before reading a byte of the body. */
export function declaredTooLarge(req: IncomingMessage, limit: number): boolean {
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > limit;
}

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'aborted' | 'tooLarge' | 'busy' };

/** The bytes bodies still arriving hold (a declared length in full), shared by a server's requests and capped. */
export class PendingBytes {
  held = 0;
  peak = 0;
  /** Bodies being read now. */
  bodies = 0;
  constructor(readonly cap: number) {}

  fits(n: number): boolean {
    return this.held + n <= this.cap;
  }

  /** Counts `n` more bytes as held, unless that would pass the cap. */
  take(n: number): boolean {
    if (!this.fits(n)) return false;
    this.held += n;
    if (this.held > this.peak) this.peak = this.held;
    return true;
  }
}

/**
 * Reads the body up to `limit` bytes. Its bytes are counted in `pending` until it is complete: a
 * declared length all at once, before a byte is read (so a body let in can always finish), a chunked
 * body chunk by chunk. Past the limit, or past `pending`'s cap, it resolves `{ok: false}` at once and
 * drops whatever else arrives, so the socket keeps draining while the refusal is sent.
 */
export function readBody(req: IncomingMessage, limit: number, pending: PendingBytes): Promise<BodyResult> {
  return new Promise((resolve) => {
    const length = req.headers['content-length'];
    const declared = length !== undefined && req.headers['transfer-encoding'] === undefined ? Number(length) : undefined;
    if (declared !== undefined && !pending.take(declared)) {
      resolve({ ok: false, reason: 'busy' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    pending.bodies++;
    const finish = (result: BodyResult): void => {
      if (done) return;
      done = true;
      chunks.length = 0;
      pending.held -= declared ?? size;
      pending.bodies--;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      if (size + chunk.length > limit) finish({ ok: false, reason: 'tooLarge' });
      else if (declared === undefined && !pending.take(chunk.length)) finish({ ok: false, reason: 'busy' });
      else {
        size += chunk.length;
        chunks.push(chunk);
      }
    });
    req.on('end', () => {
      if (done) return;
      const body = Buffer.concat(chunks, size);
      finish({ ok: true, body });
    });
    // An aborted upload: nobody is left to answer, and the socket is already gone.
    req.on('error', () => finish({ ok: false, reason: 'aborted' }));
    req.on('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}

/**
 * Half-closes the socket (after what is already written) and drops whatever the client still sends,
 * for a moment. Closing a socket with unread bytes makes the kernel send a reset, which can destroy
 * the answer before the client reads it.
 */
export function linger(socket: Duplex): void {
  socket.end();
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Marks the response as the connection's last, closed politely (see `linger`). Node's server closes
 * a `Connection: close` response's socket with `destroySoon()`, so that is what this socket does
 * differently.
 */
export function closeAfterResponse(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close');
  const socket: Socket = req.socket;
  socket.destroySoon = function lingeringClose(this: Socket): void {
    linger(this);
  };
}
