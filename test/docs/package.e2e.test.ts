import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { bq, expectExit, removeTempTrees, ROOT, tempTree } from '../helpers/cli.js';

// What the README and the docs say about the package is what package.json, action.yml, init and
// the CI script do: the entries a user may import, the module formats, the Node versions, the
// install, the Action's pin and inputs, and what `npm test` needs.

afterAll(removeTempTrees);

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  version: string;
  engines: { node: string };
  exports: Record<string, string | Record<string, unknown>>;
};
const readme = read('README.md');
const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.md'))
  .map((f) => [`docs/${f}`, read(join('docs', f))] as const);
const everything: Array<readonly [string, string]> = [['README.md', readme], ...docs];

/** Whether a subpath (`./x`) is one of the package's exports, a `*` pattern matching any segment text. */
function exported(subpath: string): boolean {
  return Object.keys(pkg.exports).some((key) => {
    if (!key.includes('*')) return key === subpath;
    const [head, tail] = key.split('*') as [string, string];
    return subpath.startsWith(head) && subpath.endsWith(tail) && subpath.length > head.length + tail.length;
  });
}

describe('the entries the docs name are the package exports', () => {
  // A specifier in prose or code: `bqschema/…`, not a path inside node_modules or a URL.
  const named = everything.flatMap(([file, text]) =>
    // A SARIF category (`bqschema/validate/`) ends with a slash: it names no module.
    [...text.matchAll(/(?<![\w/.@-])bqschema\/([\w.*<>-]+(?:\/[\w.*<>-]+)*)(?![\w.*<>/-])/g)].map((m) => [file, m[1]!] as const),
  );

  it('every bqschema/<subpath> in README.md and docs/ is exported (<placeholder> and * stand for a name)', () => {
    expect(named.length).toBeGreaterThan(10);
    const unexported = named.filter(([, sub]) => !exported(`./${sub.replace(/<\w+>|\*/g, 'x')}`));
    expect(unexported).toEqual([]);
  });

  it('every export but package.json is documented in docs/library.md', () => {
    const library = read('docs/library.md');
    const missing = Object.keys(pkg.exports)
      .filter((k) => k !== './package.json')
      .map((k) => (k === '.' ? 'bqschema' : `bqschema/${k.slice(2)}`))
      .filter((spec) => !library.includes(spec.replace('*', '<command>')) && !library.includes(spec));
    expect(missing).toEqual([]);
  });

  it('the output schemas the docs list are the files the pattern exports', () => {
    const files = readdirSync(join(ROOT, 'schemas', 'output'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''))
      .sort();
    expect(exported('./schemas/output/check.json')).toBe(true);
    // docs/library.md names the commands whose JSON has a schema.
    const listed = /`bqschema\/schemas\/output\/<command>\.json` \(([^)]*)\)/.exec(read('docs/library.md'))?.[1];
    expect(listed, 'docs/library.md lists the output schemas').toBeDefined();
    expect([...listed!.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()).toEqual(files);
  });
});

describe('module formats and Node versions', () => {
  const requirable = Object.values(pkg.exports).some((t) => typeof t === 'object' && Object.hasOwn(t, 'require'));

  it('the package can be required, so neither the README nor the docs call it ESM-only; both say require() works and from which Node', () => {
    expect(requirable).toBe(true);
    for (const [file, text] of everything) expect(text, file).not.toMatch(/\b(ESM|ES module)[- ]only\b/i);
    // The Node that can require() it: the one the CommonJS entry tells an older Node to use.
    const floor = /use Node >= (\d+\.\d+)/.exec(read('src/index.cts'))?.[1];
    expect(floor).toBeDefined();
    expect(readme).toMatch(new RegExp(`CommonJS can \`require\\(\\)\` too \\(Node\\.js ${floor!.replace('.', '\\.')} or later\\)`));
    expect(read('docs/library.md')).toContain(`\`require()\` every entry`);
    expect(read('docs/library.md')).toContain(`on Node >= ${floor}`);
  });

  it("the README's Node requirement is package.json's engines", () => {
    const major = /^>=(\d+)$/.exec(pkg.engines.node)?.[1];
    expect(major, pkg.engines.node).toBeDefined();
    expect(readme).toContain(`Node.js ${major} or later`);
  });
});

describe('the README install', () => {
  const block = /## Install\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;

  it("names this version's tarball, and installs it from a path inside the project", () => {
    const tarballs = [...block.matchAll(/bqschema-[\w.-]+?\.tgz/g)].map((m) => m[0]);
    expect(tarballs.length).toBeGreaterThan(2);
    expect(new Set(tarballs)).toEqual(new Set([`bqschema-${pkg.version}.tgz`]));
    const install = block.split('\n').find((l) => /^npm install /.test(l));
    expect(install).toBe(`npm install --save-dev ./vendor/bqschema-${pkg.version}.tgz`);
    expect(readme).toContain(`\`file:vendor/bqschema-${pkg.version}.tgz\``);
  });
});

describe('the GitHub Action as the docs show it', () => {
  const action = YAML.parse(read('action.yml')) as {
    inputs: Record<string, { default?: string }>;
    runs: { steps: Array<{ uses?: string }> };
  };

  it('every `uses: babelqueue/bqschema@…` in README.md and docs/ pins the release tag of this version (or its commit, with the tag as a comment)', () => {
    const pins = everything.flatMap(([file, text]) =>
      [...text.matchAll(/babelqueue\/bqschema@(<[^>]*>|[^\s`]+)(.*)$/gm)].map((m) => [file, m[1]!, m[2]!] as const),
    );
    expect(pins.length).toBeGreaterThan(5);
    const tag = `v${pkg.version}`;
    const wrong = pins.filter(
      ([, ref, rest]) => ref !== tag && !(/^[0-9a-f]{40}$/.test(ref) && rest.includes(`# ${tag}`)) && !/<[^>]+>/.test(ref),
    ); // a placeholder such as v<version> names no ref
    expect(wrong).toEqual([]);
  });

  it("the inputs table's defaults are action.yml's", () => {
    const page = read('docs/github-action.md');
    const rows = [...page.matchAll(/^\| `([\w-]+)` \|([^|]*)\|/gm)].filter((m) => Object.hasOwn(action.inputs, m[1]!));
    expect(rows.map((m) => m[1]).sort()).toEqual(Object.keys(action.inputs).sort());
    for (const m of rows) {
      const shown = /^`([^`]*)`$/.exec(m[2]!.trim())?.[1];
      const def = action.inputs[m[1]!]!.default ?? '';
      // An empty default is shown as a blank cell or in words, e.g. "(discovered)".
      if (def === '') expect(shown ?? '', m[1]).toBe('');
      else expect(shown, m[1]).toBe(def);
    }
    expect(action.runs.steps[0]!.uses).toBe('actions/setup-node@v5');
    expect(page).toContain('`actions/setup-node@v5`');
  });

  it('the pull-request workflow on the page is, byte for byte, the one `bqschema init` writes', async () => {
    const dir = tempTree({});
    expectExit(await bq(['init'], { cwd: dir }), 0);
    const written = readFileSync(join(dir, '.github', 'workflows', 'bqschema.yml'), 'utf8');
    const shown = /## A pull-request workflow[\s\S]*?```yaml\n([\s\S]*?)```/.exec(read('docs/github-action.md'))?.[1];
    expect(shown).toBe(written);
  });
});

describe('what npm test needs', () => {
  it("CONTRIBUTING's apt-get line lists exactly the Debian packages .ci/run installs", () => {
    const ci = read('.ci/run');
    const installed = [...ci.matchAll(/need\+=\(([\w.+-]+)\)/g)].map((m) => m[1]!).sort();
    expect(installed.length).toBeGreaterThan(5);
    const line = /^sudo apt-get install (.*)$/m.exec(read('docs/CONTRIBUTING.md'))?.[1];
    expect(line, 'docs/CONTRIBUTING.md has the apt-get line').toBeDefined();
    expect(line!.split(/\s+/).sort()).toEqual(installed);
    expect(readme).toContain('[CONTRIBUTING](docs/CONTRIBUTING.md#setup)');
  });
});
