/**
 * Marks stdout as handled by a command: main's fallback listener (src/cli/main.ts, which reads the
 * mark without loading this module) then stands aside.
 */
const HANDLED = Symbol.for('bqschema.stdout-errors-handled');
/** Whether the reader of stdout has gone away while the run goes on (its output is dropped). */
let gone = false;

/** Whether stdout's reader has gone away and the run goes on without it (see `finishFirst`). */
export function stdoutGone(): boolean {
  return gone;
}

/**
 * When the reader of stdout goes away (`bqschema … | head`), stops the process the way a closed
 * pipe stops any filter, with the exit code the run has earned so far, instead of an unhandled
 * EPIPE. With `finishFirst` (report files are still to be written), the run goes on to its end
 * instead, printing nothing more, so that every `--report` file is written whole and the exit code
 * is the whole run's verdict. Any other write error is one line and exit 2. It stays for the life
 * of the process: the error can arrive after the last write has returned.
 */
export function exitWhenStdoutCloses(code: () => number, options: { finishFirst?: boolean } = {}): void {
  (process.stdout as unknown as Record<symbol, unknown>)[HANDLED] = true;
  const onError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') {
      if (options.finishFirst === true) {
        gone = true;
        return;
      }
      process.exit(code());
    }
    process.stderr.write(`bqschema: cannot write to stdout: ${err.message}\n`);
    process.exit(2);
  };
  process.stdout.on('error', onError);
}
