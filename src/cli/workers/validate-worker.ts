// One thread of `validate --jobs N`: opens the registry itself (same options), judges the tasks the
// main thread sends, in the order sent, and answers each with its formatted text and counts.
import { parentPort, workerData } from 'node:worker_threads';
import { Judge, type WorkerInit } from '../validate/judge.js';
import type { Task } from '../tasks.js';
import type { Reply } from './pool.js';
import { TaskRunner } from './task.js';

const init = workerData as WorkerInit;
const port = parentPort!;

let runner: TaskRunner | undefined;
let initError: string | undefined;
try {
  runner = new TaskRunner(init, new Judge(init.options, undefined, init.limits));
} catch (err) {
  initError = (err as Error)?.message ?? String(err);
}

// Tasks are answered one after another, in the order they came.
let chain = Promise.resolve();
port.on('message', (m: { seq: number; task: Task }) => {
  chain = chain.then(async () => {
    // A test hook: proves that a crashing worker is one line and exit 3, not a hang or a stack trace.
    // The task is never answered: the rejection is unhandled, which ends the worker with an error.
    if (process.env.BQSCHEMA_TEST_WORKER_CRASH === '1') throw new Error('simulated crash');
    let reply: Reply;
    if (runner === undefined) reply = { seq: m.seq, error: initError! };
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
