// One thread of `validate --jobs N`: opens the registry itself (same options), judges the tasks the
// main thread sends, in the order sent, and answers each with its formatted text and counts.
import { parentPort, workerData } from 'node:worker_threads';
import { Judge } from '../validate/judge.js';
import { CLAIM_SLOTS, WORKER, type PoolData, type Posted, type Reply } from './pool.js';
import { TaskRunner } from './task.js';

const { init, claims: shared } = workerData as PoolData;
const claims = new Int32Array(shared);
const port = parentPort!;

let runner: TaskRunner | undefined;
let initError: string | undefined;
try {
  runner = new TaskRunner(init, new Judge(init.options, undefined, init.limits));
} catch (err) {
  initError = (err as Error)?.message ?? String(err);
}

// Tasks are answered one after another, in the order they came. A test hook stands for a worker
// that gets no CPU (a busy machine): it never begins a task, and the run must not wait for it.
let chain = process.env.BQSCHEMA_TEST_WORKER_STALL === '1' ? new Promise<void>(() => undefined) : Promise.resolve();
port.on('message', (m: Posted) => {
  chain = chain.then(async () => {
    // A test hook: proves that a crashing worker is one line and exit 3, not a hang or a stack trace.
    // The task is never answered: the rejection is unhandled, which ends the worker with an error.
    if (process.env.BQSCHEMA_TEST_WORKER_CRASH === '1') throw new Error('simulated crash');
    let reply: Reply;
    // The main thread may have judged this task itself while it waited here (Pool.takeBack).
    if (Atomics.compareExchange(claims, m.seq % CLAIM_SLOTS, 0, WORKER) !== 0) reply = { seq: m.seq, taken: true };
    else if (runner === undefined) reply = { seq: m.seq, error: initError! };
    else {
      try {
        reply = { seq: m.seq, answer: await runner.answer(m.task) };
      } catch (err) {
        reply = { seq: m.seq, error: (err as Error)?.message ?? String(err) };
      }
    }
    port.postMessage(reply);
  });
});
