import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { readMarkdown } from '../helpers/ci-formats.js';

// action.yml's run script is executed with bash the way the runner does (bash --noprofile --norc
// -eo pipefail), with the step's env mapping evaluated from the inputs and GITHUB_ACTION_PATH set.
// Fake `npm` and `npx` on PATH record their calls, so no test reaches the network and none can
// fetch bqschema from a package registry: the action runs from its own checkout.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

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
const action = YAML.parse(text) as {
  name: string;
  description: string;
  inputs: Record<string, Input>;
  runs: { using: string; steps: Step[] };
};
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
  // npx fails with 3: a run that reaches for a package registry is told apart from one that does not.
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

function runAction(inputs: Record<string, string>, ctx: { actionPath: string; cwd: string; env?: Record<string, string> }): Result {
  writeFileSync(callLog, '');
  const script = join(work, 'step.sh');
  writeFileSync(script, main.run!);
  const env: NodeJS.ProcessEnv = {
    PATH: `${fakeBin}:${process.env.PATH}`,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    BQ_TEST_CALLS: callLog,
    GITHUB_ACTION_PATH: ctx.actionPath,
    ...ctx.env,
    ...stepEnv(inputs),
  };
  const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd: ctx.cwd, env, encoding: 'utf8' });
  if (r.error) throw r.error;
  const calls = readFileSync(callLog, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, calls };
}

describe('action.yml', () => {
  it('is a composite action that sets up a supported Node (24 by default, with setup-node on the node24 runtime) then runs one bash step', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.runs.steps.map((s) => s.uses ?? s.shell)).toEqual(['actions/setup-node@v5', 'bash']);
    expect(action.runs.steps[0]!.with!['node-version']).toBe('${{ inputs.node-version }}');
    // Node 20 reached its end of life in April 2026; 24 is the active LTS line.
    expect(action.inputs['node-version']!.default).toBe('24');
    // The action installs nothing of the workspace's: no cache of its package manager either.
    expect(action.runs.steps[0]!.with!['package-manager-cache']).toBe(false);
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, name).toBeTruthy();
      expect(input.required ?? false, name).toBe(false);
      expect(typeof input.default, name).toBe('string');
    }
    expect(action.inputs.command!.default).toBe('check');
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

  it('never fetches bqschema from a package registry', () => {
    expect(main.run!).not.toMatch(/\bnpx\b|npm (install|i|exec)\b|bqschema@/);
    expect(main.run!).toContain('node "$GITHUB_ACTION_PATH/bin/bqschema.js"');
  });
});

describe('the run step, from this repository (dist/ built)', () => {
  const ctx = (): { actionPath: string; cwd: string } => ({ actionPath: root, cwd: work });

  it('the default command is check, with github annotations', () => {
    expect(existsSync(join(root, 'dist', 'cli', 'main.js')), 'dist/ is not built: run npm run build').toBe(true);
    const r = runAction({ registry: 'registry.example.json', dir: root }, ctx());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^::warning file=examples\/schemas\/payments-captured\.jsonc,line=14,col=50,title=not enforced::/m);
    expect(r.stdout).toContain('OK: 4 URN(s), 0 error(s), 1 warning(s)');
    expect(r.calls).toEqual([]); // neither npm nor npx: dist/ was already built
  });

  it('a valid message passes with the summary', () => {
    const r = runAction(
      { command: 'validate', registry: 'registry.example.json', args: 'examples/messages/valid/', format: 'github', dir: root },
      ctx(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('OK: 5 messages: 5 valid, 0 invalid, 0 skipped, 0 errors');
    expect(r.calls).toEqual([]);
  });

  it('an invalid message fails with exit 1 and one ::error annotation per violation', () => {
    const r = runAction(
      { command: 'validate', registry: 'registry.example.json', args: 'examples/messages/invalid/order-created-invalid.json', dir: root },
      ctx(),
    );
    expect(r.code).toBe(1);
    const errors = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('::error file=examples/messages/invalid/order-created-invalid.json,line='));
    expect(errors).toHaveLength(4);
    expect(r.stdout).toContain('FAILED: 1 message: 0 valid, 1 invalid');
    expect(r.calls).toEqual([]);
  });

  it('passes the format input to the CLI', () => {
    const check = runAction({ command: 'check', registry: 'registry.example.json', dir: root, format: 'json' }, ctx());
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout).summary.urns).toBe(4);
  });
});

describe('reports, job summary and outputs', () => {
  /** A fake runner's files: GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP, fresh per run. */
  function runner(): { env: Record<string, string>; outputs(): Record<string, string>; summary(): string; dir: string } {
    const dir = mkdtempSync(join(work, 'runner-'));
    const env = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary.md'), RUNNER_TEMP: join(dir, 'tmp') };
    mkdirSync(env.RUNNER_TEMP);
    writeFileSync(env.GITHUB_OUTPUT, '');
    writeFileSync(env.GITHUB_STEP_SUMMARY, '');
    return {
      env,
      dir,
      outputs: () =>
        Object.fromEntries(
          readFileSync(env.GITHUB_OUTPUT, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        ),
      summary: () => readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8'),
    };
  }

  it('validate: annotations in the log, SARIF, JUnit and JSON on disk, its markdown in the job summary, outputs naming them', () => {
    const r0 = runner();
    const out = join(r0.dir, 'reports');
    mkdirSync(out);
    const r = runAction(
      {
        command: 'validate',
        registry: 'registry.example.json',
        args: 'examples/messages/',
        dir: root,
        'sarif-file': join(out, 'bq.sarif'),
        'junit-file': join(out, 'bq.xml'),
        'json-file': join(out, 'bq.json'),
      },
      { actionPath: root, cwd: work, env: r0.env },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^::error file=examples\/messages\/invalid\//m);
    expect(r0.outputs()).toEqual({
      ok: 'false',
      'exit-code': '1',
      'sarif-file': join(out, 'bq.sarif'),
      'junit-file': join(out, 'bq.xml'),
      'json-file': join(out, 'bq.json'),
    });
    expect(JSON.parse(readFileSync(join(out, 'bq.sarif'), 'utf8')).version).toBe('2.1.0');
    expect(readFileSync(join(out, 'bq.xml'), 'utf8')).toContain('<testsuites name="bqschema');
    expect(JSON.parse(readFileSync(join(out, 'bq.json'), 'utf8')).summary).toEqual({
      messages: 10,
      valid: 6,
      invalid: 3,
      skipped: 1,
      errors: 0,
    });
    // The job summary is the markdown report: the summary line, then a row per SARIF result.
    const summary = readMarkdown(r0.summary());
    expect(summary.heading).toBe('bqschema validate: FAILED: 10 messages: 6 valid, 3 invalid, 1 skipped, 0 errors');
    const sarif = JSON.parse(readFileSync(join(out, 'bq.sarif'), 'utf8')).runs[0].results as Array<{
      ruleId: string;
      message: { text: string };
    }>;
    expect(summary.rows.map(([, , rule, finding]) => [rule, finding])).toEqual(sarif.map((x) => [x.ruleId, x.message.text]));
    expect(readdirSync(r0.env.RUNNER_TEMP)).toEqual([]); // the summary's temporary file is gone
  });

  it('with dir set, annotations and SARIF name files from the repository root, and the outputs name the reports from where the step started', () => {
    const r0 = runner();
    const ws = mkdtempSync(join(work, 'ws-'));
    mkdirSync(join(ws, 'svc', 'msgs'), { recursive: true });
    writeFileSync(join(ws, 'svc', 'registry.json'), '{"schemas":[{"urn":"urn:t:a","schema":"a.json","owner":"o"}]}');
    writeFileSync(join(ws, 'svc', 'a.json'), '{"type":"object","required":["id"]}');
    writeFileSync(join(ws, 'svc', 'msgs', 'm.json'), '{"job":"urn:t:a","data":{}}');
    spawnSync('git', ['init', '-q'], { cwd: ws });
    const r = runAction(
      { command: 'validate', args: 'msgs', dir: 'svc', summary: 'false', 'sarif-file': 'bq.sarif', 'junit-file': 'bq.xml' },
      { actionPath: root, cwd: ws, env: r0.env },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^::error file=svc\/msgs\/m\.json,line=1,col=25,/m);
    expect(r0.outputs()).toMatchObject({ 'sarif-file': 'svc/bq.sarif', 'junit-file': 'svc/bq.xml' });
    // What upload-sarif reads from the step's working directory: the file, its URIs from the root.
    const log = JSON.parse(readFileSync(join(ws, r0.outputs()['sarif-file']!), 'utf8'));
    expect(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('svc/msgs/m.json');
  });

  it("compat: its markdown table is the job summary; ok is 'true' on a pass", () => {
    const r0 = runner();
    const r = runAction(
      { command: 'compat', args: 'examples/compat/orders-created.v1.json examples/compat/orders-created.breaking.json', dir: root },
      { actionPath: root, cwd: work, env: r0.env },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r0.summary()).toMatch(/^### bqschema compat: 2 breaking change\(s\)/);
    expect(r0.summary()).toContain('| status | path | change |');
    expect(r0.outputs()).toEqual({ ok: 'false', 'exit-code': '1', 'sarif-file': '', 'junit-file': '', 'json-file': '' });
    const r1 = runner();
    const same = runAction(
      { command: 'compat', args: 'examples/compat/orders-created.v1.json examples/compat/orders-created.v1.json', dir: root },
      { actionPath: root, cwd: work, env: r1.env },
    );
    expect(same.code, same.stderr).toBe(0);
    expect(r1.summary()).toMatch(/^### bqschema compat: no breaking change/);
    expect(r1.outputs()).toMatchObject({ ok: 'true', 'exit-code': '0' });
  });

  it('gdpr: the inventory and the --require gate each write their markdown to the job summary', () => {
    const r0 = runner();
    const inventory = runAction(
      { command: 'gdpr', registry: 'registry.example.json', dir: root },
      { actionPath: root, cwd: work, env: r0.env },
    );
    expect(inventory.code, inventory.stderr).toBe(0);
    const inv = readMarkdown(r0.summary());
    expect(inv.heading).toMatch(/^bqschema gdpr: 4 URN\(s\), \d+ sensitive field\(s\)$/);
    expect(inv.rows.map(([level, , rule]) => [level, rule])).toEqual([['note', 'gdpr-inventory']]);
    const r1 = runner();
    const gate = runAction(
      { command: 'gdpr', registry: 'registry.example.json', args: '--require', dir: root },
      { actionPath: root, cwd: work, env: r1.env },
    );
    expect(gate.code, gate.stderr).toBe(0); // every PII-named field of the example registry is marked
    const req = readMarkdown(r1.summary());
    expect(req.heading).toBe('bqschema gdpr: OK: no unmarked PII-named field; 4 URN(s) checked');
    expect(req.paragraphs).toContain('No findings.');
    expect(r1.outputs()).toMatchObject({ ok: 'true', 'exit-code': '0' });
  });

  it("summary: 'false' writes none; a usage error names no report", () => {
    const r0 = runner();
    const r = runAction(
      {
        command: 'check',
        registry: 'registry.example.json',
        dir: root,
        summary: 'false',
        'sarif-file': join(r0.dir, 'no', 'such', 'x.sarif'),
      },
      { actionPath: root, cwd: work, env: r0.env },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write --report sarif=.*the directory .* does not exist/);
    expect(r0.summary()).toBe('');
    expect(r0.outputs()).toMatchObject({ ok: 'false', 'exit-code': '2', 'sarif-file': '' });
  });

  it('refuses report inputs where they do not apply, and a summary that is not true or false', () => {
    const r0 = runner();
    const types = runAction(
      { command: 'types', registry: 'registry.example.json', dir: root, 'sarif-file': 'x.sarif' },
      { actionPath: root, cwd: work, env: r0.env },
    );
    expect(types.code).toBe(2);
    expect(types.stdout).toContain(
      "::error title=bqschema action::input 'sarif-file' applies to check, validate, compat and gdpr (not --mask)",
    );
    const yes = runAction(
      { command: 'check', registry: 'registry.example.json', dir: root, summary: 'yes' },
      { actionPath: root, cwd: work, env: r0.env },
    );
    expect(yes.code).toBe(2);
    expect(yes.stdout).toContain("input 'summary' must be true or false, got 'yes'");
  });
});

describe("compat's transitive window from the action's inputs", () => {
  it('transitive and since become --transitive and --since; the summary says the window; other commands refuse them', () => {
    const repo = mkdtempSync(join(work, 'history-'));
    const g = (...args: string[]): void => {
      const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], {
        cwd: repo,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
    };
    const schema = (props: object): string => JSON.stringify({ type: 'object', properties: props });
    writeFileSync(join(repo, 'registry.json'), JSON.stringify({ schemas: [{ urn: 'urn:bq:t:e', schema: 'e.json' }] }));
    writeFileSync(join(repo, 'e.json'), schema({ a: { type: 'string' } }));
    g('init', '-q');
    g('add', '-A');
    g('commit', '-qm', 'v1');
    g('tag', 'v1');
    writeFileSync(join(repo, 'e.json'), schema({}));
    g('commit', '-qam', 'v2: a removed');
    writeFileSync(join(repo, 'e.json'), schema({ a: { type: 'integer' } }));
    g('commit', '-qam', 'v3: a is back');
    const run = (inputs: Record<string, string>) =>
      runAction({ command: 'compat', dir: repo, format: 'text', summary: 'false', ...inputs }, { actionPath: root, cwd: work });
    expect(run({ args: '--against HEAD~1' }).code).toBe(0);
    const since = run({ args: '--against HEAD~1', since: 'v1' });
    expect(since.code, since.stderr).toBe(1);
    expect(since.stdout).toMatch(/breaks version 1 \([0-9a-f]{12}, \d{4}-\d{2}-\d{2}\)/);
    expect(since.stdout).toMatch(
      /; transitive since v1 \([0-9a-f]{12}\): 1 earlier version\(s\) of 1 URN\(s\) in 3 commit\(s\), 1 URN\(s\) break one/,
    );
    const all = run({ transitive: 'true' });
    expect(all.code).toBe(1);
    expect(all.stdout).toMatch(/transitive over the whole history/);
    const bad = run({ transitive: 'yes' });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain("input 'transitive' must be true or false, got 'yes'");
    const elsewhere = runAction({ command: 'check', dir: repo, since: 'v1' }, { actionPath: root, cwd: work });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stdout).toContain("inputs 'transitive' and 'since' apply to compat, not check");
  });
});

describe('the run step, used from another repository at a ref that is not a release (uses: owner/bqschema@<branch or source commit>)', () => {
  let actionPath = '';
  let workspace = '';
  beforeAll(() => {
    // The downloaded action: the bqschema source outside the workspace, without dist/. Its
    // dependencies are linked in (npm ci is faked); `npm run build` is replaced by a copy of the
    // real build, so the real CLI runs afterwards.
    actionPath = join(work, '_actions', 'babelqueue', 'bqschema', 'v1');
    mkdirSync(actionPath, { recursive: true });
    cpSync(join(root, 'bin'), join(actionPath, 'bin'), { recursive: true });
    cpSync(join(root, 'package.json'), join(actionPath, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(actionPath, 'node_modules'));
    writeFileSync(
      join(fakeBin, 'npm'),
      `#!/usr/bin/env bash\nprintf '%s\\n' "$PWD npm $*" >> "$BQ_TEST_CALLS"\nif [ "$1" = run ] && [ "$2" = build ]; then cp -R ${JSON.stringify(join(root, 'dist'))} dist; fi\n`,
    );
    // A user's repository, scaffolded by bqschema init, with main as origin/main.
    workspace = join(work, 'workspace');
    mkdirSync(workspace);
    const init = spawnSync(process.execPath, [join(root, 'bin', 'bqschema.js'), 'init'], { cwd: workspace, encoding: 'utf8' });
    expect(init.status, init.stderr).toBe(0);
    const git = (...args: string[]): void => {
      const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: workspace, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    };
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'registry');
    git('update-ref', 'refs/remotes/origin/main', 'HEAD');
  });

  // The workflow bqschema init writes, step by step with the inputs it gives: check, validate
  // --strict messages/, compat --against origin/main.
  it('builds once in the action path, then runs the init workflow: check, validate, compat all pass', () => {
    const wf = YAML.parse(readFileSync(join(workspace, '.github', 'workflows', 'bqschema.yml'), 'utf8'));
    const steps = (wf.jobs.schemas.steps as Step[]).filter((s) => s.uses?.startsWith('babelqueue/bqschema@'));
    expect(steps.map((s) => s.with!.command)).toEqual(['check', 'validate', 'compat']);
    expect(steps[1]!.with!.args).toBe('--strict messages/');
    const [first, validate, compat] = steps.map((s) => runAction(s.with!, { actionPath, cwd: workspace }));
    expect(first!.code, first!.stderr).toBe(0);
    expect(first!.calls).toEqual([`${actionPath} npm ci --no-audit --no-fund`, `${actionPath} npm run build`]);
    expect(first!.stdout).toMatch(
      /^::notice title=bqschema action::this ref of babelqueue\/bqschema is not a release: building it .*Pin a release tag/m,
    );
    expect(first!.stdout).toContain('OK: 1 URN(s), 0 error(s), 0 warning(s)');
    expect(validate!.code, validate!.stderr).toBe(0);
    expect(validate!.stdout).toContain('OK: 1 message: 1 valid');
    expect(compat!.code, compat!.stderr).toBe(0);
    expect(compat!.stdout).toMatch(/no breaking change against origin\/main/);
    expect([...validate!.calls, ...compat!.calls]).toEqual([]); // built once per job
  });

  // init in a subdirectory writes the workflow at the repository root, naming the registry's paths.
  it('runs the workflow init writes for a registry in a subdirectory, from the repository root', () => {
    const repo = join(work, 'monorepo');
    mkdirSync(join(repo, 'services', 'orders'), { recursive: true });
    const git = (...args: string[]): void => {
      const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    };
    git('init', '-q');
    const init = spawnSync(process.execPath, [join(root, 'bin', 'bqschema.js'), 'init'], {
      cwd: join(repo, 'services', 'orders'),
      encoding: 'utf8',
    });
    expect(init.status, init.stderr).toBe(0);
    git('add', '-A');
    git('commit', '-qm', 'registry');
    git('update-ref', 'refs/remotes/origin/main', 'HEAD');
    const wf = YAML.parse(readFileSync(join(repo, '.github', 'workflows', 'bqschema.yml'), 'utf8'));
    const steps = (wf.jobs.schemas.steps as Step[]).filter((s) => s.uses?.startsWith('babelqueue/bqschema@'));
    expect(steps).toHaveLength(3);
    for (const s of steps) {
      const r = runAction(s.with!, { actionPath, cwd: repo });
      expect(r.code, `${s.with!.command}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    // Annotations name files from the repository root, so they land on the pull request's diff.
    writeFileSync(join(repo, 'services', 'orders', 'messages', 'typo.json'), '{"job":"urn:babel:orders:craeted","data":{}}\n');
    const strict = runAction(steps[1]!.with!, { actionPath, cwd: repo });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^::error file=services\/orders\/messages\/typo\.json/m);
  });

  // The pull request that adds the registry: origin/main has none. The init workflow passes it
  // (every URN added, and the job summary says why); without --allow-new-registry it is exit 2.
  it('the first registry commit: the init workflow passes the pull request that adds the registry, and says the registry is new', () => {
    const repo = join(work, 'first-registry');
    mkdirSync(repo);
    const git = (...args: string[]): void => {
      const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    };
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# a service\n');
    git('add', '-A');
    git('commit', '-qm', 'readme');
    git('update-ref', 'refs/remotes/origin/main', 'HEAD');
    git('checkout', '-qb', 'add-registry');
    const init = spawnSync(process.execPath, [join(root, 'bin', 'bqschema.js'), 'init'], { cwd: repo, encoding: 'utf8' });
    expect(init.status, init.stderr).toBe(0);
    git('add', '-A');
    git('commit', '-qm', 'registry');
    const wf = YAML.parse(readFileSync(join(repo, '.github', 'workflows', 'bqschema.yml'), 'utf8'));
    const compat = (wf.jobs.schemas.steps as Step[]).find((s) => s.with?.command === 'compat')!;
    const summaryDir = mkdtempSync(join(work, 'summary-'));
    const env = { GITHUB_STEP_SUMMARY: join(summaryDir, 'summary.md'), GITHUB_OUTPUT: join(summaryDir, 'output'), RUNNER_TEMP: summaryDir };
    writeFileSync(env.GITHUB_STEP_SUMMARY, '');
    const r = runAction(compat.with!, { actionPath, cwd: repo, env });
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(
      /^::notice file=registry\.json,title=registry absent::no registry at origin\/main for registry\.json .*every URN is added \(--allow-new-registry\)$/m,
    );
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toContain(
      'No registry at `origin/main` for `registry.json`: a new registry, every URN is added (`--allow-new-registry`).',
    );
    const strict = runAction({ ...compat.with!, args: '--against origin/main' }, { actionPath, cwd: repo });
    expect(strict.code).toBe(2);
    expect(strict.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^bqschema: no registry found at origin\/main .*--allow-new-registry if this change creates the registry$/),
    ]);
  });

  it('a breaking change fails compat with exit 1', () => {
    const schema = join(workspace, 'schemas', 'orders-created.json');
    const before = readFileSync(schema, 'utf8');
    try {
      const s = JSON.parse(before);
      s.required.push('note');
      writeFileSync(schema, JSON.stringify(s));
      const r = runAction({ command: 'compat', args: '--against origin/main' }, { actionPath, cwd: workspace });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^::error .*required/m);
    } finally {
      writeFileSync(schema, before);
    }
  });

  it('interprets no quotes, globs or command substitutions in args, and runs in dir', () => {
    mkdirSync(join(workspace, 'services', 'orders'), { recursive: true });
    const r = runAction(
      { command: 'validate', args: `'a b' *.json $(touch pwned) \`touch pwned2\` ;rm`, dir: 'services/orders', format: '' },
      { actionPath, cwd: workspace },
    );
    expect(r.code).toBe(1); // the arguments name files that do not exist
    expect(r.stdout + r.stderr).toContain("'a");
    expect(existsSync(join(workspace, 'services', 'orders', 'pwned'))).toBe(false);
    expect(existsSync(join(workspace, 'services', 'orders', 'pwned2'))).toBe(false);
    expect(r.calls).toEqual([]);
  });

  it("gdpr --mask refuses the default format: github, and masks with format: ''", () => {
    const refused = runAction({ command: 'gdpr', args: '--mask messages/orders-created.json' }, { actionPath, cwd: workspace });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--format github does not apply to --mask.*set format: ''/);
    const masked = runAction({ command: 'gdpr', args: '--mask messages/orders-created.json', format: '' }, { actionPath, cwd: workspace });
    expect(masked.code, masked.stderr).toBe(0);
    expect(JSON.parse(masked.stdout).job).toBe('urn:babel:orders:created');
  });

  it('gives export-asyncapi and types no --format', () => {
    const out = join(work, 'catalog.yaml');
    const r = runAction({ command: 'export-asyncapi', args: `-o ${out}` }, { actionPath, cwd: workspace });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^asyncapi: 3\.0\.0/m);
    const types = runAction({ command: 'types' }, { actionPath, cwd: workspace });
    expect(types.code, types.stderr).toBe(0);
    expect(types.stdout).toContain('BqMessages');
  });

  it('refuses an unknown command, and an action path without bqschema', () => {
    const bad = runAction({ command: 'serve' }, { actionPath, cwd: workspace });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/^::error title=bqschema action::input 'command' must be check, validate/m);
    const none = runAction({}, { actionPath: workspace, cwd: workspace });
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('GITHUB_ACTION_PATH does not hold bqschema');
    expect([...bad.calls, ...none.calls]).toEqual([]);
  });
});

describe('the run step from a release tag (scripts/action-release.js): no dev dependency installed, nothing compiled', () => {
  // A repository standing in for babelqueue/bqschema: the release script commits the release tree
  // as a child of its HEAD and tags it v<version>; the runner downloads the tag's tree (git archive),
  // and the init workflow's steps run from it with npm, npx and tsc rigged to fail.
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const tag = `v${version}`;
  let repo = '';
  let actionPath = '';
  let workspace = '';
  let released: Result | undefined;
  const git = (cwd: string, ...args: string[]): string => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });
    expect(r.status, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout.trim();
  };

  beforeAll(() => {
    repo = join(work, 'release-repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# bqschema\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'source');
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    };
    for (const k of Object.keys(env)) if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)|^INIT_CWD$/i.test(k)) delete env[k];
    const r = spawnSync(
      process.execPath,
      [join(root, 'scripts', 'action-release.js'), '--out', join(work, 'release-tree'), '--tag', '--repo', repo],
      { cwd: root, env, encoding: 'utf8' },
    );
    released = { code: r.status, stdout: r.stdout, stderr: r.stderr, calls: [] };
    if (r.status !== 0) return;
    // What the runner fetches for `uses: babelqueue/bqschema@v<version>`: the tag's tree.
    actionPath = join(work, '_actions', 'babelqueue', 'bqschema', tag);
    mkdirSync(actionPath, { recursive: true });
    const archive = spawnSync('sh', ['-c', `git archive ${tag} | tar -x -C '${actionPath}'`], { cwd: repo, encoding: 'utf8' });
    expect(archive.status, archive.stderr).toBe(0);
    // Any install or compile fails the run and is logged.
    for (const name of ['npm', 'npx', 'tsc']) {
      writeFileSync(join(fakeBin, name), `#!/usr/bin/env bash\nprintf '%s\\n' "$PWD ${name} $*" >> "$BQ_TEST_CALLS"\nexit 3\n`);
      chmodSync(join(fakeBin, name), 0o755);
    }
    workspace = join(work, 'release-workspace');
    mkdirSync(workspace);
    const init = spawnSync(process.execPath, [join(root, 'bin', 'bqschema.js'), 'init'], { cwd: workspace, encoding: 'utf8' });
    expect(init.status, init.stderr).toBe(0);
    git(workspace, 'init', '-q');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-qm', 'registry');
    git(workspace, 'update-ref', 'refs/remotes/origin/main', 'HEAD');
  }, 240_000);

  it('tags a commit whose tree is the package as npm ships it, action.yml and the production dependencies; the branch, index and working tree stay as they were', () => {
    expect(released!.code, released!.stderr).toBe(0);
    expect(released!.stdout).toContain(`tagged ${tag}`);
    const head = git(repo, 'rev-parse', 'HEAD');
    expect(git(repo, 'rev-parse', `${tag}^{commit}^`)).toBe(head); // a child of the source commit
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    const files = git(repo, 'ls-tree', '-r', '--name-only', tag).split('\n');
    for (const f of [
      'action.yml',
      'bin/bqschema.js',
      'dist/cli/main.js',
      'dist/cli-bundle/main.js',
      'dist/cli-bundle/main.js.cache',
      'dist/index.d.ts',
      'package.json',
      'package-lock.json',
    ])
      expect(files, f).toContain(f);
    expect(files.filter((f) => /^(src|test|scripts|bench|docs|examples)\//.test(f))).toEqual([]);
    // Exactly the dependencies package.json lists, at the versions the lockfile holds: no dev dependency.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const installed = [
      ...new Set(files.filter((f) => f.startsWith('node_modules/') && !f.startsWith('node_modules/.')).map((f) => f.split('/')[1]!)),
    ].sort();
    expect(installed).toEqual(Object.keys(pkg.dependencies).sort());
    for (const [name, range] of Object.entries(pkg.dependencies)) {
      expect(JSON.parse(git(repo, 'show', `${tag}:node_modules/${name}/package.json`)).version, name).toBe(range);
    }
  });

  it('runs the init workflow from the downloaded tag: check, validate and compat pass at once, and nothing is installed, compiled or written in the action', () => {
    const wf = YAML.parse(readFileSync(join(workspace, '.github', 'workflows', 'bqschema.yml'), 'utf8'));
    const steps = (wf.jobs.schemas.steps as Step[]).filter((s) => s.uses?.startsWith('babelqueue/bqschema@'));
    // The workflow pins the tag this release made.
    expect(steps.map((s) => s.uses)).toEqual([`babelqueue/bqschema@${tag}`, `babelqueue/bqschema@${tag}`, `babelqueue/bqschema@${tag}`]);
    const before = git(repo, 'ls-tree', '-r', '--name-only', tag).split('\n').length;
    const runs = steps.map((s) => runAction(s.with!, { actionPath, cwd: workspace }));
    for (const r of runs) {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.calls).toEqual([]);
      expect(r.stdout).not.toContain('::notice title=bqschema action');
    }
    expect(runs[0]!.stdout).toContain('OK: 1 URN(s), 0 error(s), 0 warning(s)');
    expect(runs[1]!.stdout).toContain('OK: 1 message: 1 valid');
    expect(runs[2]!.stdout).toMatch(/no breaking change against origin\/main/);
    const walk = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [e.name]));
    expect(walk(actionPath)).toHaveLength(before); // no build output, no install
  });
});
