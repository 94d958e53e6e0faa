/**
 * What went wrong with a registry file. `not-found`: no manifest where one was looked for;
 * `manifest`: the manifest does not parse or has a problem that makes it unusable; `outside`: a
 * schema path leaves the registry directory; `missing`/`unreadable`: a schema file cannot be read;
 * `malformed`: a schema file does not parse, or is not a schema; `invalid-schema`: a supported
 * keyword has the wrong shape (docs/contract.md §8: the CLI's gates fail on it); `git`: git cannot
 * be run, or the ref names no commit.
 */
export type RegistryErrorKind = 'not-found' | 'manifest' | 'outside' | 'missing' | 'unreadable' | 'malformed' | 'invalid-schema' | 'git';

/** A registry file that cannot be used: the message names the file (and the URN when there is one). */
export class RegistryError extends Error {
  override name = 'RegistryError';
  constructor(
    readonly kind: RegistryErrorKind,
    readonly file: string,
    message: string,
    readonly urn?: string,
    /** Where in `file` the problem is, when known. */
    readonly position?: { line: number; col: number },
  ) {
    super(message);
  }
}

/** No registry at the given path, or none found by discovery: there is nothing to work on. */
export class RegistryNotFoundError extends RegistryError {
  override name = 'RegistryNotFoundError';
  constructor(file: string, message: string) {
    super('not-found', file, message);
  }
}

/** git is missing, the directory is not in a repository, or the ref names no commit. */
export class GitError extends RegistryError {
  override name = 'GitError';
  constructor(message: string, file = '') {
    super('git', file, message);
  }
}
