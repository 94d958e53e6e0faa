import { parseReport } from './report-option.js';
import { Command, Option } from 'commander';

type SetCode = (code: number) => void;

const registryOption = (): Option =>
  new Option('-r, --registry <path>', 'registry manifest (default: $BQSCHEMA_REGISTRY, else registry.json/.jsonc/.yaml/.yml here or in a parent directory)');
const outsideOption = (): Option =>
  new Option('--allow-outside-paths', 'read schema files outside the registry directory');
/** Repeatable: `--allow-keyword nullable --allow-keyword tsType`. */
const allowKeywordOption = (what: string): Option =>
  new Option('--allow-keyword <name>', `an unknown keyword used on purpose (repeatable): ${what}`)
    .argParser((name: string, previous: string[] | undefined) => [...(previous ?? []), name]);
const formatOption = (choices: string[], fallback: string): Option =>
  new Option('-f, --format <format>', 'output format').choices(choices).default(fallback);
/** What every gate (validate, check, compat, gdpr) writes: its own text and json, and its Report's formats. */
const GATE_FORMATS = ['text', 'json', 'github', 'markdown', 'sarif', 'junit'];
/** SARIF's automationDetails.id: code scanning replaces an upload's alerts only by those of the same category. */
const categoryOption = (): Option =>
  new Option('--category <id>', "SARIF: the run's analysis category (automationDetails.id), which code scanning keeps apart from other uploads (default: bqschema/<command>/)");
/** Repeatable: `--report sarif=bq.sarif --report junit=bq.xml`, beside --format on stdout. */
const reportOption = (choices: string[]): Option =>
  new Option('--report <format=file>', `also write the report in another format to a file, atomically (repeatable; formats: ${choices.join(', ')})`)
    .argParser(parseReport(choices));

/** `error: unknown option '--x'\n(Did you mean --y?)` as one line, without commander's `error:` prefix. */
function oneLine(message: string): string {
  return message.replace(/^error: /, '').split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ');
}

function examples(lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/** Each command: its name, and what adds it (options, help, action) to the program. */
const COMMANDS: Array<[string, (program: Command, setCode: SetCode) => void]> = [
  [
    'validate',
    (program, setCode) => {
      program
        .command('validate')
        .description("validate each message's data against the schema registered for its URN")
        .argument('[paths...]', 'message files, directories (walked for *.json, *.ndjson, *.jsonl) or - for stdin')
        .addOption(registryOption())
        .option('--urn <urn>', 'validate bare data objects (no envelope) against this URN')
        .option('--ndjson', 'read stdin as one envelope per line')
        .option('--strict', 'fail when a URN has no registered schema')
        .option('--no-deprecation-warnings', 'no warning on messages of a URN the registry deprecates')
        .option('-q, --quiet', 'print only problems and the summary (text format)')
        .option('--max-file-bytes <n>', 'largest whole file or stdin document read (default 16777216: 16 MiB; a YAML message: 1/16 of it); more needs more heap, see docs/cli/validate.md')
        .option('--max-line-bytes <n>', 'longest NDJSON line read (default 16777216: 16 MiB)')
        .option('-j, --jobs <n>', 'threads that parse and validate, the main thread included (default: the cores, at most 4, for 4 MiB of NDJSON or more; else 1)')
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .addOption(outsideOption())
        .addHelpText('after', examples([
          'bqschema validate --registry registry.json messages/',
          'bqschema validate --format github messages/order-created.json',
          'cat traffic.ndjson | bqschema validate --ndjson -',
          'bqschema validate --urn urn:babel:orders:created data.json',
        ]))
        .action(async (paths: string[], opts) => {
          const { run } = await import('./commands/validate.js');
          setCode(await run(paths, opts));
        });
    },
  ],
  [
    'check',
    (program, setCode) => {
      program
        .command('check')
        .description('self-check the registry: every entry, schema file and example')
        .addOption(registryOption())
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .option('--fail-on-unsupported', 'unsupported keywords (pattern, format, …) are errors, not warnings, but those the manifest\'s "unenforced" acknowledges; so are allowed unknown keywords')
        .addOption(allowKeywordOption('a warning, not an error (any keyword named x-… is always allowed)'))
        .addOption(outsideOption())
        .addHelpText('after', examples(['bqschema check --registry registry.json', 'bqschema check --format json', 'bqschema check --format junit > check.xml']))
        .action(async (opts) => {
          const { run } = await import('./commands/check.js');
          setCode(await run(opts));
        });
    },
  ],
  [
    'compat',
    (program, setCode) => {
      program
        .command('compat')
        .description('gate schema changes: two schema files, or the registry against a git ref')
        .argument('[old]', 'the old schema file')
        .argument('[new]', 'the new schema file')
        .option('-m, --mode <mode>', 'compatibility level: backward, forward, full or none (no change breaks), in any case', 'backward')
        .option('--policy <policy>', 'rule set: bqschema (the registry\'s rules) or confluent (Confluent\'s JSON Schema content-model rules)', 'bqschema')
        .addOption(registryOption())
        .option('--against <ref>', 'compare the registry with the one at this git ref')
        .option('--against-registry <path>', 'with --against: the manifest\'s path at the ref, from the repository\'s top level (default: found as the working tree finds it, through renames and moves)')
        .option('--allow-new-registry', 'with --against: when no registry is found at the ref (the change creates it), every URN is added instead of an error')
        .option('--corpus <paths...>', 'captured envelopes (files, directories, NDJSON) checked against the new schema of every changed URN')
        .option('--urn <urn>', 'with two schema files: the URN they are registered under (which corpus messages apply; exceptions)')
        .option('--exceptions <file>', 'reviewed exceptions (default: bqschema-exceptions.yaml in the registry directory when present); each holds through its expires day (UTC); BQSCHEMA_NOW=YYYY-MM-DD sets the day they are judged on')
        .addOption(allowKeywordOption('the new schema may introduce it without failing the gate'))
        .option('--list-rules', 'print the compat rules (id, description, when each breaks, nearest Confluent type)')
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .addOption(outsideOption())
        .addHelpText('after', examples([
          'bqschema compat schemas/orders-created.json schemas/orders-created.next.json',
          'bqschema compat --registry registry.json --against origin/main',
          'bqschema compat --against origin/main --corpus captured/ --format markdown > compat.md',
          'bqschema compat --against origin/main --format sarif > compat.sarif',
          'bqschema compat --list-rules --format json',
        ]))
        .action(async (oldFile: string | undefined, newFile: string | undefined, opts) => {
          const { run } = await import('./commands/compat.js');
          setCode(await run(oldFile, newFile, opts));
        });
    },
  ],
  [
    'gdpr',
    (program, setCode) => {
      program
        .command('gdpr')
        .description('inventory, gate (--require) or mask (--mask) the GDPR-sensitive fields of the registry')
        .addOption(registryOption())
        .option('--require', 'fail when a PII-named field is not marked x-gdpr-sensitive')
        .option('--pattern <regex>', 'PII name pattern for --require (case-insensitive)')
        .option('--mask <file>', 'print a message with its sensitive fields masked (- for stdin)')
        .option('--urn <urn>', 'with --mask: the input is bare data of this URN')
        .option('--ndjson', 'with --mask -: stdin holds one message per line')
        .addOption(formatOption(GATE_FORMATS, 'text'))
        .addOption(reportOption(GATE_FORMATS))
        .addOption(categoryOption())
        .addOption(outsideOption())
        .addHelpText('after', examples([
          'bqschema gdpr --registry registry.json',
          'bqschema gdpr --require --format github',
          'bqschema gdpr --require --format sarif > gdpr.sarif',
          'tail -f app.ndjson | bqschema gdpr --mask - --ndjson',
        ]))
        .action(async (opts) => {
          const { run } = await import('./commands/gdpr.js');
          setCode(await run(opts));
        });
    },
  ],
  [
    'export-asyncapi',
    (program, setCode) => {
      program
        .command('export-asyncapi')
        .description('write an AsyncAPI 3.0 event catalog of the registry')
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--title <title>', 'info.title of the document')
        .option('--doc-version <version>', 'info.version of the document')
        // Not -f/--format, which names the output style (text, json, github, …) in every other command.
        .addOption(new Option('--doc-format <format>', 'json or yaml (default: by the -o extension, else json)').choices(['json', 'yaml']))
        .option('--versions', "give each message x-bqschema-versions: how many distinct versions its schema file has had in git")
        .addOption(outsideOption())
        .addHelpText('after', examples([
          'bqschema export-asyncapi --registry registry.json -o asyncapi.json',
          'bqschema export-asyncapi -o catalog.yaml --title "Orders events" --doc-version 2.1.0',
        ]))
        .action(async (opts) => {
          const { run } = await import('./commands/export-asyncapi.js');
          setCode(await run(opts));
        });
    },
  ],
  [
    'serve',
    (program, setCode) => {
      program
        .command('serve')
        .description('serve the registry over a read-only Confluent-compatible REST API')
        .addOption(registryOption())
        .option('--host <host>', 'address to bind', '127.0.0.1')
        .option('--port <port>', 'port to listen on', '8081')
        .option('--compatibility <level>', 'compatibility level reported by /config and used by /compatibility: BACKWARD, FORWARD, FULL or NONE, in any case', 'BACKWARD')
        .option('--policy <policy>', 'rule set /compatibility applies: bqschema or confluent', 'bqschema')
        .option('--verbose', 'log one line per request to stderr')
        .option('--catalog', 'also serve the HTML event catalog at /catalog')
        .option('--max-connections <n>', 'most connections open at once; more are closed on arrival (default 512)')
        .option('--max-pending-bytes <n>', 'most bytes held by request bodies still arriving, over all connections; past it a body is answered 503 (default 67108864: 64 MiB)')
        .addOption(allowKeywordOption('a schema posted to /compatibility may introduce it (else 422, as compat fails it)'))
        .addOption(outsideOption())
        .addHelpText('after', examples(['bqschema serve --registry registry.json --port 8081']))
        .action(async (opts) => {
          const { run } = await import('./commands/serve.js');
          setCode(await run(opts));
        });
    },
  ],
  [
    'types',
    (program, setCode) => {
      program
        .command('types')
        .description('generate types for every URN: TypeScript with a BqMessages map (for typed check/wrap), or Go, Python, Java, C# or PHP with --lang')
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--check', 'with -o: exit 1 when the file is not what would be written (for CI)')
        .addOption(new Option('--lang <lang>', 'the language: ts (TypeScript), go (structs with json tags), python (TypedDict, 3.11), java (records, 17), csharp (C# 7 DataContract classes) or php (readonly classes, 8.2); standard library only').choices(['ts', 'go', 'python', 'java', 'csharp', 'php']).default('ts'))
        .addOption(outsideOption())
        .addHelpText('after', examples(['bqschema types --registry registry.json -o src/bq-types.ts', 'bqschema types -o src/bq-types.ts --check', 'bqschema types --lang go -o bqtypes/bqtypes.go']))
        .action(async (opts) => {
          const { runTypes } = await import('./commands/types.js');
          setCode(await runTypes(opts));
        });
    },
  ],
  [
    'compile',
    (program, setCode) => {
      program
        .command('compile')
        .description('write a standalone ES module of validators for every URN, usable where eval and new Function are forbidden (CSP, Workers)')
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--check', 'with -o: exit 1 when the file is not what would be written (for CI)')
        .addOption(outsideOption())
        .addHelpText('after', examples(['bqschema compile --registry registry.json -o src/validators.js', 'bqschema compile -o src/validators.js --check']))
        .action(async (opts) => {
          const { runCompile } = await import('./commands/compile.js');
          setCode(await runCompile(opts));
        });
    },
  ],
  [
    'catalog',
    (program, setCode) => {
      program
        .command('catalog')
        .description('write a self-contained HTML event catalog of the registry')
        .addOption(registryOption())
        .option('-o, --output <file>', 'write to this file (atomically) instead of stdout')
        .option('--title <title>', 'title of the catalog')
        .option('--messages <paths...>', 'example messages (files or directories of envelopes) to show under their URN')
        .option('--no-history', 'leave out the compat history read from git')
        .addOption(outsideOption())
        .addHelpText('after', examples(['bqschema catalog --registry registry.json --messages examples/messages -o catalog.html']))
        .action(async (opts) => {
          const { runCatalog } = await import('./commands/catalog-command.js');
          setCode(await runCatalog(opts));
        });
    },
  ],
  [
    'init',
    (program, setCode) => {
      program
        .command('init')
        .description('scaffold a registry: registry.json, one schema, one valid example message and a CI workflow')
        .argument('[dir]', 'the directory to scaffold (created when missing)', '.')
        .addHelpText('after', examples(['bqschema init', 'bqschema init schemas-registry']))
        .action(async (dir: string) => {
          const { run } = await import('./commands/init.js');
          setCode(run({ dir, version: program.version() ?? '' }));
        });
    },
  ],
  [
    'conformance',
    (program, setCode) => {
      program
        .command('conformance')
        .description("run the cross-SDK conformance suite through another implementation's adapter")
        .option('--impl <command>', "the command that runs your implementation's adapter (line protocol on stdin/stdout)")
        .option('--out <file>', 'results file to write', 'results.json')
        .option('--suite <path>', "the suite: its directory (manifest.json and CONFORMANCE_VERSION) or its manifest.json (default: the copy shipped in this package)")
        .option('--timeout <ms>', 'time one answer may take', '10000')
        .option('--max-line-bytes <n>', 'longest line the adapter may write (default 16777216: 16 MiB)')
        .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
        .addHelpText('after', examples(['bqschema conformance --impl "python3 adapter.py" --out results.json']))
        .action(async (opts) => {
          const { run } = await import('./commands/conformance.js');
          setCode(await run(opts));
        });
    },
  ],
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

  const invoked = COMMANDS.find(([name]) => name === argv[0]);
  for (const [, define] of invoked ? [invoked] : COMMANDS) define(program, setCode);
  return program;
}
