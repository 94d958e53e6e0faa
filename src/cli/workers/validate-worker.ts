// One thread of `validate --jobs N`: opens the registry itself (same options), judges the tasks the
// main thread sends, in the order sent, and answers each with its formatted text and counts.
import { parentPort, workerData } from 'node:worker_threads';
import type { SourcePositions } from '../../registry/index.js';
import { warningMessage } from '../../validator/index.js';
import { Formatter, Judge, type TaskAnswer, type WorkerInit } from '../commands/validate.js';
import { UsageError } from '../errors.js';
import { lines, wholeFile, type Doc, type Task } from '../inputs.js';
import { clean, makeChalk, Out } from '../output.js';
import type { Reply } from './pool.js';

const init = workerData as WorkerInit;
const port = parentPort!;
const colours = makeChalk(init.colour);
let warnings: Array<[string, string]> = [];

let judge: Judge | undefined;
let initError: string | undefined;
try {
  judge = new Judge(init.options, (w) => warnings.push([w.urn ?? '', `bqschema: warning: ${clean(warningMessage(w))}\n`]));
} catch (err) {
  initError = (err as Error)?.message ?? String(err);
}
let positions: typeof SourcePositions | undefined;

async function answer(task: Task): Promise<TaskAnswer> {
  if (init.options.format !== 'text' && positions === undefined) positions = (await import('../../registry/positions.js')).SourcePositions;
  const j = judge!;
  const f = new Formatter(init.options, colours, positions, new Out(undefined), true);
  const add = (doc: Doc): void => {
    f.add(j.document(doc), doc.kind === 'doc' ? doc.text : undefined);
  };
  let stop: string | undefined;
  try {
    if (task.kind === 'docs') {
      for (const item of task.items) add(typeof item === 'string' ? wholeFile(item, init.limits) : item);
    } else {
      const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
      for await (const batch of lines([bytes], task.file, init.limits, { line: task.line, offset: task.offset })) for (const doc of batch) add(doc);
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    stop = err.message;
  }
  const n = f.counts;
  const a: TaskAnswer = {
    text: f.out.take(),
    counts: [n.valid, n.invalid, n.skipped, n.error],
    warnings,
    leadingHeader: f.leadingHeader,
    endStreamFile: f.currentStreamFile,
    stop,
  };
  warnings = [];
  return a;
}

// Tasks are answered one after another, in the order they came.
let chain = Promise.resolve();
port.on('message', (m: { seq: number; task: Task }) => {
  chain = chain.then(async () => {
    // A test hook: proves that a crashing worker is one line and exit 3, not a hang or a stack trace.
    // The task is never answered: the rejection is unhandled, which ends the worker with an error.
    if (process.env.BQSCHEMA_TEST_WORKER_CRASH === '1') throw new Error('simulated crash');
    let reply: Reply;
    if (initError !== undefined) reply = { seq: m.seq, error: initError };
    else {
      try {
        reply = { seq: m.seq, answer: await answer(m.task) };
      } catch (err) {
        reply = { seq: m.seq, error: (err as Error)?.message ?? String(err) };
      }
    }
    port.postMessage(reply);
  });
});
