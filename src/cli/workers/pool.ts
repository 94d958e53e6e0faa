import { Worker } from 'node:worker_threads';
import type { TaskAnswer, WorkerInit } from '../validate/judge.js';
import type { Task } from '../tasks.js';
import type { TaskRunner } from './task.js';

/**
 * A worker's reply to one task: its answer, the one line of an internal error, or `taken` when the
 * main thread claimed the task first (the worker then did nothing with it).
 */
export type Reply = { seq: number; answer: TaskAnswer } | { seq: number; error: string } | { seq: number; taken: true };

/** What the main thread posts: a task, and the claim slot that says who judges it. */
export interface Posted {
  seq: number;
  task: Task;
}

/** What every worker gets besides the run's settings: the claim slots, shared with the main thread. */
export interface PoolData {
  init: WorkerInit;
  claims: SharedArrayBuffer;
}

/**
 * Claim slots, one per posted task (its seq modulo CLAIM_SLOTS): 0 while nobody has begun it; a
 * worker sets WORKER before it begins, the main thread MAIN before it judges the task itself. The
 * first to set the slot judges the task. A slot is reused only after CLAIM_SLOTS later tasks were
 * posted, and a worker holds at most IN_FLIGHT unanswered ones, so a stale slot is never mistaken.
 */
export const CLAIM_SLOTS = 4096;
export const WORKER = 1;
const MAIN = 2;

/**
 * Tasks a worker holds unanswered before the main thread judges the next one itself: enough that a
 * worker never waits on the main thread (which turns the event loop only between its own tasks),
 * and costless since the main thread takes back any of them not yet begun.
 */
const IN_FLIGHT = 3;

interface Slot {
  worker: Worker;
  /** Tasks posted to it and not answered (a `taken` reply answers too). */
  busy: number;
}

/** A task handed to `run`: its answer, once known, and, if it was posted, who may still judge it. */
export interface Pending {
  readonly task: Task;
  readonly answer: Promise<TaskAnswer>;
  /** Set while the task is posted and nobody has claimed it: the main thread may take it back. */
  posted: { seq: number; resolve: (a: TaskAnswer) => void; reject: (e: Error) => void } | undefined;
}

/**
 * `validate --jobs N`: worker threads, each judging tasks in the order it gets them, and the main
 * thread (`local`), which judges a task itself when every worker has enough queued: N threads in
 * all work, not N + 1 on N cores. `run` posts a task to the least busy worker (NDJSON bytes in
 * shared memory: neither copied nor moved) or runs it here. A posted task is claimed by whoever
 * begins it first: `takeBack` lets the main thread judge, rather than wait for, a task its worker has
 * not begun (a worker still starting, or starved of CPU on a busy machine, delays nothing but
 * itself). A worker that throws or exits fails the whole pool: every pending task rejects with one
 * message, and so does every later one.
 */
export class Pool {
  private readonly slots: Slot[] = [];
  private readonly waiting = new Map<number, { pending: Pending; slot: Slot }>();
  private readonly claims = new Int32Array(new SharedArrayBuffer(CLAIM_SLOTS * 4));
  private seq = 0;
  private closing = false;
  failure: Error | undefined;

  constructor(
    size: number,
    init: WorkerInit,
    private readonly local: TaskRunner,
  ) {
    const data: PoolData = { init, claims: this.claims.buffer as SharedArrayBuffer };
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('./validate-worker.js', import.meta.url), { workerData: data });
      const slot: Slot = { worker, busy: 0 };
      worker.on('message', (reply: Reply) => {
        slot.busy--;
        if ('taken' in reply) return; // the main thread judged it (takeBack)
        const w = this.waiting.get(reply.seq);
        if (w === undefined) return; // the pool has failed
        this.waiting.delete(reply.seq);
        const posted = w.pending.posted;
        w.pending.posted = undefined;
        if ('error' in reply) this.fail(reply.error);
        else posted?.resolve(reply.answer);
      });
      worker.on('error', (err) => this.fail(`a validation worker failed: ${err?.message ?? String(err)}`));
      worker.on('exit', (code) => {
        if (!this.closing) this.fail(`a validation worker stopped unexpectedly (exit code ${code})`);
      });
      this.slots.push(slot);
    }
  }

  run(task: Task): Pending {
    let slot = this.slots[0];
    for (const s of this.slots) if (s.busy < slot!.busy) slot = s;
    let pending: Pending;
    if (this.failure !== undefined) pending = { task, answer: Promise.reject(this.failure), posted: undefined };
    else if (slot === undefined || slot.busy >= IN_FLIGHT) pending = { task, answer: this.local.answer(task), posted: undefined };
    else {
      const seq = this.seq++;
      let resolve!: (a: TaskAnswer) => void;
      let reject!: (e: Error) => void;
      const answer = new Promise<TaskAnswer>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      pending = { task, answer, posted: { seq, resolve, reject } };
      Atomics.store(this.claims, seq % CLAIM_SLOTS, 0);
      this.waiting.set(seq, { pending, slot });
      slot.busy++;
      slot.worker.postMessage({ seq, task } satisfies Posted);
    }
    // Awaited later, in input order; until then a rejection must not count as unhandled.
    pending.answer.catch(() => undefined);
    return pending;
  }

  /**
   * Judges here a posted task its worker has not begun, and answers it: true if this thread took
   * it (the caller then has work done instead of waiting), false if a worker had begun it first.
   */
  async takeBack(pending: Pending): Promise<boolean> {
    const posted = pending.posted;
    if (posted === undefined || this.failure !== undefined) return false;
    if (Atomics.compareExchange(this.claims, posted.seq % CLAIM_SLOTS, 0, MAIN) !== 0) return false;
    // The worker's `taken` reply will only count it off its slot.
    this.waiting.delete(posted.seq);
    pending.posted = undefined;
    try {
      posted.resolve(await this.local.answer(pending.task));
    } catch (err) {
      posted.reject(err as Error);
    }
    return true;
  }

  private fail(message: string): void {
    if (this.failure !== undefined) return;
    this.failure = new Error(message);
    for (const w of this.waiting.values()) {
      w.pending.posted?.reject(this.failure);
      w.pending.posted = undefined;
    }
    this.waiting.clear();
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
