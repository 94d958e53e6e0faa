import { createReadStream, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** One JSON document to process: a whole file, one NDJSON line, or a read failure. */
export type Doc =
  | { kind: 'doc'; file: string; line?: number; text: string }
  | { kind: 'error'; file: string; message: string; line?: number; col?: number };

const STREAM_EXT = ['.ndjson', '.jsonl'];
const WALK_EXT = ['.json', ...STREAM_EXT];

export const STDIN = '<stdin>';

function isStream(file: string): boolean {
  const lower = file.toLowerCase();
  return STREAM_EXT.some((e) => lower.endsWith(e));
}

/** Expands a directory into its message files, sorted, following symlinks without looping. */
function walk(dir: string, seen: Set<string>, out: string[]): void {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const name = entry.name;
    const full = join(dir, name);
    // The entry's own type spares a stat per file; only symlinks (and unknown types) need one to be followed.
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (!isDir && !isFile) {
      try {
        const st = statSync(full);
        isDir = st.isDirectory();
        isFile = st.isFile();
      } catch {
        continue; // a dangling symlink
      }
    }
    if (isDir) walk(full, seen, out);
    else if (isFile && WALK_EXT.some((e) => name.toLowerCase().endsWith(e))) out.push(full);
  }
}

async function* lines(stream: Readable, file: string): AsyncGenerator<Doc> {
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  for await (const raw of rl) {
    n++;
    const text = n === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (/^[ \t\r\n\f\v]*$/.test(text)) continue;
    yield { kind: 'doc', file, line: n, text };
  }
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Yields every document of the given paths in order: files whole, NDJSON line by line (streamed),
 * directories walked. A path that cannot be read yields an error and the run goes on.
 */
export async function* documents(paths: string[], options: { ndjson?: boolean; stdin?: Readable } = {}): AsyncGenerator<Doc> {
  for (const path of paths) {
    if (path === '-') {
      const stdin = options.stdin ?? process.stdin;
      if (options.ndjson) {
        let any = false;
        for await (const doc of lines(stdin, STDIN)) {
          any = true;
          yield doc;
        }
        if (!any) yield { kind: 'error', file: STDIN, message: 'no input on stdin' };
      } else {
        const text = await readAll(stdin);
        if (text.trim() === '') yield { kind: 'error', file: STDIN, message: 'no input on stdin' };
        else yield { kind: 'doc', file: STDIN, text };
      }
      continue;
    }
    let st;
    try {
      st = statSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      yield { kind: 'error', file: path, message: code === 'ENOENT' ? 'no such file or directory' : (err as Error).message };
      continue;
    }
    const files: string[] = [];
    if (st.isDirectory()) walk(path, new Set(), files);
    else files.push(path);
    // A whole file is yielded directly: one async-generator hop per file instead of two.
    for (const file of files) {
      if (isStream(file)) yield* streamDocuments(file);
      else yield wholeFile(file);
    }
  }
}

async function* streamDocuments(file: string): AsyncGenerator<Doc> {
  const stream = createReadStream(file);
  const failed = new Promise<Doc>((resolve) =>
    stream.once('error', (err) => resolve({ kind: 'error', file, message: `cannot be read: ${err.message}` })),
  );
  try {
    yield* lines(stream, file);
  } catch {
    yield await failed;
  }
}

function wholeFile(file: string): Doc {
  try {
    return { kind: 'doc', file, text: readFileSync(file, 'utf8') };
  } catch (err) {
    return { kind: 'error', file, message: `cannot be read: ${(err as Error).message}` };
  }
}
