import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/*
 * The default `validate --jobs`: threads only where they pay. A worker thread costs ~50-100 ms of
 * CPU to start (node's bootstrap in the thread, the bundle, its own registry), and it gains only
 * with a core to itself: on a busy machine its CPU comes out of the same share as the main
 * thread's (Linux's autogroup schedules a session's threads as one), so it makes the run slower.
 */

/**
 * NDJSON below this many bytes is read by one thread. On two free cores 100,000 lines (23 MB) gain
 * 7-12% of wall time from a second thread for 27-28% more CPU (bench:jobs): the run is mostly over before
 * the worker has started; a machine that looked free and was not would pay the extra CPU.
 */
export const SMALL_STREAM_BYTES = 32 * 1024 * 1024;
/** More threads than this gain little: the main thread's reading and ordering becomes the bound. */
export const MAX_DEFAULT_JOBS = 4;

export interface Machine {
  /** Cores this process may use. */
  cores: number;
  /** Threads of other processes that are running or ready to run right now. */
  othersRunning: number;
}

/**
 * Threads for `streamBytes` of NDJSON on the machine (asked only for a stream of some size): one below SMALL_STREAM_BYTES; else one per core
 * no other process is using (at least one, at most MAX_DEFAULT_JOBS). Whole files always get one
 * thread: each worker pays for its own registry, and the main thread still walks and reads them.
 */
export function defaultJobs(streamBytes: number, machine: () => Machine = thisMachine): number {
  if (streamBytes < SMALL_STREAM_BYTES) return 1;
  const { cores, othersRunning } = machine();
  const free = cores - othersRunning;
  return Math.max(1, Math.min(free, cores, MAX_DEFAULT_JOBS));
}

/**
 * This machine now. On Linux, /proc/loadavg's fourth field counts the threads running or ready
 * this instant, where the load averages trail the last minutes (a run just ended would still
 * count); this process's own (this thread, V8's compiler and collector threads) are taken off.
 * Elsewhere the one-minute load average stands in (Windows reports 0).
 */
export function thisMachine(): Machine {
  const cores = availableParallelism();
  let others: number | undefined;
  try {
    const m = /^\S+ \S+ \S+ (\d+)\//.exec(readFileSync('/proc/loadavg', 'latin1'));
    if (m !== null) others = Number(m[1]) - ownRunning();
  } catch {
    // not Linux
  }
  return { cores, othersRunning: Math.max(0, others ?? Math.round(loadavg()[0] ?? 0)) };
}

/** This process's threads running or ready now (state R in /proc/self/task/<id>/stat); at least this one. */
function ownRunning(): number {
  let n = 0;
  for (const id of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${id}/stat`, 'latin1');
      if (stat.charCodeAt(stat.lastIndexOf(')') + 2) === 0x52 /* R */) n++;
    } catch {
      // the thread has ended
    }
  }
  return Math.max(1, n);
}
