import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { basename, delimiter, dirname, join, relative, resolve, sep } from 'node:path';
import { display, inside, MANIFEST_NAMES } from '../../registry/index.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { clean } from '../output.js';

export interface InitOptions {
  /** The directory to scaffold (created when missing). */
  dir?: string;
  /** The running bqschema's version: the workflow pins the Action's release tag of it, `v<version>`. */
  version: string;
}

const SCHEMA_FILE = 'schemas/orders-created.json';
const MESSAGE_FILE = 'messages/orders-created.json';
const WORKFLOW_FILE = '.github/workflows/bqschema.yml';
const PACKAGED_SCHEMA = 'node_modules/bqschema/registry.schema.json';

function registry(schemaRef: string): unknown {
  return {
    // Resolves once bqschema is a dependency of the project; bqschema itself ignores the key.
    $schema: schemaRef,
    schemas: [
      {
        urn: 'urn:babel:orders:created',
        schema: SCHEMA_FILE,
        owner: 'orders',
        status: 'active',
        description: 'An order was placed.',
      },
    ],
  };
}

// Only the ten enforced keywords (docs/contract.md), so `check` has nothing to warn about.
const SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Order created',
  type: 'object',
  required: ['order_id', 'currency'],
  properties: {
    order_id: { type: 'integer', minimum: 1 },
    currency: { enum: ['USD', 'EUR'] },
    note: { type: ['string', 'null'], maxLength: 280 },
  },
  additionalProperties: false,
};

const MESSAGE = {
  job: 'urn:babel:orders:created',
  data: { order_id: 1042, currency: 'EUR', note: null },
  meta: { id: 'm-1', schema_version: 1 },
  attempts: 0,
};

// The Action splits `args` on whitespace and interprets nothing, so a path goes into `args` (and
// `registry`, to keep annotations on the diff) only when it is made of these characters.
const PLAIN_PATH = /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/;

/**
 * The workflow, for a registry `sub` directories below the repository root ('' at the root), pinning
 * the Action to `ref`, the release tag of the bqschema that wrote it (a release holds the built
 * package: no install of dev dependencies, no compiling, docs/github-action.md).
 * `--strict`: a message whose URN has no schema (a misspelt URN) fails instead of being skipped.
 * compat --against origin/main reads the registry at that ref: the checkout needs the history.
 * `--allow-new-registry`: the pull request that adds this registry has none to compare with at
 * main; later ones find it there (also renamed or moved), and only a ref with no manifest that
 * registers any of its URNs counts it as new.
 */
function workflow(sub: string, ref: string): string {
  const plain = sub === '' || PLAIN_PATH.test(sub);
  // From the root (plain): the registry by path. Otherwise the steps run in the directory (`dir` is
  // not split), and annotations name files relative to it.
  const where = sub === '' ? '' : plain ? `\n          registry: ${sub}/registry.json` : `\n          dir: ${JSON.stringify(sub)}`;
  const messages = sub !== '' && plain ? `${sub}/messages/` : 'messages/';
  return `name: bqschema
on:
  pull_request:
  push:
    branches: [main]
jobs:
  schemas:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0
      - name: Self-check the registry
        uses: babelqueue/bqschema@${ref}
        with:
          command: check${where}
      - name: Validate the example messages
        uses: babelqueue/bqschema@${ref}
        with:
          command: validate${where}
          args: --strict ${messages}
      - name: Gate schema changes against main
        if: github.event_name == 'pull_request'
        uses: babelqueue/bqschema@${ref}
        with:
          command: compat${where}
          # The pull request that adds the registry has none at main to compare with, hence --allow-new-registry.
          args: --against origin/main --allow-new-registry
`;
}

const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';

/** A path as shown to the user: relative to the working directory when inside it, `.` for it. */
function shown(path: string): string {
  return clean(resolve(path) === process.cwd() ? '.' : display(path));
}

/** The cause of a file system error in words ("permission denied"), not its code alone. */
function cause(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const words = /^[A-Z0-9_]+: ([^,]+)/.exec(e.message)?.[1];
  return words !== undefined && e.code !== undefined ? `${words} (${e.code})` : e.message;
}

function lstatOrUndefined(path: string, refuse: (problem: string) => never): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return refuse(`cannot read ${shown(path)}: ${cause(err)}`);
  }
}

/** The directory holding `.git` at or above `dir` (the rule registry discovery stops at), if any. */
function repositoryRoot(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * `$schema` for the registry in `dir`: the packaged schema under the nearest directory, up to the
 * repository root, that has bqschema installed or a package.json (where it will be installed);
 * else under the repository root, else under `dir`. Relative, so it resolves from the registry.
 */
function schemaRef(dir: string, top: string | undefined): string {
  let project = top ?? dir;
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, PACKAGED_SCHEMA)) || existsSync(join(d, 'package.json'))) {
      project = d;
      break;
    }
    if (d === top || dirname(d) === d) break;
  }
  const rel = relative(dir, join(project, PACKAGED_SCHEMA)).split(sep).join('/');
  return rel.startsWith('../') ? rel : `./${rel}`;
}

/**
 * Whether `bqschema` runs as a bare command in the user's shell: an executable of that name in a
 * PATH directory other than a `node_modules/.bin`, which npm and npx put on PATH only for the run
 * they start (so `npx bqschema init` must still be told to use npx).
 */
function onPath(env: NodeJS.ProcessEnv = process.env): boolean {
  const names = process.platform === 'win32' ? ['bqschema.cmd', 'bqschema.exe'] : ['bqschema'];
  for (const entry of (env.PATH ?? '').split(delimiter)) {
    if (entry === '') continue;
    const dir = resolve(entry);
    if (basename(dir) === '.bin' && basename(dirname(dir)) === 'node_modules') continue;
    for (const name of names) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        if (statSync(join(dir, name)).isFile()) return true;
      } catch {
        // not here
      }
    }
  }
  return false;
}

const shellWord = (s: string): string => (/^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

interface Planned {
  /** Where the file goes, relative to `base`; once checked, the path with in-base symlinks resolved. */
  path: string;
  /** The path as the user named it, for messages. */
  label: string;
  /** The directory it must stay inside: the target, or the repository root for the workflow. */
  base: string;
  text: string;
}

/**
 * Checks that `rel` can be created under `base` without going through a symlink that leads out of
 * it or a non-directory; returns the path with in-base symlinks resolved, and whether it exists
 * already (a dangling symlink counts: writing would go through it).
 */
function checkPath(base: string, rel: string, refuse: (problem: string) => never): { path: string; exists: boolean } {
  const parts = rel.split('/');
  let dir = base;
  for (let i = 0; i < parts.length; i++) {
    const path = join(dir, parts[i]!);
    const st = lstatOrUndefined(path, refuse);
    if (st === undefined) return { path: join(path, ...parts.slice(i + 1)), exists: false };
    if (i === parts.length - 1) return { path, exists: true };
    let real = path;
    if (st.isSymbolicLink()) {
      try {
        real = realpathSync(path);
      } catch (err) {
        refuse(`${shown(path)} is a symbolic link that cannot be followed: ${cause(err)}`);
      }
      if (!inside(base, real))
        refuse(`${shown(path)} is a symbolic link to ${clean(real)}, outside ${shown(base)}: init writes only inside it`);
    }
    if (!statSync(real).isDirectory()) refuse(`${shown(path)} exists and is not a directory`);
    dir = real;
  }
  return { path: dir, exists: true }; // unreachable: rel has at least one part
}

/** Creates the missing directories above `path`, one level at a time, recording each in `made`. */
function makeParents(path: string, made: string[]): void {
  const missing: string[] = [];
  for (let d = dirname(path); !existsSync(d); d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    mkdirSync(d); // not recursive: a directory created meanwhile is an error, not adopted
    made.push(d);
  }
}

/** Removes what `made` lists, last first; returns what could not be removed. */
function undo(made: string[]): string[] {
  const left: string[] = [];
  for (const path of made.reverse()) {
    try {
      if (lstatSync(path).isDirectory()) rmdirSync(path);
      else unlinkSync(path);
    } catch {
      left.push(path);
    }
  }
  return left;
}

/** `bqschema init [dir]`: a registry with one schema, one valid message and a CI workflow. */
export function run(options: InitOptions): number {
  const asked = resolve(options.dir ?? '.');
  const refuse = (problem: string): never => {
    throw new UsageError(`cannot initialise ${shown(asked)}: ${problem}; nothing was written`);
  };
  // The directory named is taken as it resolves (it may be a symlink the user chose); its nearest
  // existing ancestor must be a directory.
  let existing = asked;
  while (lstatOrUndefined(existing, refuse) === undefined) existing = dirname(existing);
  try {
    if (!statSync(existing).isDirectory()) refuse(existing === asked ? 'it is not a directory' : `${shown(existing)} is not a directory`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    refuse(cause(err));
  }
  const root = join(realpathSync(existing), relative(existing, asked));
  const top = repositoryRoot(realpathSync(existing));
  // GitHub reads workflows only from the repository root's .github/, so the workflow goes there.
  const sub = top === undefined ? '' : relative(top, root).split(sep).join('/');
  // GitHub evaluates ${{ }} in `with:` values, and a line break would end the YAML scalar.
  if (/\$\{\{|[\u0000-\u001f\u007f\u2028\u2029]/.test(sub)) {
    refuse(
      `its path from the repository root cannot go into a workflow (it holds \${{ or a control character): rename it, or run init at the repository root`,
    );
  }

  const ref = `v${options.version}`;
  const others = MANIFEST_NAMES.filter((n) => n !== 'registry.json' && lstatOrUndefined(join(root, n), refuse) !== undefined);
  if (others.length > 0) {
    refuse(
      `a registry is already here: ${others.map((n) => shown(join(asked, n))).join(', ')} (a registry.json beside it would shadow it in discovery); edit it instead`,
    );
  }

  const inTarget = (path: string, text: string): Planned => ({ path, label: join(asked, path), base: root, text });
  const planned: Planned[] = [
    inTarget('registry.json', json(registry(schemaRef(root, top)))),
    inTarget(SCHEMA_FILE, json(SCHEMA)),
    inTarget(MESSAGE_FILE, json(MESSAGE)),
    top === undefined
      ? inTarget(WORKFLOW_FILE, workflow(sub, ref))
      : { path: WORKFLOW_FILE, label: join(top, WORKFLOW_FILE), base: top, text: workflow(sub, ref) },
  ];
  // All or nothing: every path is checked before the first one is written.
  const taken: string[] = [];
  for (const f of planned) {
    const { path, exists } = checkPath(f.base, f.path, refuse);
    if (exists) taken.push(f.label);
    f.path = path;
  }
  if (taken.length > 0) throw new UsageError(`refusing to overwrite ${taken.map(shown).join(', ')}; nothing was written`);

  // Every file and directory created, in order, so a failure can remove them all.
  const made: string[] = [];
  for (const f of planned) {
    try {
      makeParents(f.path, made);
      const fd = openSync(f.path, 'wx'); // wx: never replace a file created meanwhile
      made.push(f.path);
      try {
        writeFileSync(fd, f.text);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      const left = undo(made);
      const after = left.length === 0 ? 'nothing was written' : `could not remove ${left.map(shown).join(', ')}`;
      throw new UsageError(`cannot write ${shown(f.label)}: ${cause(err)}; ${after}`);
    }
  }

  const lines = planned.map((f) => `created ${shown(f.label)}`);
  if (sub !== '')
    lines.push(`note: the workflow is at the repository root, where GitHub reads workflows; its steps run the registry in ${clean(sub)}`);
  const bq = onPath() ? 'bqschema' : 'npx bqschema';
  const cd = shown(asked) === '.' ? '' : `cd ${shellWord(shown(asked))} && `;
  lines.push('', `next: ${cd}${bq} check && ${bq} validate ${MESSAGE_FILE}`);
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT_OK;
}
