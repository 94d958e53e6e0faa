import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError, type ErrorKind } from './errors.js';
import { judgeCompatibility, type CompatQuestion } from './judge.js';

type Answer = ReturnType<typeof judgeCompatibility>;

/** At most this many worker threads judge questions (fewer on a machine with fewer cores). */
const MAX_WORKERS = 4;

/** Where the worker's module is: beside this one, or under dist/serve when this code was bundled. */
function workerFile(): URL | undefined {
  for (const candidate of ['./compat-worker.js', '../serve/compat-worker.js']) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return undefined;
}

type Pending = { resolve: (a: Answer) => void; reject: (e: Error) => void };

/** One worker thread and the questions it has been given and not yet answered. */
interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * Worker threads, started on first use, that judge every compatibility question: the thread that
 * answers the other requests never compares schemas, whatever a body's size (a small body can hold
 * an expensive question). A question goes to the worker with the fewest unanswered ones. The
 * workers do not keep the process alive. Without a worker (none could start), questions are judged
 * in this thread, under the same limits (judge.ts), so the answer is the same.
 */
export class JudgePool {
  private readonly slots: (Slot | undefined)[];
  private broken = false;
  private seq = 0;

  constructor(size = Math.min(MAX_WORKERS, Math.max(1, availableParallelism()))) {
    this.slots = new Array<Slot | undefined>(size).fill(undefined);
  }

  judge(q: CompatQuestion): Answer | Promise<Answer> {
    const slot = this.broken ? undefined : this.pick();
    if (slot === undefined) return judgeCompatibility(q);
    const id = ++this.seq;
    return new Promise<Answer>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, question: q });
    });
  }

  close(): Promise<unknown> {
    const workers = this.slots.filter((s): s is Slot => s !== undefined).map((s) => s.worker);
    this.slots.fill(undefined);
    return Promise.all(workers.map((w) => w.terminate()));
  }

  /** An idle started worker, else a new one while there is room, else the least busy. */
  private pick(): Slot | undefined {
    let best: Slot | undefined;
    let free = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i];
      if (slot === undefined) {
        if (free === -1) free = i;
      } else if (slot.pending.size === 0) {
        return slot;
      } else if (best === undefined || slot.pending.size < best.pending.size) {
        best = slot;
      }
    }
    return free === -1 ? best : (this.start(free) ?? best);
  }

  private start(i: number): Slot | undefined {
    const file = workerFile();
    if (file === undefined) {
      this.broken = true;
      return undefined;
    }
    const worker = new Worker(file);
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (msg: { id: number; answer?: Answer; apiError?: { kind: ErrorKind; message: string }; failure?: string }) => {
      const p = slot.pending.get(msg.id);
      if (p === undefined) return;
      slot.pending.delete(msg.id);
      if (msg.apiError !== undefined) p.reject(new ApiError(msg.apiError.kind, msg.apiError.message));
      else if (msg.failure !== undefined) p.reject(new Error(msg.failure));
      else p.resolve(msg.answer!);
    });
    const die = (err: Error): void => {
      if (this.slots[i] === slot) this.slots[i] = undefined;
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`the compatibility worker stopped (exit ${code})`)));
    this.slots[i] = slot;
    return slot;
  }
}
