import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { GitError } from './errors.js';
import { decodeUtf8 } from './text.js';

/*
 * Read-only access to the files of a commit: no checkout, no temporary clone. Two `git rev-parse`
 * calls find the repository and the commit; then a single `git cat-file --batch` process serves
 * every object, trees included, so paths are resolved here (symlinks too) and a registry of any
 * size costs one process.
 */

/** What a path in the commit's tree names, symlinks followed. */
export type TreeEntry =
  /** `path` is the real path (symlinks resolved) relative to the repository's top level. */
  | { kind: 'file'; path: string; oid: string }
  /** `oid`: its tree, the same for the same contents. */
  | { kind: 'directory'; path: string; oid: string }
  | { kind: 'missing' }
  /** A symlink that leads out of the repository: git holds nothing there. */
  | { kind: 'outside' }
  | { kind: 'loop' }
  | { kind: 'submodule'; path: string };

export interface GitObject {
  oid: string;
  type: string;
  data: Buffer;
}

interface Pending {
  resolve: (o: GitObject | undefined) => void;
  reject: (e: Error) => void;
}

const MODE_TREE = '40000';
const MODE_SYMLINK = '120000';
const MODE_SUBMODULE = '160000';
/** As many symlinks as Linux follows in one path before it gives up (ELOOP). */
const MAX_SYMLINKS = 40;

/** A git that has not answered by then (a stalled file system, say) is killed: the command never hangs on it. */
export const GIT_TIMEOUT_MS = 60_000;

export function git(cwd: string, args: string[]): { ok: boolean; stdout: string; stderr: string } {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: GIT_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    if (code === 'ETIMEDOUT') throw new GitError(`git ${args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s and was stopped`);
    throw new GitError(code === 'ENOENT' ? 'git is not installed (or not on PATH)' : `cannot run git: ${r.error.message}`);
  }
  return { ok: r.status === 0, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

const firstLine = (s: string): string => s.split('\n')[0] ?? '';

/** The most a listing git prints (`ls-tree -r`, `diff --name-status`) may hold: a repository of a million paths. */
const MAX_LISTING = 256 * 1024 * 1024;

/** A `-z` listing: the NUL-separated fields git prints; a git that fails or is cut off is a GitError. */
export function gitFields(cwd: string, args: string[]): string[] {
  const r = spawnSync('git', args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: GIT_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: MAX_LISTING,
  });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    if (code === 'ETIMEDOUT') throw new GitError(`git ${args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s and was stopped`);
    if (code === 'ENOBUFS') throw new GitError(`git ${args[0]} printed more than ${MAX_LISTING / 1024 / 1024} MiB`);
    throw new GitError(code === 'ENOENT' ? 'git is not installed (or not on PATH)' : `cannot run git: ${r.error.message}`);
  }
  if (r.status !== 0) throw new GitError(`git ${args[0]} failed: ${firstLine(r.stderr.toString('utf8').trim())}`);
  const out = r.stdout.toString('utf8');
  const fields = out.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  return fields;
}

/** What git reports became of the commit's files in the working tree (tracked files: what `git add` made known). */
export interface TreeChanges {
  /** A path in the working tree, by the commit's path it was renamed from. */
  renamedFrom: ReadonlyMap<string, string>;
  /** The commit's paths that are gone: deleted, or renamed away. */
  gone: readonly string[];
}

/** One `git cat-file --batch` process: requests are written as they come, answers read in order. */
export class CatFile {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly queue: Pending[] = [];
  private failure: Error | undefined;
  private stderr = '';

  constructor(cwd: string) {
    this.child = spawn('git', ['cat-file', '--batch'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.child.on('error', (err) => this.fail(new GitError(`cannot run git cat-file: ${err.message}`)));
    this.child.on('close', () => this.fail(new GitError(`git cat-file stopped${this.stderr ? `: ${firstLine(this.stderr)}` : ''}`)));
    this.child.stdin.on('error', () => {}); // reported through 'close'
  }

  /** The object `name` names (an object id here), or undefined when the repository lacks it. */
  request(name: string): Promise<GitObject | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      // Requests made in one tick go out in one write.
      if (!this.child.stdin.writableCorked) {
        this.child.stdin.cork();
        process.nextTick(() => this.child.stdin.uncork());
      }
      this.child.stdin.write(name + '\n');
    });
  }

  close(): void {
    this.failure ??= new GitError('git cat-file was closed');
    this.child.stdin.end();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.queue.splice(0)) p.reject(this.failure);
  }

  // Output is collected as a list of chunks and joined once an answer is complete: joining on every
  // chunk would copy a large blob over and over (quadratic in its size).
  private chunks: Buffer[] = [];
  private length = 0;
  /** Bytes the answer being received needs in all; 0 while its header is incomplete. */
  private need = 0;

  private receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.length < this.need) return;
    let buffer = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
    this.chunks = [];
    this.length = 0;
    this.need = 0;
    // Answers: `<oid> <type> <size>\n<content>\n`, or `<name> missing\n` (or `ambiguous`).
    for (;;) {
      const eol = buffer.indexOf(0x0a);
      if (eol === -1) break;
      const header = buffer.toString('utf8', 0, eol).split(' ');
      if (header.length !== 3) {
        buffer = buffer.subarray(eol + 1);
        this.queue.shift()?.resolve(undefined);
        continue;
      }
      const size = Number(header[2]);
      const total = eol + 1 + size + 1;
      if (buffer.length < total) {
        this.need = total;
        break;
      }
      const data = buffer.subarray(eol + 1, eol + 1 + size);
      buffer = buffer.subarray(total);
      this.queue.shift()?.resolve({ oid: header[0]!, type: header[1]!, data });
    }
    if (buffer.length > 0) {
      this.chunks.push(buffer);
      this.length = buffer.length;
    }
  }
}

/** `git diff --name-status -z --diff-filter=DR`'s fields as renames and deletions. */
function parseChanges(fields: string[]): TreeChanges {
  const renamedFrom = new Map<string, string>();
  const gone: string[] = [];
  for (let i = 0; i < fields.length;) {
    const status = fields[i++]!;
    if (status.startsWith('R')) {
      const from = fields[i++]!;
      const to = fields[i++]!;
      renamedFrom.set(to, from);
      gone.push(from);
    } else {
      gone.push(fields[i++]!);
    }
  }
  return { renamedFrom, gone };
}

interface TreeItem {
  mode: string;
  oid: string;
}

/** A tree object's entries: `<mode> <name>\0<raw object id>` each, the id as long as the hash. */
function parseTree(data: Buffer, oidBytes: number): Map<string, TreeItem> {
  const entries = new Map<string, TreeItem>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0x00, space);
    if (space === -1 || nul === -1) break;
    const mode = data.toString('latin1', at, space);
    const name = data.toString('utf8', space + 1, nul);
    entries.set(name, { mode, oid: data.toString('hex', nul + 1, nul + 1 + oidBytes) });
    at = nul + 1 + oidBytes;
  }
  return entries;
}

/** The files of one commit, read through one `git cat-file --batch`. Call close() when done. */
export class GitSnapshot {
  private readonly cat: CatFile;
  private readonly trees = new Map<string, Promise<Map<string, TreeItem>>>();
  private readonly oidBytes: number;

  private constructor(
    /** The repository's top level, as git reports it (symlinks resolved). */
    readonly top: string,
    readonly ref: string,
    readonly commit: string,
    private readonly rootTree: string,
    cat: CatFile,
    /** Whether close() ends the cat-file process (a snapshot of a GitRepo shares the repository's). */
    private readonly owned = true,
  ) {
    this.cat = cat;
    this.oidBytes = commit.length / 2; // 20 for SHA-1, 32 for SHA-256 repositories
  }

  /**
   * Opens the commit `ref` names, in the repository that holds `dir`. Not a repository, or a ref
   * that names no commit here, is a one-line error naming the ref (exit 2).
   */
  static async open(dir: string, ref: string): Promise<GitSnapshot> {
    if (ref === '' || ref.startsWith('-') || /[\u0000-\u001f\u007f]/.test(ref)) {
      throw new GitError(`not a git ref: ${JSON.stringify(ref)}`);
    }
    const top = git(dir, ['rev-parse', '--show-toplevel']);
    if (!top.ok || top.stdout === '') {
      const why =
        /not a git repository/i.test(top.stderr) || top.stderr === '' ? `${dir} is not in a git repository` : firstLine(top.stderr);
      throw new GitError(`cannot read the registry at ${ref}: ${why}`);
    }
    const commit = git(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
    if (!commit.ok || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit.stdout)) {
      throw new GitError(`unknown git ref: ${ref} (not a commit in this repository; in CI, fetch it first, e.g. with fetch-depth: 0)`);
    }
    const cat = new CatFile(top.stdout);
    let tree: GitObject | undefined;
    try {
      tree = await cat.request(`${commit.stdout}^{tree}`);
    } catch (err) {
      cat.close();
      throw err;
    }
    if (tree === undefined || tree.type !== 'tree') {
      cat.close();
      throw new GitError(`cannot read the tree of ${ref} (${commit.stdout})`);
    }
    const snapshot = new GitSnapshot(top.stdout, ref, commit.stdout, tree.oid, cat);
    snapshot.trees.set(tree.oid, Promise.resolve(parseTree(tree.data, snapshot.oidBytes)));
    return snapshot;
  }

  close(): void {
    if (this.owned) this.cat.close();
  }

  /**
   * The commit `commit` (an object id) read through `cat`, which stays open when this snapshot is
   * closed: many commits, one process. Its trees are cached for this snapshot only.
   */
  static async shared(cat: CatFile, top: string, commit: string, ref: string = commit): Promise<GitSnapshot> {
    const tree = await cat.request(`${commit}^{tree}`);
    if (tree === undefined || tree.type !== 'tree') throw new GitError(`cannot read the tree of ${ref} (${commit})`);
    const snapshot = new GitSnapshot(top, ref, commit, tree.oid, cat, false);
    snapshot.trees.set(tree.oid, Promise.resolve(parseTree(tree.data, snapshot.oidBytes)));
    return snapshot;
  }

  /**
   * Renames and deletions from this commit to a later one `to`, as `git diff --find-renames`
   * reports them (what a walk back through history follows a moved manifest by).
   */
  changesTo(to: string): TreeChanges {
    return parseChanges(
      gitFields(this.top, [
        'diff',
        '--no-ext-diff',
        '--no-textconv',
        '--find-renames',
        '--diff-filter=DR',
        '--name-status',
        '-z',
        this.commit,
        to,
        '--',
      ]),
    );
  }

  /** Every file of the commit (`/`-separated, from the top level) whose name `wanted` accepts: one `git ls-tree -r`. */
  files(wanted: (name: string) => boolean): string[] {
    return gitFields(this.top, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', this.commit]).filter((path) =>
      wanted(path.slice(path.lastIndexOf('/') + 1)),
    );
  }

  /**
   * Renames and deletions from the commit to the working tree, as `git diff --find-renames` reports
   * them (content similarity: a file moved and reformatted past recognition is a deletion). Read
   * only: no optional lock, so the index is never refreshed.
   */
  changes(): TreeChanges {
    return parseChanges(
      gitFields(this.top, [
        '--no-optional-locks',
        'diff',
        '--no-ext-diff',
        '--no-textconv',
        '--find-renames',
        '--diff-filter=DR',
        '--name-status',
        '-z',
        this.commit,
        '--',
      ]),
    );
  }

  /** A file's contents as text. */
  async read(oid: string): Promise<string> {
    const obj = await this.cat.request(oid);
    if (obj === undefined) throw new GitError(`object ${oid} is missing from the repository (${this.ref})`);
    return decodeUtf8(obj.data);
  }

  private tree(oid: string): Promise<Map<string, TreeItem>> {
    let tree = this.trees.get(oid);
    if (tree === undefined) {
      tree = this.cat.request(oid).then((obj) => {
        if (obj === undefined || obj.type !== 'tree') throw new GitError(`tree ${oid} is missing from the repository (${this.ref})`);
        return parseTree(obj.data, this.oidBytes);
      });
      this.trees.set(oid, tree);
    }
    return tree;
  }

  /**
   * What `path` (relative to the top level, `/`-separated, `..` already folded away) names in the
   * commit. Symlinks are followed as the file system would: relative to the link's directory.
   */
  async lookup(path: string): Promise<TreeEntry> {
    let pending = path.split('/');
    const dirs: string[] = [];
    const trees: string[] = [this.rootTree];
    let links = 0;
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        if (dirs.length === 0) return { kind: 'outside' };
        dirs.pop();
        trees.pop();
        continue;
      }
      const item = (await this.tree(trees[trees.length - 1]!)).get(name);
      if (item === undefined) return { kind: 'missing' };
      if (item.mode === MODE_SYMLINK) {
        if (++links > MAX_SYMLINKS) return { kind: 'loop' };
        const target = await this.read(item.oid);
        if (target.startsWith('/')) return { kind: 'outside' };
        pending = [...target.split('/'), ...pending];
        continue;
      }
      if (item.mode === MODE_TREE) {
        dirs.push(name);
        trees.push(item.oid);
        continue;
      }
      const here = [...dirs, name].join('/');
      if (pending.some((p) => p !== '' && p !== '.')) return { kind: 'missing' }; // a file used as a directory
      if (item.mode === MODE_SUBMODULE) return { kind: 'submodule', path: here };
      return { kind: 'file', path: here, oid: item.oid };
    }
    return { kind: 'directory', path: dirs.join('/'), oid: trees[trees.length - 1]! };
  }
}
