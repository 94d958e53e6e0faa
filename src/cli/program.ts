import { DEFAULT_LANG, LANGUAGES, languageList } from '../types/languages.js';
import { parseReport } from './report-option.js';
import { FORMAT_NAMES } from '../report/formats.js';
import { Command, Option } from 'commander';
// The names alone (levels.ts imports nothing at run time): help and completion list them from here.
import { COMPAT_LEVELS, COMPAT_POLICIES } from '../compat/levels.js';

type SetCode = (code: number) => void;

const registryOption = (): Option =>
  new Option(
    '-r, --registry <path>',
    'registry manifest (default: $BQSCHEMA_REGISTRY, else registry.json/.jsonc/.yaml/.yml here or in a parent directory)',
  );
const outsideOption = (): Option => new Option('--allow-outside-paths', 'read schema files outside the registry directory');
/** Repeatable: `--allow-keyword nullable --allow-keyword tsType`. */
const allowKeywordOption = (what: string): Option =>
  new Option('--allow-keyword <name>', `an unknown keyword used on purpose (repeatable): ${what}`).argParser(
    (name: string, previous: string[] | undefined) => [...(previous ?? []), name],
  );
const formatOption = (choices: readonly string[], fallback: string): Option =>
  new Option('-f, --format <format>', 'output format').choices(choices).default(fallback);
/** What every gate (validate, check, compat, gdpr) writes: every format of the table (src/report/formats.ts). */
const GATE_FORMATS = FORMAT_NAMES;
/** SARIF's automationDetails.id: code scanning replaces an upload's alerts only by those of the same category. */
const categoryOption = (): Option =>
  new Option(
    '--category <id>',
    "SARIF: the run's analysis category (automationDetails.id), which code scanning keeps apart from other uploads (default: bqschema/<command>/)",
  );
/** Repeatable: `--report sarif=bq.sarif --report junit=bq.xml`, beside --format on stdout. */
const reportOption = (choices: readonly string[]): Option =>
  new Option(
    '--report <format=file>',
    `also write the report in another format to a file, atomically (repeatable; formats: ${choices.join(', ')})`,
  ).argParser(parseReport(choices));

/** Values an option takes that its command checks itself (in any case): completion offers them. */
const OFFERED = new WeakMap<Option, readonly string[]>();
const offering = (option: Option, values: readonly string[]): Option => {
  OFFERED.set(option, values);
  return option;
};
/** The values completion offers for an option: its choices, or those its command checks itself. */
const offeredValues = (option: Option): readonly string[] | undefined => option.argChoices ?? OFFERED.get(option);

const or = (names: readonly string[]): string => `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
/** `--compatibility`: compat's in its lower case, serve's in Confluent's upper case; any case is read. */
const levelOption = (what: string, upper: boolean, note = ''): Option => {
  const names = upper ? COMPAT_LEVELS.map((l) => l.toUpperCase()) : COMPAT_LEVELS;
  return offering(new Option('--compatibility <level>', `${what}: ${or(names)}${note}, in any case`).default(names[0]), names);
};
const policyOption = (what: string, note = ''): Option =>
  offering(new Option('--policy <policy>', `${what}: ${or(COMPAT_POLICIES)}${note}`).default(COMPAT_POLICIES[0]), COMPAT_POLICIES);

/** `error: unknown option '--x'\n(Did you mean --y?)` as one line, without commander's `error:` prefix. */
function oneLine(message: string): string {
  return message
    .replace(/^error: /, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
}

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/** What a command's handler is given besides its arguments and options. */
interface RunContext {
  /** The program's version (init writes it into the workflow it scaffolds). */
  version: string;
}

/**
 * One row per command: the one list of commands, from which the program, its help (commander's,
 * from `summary`), the README's command list and docs/cli pages (test/cli/commands-table.test.ts) and
 * the tests that visit every command derive. Adding a command is a row here, its module under
 * commands/, its core under src/<command>, and its docs/cli page.
 */
export interface CommandSpec {
  name: string;
  /** The one-line description `bqschema --help` lists. */
  summary: string;
  /** Its arguments, options and help examples. */
  options: (command: Command) => Command;
  /** Runs it, importing its module only now: commander's arguments, then its options; the exit code. */
  // commander hands an action untyped arguments; each handler names what it takes.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (context: RunContext, ...args: any[]) => Promise<number>;
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'validate',
    summary: "validate each message's data against the schema registered for its URN",
    options: (command) =>
      command
        .argument('[paths...]', 'message files, directories (walked for *.json, *.ndjson, *.jsonl) or - for stdin')
        .addOption(registryOption())
        .option('--urn <urn>', 'validate bare data objects (no envelope) against this URN')
        .option('--ndjson', 'read stdin as one envelope per line')
        .option('--strict', 'fail when a URN has no registered schema')
        .option('--no-deprecation-warnings', 'no warning on messages of a URN the registry deprecates')
        .option('-q, --quiet', 'print only problems and the summary (text format)')
        .option(
          '--max-file-bytes <n>',
          'largest whole file or stdin document read (default 16777216: 16 MiB; a YAML message: 1/16 of it); more needs more heap, see docs/cli/validate.md',
        )
        .option('--max-line-bytes <n>', 'longest NDJSON line read (default 16777216: 16 MiB)')
        .option(
          '-j, --jobs <n>',
          'threads that parse and validate, the main thread included (default: the cores, at most 4, for 4 MiB of NDJSON or more; else 1)',
        )
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples([
            'bqschema validate --registry registry.json messages/',
            'bqschema validate --format github messages/order-created.json',
            'cat traffic.ndjson | bqschema validate --ndjson -',
            'bqschema validate --urn urn:babel:orders:created data.json',
          ]),
        ),
    handler: async (_, paths: string[], opts) => {
      const { run } = await import('./commands/validate.js');
      return run(paths, opts);
    },
  },
  {
    name: 'check',
    summary: 'self-check the registry: every entry, schema file and example',
    options: (command) =>
      command
        .addOption(registryOption())
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .option(
          '--fail-on-unsupported',
          'unsupported keywords (pattern, format, …) are errors, not warnings, but those the manifest\'s "unenforced" acknowledges; so are allowed unknown keywords',
        )
        .addOption(allowKeywordOption('a warning, not an error (any keyword named x-… is always allowed)'))
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples([
            'bqschema check --registry registry.json',
            'bqschema check --format json',
            'bqschema check --format junit > check.xml',
          ]),
        ),
    handler: async (_, opts) => {
      const { run } = await import('./commands/check.js');
      return run(opts);
    },
  },
  {
    name: 'compat',
    summary: 'gate schema changes: two schema files, or the registry against a git ref',
    options: (command) =>
      command
        .argument('[old]', 'the old schema file')
        .argument('[new]', 'the new schema file')
        .addOption(levelOption('compatibility level', false, ' (none: no change breaks)'))
        // The first name of the level; kept working, and documented as deprecated (docs/cli/compat.md).
        .addOption(
          offering(new Option('-m, --mode <level>', 'deprecated: the same as --compatibility').conflicts('compatibility'), COMPAT_LEVELS),
        )
        .addOption(policyOption('rule set', " (the registry's rules, or Confluent's JSON Schema content-model rules)"))
        .addOption(registryOption())
        .option('--against <ref>', 'compare the registry with the one at this git ref')
        .option(
          '--against-registry <path>',
          "with --against: the manifest's path at the ref, from the repository's top level (default: found as the working tree finds it, through renames and moves)",
        )
        .option(
          '--allow-new-registry',
          'with --against: when no registry is found at the ref (the change creates it), every URN is added instead of an error',
        )
        .option(
          '--mention',
          'with --against: the markdown comment mentions the teams (@org/team) of the services the failing changes reach',
        )
        .option(
          '--transitive',
          "also check each URN's new schema against every earlier version in git history: from the --against ref, or --since, or (alone) the whole history",
        )
        .option('--since <ref>', "the transitive window's start, e.g. the last release's tag (implies --transitive)")
        .option(
          '--corpus <paths...>',
          'captured envelopes (files, directories, NDJSON) checked against the new schema of every changed URN',
        )
        .option('--urn <urn>', 'with two schema files: the URN they are registered under (which corpus messages apply; exceptions)')
        .option(
          '--exceptions <file>',
          'reviewed exceptions (default: bqschema-exceptions.yaml in the registry directory when present); each holds through its expires day (UTC); BQSCHEMA_NOW=YYYY-MM-DD sets the day they are judged on',
        )
        .addOption(allowKeywordOption('the new schema may introduce it without failing the gate'))
        .option('--list-rules', 'print the compat rules (id, description, when each breaks, nearest Confluent type)')
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples([
            'bqschema compat schemas/orders-created.json schemas/orders-created.next.json',
            'bqschema compat --registry registry.json --against origin/main',
            'bqschema compat --against origin/main --corpus captured/ --format markdown > compat.md',
            'bqschema compat --against origin/main --format sarif > compat.sarif',
            'bqschema compat --against origin/main --transitive --since v1.4.0',
            'bqschema compat --list-rules --format json',
          ]),
        ),
    handler: async (_, oldFile: string | undefined, newFile: string | undefined, opts) => {
      const { run } = await import('./commands/compat.js');
      return run(oldFile, newFile, opts);
    },
  },
  {
    name: 'gdpr',
    summary: 'inventory, gate (--require) or mask (--mask) the GDPR-sensitive fields of the registry',
    options: (command) =>
      command
        .addOption(registryOption())
        .option('--require', 'fail when a PII-named field is not marked x-gdpr-sensitive')
        .option('--pattern <regex>', 'PII name pattern for --require (case-insensitive)')
        .option('--mask <file>', 'print a message with its sensitive fields masked (- for stdin)')
        .option('--urn <urn>', 'with --mask: the input is bare data of this URN')
        .option('--ndjson', 'with --mask -: stdin holds one message per line')
        .option(
          '--by-service',
          "the inventory by service: which services (the manifest's producers and consumers) handle which personal fields; text, json or markdown",
        )
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples([
            'bqschema gdpr --registry registry.json',
            'bqschema gdpr --require --format github',
            'bqschema gdpr --require --format sarif > gdpr.sarif',
            'tail -f app.ndjson | bqschema gdpr --mask - --ndjson',
          ]),
        ),
    handler: async (_, opts) => {
      const { run } = await import('./commands/gdpr.js');
      return run(opts);
    },
  },
  {
    name: 'services',
    summary: 'per service: the URNs it produces and consumes and the personal data it handles; or CODEOWNERS lines for the schema files',
    options: (command) =>
      command
        .addOption(registryOption())
        .addOption(formatOption(['text', 'json', 'markdown', 'codeowners'], 'text'))
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--consumers-review', "with --format codeowners: the consumers' teams own each schema file too, beside its producers'")
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples([
            'bqschema services --registry registry.json',
            'bqschema services --format codeowners -o .github/CODEOWNERS',
            'bqschema services --format codeowners --consumers-review -o .github/CODEOWNERS',
          ]),
        ),
    handler: async (_, opts) => {
      const { run } = await import('./commands/services.js');
      return run(opts);
    },
  },
  {
    name: 'export-asyncapi',
    summary: 'write an AsyncAPI 3.0 event catalog of the registry',
    options: (command) =>
      command
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--title <title>', 'info.title of the document')
        .option('--doc-version <version>', 'info.version of the document')
        .option(
          '--service <name>',
          "one service's document: a send operation for each URN it produces, a receive operation for each it consumes (the manifest's services)",
        )
        // Not -f/--format, which names the output style (text, json, github, …) in every other command.
        .addOption(new Option('--doc-format <format>', 'json or yaml (default: by the -o extension, else json)').choices(['json', 'yaml']))
        .option('--versions', 'give each message x-bqschema-versions: how many distinct versions its schema file has had in git')
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples([
            'bqschema export-asyncapi --registry registry.json -o asyncapi.json',
            'bqschema export-asyncapi -o catalog.yaml --title "Orders events" --doc-version 2.1.0',
          ]),
        ),
    handler: async (_, opts) => {
      const { run } = await import('./commands/export-asyncapi.js');
      return run(opts);
    },
  },
  {
    name: 'serve',
    summary: 'serve the registry over a read-only Confluent-compatible REST API',
    options: (command) =>
      command
        .addOption(registryOption())
        .option('--host <host>', 'address to bind', '127.0.0.1')
        .option('--port <port>', 'port to listen on', '8081')
        .addOption(levelOption('compatibility level reported by /config and used by /compatibility', true))
        .addOption(policyOption('rule set /compatibility applies'))
        .option('--verbose', 'log one line per request to stderr')
        .option('--catalog', 'also serve the HTML event catalog at /catalog')
        .option(
          '--history',
          "each distinct schema of a URN in the registry's git history is a version (/versions lists them; ids stable per content)",
        )
        .option('--max-connections <n>', 'most connections open at once; more are closed on arrival (default 512)')
        .option(
          '--max-pending-bytes <n>',
          'most bytes held by request bodies still arriving, over all connections; past it a body is answered 503 (default 67108864: 64 MiB)',
        )
        .addOption(allowKeywordOption('a schema posted to /compatibility may introduce it (else 422, as compat fails it)'))
        .addOption(outsideOption())
        .addHelpText('after', examples(['bqschema serve --registry registry.json --port 8081'])),
    handler: async (_, opts) => {
      const { run } = await import('./commands/serve.js');
      return run(opts);
    },
  },
  {
    name: 'types',
    summary:
      'generate types for every URN: TypeScript with a BqMessages map (for typed check/wrap), or Go, Python, Java, C# or PHP with --lang',
    options: (command) =>
      command
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--check', 'with -o: exit 1 when the file is not what would be written (for CI)')
        .addOption(
          new Option('--lang <lang>', `the language: ${languageList()}; standard library only`)
            .choices(LANGUAGES.map((l) => l.lang))
            .default(DEFAULT_LANG),
        )
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples([
            'bqschema types --registry registry.json -o src/bq-types.ts',
            'bqschema types -o src/bq-types.ts --check',
            'bqschema types --lang go -o bqtypes/bqtypes.go',
          ]),
        ),
    handler: async (_, opts) => {
      const { runTypes } = await import('./commands/types.js');
      return runTypes(opts);
    },
  },
  {
    name: 'compile',
    summary: 'write a standalone ES module of validators for every URN, usable where eval and new Function are forbidden (CSP, Workers)',
    options: (command) =>
      command
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--check', 'with -o: exit 1 when the file is not what would be written (for CI)')
        .addOption(outsideOption())
        .addHelpText(
          'after',
          examples(['bqschema compile --registry registry.json -o src/validators.js', 'bqschema compile -o src/validators.js --check']),
        ),
    handler: async (_, opts) => {
      const { runCompile } = await import('./commands/compile.js');
      return runCompile(opts);
    },
  },
  {
    name: 'catalog',
    summary: 'write a self-contained HTML event catalog of the registry',
    options: (command) =>
      command
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--title <title>', 'title of the catalog')
        .option('--messages <paths...>', 'example messages (files or directories of envelopes) to show under their URN')
        .option('--no-history', 'leave out the compat history read from git')
        .addOption(outsideOption())
        .addHelpText('after', examples(['bqschema catalog --registry registry.json --messages examples/messages -o catalog.html'])),
    handler: async (_, opts) => {
      const { runCatalog } = await import('./commands/catalog-command.js');
      return runCatalog(opts);
    },
  },
  {
    name: 'init',
    summary: 'scaffold a registry: registry.json, one schema, one valid example message and a CI workflow',
    options: (command) =>
      command
        .argument('[dir]', 'the directory to scaffold (created when missing)', '.')
        .addHelpText('after', examples(['bqschema init', 'bqschema init schemas-registry'])),
    handler: async (context, dir: string) => {
      const { run } = await import('./commands/init.js');
      return run({ dir, version: context.version });
    },
  },
  {
    name: 'completion',
    summary: 'print a shell completion script (bash or zsh) for commands, options and their values',
    options: (command) =>
      command
        .argument('[shell]', 'bash (default) or zsh')
        .addHelpText(
          'after',
          examples([
            'bqschema completion bash > ~/.local/share/bash-completion/completions/bqschema',
            'bqschema completion zsh > "${fpath[1]}/_bqschema"',
          ]),
        ),
    handler: async (context, shell: string | undefined) => {
      const { run } = await import('./commands/completion.js');
      // Every command, whichever this run defined: the script completes them all.
      return run(shell, await buildProgram(context.version, () => {}), offeredValues);
    },
  },
  {
    name: 'conformance',
    summary: "run the cross-SDK conformance suite through another implementation's adapter",
    options: (command) =>
      command
        .option('--impl <command>', "the command that runs your implementation's adapter (line protocol on stdin/stdout)")
        .option('--out <file>', 'results file to write', 'results.json')
        .option(
          '--suite <path>',
          'the suite: its directory (manifest.json and CONFORMANCE_VERSION) or its manifest.json (default: the copy shipped in this package)',
        )
        .option('--timeout <ms>', 'time one answer may take', '10000')
        .option('--max-line-bytes <n>', 'longest line the adapter may write (default 16777216: 16 MiB)')
        .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
        .addHelpText('after', examples(['bqschema conformance --impl "python3 adapter.py" --out results.json'])),
    handler: async (_, opts) => {
      const { run } = await import('./commands/conformance.js');
      return run(opts);
    },
  },
];

/**
 * The commander program; each command's code is imported only when it runs. When `argv` starts
 * with a command's name, only that command is defined (the others would only be listed by the
 * program's own help, which such a run never shows); else all of them, in order.
 */
export async function buildProgram(version: string, setCode: SetCode, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('bqschema')
    .description('Validate BabelQueue message payloads against a git-tracked schema registry.')
    .version(version, '-V, --version')
    .exitOverride()
    .showSuggestionAfterError()
    // Commander's own errors become one `bqschema: …` line, like every other error.
    .configureOutput({ outputError: (message, write) => write(`bqschema: ${oneLine(message)}\n`) })
    .configureHelp({ sortSubcommands: false });

  const context: RunContext = { version };
  const invoked = COMMANDS.find((c) => c.name === argv[0]);
  for (const spec of invoked ? [invoked] : COMMANDS) {
    spec
      .options(program.command(spec.name).description(spec.summary))
      .action(async (...args: unknown[]) => setCode(await spec.handler(context, ...args)));
  }
  return program;
}
