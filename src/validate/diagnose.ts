// What a newcomer's wrong input to `validate` looks like, and what to do instead. Every function
// here runs on the failure path only: after a document failed to parse, or an envelope (or bare
// data) was rejected. A valid message never reaches this module.
import type { EnvelopeProblem } from '../guard/index.js';
import { stripBom } from '../registry/index.js';
import { hasOwn, isSchemaObject } from '../validator/index.js';
import { STDIN } from '../report/model.js';

const isObject = (v: unknown): v is Record<string, unknown> => isSchemaObject(v);
const hasUrn = (v: Record<string, unknown>): boolean =>
  (hasOwn(v, 'job') && typeof v.job === 'string') || (hasOwn(v, 'urn') && typeof v.urn === 'string');

/** Whether the first non-blank lines of a text (at least two, at most three looked at) are each one JSON value. */
function looksLikeNdjson(text: string): boolean {
  const body = stripBom(text);
  let seen = 0;
  for (let from = 0; from <= body.length && seen < 3;) {
    let end = body.indexOf('\n', from);
    if (end === -1) end = body.length;
    const line = body.slice(from, end).trim();
    from = end + 1;
    if (line === '') continue;
    try {
      JSON.parse(line);
    } catch {
      return false;
    }
    seen++;
  }
  return seen >= 2;
}

/**
 * What to add to a JSON parse problem of a whole document when the cause is a common mistake: more
 * than one value (NDJSON without --ndjson, or in a .json file). `''` otherwise.
 */
export function parseHint(text: string, file: string, problem: string): string {
  if (problem !== 'invalid JSON: end of file expected') return '';
  if (!looksLikeNdjson(text)) return '; another JSON value starts here, and a document holds one message';
  const fix =
    file === STDIN
      ? 'pass --ndjson to read stdin line by line'
      : 'a .json file holds one message; name the file .ndjson or .jsonl to read it line by line';
  return `; this looks like NDJSON (one JSON value per line): ${fix}`;
}

/** An envelope error's message, with what the document looks like when it is a common mistake. */
export function envelopeMessage(value: unknown, reason: EnvelopeProblem, message: string, file: string): string {
  if (reason === 'no identity' && isObject(value)) {
    if (hasOwn(value, 'schemas') && Array.isArray(value.schemas)) {
      const registry = file === STDIN ? '<file>' : shellWord(file);
      return `${message}; this looks like a registry manifest (it has a "schemas" list), not a message: pass it as --registry ${registry}, and check it with bqschema check --registry ${registry}`;
    }
    const has = hasOwn(value, '$schema')
      ? '"$schema"'
      : hasOwn(value, 'type') && hasOwn(value, 'properties')
        ? '"type" and "properties"'
        : undefined;
    if (has !== undefined) {
      return `${message}; this looks like a JSON Schema (it has ${has}), not a message: schemas are listed in the registry manifest and checked with bqschema check`;
    }
  }
  if (reason === 'not an object' && Array.isArray(value) && value.length > 0) {
    if (value.every((v) => isObject(v) && hasOwn(v, 'urn') && hasOwn(v, 'schema') && !hasOwn(v, 'data'))) {
      return `${message}; this looks like registry entries ({"urn", "schema"} objects), not messages: they belong in the "schemas" list of a registry manifest, checked with bqschema check`;
    }
    if (value.every((v) => isObject(v) && hasUrn(v))) {
      const example =
        file === STDIN
          ? `... | jq -c '.[]' | bqschema validate --ndjson -`
          : `jq -c '.[]' ${shellWord(file)} | bqschema validate --ndjson -`;
      const n = value.length;
      return `${message.replace('(it is an array)', `(it is an array of ${n} envelope${n === 1 ? '' : 's'})`)}; a document holds one message: for a batch, write one envelope per line (NDJSON) and run validate --ndjson, e.g. ${example}`;
    }
  }
  return message;
}

/** With --urn, bare data that is a whole envelope (a URN key and an object `data`): what to say first. */
export function envelopeAsData(value: unknown): string | undefined {
  if (!isObject(value) || !hasOwn(value, 'data') || !isObject(value.data) || !hasUrn(value)) return undefined;
  const key = hasOwn(value, 'job') && typeof value.job === 'string' ? 'job' : 'urn';
  return `this looks like an envelope (it has "${key}" and "data"), not bare data: drop --urn, and its URN is read from the envelope`;
}

/**
 * A word as the shell reads it back: bare when it is plainly safe, else single-quoted. Every hint
 * that repeats a command (these, and the CLI's `--check` hints) quotes its words with it.
 */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
