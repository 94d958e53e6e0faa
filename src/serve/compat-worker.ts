import { parentPort } from 'node:worker_threads';
import { ApiError } from './errors.js';
import { judgeCompatibility, type CompatQuestion } from './judge.js';

// The server's compatibility worker: large questions are judged here, so the thread that answers
// every other request never waits on one (a 1 MiB enum of objects takes seconds to compare).
parentPort?.on('message', (msg: { id: number; question: CompatQuestion }) => {
  try {
    parentPort!.postMessage({ id: msg.id, answer: judgeCompatibility(msg.question) });
  } catch (err) {
    if (err instanceof ApiError) parentPort!.postMessage({ id: msg.id, apiError: { kind: err.kind, message: err.message } });
    else parentPort!.postMessage({ id: msg.id, failure: (err as Error)?.message ?? String(err) });
  }
});
