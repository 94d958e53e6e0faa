import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defaultJobs, MAX_DEFAULT_JOBS, SMALL_STREAM_BYTES, thisMachine, type Machine } from '../../src/cli/workers/default-jobs.js';

// The default `validate --jobs`: a worker thread only where it has a core to itself and input to
// pay for its start (docs/cli/validate.md, "Threads").

const machine = (cores: number, othersRunning: number) => (): Machine => ({ cores, othersRunning });

describe('the default --jobs', () => {
  it('is one thread below SMALL_STREAM_BYTES of NDJSON, without asking the machine', () => {
    const ask = (): Machine => {
      throw new Error('the machine was asked');
    };
    for (const bytes of [0, 1, 4 * 1024 * 1024, SMALL_STREAM_BYTES - 1]) expect(defaultJobs(bytes, ask)).toBe(1);
  });

  it('is one thread per core no other process is using, at least one, at most MAX_DEFAULT_JOBS', () => {
    const big = SMALL_STREAM_BYTES;
    expect(defaultJobs(big, machine(2, 0))).toBe(2); // an idle 2-core machine
    expect(defaultJobs(big, machine(2, 1))).toBe(1); // another process on one of the two cores
    expect(defaultJobs(big, machine(2, 20))).toBe(1); // a busy machine
    expect(defaultJobs(big, machine(1, 0))).toBe(1);
    expect(defaultJobs(big, machine(8, 0))).toBe(MAX_DEFAULT_JOBS);
    expect(defaultJobs(big, machine(8, 6))).toBe(2);
    expect(defaultJobs(230_000_000, machine(3, 1))).toBe(2);
  });

  it('reads this machine: its cores, and a count of other runnable threads', () => {
    const m = thisMachine();
    expect(m.cores).toBe(availableParallelism());
    expect(Number.isInteger(m.othersRunning) && m.othersRunning >= 0).toBe(true);
  });
});
