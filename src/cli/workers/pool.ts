import { Worker } from 'node:worker_threads';
import type { TaskAnswer, WorkerInit } from '../validate/judge.js';
import type { Task } from '../tasks.js';
import type { TaskRunner } from './task.js';

/** A worker's reply to one task: its answer, or the one line of an internal error. */
export type Reply = { seq: number; answer: TaskAnswer } | { seq: number; error: string };

interface Slot {
  worker: Worker;
  busy: number;
}

/** Tasks queued in a worker before the main thread takes the next one itself. */
const IN_FLIGHT = 2;

/**
 * `validate --jobs N`: worker threads, each judging tasks in the order it gets them, and the main
 * thread (`local`), which judges a task itself when every worker has enough queued: N threads in
 * all work, not N + 1 on N cores. `run` hands a task to the least busy worker (NDJSON bytes
 * transferred, not copied) or runs it here, and resolves to its answer. A worker that throws or
 * exits fails the whole pool: every pending task rejects with one message, and so does every later one.
 */
export class Pool {
  private readonly slots: Slot[] = [];
  private readonly waiting = new Map<number, { resolve: (a: TaskAnswer) => void; reject: (e: Error) => void; slot: Slot }>();
  private seq = 0;
  private closing = false;
  failure: Error | undefined;

  constructor(
    size: number,
    init: WorkerInit,
    private readonly local: TaskRunner,
  ) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('./validate-worker.js', import.meta.url), { workerData: init });
      const slot: Slot = { worker, busy: 0 };
      worker.on('message', (reply: Reply) => {
        const w = this.waiting.get(reply.seq);
        if (w === undefined) return;
        this.waiting.delete(reply.seq);
        slot.busy--;
        if ('error' in reply) this.fail(reply.error);
        else w.resolve(reply.answer);
      });
      worker.on('error', (err) => this.fail(`a validation worker failed: ${err?.message ?? String(err)}`));
      worker.on('exit', (code) => {
        if (!this.closing) this.fail(`a validation worker stopped unexpectedly (exit code ${code})`);
      });
      this.slots.push(slot);
    }
  }

  run(task: Task): Promise<TaskAnswer> {
    let p: Promise<TaskAnswer>;
    let slot = this.slots[0];
    for (const s of this.slots) if (s.busy < slot!.busy) slot = s;
    if (this.failure !== undefined) p = Promise.reject(this.failure);
    else if (slot === undefined || slot.busy >= IN_FLIGHT) p = this.local.answer(task);
    else {
      const seq = this.seq++;
      const to = slot;
      p = new Promise<TaskAnswer>((resolve, reject) => this.waiting.set(seq, { resolve, reject, slot: to }));
      to.busy++;
      if (task.kind === 'lines') to.worker.postMessage({ seq, task }, [task.bytes.buffer as ArrayBuffer]);
      else to.worker.postMessage({ seq, task });
    }
    // Awaited later, in input order; until then a rejection must not count as unhandled.
    p.catch(() => undefined);
    return p;
  }

  private fail(message: string): void {
    if (this.failure !== undefined) return;
    this.failure = new Error(message);
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
