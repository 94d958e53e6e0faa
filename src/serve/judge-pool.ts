import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError, type ErrorKind } from './errors.js';
import { judgeCompatibility, type CompatQuestion } from './judge.js';

type Answer = ReturnType<typeof judgeCompatibility>;

/** Questions whose body is at least this large go to the worker; small ones are answered at once. */
export const WORKER_THRESHOLD = 32 * 1024;

/** Where the worker's module is: beside this one, or under dist/serve when this code was bundled. */
function workerFile(): URL | undefined {
  for (const candidate of ['./compat-worker.js', '../serve/compat-worker.js']) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  return undefined;
}

/**
 * One worker thread, started on first use, judging large compatibility questions in turn; it does
 * not keep the process alive. Without a worker (it failed to start or died) questions are judged
 * in this thread, as before.
 */
export class JudgePool {
  private worker: Worker | undefined;
  private broken = false;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();

  judge(q: CompatQuestion): Answer | Promise<Answer> {
    if ((q.body?.byteLength ?? 0) < WORKER_THRESHOLD || this.broken) return judgeCompatibility(q);
    const worker = this.start();
    if (worker === undefined) return judgeCompatibility(q);
    const id = ++this.seq;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, question: q });
    });
  }

  close(): Promise<number> | undefined {
    const w = this.worker;
    this.worker = undefined;
    return w?.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker !== undefined) return this.worker;
    const file = workerFile();
    if (file === undefined) {
      this.broken = true;
      return undefined;
    }
    const worker = new Worker(file);
    worker.unref();
    worker.on('message', (msg: { id: number; answer?: Answer; apiError?: { kind: ErrorKind; message: string }; failure?: string }) => {
      const p = this.pending.get(msg.id);
      if (p === undefined) return;
      this.pending.delete(msg.id);
      if (msg.apiError !== undefined) p.reject(new ApiError(msg.apiError.kind, msg.apiError.message));
      else if (msg.failure !== undefined) p.reject(new Error(msg.failure));
      else p.resolve(msg.answer!);
    });
    const die = (err: Error): void => {
      this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`the compatibility worker stopped (exit ${code})`)));
    this.worker = worker;
    return worker;
  }
}
