import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';

// action.yml's run script is executed with bash the way the runner does (bash --noprofile --norc
// -eo pipefail), with the step's env mapping evaluated from the inputs. Fake `npm` and `npx` on PATH
// record their calls, so no test reaches the network.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Input {
  description: string;
  required?: boolean;
  default?: string;
}
interface Step {
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
const text = readFileSync(join(root, 'action.yml'), 'utf8');
const action = YAML.parse(text) as { name: string; description: string; inputs: Record<string, Input>; runs: { using: string; steps: Step[] } };
const main = action.runs.steps.find((s) => s.id === 'run')!;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  calls: string[];
}

let work = '';
let fakeBin = '';
let callLog = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bq-action-'));
  fakeBin = join(work, 'fake-bin');
  callLog = join(work, 'calls.log');
  mkdirSync(fakeBin);
  // npx fails with 3 so a run that reaches it is told apart from one that runs the source.
  // `npm run build` creates dist/cli/main.js in its working directory, like the real build.
  const fake = (name: string, body: string): void => {
    writeFileSync(join(fakeBin, name), `#!/usr/bin/env bash\nprintf '%s\\n' "$PWD ${name} $*" >> "$BQ_TEST_CALLS"\n${body}\n`);
    chmodSync(join(fakeBin, name), 0o755);
  };
  fake('npx', 'exit 3');
  fake('npm', 'if [ "$1" = run ] && [ "$2" = build ]; then mkdir -p dist/cli && touch dist/cli/main.js; fi');
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The step's env with each `${{ inputs.x }}` replaced by the given value, else the input's default. */
function stepEnv(inputs: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, expr] of Object.entries(main.env ?? {})) {
    const m = /^\$\{\{\s*inputs\.([\w-]+)\s*\}\}$/.exec(expr);
    if (!m) throw new Error(`env ${key} is not a plain input reference: ${expr}`);
    const name = m[1]!;
    env[key] = Object.prototype.hasOwnProperty.call(inputs, name) ? inputs[name]! : (action.inputs[name]!.default ?? '');
  }
  return env;
}

function runAction(inputs: Record<string, string>, ctx: { actionPath: string; workspace?: string; cwd: string }): Result {
  writeFileSync(callLog, '');
  const script = join(work, 'step.sh');
  writeFileSync(script, main.run!);
  const env: NodeJS.ProcessEnv = {
    PATH: `${fakeBin}:${process.env.PATH}`,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    BQ_TEST_CALLS: callLog,
    GITHUB_ACTION_PATH: ctx.actionPath,
    ...stepEnv(inputs),
  };
  if (ctx.workspace !== undefined) env.GITHUB_WORKSPACE = ctx.workspace;
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: ctx.cwd, env, encoding: 'utf8' });
  if (r.error) throw r.error;
  const calls = readFileSync(callLog, 'utf8').split('\n').filter((l) => l !== '');
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, calls };
}

describe('action.yml', () => {
  it('is a composite action that sets up Node then runs one bash step', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.runs.steps.map((s) => s.uses ?? s.shell)).toEqual(['actions/setup-node@v4', 'bash']);
    expect(action.runs.steps[0]!.with!['node-version']).toBe('${{ inputs.node-version }}');
    expect(action.inputs.command!.required).toBe(true);
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, name).toBeTruthy();
      if (name !== 'command') expect(typeof input.default, name).toBe('string');
    }
  });

  it('references only declared inputs, and uses every one of them', () => {
    const referenced = new Set([...text.matchAll(/\binputs\.([\w-]+)/g)].map((m) => m[1]!));
    expect([...referenced].sort()).toEqual(Object.keys(action.inputs).sort());
  });

  it('never splices an expression into a run script (script injection)', () => {
    for (const step of action.runs.steps) {
      if (step.run !== undefined) expect(step.run).not.toContain('${{');
    }
    // Each variable the script reads is set from the env mapping or by the runner.
    const read = new Set([...main.run!.matchAll(/\$\{?(BQ_\w+)/g)].map((m) => m[1]!));
    expect([...read].sort()).toEqual(Object.keys(main.env!).sort());
  });
});

describe('the run step, from this repository as `uses: ./`', () => {
  // The runner's action path for `uses: ./` is the workspace followed by `/./`.
  const ctx = (): { actionPath: string; workspace: string; cwd: string } => ({ actionPath: `${root}/./`, workspace: root, cwd: work });

  it('runs the built CLI from source: a valid message passes with the summary', () => {
    expect(existsSync(join(root, 'dist', 'cli', 'main.js')), 'dist/ is not built: run npm run build').toBe(true);
    const r = runAction(
      { command: 'validate', registry: 'registry.example.json', args: 'examples/messages/valid/order-created.json', format: 'github', dir: root },
      ctx(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('OK: 1 message: 1 valid, 0 invalid, 0 skipped, 0 errors');
    expect(r.stderr).toContain(`bqschema from source: ${root}`);
    expect(r.calls).toEqual([]); // neither npm ci nor npx: dist/ was already built
  });

  it('an invalid message fails with exit 1 and one ::error annotation per violation', () => {
    const r = runAction(
      { command: 'validate', registry: 'registry.example.json', args: 'examples/messages/invalid/order-created-invalid.json', dir: root },
      ctx(),
    );
    expect(r.code).toBe(1);
    const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error file=examples/messages/invalid/order-created-invalid.json,line='));
    expect(errors).toHaveLength(4);
    expect(r.stdout).toContain('FAILED: 1 message: 0 valid, 1 invalid');
    expect(r.calls).toEqual([]);
  });

  it('passes the format input to the CLI', () => {
    const check = runAction({ command: 'check', registry: 'registry.example.json', dir: root, format: 'json' }, ctx());
    expect(check.code, check.stderr).toBe(0);
    expect(() => JSON.parse(check.stdout)).not.toThrow();
  });

  it('use-local: false runs the npm package even here', () => {
    const r = runAction({ command: 'check', 'use-local': 'false', dir: root }, ctx());
    expect(r.code).toBe(3);
    expect(r.calls).toEqual([`${root} npx --yes --package bqschema@latest -- bqschema check --registry registry.json --format github`]);
  });
});

describe('the run step, used from another repository', () => {
  let actionPath = '';
  let workspace = '';
  beforeAll(() => {
    // The downloaded action: the bqschema source without dist/, outside the workspace.
    actionPath = join(work, '_actions', 'bqschema');
    mkdirSync(join(actionPath, 'src'), { recursive: true });
    mkdirSync(join(actionPath, 'bin'));
    writeFileSync(join(actionPath, 'package.json'), JSON.stringify({ name: 'bqschema' }));
    writeFileSync(join(actionPath, 'bin', 'bqschema.js'), 'console.log(JSON.stringify({ cwd: process.cwd(), argv: process.argv.slice(2) }));\n');
    workspace = join(work, 'workspace');
    mkdirSync(join(workspace, 'services', 'orders'), { recursive: true });
  });

  it('runs bqschema@version from npm with the inputs as separate arguments', () => {
    const r = runAction(
      { command: 'compat', version: '1.2.3', registry: 'reg.json', args: '  --against origin/main\n\t--mode   full ' },
      { actionPath, workspace, cwd: workspace },
    );
    expect(r.code).toBe(3); // npx's exit code is the action's
    expect(r.calls).toEqual([
      `${workspace} npx --yes --package bqschema@1.2.3 -- bqschema compat --registry reg.json --format github --against origin/main --mode full`,
    ]);
  });

  it('gives export-asyncapi no --format (its --format is json or yaml)', () => {
    const r = runAction({ command: 'export-asyncapi', args: '-o catalog.yaml' }, { actionPath, workspace, cwd: workspace });
    expect(r.calls).toEqual([`${workspace} npx --yes --package bqschema@latest -- bqschema export-asyncapi --registry registry.json -o catalog.yaml`]);
  });

  it('interprets no quotes, globs or command substitutions in args, and runs in dir', () => {
    const r = runAction(
      { command: 'validate', args: `'a b' *.json $(touch pwned) \`touch pwned2\` ;rm`, dir: 'services/orders', format: '' },
      { actionPath, workspace, cwd: workspace },
    );
    expect(r.code).toBe(3);
    expect(r.calls).toEqual([
      `${join(workspace, 'services', 'orders')} npx --yes --package bqschema@latest -- bqschema validate --registry registry.json 'a b' *.json $(touch pwned) \`touch pwned2\` ;rm`,
    ]);
    expect(existsSync(join(workspace, 'services', 'orders', 'pwned'))).toBe(false);
    expect(existsSync(join(workspace, 'services', 'orders', 'pwned2'))).toBe(false);
  });

  it('use-local: true builds the action source once, then runs its bin', () => {
    const inputs = { command: 'gdpr', 'use-local': 'true', args: '--require' };
    const first = runAction(inputs, { actionPath, workspace, cwd: workspace });
    expect(first.code, first.stderr).toBe(0);
    expect(first.calls).toEqual([`${actionPath} npm ci --no-audit --no-fund`, `${actionPath} npm run build`]);
    expect(JSON.parse(first.stdout)).toEqual({ cwd: workspace, argv: ['gdpr', '--registry', 'registry.json', '--format', 'github', '--require'] });
    const second = runAction(inputs, { actionPath, workspace, cwd: workspace });
    expect(second.code, second.stderr).toBe(0);
    expect(second.calls).toEqual([]);
  });

  it('refuses an unknown command, an unknown use-local and use-local: true without a source', () => {
    const bad = runAction({ command: 'serve' }, { actionPath, workspace, cwd: workspace });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/^::error title=bqschema action::input 'command' must be/m);
    const mode = runAction({ command: 'check', 'use-local': 'yes' }, { actionPath, workspace, cwd: workspace });
    expect(mode.code).toBe(2);
    expect(mode.stdout).toContain("input 'use-local' must be auto, true or false");
    const none = runAction({ command: 'check', 'use-local': 'true' }, { actionPath: workspace, workspace, cwd: workspace });
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('holds no bqschema source');
    expect([...bad.calls, ...mode.calls, ...none.calls]).toEqual([]);
  });
});
