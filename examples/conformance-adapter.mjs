#!/usr/bin/env node
// The reference adapter for `bqschema conformance --impl "node examples/conformance-adapter.mjs"`:
// it answers the line protocol (docs/conformance-protocol.md) with this package's validator. An SDK
// in another language writes the same ~40 lines around its own validator and envelope reader.
// From a project that installed bqschema, import from 'bqschema' instead of the built dist/.
import { createInterface } from 'node:readline';
import { compile, EnvelopeError, readEnvelope } from '../dist/index.js';

const pkg = JSON.parse(await (await import('node:fs/promises')).readFile(new URL('../package.json', import.meta.url), 'utf8'));
const quiet = () => {}; // warnings are answered, not printed

function answer(request) {
  switch (request.op) {
    case 'hello':
      return { sdk: 'bqschema', version: pkg.version, bindings: [] };
    case 'validate': {
      const schema = compile(request.schema, { onWarning: quiet });
      // Both entry points must agree; a disagreement is reported as a failure, not hidden.
      const valid = schema.isValid(request.data);
      if (valid !== (schema.validate(request.data).length === 0)) return { failure: 'isValid and validate disagree' };
      return { valid };
    }
    case 'warnings':
      return { warnings: compile(request.schema, { onWarning: quiet }).warnings.map(({ pointer, keyword }) => ({ pointer, keyword })) };
    case 'envelope':
      try {
        const read = readEnvelope(request.envelope);
        return { urn: read.urn, warnings: read.warnings.length };
      } catch (err) {
        if (err instanceof EnvelopeError) return { rejected: err.reason, warnings: err.warnings.length };
        throw err;
      }
    default:
      return { failure: `unknown op ${JSON.stringify(request.op)}` };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.trim() === '') continue;
  const request = JSON.parse(line);
  let reply;
  try {
    reply = answer(request);
  } catch (err) {
    reply = { failure: err instanceof Error ? err.message : String(err) };
  }
  process.stdout.write(JSON.stringify({ id: request.id, ...reply }) + '\n');
}
