// One task of `validate --jobs N`, judged and formatted: the same code in a worker thread and in the
// main thread, which takes tasks of its own when every worker has enough queued.
import type { SourcePositions } from '../../registry/index.js';
import { warningMessage, type SchemaWarning } from '../../validator/index.js';
import { Formatter } from '../validate/formatter.js';
import type { Judge, TaskAnswer, WorkerInit } from '../validate/judge.js';
import { UsageError } from '../errors.js';
import { lines, wholeFile, type Doc } from '../inputs.js';
import type { Task } from '../tasks.js';
import { clean, coloursFor, Out, type Colours } from '../output.js';

export class TaskRunner {
  private warnings: Array<[string, string]> = [];
  private positions: typeof SourcePositions | undefined;
  private readonly colours: Colours;

  constructor(
    private readonly init: WorkerInit,
    private readonly judge: Judge,
  ) {
    this.colours = coloursFor(init.colour);
    // Warnings travel with the task that met them; the main thread prints each URN's once, in order.
    judge.warn = (w: SchemaWarning) => this.warnings.push([w.urn ?? '', `bqschema: warning: ${clean(warningMessage(w))}\n`]);
  }

  async answer(task: Task): Promise<TaskAnswer> {
    const init = this.init;
    if (init.options.format !== 'text' && this.positions === undefined)
      this.positions = (await import('../../registry/positions.js')).SourcePositions;
    const j = this.judge;
    j.newTask();
    const f = new Formatter(init.options, this.colours, this.positions, new Out(null), true);
    const add = (doc: Doc): void => {
      f.add(j.document(doc), doc.kind === 'doc' ? doc.text : undefined);
    };
    let stop: string | undefined;
    try {
      if (task.kind === 'docs') {
        for (const item of task.items) add(typeof item === 'string' ? wholeFile(item, init.limits) : item);
      } else {
        const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
        for await (const batch of lines([bytes], task.file, init.limits, { line: task.line, offset: task.offset }))
          for (const doc of batch) add(doc);
      }
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      stop = err.message;
    }
    const n = f.counts;
    const a: TaskAnswer = {
      text: f.out.take(),
      counts: [n.valid, n.invalid, n.skipped, n.error, n.suggested],
      warnings: this.warnings,
      leadingHeader: f.leadingHeader,
      endStreamFile: f.currentStreamFile,
      stop,
    };
    this.warnings = [];
    return a;
  }
}
