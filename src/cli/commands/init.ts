import { lstatSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { display } from '../../registry/index.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { clean } from '../output.js';

export interface InitOptions {
  /** The directory to scaffold (created when missing). */
  dir?: string;
}

const SCHEMA_FILE = 'schemas/orders-created.json';
const MESSAGE_FILE = 'messages/orders-created.json';

const REGISTRY = {
  // Resolves once bqschema is a dependency of the project; bqschema itself ignores the key.
  $schema: './node_modules/bqschema/registry.schema.json',
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

// compat --against origin/main reads the registry at that ref: the checkout needs the history.
const WORKFLOW = `name: bqschema
on:
  pull_request:
  push:
    branches: [main]
jobs:
  schemas:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - name: Self-check the registry
        uses: babelqueue/bqschema@v1
        with:
          command: check
      - name: Validate the example messages
        uses: babelqueue/bqschema@v1
        with:
          command: validate
          args: messages/
      - name: Gate schema changes against main
        if: github.event_name == 'pull_request'
        uses: babelqueue/bqschema@v1
        with:
          command: compat
          args: --against origin/main
`;

const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';

/** The files `init` writes, relative to its directory, in the order they are listed. */
export const INIT_FILES: ReadonlyArray<{ path: string; text: string }> = [
  { path: 'registry.json', text: json(REGISTRY) },
  { path: SCHEMA_FILE, text: json(SCHEMA) },
  { path: MESSAGE_FILE, text: json(MESSAGE) },
  { path: '.github/workflows/bqschema.yml', text: WORKFLOW },
];

function exists(path: string): boolean {
  try {
    lstatSync(path); // a dangling symlink counts: writing would go through it
    return true;
  } catch {
    return false;
  }
}

/** A path as shown to the user: relative to the working directory when inside it, `.` for it. */
function shown(path: string): string {
  return clean(resolve(path) === process.cwd() ? '.' : display(path));
}

/** `bqschema init [dir]`: a registry with one schema, one valid message and a CI workflow. */
export function run(options: InitOptions): number {
  const root = resolve(options.dir ?? '.');
  try {
    if (!statSync(root).isDirectory()) throw new UsageError(`cannot initialise ${shown(root)}: it is not a directory; nothing was written`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`cannot initialise ${shown(root)}: ${(err as Error).message}; nothing was written`);
  }
  // All or nothing: every target is checked before the first one is written.
  const taken = INIT_FILES.map((f) => join(root, f.path)).filter(exists);
  if (taken.length > 0) {
    throw new UsageError(`refusing to overwrite ${taken.map(shown).join(', ')}; nothing was written`);
  }
  const lines: string[] = [];
  for (const f of INIT_FILES) {
    const path = join(root, f.path);
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.text, { flag: 'wx' }); // wx: never replace a file created meanwhile
    } catch (err) {
      throw new UsageError(`cannot write ${shown(path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    lines.push(`created ${shown(path)}`);
  }
  const cd = shown(root) === '.' ? '' : `cd ${shown(root)} && `;
  lines.push('', `next: ${cd}bqschema check && bqschema validate ${MESSAGE_FILE}`);
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT_OK;
}
