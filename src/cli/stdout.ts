/**
 * When the reader of stdout goes away (`bqschema … | head`), stops the process the way a closed
 * pipe stops any filter, with the exit code the run has earned so far, instead of an unhandled
 * EPIPE. Any other write error is one line and exit 2. It stays for the life of the process: the
 * error can arrive after the last write has returned.
 */
export function exitWhenStdoutCloses(code: () => number): void {
  const onError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') process.exit(code());
    process.stderr.write(`bqschema: cannot write to stdout: ${err.message}\n`);
    process.exit(2);
  };
  process.stdout.on('error', onError);
}
