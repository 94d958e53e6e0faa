import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS as COMMAND_TABLE } from '../../src/cli/program.js';
import {
  BOM,
  bq,
  CAN_TTY,
  expectCheckError,
  expectErrorResult,
  expectExit,
  expectOneLineError,
  FIXTURES,
  removeTempTrees,
  ROOT,
  tempTree,
} from '../helpers/cli.js';

// The program as a whole (help, version, exit codes, colour) and registry loading, shared by every command.

const COMMANDS = COMMAND_TABLE.map((c) => c.name);
const ANSI = /\u001b\[/;

afterAll(removeTempTrees);

describe.concurrent('program', () => {
  it('--help lists every command', async () => {
    const r = await bq(['--help']);
    expectExit(r, 0);
    const listed = r.stdout
      .split('\n')
      .map((l) => /^ {2}([a-z-]+) /.exec(l)?.[1])
      .filter((n): n is string => n !== undefined && n !== 'help');
    expect(listed).toEqual(COMMANDS);
  });

  it('`bqschema … --help | head`: a reader that has gone away ends help quietly, exit 0, no stack trace', async () => {
    const { spawn } = await import('node:child_process');
    for (const args of [['--help'], ['export-asyncapi', '--help'], ['--version'], ['validate']]) {
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'bqschema.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // closed before the child writes a byte: its first write gets EPIPE
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const exit = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
      // `validate` with no input is a usage error (2) whose message goes to stderr; the others succeed.
      expect({ args, exit, trace: /\n\s+at /.test(stderr) }).toEqual({ args, exit: args[0] === 'validate' ? 2 : 0, trace: false });
    }
  });

  it("--version and -V print package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const [long, short] = await Promise.all([bq(['--version']), bq(['-V'])]);
    expectExit(long, 0);
    expect(long.stdout).toBe(`${version}\n`);
    expectExit(short, 0);
    expect(short.stdout).toBe(`${version}\n`);
  });

  it('every command has help with an Examples: section of its own invocations', async () => {
    const results = await Promise.all(COMMANDS.map((c) => bq([c, '--help'])));
    results.forEach((r, i) => {
      expectExit(r, 0);
      const [, examples = ''] = r.stdout.split('\nExamples:\n');
      const lines = examples.trim().split('\n');
      expect(lines.length, `${COMMANDS[i]} examples`).toBeGreaterThan(0);
      for (const l of lines) expect(l).toMatch(new RegExp(`^\\s*\\$ (.* \\| )?bqschema ${COMMANDS[i]}( |$)`));
    });
  });

  it('`help` and `help <command>` succeed', async () => {
    const [all, one] = await Promise.all([bq(['help']), bq(['help', 'validate'])]);
    expectExit(all, 0);
    expect(all.stdout).toContain('Commands:');
    expectExit(one, 0);
    expect(one.stdout).toContain('Usage: bqschema validate');
  });

  it('no command is a usage error: help on stderr, exit 2', async () => {
    const r = await bq([]);
    expectExit(r, 2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: bqschema');
  });

  it('an unknown command exits 2', async () => {
    const r = await bq(['frobnicate']);
    expectExit(r, 2);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it('an unknown option exits 2, for every command', async () => {
    // conformance's --impl is required, and commander reports a missing one first.
    const results = await Promise.all(
      COMMANDS.map((c) => bq(c === 'conformance' ? [c, '--impl', 'x', '--no-such-option'] : [c, '--no-such-option'])),
    );
    results.forEach((r) => {
      expectExit(r, 2);
      expect(r.stderr).toMatch(/unknown option '--no-such-option'/);
    });
  });

  it('a --format outside the choices exits 2', async () => {
    const r = await bq(['check', '--format', 'xml', '-r', 'registry.example.json']);
    expectExit(r, 2);
    expect(r.stderr).toMatch(/xml/);
  });

  it('a missing option argument exits 2', async () => {
    const r = await bq(['validate', '--registry']);
    expectExit(r, 2);
    expect(r.stderr).toMatch(/argument missing/);
  });

  it('validate without paths exits 2 with one line', async () => {
    expectOneLineError(await bq(['validate', '-r', 'registry.example.json']), /validate needs at least one path/);
  });
});

describe.concurrent('colour', () => {
  const colourful = ['check', '-r', 'registry.example.json'];

  it('a non-TTY stdout gets no ANSI escapes even without NO_COLOR', async () => {
    const [check, validate] = await Promise.all([
      bq(colourful, { env: { NO_COLOR: undefined } }),
      bq(['validate', '-r', 'registry.example.json', 'examples/messages'], { env: { NO_COLOR: undefined } }),
    ]);
    expectExit(check, 0);
    expect(check.stdout).not.toMatch(ANSI);
    expectExit(validate, 1);
    expect(validate.stdout).not.toMatch(ANSI);
    expect(validate.stderr).not.toMatch(ANSI);
  });

  // A pseudo-terminal needs util-linux `script`; without it the TTY paths cannot be reached from a test.
  it.skipIf(!CAN_TTY)('a TTY gets colour, and NO_COLOR turns it off', async () => {
    const [coloured, plain] = await Promise.all([
      bq(colourful, { tty: true, env: { NO_COLOR: undefined } }),
      bq(colourful, { tty: true, env: { NO_COLOR: '1' } }),
    ]);
    expectExit(coloured, 0);
    expect(coloured.stdout).toMatch(ANSI);
    expectExit(plain, 0);
    expect(plain.stdout).toContain('urn:babel:orders:created');
    expect(plain.stdout).not.toMatch(ANSI);
  });
});

/** Three registries mapping one URN to schemas that require different properties: the violation tells which was read. */
function precedenceTree(): string {
  const requiring = (p: string): string => JSON.stringify({ type: 'object', required: [p] });
  const manifest = (schema: string): string => JSON.stringify({ schemas: [{ urn: 'urn:p:x', schema }] });
  return tempTree({
    'registry.json': manifest('cwd.json'),
    'cwd.json': requiring('from_cwd'),
    'env/registry.json': manifest('env.json'),
    'env/env.json': requiring('from_env'),
    'flag/registry.json': manifest('flag.json'),
    'flag/flag.json': requiring('from_flag'),
    'm.json': JSON.stringify({ job: 'urn:p:x', data: {} }),
  });
}

describe.concurrent('registry location', () => {
  it('--registry PATH is used, and beats BQSCHEMA_REGISTRY', async () => {
    const dir = precedenceTree();
    const r = await bq(['validate', '--registry', 'flag/registry.json', 'm.json'], {
      cwd: dir,
      env: { BQSCHEMA_REGISTRY: 'env/registry.json' },
    });
    expectExit(r, 1);
    expect(r.stdout).toContain('"from_flag"');
  });

  it('BQSCHEMA_REGISTRY is used without --registry, and beats ./registry.json', async () => {
    const dir = precedenceTree();
    const r = await bq(['validate', 'm.json'], { cwd: dir, env: { BQSCHEMA_REGISTRY: 'env/registry.json' } });
    expectExit(r, 1);
    expect(r.stdout).toContain('"from_env"');
  });

  it('./registry.json of the working directory is the default', async () => {
    const dir = precedenceTree();
    const [validate, check] = await Promise.all([
      bq(['validate', 'm.json'], { cwd: dir }),
      bq(['check', '--format', 'json'], { cwd: dir }),
    ]);
    expectExit(validate, 1);
    expect(validate.stdout).toContain('"from_cwd"');
    expectExit(check, 0);
    expect(JSON.parse(check.stdout).summary.urns).toBe(1);
  });

  it('no registry anywhere: one line, exit 2, naming what was searched and how to point at one', async () => {
    const dir = tempTree({ 'm.json': '{"job":"urn:x","data":{}}', '.git/HEAD': 'ref: refs/heads/main\n' });
    const [validate, check] = await Promise.all([bq(['validate', 'm.json'], { cwd: dir }), bq(['check'], { cwd: dir })]);
    for (const r of [validate, check]) {
      expectOneLineError(
        r,
        /no registry found: looked for registry\.json, registry\.jsonc, registry\.yaml, registry\.yml in .*; give one with --registry <path> or BQSCHEMA_REGISTRY=<path>/,
      );
    }
  });
});

describe.concurrent('registry file formats', () => {
  const schemas = {
    'a.json': '{ "type": "object", "required": ["a"] }',
    'b.yaml': 'type: object\nrequired: [b]\n',
    'c.jsonc': '// comment\n{ "type": "object", /* inline */ "required": ["c",], }\n',
  };
  const messages = ['urn:f:a', 'urn:f:b', 'urn:f:c'].map((job) => JSON.stringify({ job, data: {} })).join('\n') + '\n';
  const entries = [
    { urn: 'urn:f:a', schema: 'a.json' },
    { urn: 'urn:f:b', schema: 'b.yaml' },
    { urn: 'urn:f:c', schema: 'c.jsonc' },
  ];
  const missingOf = (stdout: string): string[] =>
    (JSON.parse(stdout) as { results: { violations: { message: string }[] }[] }).results.map((r) => r.violations[0]!.message);

  it('schema files are read as JSON, YAML or JSONC by extension', async () => {
    const dir = tempTree({ ...schemas, 'registry.json': JSON.stringify({ schemas: entries }), 'm.ndjson': messages });
    const r = await bq(['validate', '--format', 'json', 'm.ndjson'], { cwd: dir });
    expectExit(r, 1);
    expect(missingOf(r.stdout)).toEqual(['a', 'b', 'c'].map((p) => `must have required property "${p}"`));
  });

  it('manifests are read as YAML (.yaml, .yml) or JSONC by extension', async () => {
    const yaml = `schemas:\n${entries.map((e) => `  - urn: ${e.urn}\n    schema: ${e.schema}\n`).join('')}`;
    const jsonc = `// the registry\n{ "schemas": ${JSON.stringify(entries)}, }\n`;
    const dir = tempTree({ ...schemas, 'r.yaml': yaml, 'r.yml': yaml, 'r.jsonc': jsonc, 'm.ndjson': messages });
    const results = await Promise.all(
      ['r.yaml', 'r.yml', 'r.jsonc'].map((m) => bq(['validate', '-r', m, '--format', 'json', 'm.ndjson'], { cwd: dir })),
    );
    for (const r of results) {
      expectExit(r, 1);
      expect(missingOf(r.stdout)).toHaveLength(3);
    }
  });

  it('a .json schema is strict JSON: a comment in it is a syntax error', async () => {
    const dir = tempTree({
      'registry.json': '{"schemas":[{"urn":"urn:s","schema":"s.json"}]}',
      's.json': '{\n  // no\n  "type": "object"\n}\n',
    });
    const r = await bq(['validate', '--urn', 'urn:s', '-'], { cwd: dir, input: '{}' });
    expectErrorResult(r, /s\.json:2:3: invalid JSON/);
  });

  it('a UTF-8 BOM is accepted in the manifest, JSON/YAML/JSONC schemas and messages', async () => {
    const dir = tempTree({
      'registry.json': BOM + JSON.stringify({ schemas: entries }),
      'a.json': BOM + schemas['a.json'],
      'b.yaml': BOM + schemas['b.yaml'],
      'c.jsonc': BOM + schemas['c.jsonc'],
      'a-msg.json': BOM + JSON.stringify({ job: 'urn:f:a', data: { a: 1 } }),
      'b-msg.ndjson':
        BOM + JSON.stringify({ job: 'urn:f:b', data: { b: 1 } }) + '\n' + JSON.stringify({ job: 'urn:f:c', data: { c: 1 } }) + '\n',
    });
    const [validate, check] = await Promise.all([
      bq(['validate', '--format', 'json', 'a-msg.json', 'b-msg.ndjson'], { cwd: dir }),
      bq(['check'], { cwd: dir }),
    ]);
    expectExit(validate, 0);
    expect(JSON.parse(validate.stdout).summary).toEqual({ messages: 3, valid: 3, invalid: 0, skipped: 0, errors: 0 });
    expectExit(check, 0);
  });
});

describe.concurrent('registry parse errors name file:line:col', () => {
  it('a JSON schema file', async () => {
    // syntax/json/bad.json line 4 starts a property right after `"required": ["a"]` on line 3, with no comma.
    const r = await bq(['validate', '-r', 'syntax/json/registry.json', '--urn', 'urn:s:json', '-'], { cwd: FIXTURES, input: '{}' });
    expectErrorResult(r, /syntax\/json\/bad\.json:4:3: invalid JSON: comma expected$/m);
  });

  it('a JSONC schema file (comments and trailing commas are not the error)', async () => {
    // syntax/jsonc/bad.jsonc line 5: `    "x": { "type" "string" },` lacks the colon before column 19.
    const r = await bq(['validate', '-r', 'syntax/jsonc/registry.json', '--urn', 'urn:s:jsonc', '-'], { cwd: FIXTURES, input: '{}' });
    expectErrorResult(r, /syntax\/jsonc\/bad\.jsonc:5:19: invalid JSON: colon expected$/m);
  });

  it('a YAML manifest', async () => {
    // syntax/yaml/registry.yaml line 4: `    schema: a: b`, a nested mapping starting at column 13.
    const results = await Promise.all([
      bq(['validate', '-r', 'syntax/yaml/registry.yaml', '--urn', 'urn:s:yaml', '-'], { cwd: FIXTURES, input: '{}' }),
      bq(['check', '-r', 'syntax/yaml/registry.yaml'], { cwd: FIXTURES }),
    ]);
    // A manifest that does not parse: validate stops in one line; check reports it in its output. Both exit 1.
    expectOneLineError(results[0]!, /syntax\/yaml\/registry\.yaml:4:13: invalid YAML: /, 1);
    expectCheckError(results[1]!, /syntax\/yaml\/registry\.yaml:4:13: invalid YAML: /);
  });
});

describe.concurrent('hostile registries', () => {
  it('a YAML alias bomb in the manifest is refused in one line', async () => {
    const results = await Promise.all([
      bq(['validate', '-r', 'bomb/laughs.yaml', '--urn', 'urn:b', '-'], { cwd: FIXTURES, input: '{}' }),
      bq(['check', '-r', 'bomb/laughs.yaml'], { cwd: FIXTURES }),
    ]);
    expectOneLineError(results[0]!, /laughs\.yaml:\d+:\d+: invalid YAML: .*alias/i, 1);
    expectCheckError(results[1]!, /laughs\.yaml:\d+:\d+: invalid YAML: .*alias/i);
  });

  it('a YAML alias bomb as a schema file is refused in one line by validate and reported by check', async () => {
    const [validate, check] = await Promise.all([
      bq(['validate', '-r', 'bomb/registry.json', '--urn', 'urn:b:laughs', '-'], { cwd: FIXTURES, input: '{}' }),
      bq(['check', '-r', 'bomb/registry.json', '--format', 'json'], { cwd: FIXTURES }),
    ]);
    expectErrorResult(validate, /urn:b:laughs.*laughs\.yaml.*alias/i);
    expectExit(check, 1);
    const errors = JSON.parse(check.stdout).errors as { urn: string; message: string }[];
    expect(errors).toHaveLength(1);
    expect(errors[0]!.urn).toBe('urn:b:laughs');
    expect(errors[0]!.message).toMatch(/alias/i);
  });

  it('a schema path outside the registry directory is refused, never read: an error for its URN (exit 1)', async () => {
    const [validate, check] = await Promise.all([
      bq(['validate', '-r', 'outside/reg/registry.json', '--urn', 'urn:o:out', '-'], { cwd: FIXTURES, input: '{}' }),
      bq(['check', '-r', 'outside/reg/registry.json'], { cwd: FIXTURES }),
    ]);
    const refused = /schema file for urn:o:out is outside the registry directory: \.\.\/outside\.json \(use --allow-outside-paths/;
    expectErrorResult(validate, refused);
    expectCheckError(check, refused);
    expect(validate.stdout).not.toContain('secret');
  });

  it('--allow-outside-paths reads a schema outside the registry directory', async () => {
    const [validate, check] = await Promise.all([
      bq(['validate', '-r', 'outside/reg/registry.json', '--allow-outside-paths', '--urn', 'urn:o:out', '-'], {
        cwd: FIXTURES,
        input: '{}',
      }),
      bq(['check', '-r', 'outside/reg/registry.json', '--allow-outside-paths'], { cwd: FIXTURES }),
    ]);
    expectExit(validate, 1);
    expect(validate.stdout).toContain('must have required property "secret"');
    expectExit(check, 0);
  });

  it('a symlink inside the registry directory pointing outside it is refused unless --allow-outside-paths', async () => {
    const dir = tempTree({
      'outside.json': '{ "type": "object", "required": ["secret"] }',
      'reg/registry.json': '{ "schemas": [{ "urn": "urn:o:link", "schema": "link.json" }] }',
    });
    symlinkSync(join(dir, 'outside.json'), join(dir, 'reg', 'link.json'));
    const [validate, check, allowed] = await Promise.all([
      bq(['validate', '-r', 'reg/registry.json', '--urn', 'urn:o:link', '-'], { cwd: dir, input: '{}' }),
      bq(['check', '-r', 'reg/registry.json'], { cwd: dir }),
      bq(['validate', '-r', 'reg/registry.json', '--allow-outside-paths', '--urn', 'urn:o:link', '-'], { cwd: dir, input: '{}' }),
    ]);
    expectErrorResult(validate, /urn:o:link is outside the registry directory: link\.json/);
    expectCheckError(check, /urn:o:link is outside the registry directory: link\.json/);
    expectExit(allowed, 1);
    expect(allowed.stdout).toContain('must have required property "secret"');
  });
});
